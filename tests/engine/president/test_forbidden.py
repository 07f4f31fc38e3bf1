"""T8 seen ahead (engine.president.forbidden): which plays leave only forbidden last cards."""

from engine.president.forbidden import stranded


def test_T8_a_play_leaving_only_twos_strands_the_hand() -> None:
    assert stranded(["3d", "3h", "3s", "2c"], ["3d", "3h", "3s"], False) == ("2c",)
    assert stranded(["3d", "3h", "2s", "2c"], ["3d", "3h"], False) == ("2s", "2c")
    assert stranded(["3d", "3h", "3s", "2c"], ["2c"], False) == ()
    assert stranded(["2c"], ["2c"], False) == ()  # going out: nothing left to strand


def test_T8_T10_in_revolution_the_three_is_forbidden_and_a_quad_turns_the_order() -> None:
    assert stranded(["2d", "3c"], ["2d"], True) == ("3c",)
    assert stranded(["2d", "3c"], ["2d"], False) == ()
    # a quad reverses the order (T10): the 2 left is then allowed, a 3 left is not
    assert stranded(["9c", "9d", "9h", "9s", "2c"], ["9c", "9d", "9h", "9s"], False) == ()
    assert stranded(["9c", "9d", "9h", "9s", "3c"], ["9c", "9d", "9h", "9s"], False) == ("3c",)
