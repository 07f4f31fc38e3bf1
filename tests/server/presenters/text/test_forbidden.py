"""T8 seen ahead at a tdc table: the hint never suggests a play that leaves only forbidden last
cards, and such a play is said first and made when typed again."""

from __future__ import annotations

from server.messages.terminal import TermStyle
from server.presenters import Local, Request
from server.presenters.text import TextPresenter
from server.presenters.text.alerts import state_update
from tests.server.presenters.text.test_presenter import Viewer, _state

HAND = ["3d", "3h", "3s", "2c"]


def _lead(**changes: object) -> dict[str, object]:
    return _state(hand=HAND, trick=[], turn=0, decision="lead", **changes)


def test_T8_the_lead_hint_never_suggests_three_threes_that_leave_a_lone_two() -> None:
    text = state_update(_state(), _lead(), "es", TermStyle(80, True, False))
    assert "por ejemplo 2)" in text and "3 3 3" not in text
    # the classic table has no forbidden last card (P): the weakest rank, as always
    assert "por ejemplo 3 3 3)" in state_update(_state(), _lead(rules="classic"), "es", TermStyle(80, True, False))
    # in revolution (T10) the 3 is the forbidden one: the weakest, the 2, would leave 3 3 3; not suggested
    rev = state_update(_state(), _lead(order="reversed"), "es", TermStyle(80, True, False))
    assert "por ejemplo 3 3 3)" in rev


def test_T8_a_play_that_leaves_only_a_forbidden_card_asks_first_then_plays_when_typed_again() -> None:
    p = TextPresenter(Viewer(_lead(), lang="es"))
    first = p.read("3 3 3")
    assert isinstance(first, Local)
    said = first.text.replace("\u00a0", " ")
    assert "solo te quedaría 2♣" in said and "última carta prohibida" in said and "«3 3 3» otra vez" in said
    assert p.read("3 3 3") == Request("play", {"cards": ["3d", "3h", "3s"]})
    # another line in between: asked again
    p.read("3 3 3")
    p.read("ayuda")
    assert isinstance(p.read("3 3 3"), Local)
    # a play that leaves a card one may go out on is played at once
    assert TextPresenter(Viewer(_lead(), lang="es")).read("2") == Request("play", {"cards": ["2c"]})
    assert TextPresenter(Viewer(_lead(rules="classic"), lang="es")).read("3 3 3") == Request(
        "play", {"cards": ["3d", "3h", "3s"]})
