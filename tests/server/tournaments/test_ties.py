"""Ties broken by the event's seed."""

from server.tournaments.ties import tie_key


def test_the_same_seed_and_salt_give_the_same_key() -> None:
    assert tie_key("s", "1", "ann") == tie_key("s", "1", "ann")
    assert tie_key("s", "1", "ann") != tie_key("s", "2", "ann")
    assert tie_key("s", "1", "ann") != tie_key("t", "1", "ann")
    # the separator keeps (seed, salt, name) apart
    assert tie_key("s", "1a", "nn") != tie_key("s", "1", "ann")
