"""The reader's turn rings once, fits and says what to do; the table is drawn again only when it matters."""

from __future__ import annotations

import pytest

from server.messages import LANGS
from server.messages.terminal import TermStyle, strip_ansi
from server.presenters.text.alerts import countdown_line, countdown_marks, state_update, your_turn_alert
from tests.server.presenters.text.samples import LONG_NAMES, STYLES, check


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("what", ["play", "lead", "cut", "give", "turn", "sell", "bid"])
def test_your_turn_alert_rings_and_fits(lang, what):
    for style in STYLES:
        text = your_turn_alert(lang, style, what, seconds=25, top=["Qh", "Qs"], count=2)
        assert text.startswith("\a")
        check(text, style)
        assert "…" not in text and "~" not in text, "the alert wraps, never cuts"
        assert "25 s" in strip_ansi(text).replace("\u00a0", " ")
        if style.color:
            assert "\x1b[7m" in text


def test_countdown_marks_do_not_flood():
    assert countdown_marks(60) == (30, 10, 5)
    assert countdown_marks(33) == (10, 5)  # a 30 s turn after a 3 s cut window: no "30 s left" at once
    assert countdown_marks(20) == (10, 5)
    assert countdown_marks(9) == ()
    for lang in LANGS:
        for style in STYLES:
            check(countdown_line(lang, style, 10), style)
    assert "10" in countdown_line("fr", TermStyle(), 10)


def _table(**changes):
    """A tdc state as a table sends it; tests add what the reader's view says (decision, must, give)."""
    state = {
        "game": "president", "rules": "tdc", "round": 1, "phase": "play", "you": 0, "turn": 1, "room": 3,
        "deadline": 20, "order": "normal", "hand": ["3c", "7c", "7h", "7s", "Kd"], "cut": None,
        "trick": [{"seat": 3, "cards": ["5c"]}],
        "seats": [{"seat": i, "name": n, "cards": 5, "title": None, "score": 0} for i, n in enumerate(LONG_NAMES[:4])],
    }
    state.update(changes)
    return state


def test_state_update_draws_the_table_only_when_it_matters():
    style = TermStyle(80, True, False)
    first = _table()
    assert "Bartholomew" in state_update(None, first, "en", style)  # first sight, or the state command
    # someone else's move that does not concern the reader: the events tell it, no table
    other = _table(turn=2, trick=[{"seat": 3, "cards": ["5c"]}, {"seat": 1, "pass": True}])
    assert state_update(first, other, "en", style) == ""
    assert state_update(other, dict(other), "en", style) == ""
    # the reader's turn: table, bell, one highlighted line with the play to beat and the time left
    mine = _table(turn=0, trick=[{"seat": 3, "cards": ["5c"]}, {"seat": 1, "cards": ["9d"]}], decision="follow")
    text = state_update(other, mine, "fr", style)
    assert "Votre main" in text and "\a" in text
    assert "battez 9♦ (1 carte) ou tapez passe. (20 s)" in text.replace("\u00a0", " ")
    assert "jouez ou passez" not in text  # the status line gives way to the alert
    # "that or nothing" (P7, T6)
    same = _table(turn=0, trick=[{"seat": 2, "cards": ["9c"]}, {"seat": 1, "cards": ["9d"]}], decision="follow",
                  must="9")
    assert "ça ou rien" in state_update(other, same, "fr", style)
    # leading
    lead = _table(turn=0, trick=[], decision="lead")
    assert "vous entamez" in state_update(other, lead, "fr", style)
    jacks = _table(turn=0, trick=[], decision="lead", hand=["Jc", "Jh", "Qs", "2d"])
    assert "(par exemple V V)" in state_update(other, jacks, "fr", style).replace("\u00a0", " ")
    assert "(por ejemplo J J)" in state_update(other, jacks, "es", style)
    # a cut becomes possible out of turn (T9)
    cut = _table(turn=2, trick=[{"seat": 1, "cards": ["7d"]}], cut=["7c", "7h", "7s"])
    text = state_update(other, cut, "es", style)
    assert "\a" in text and "cortar" in text.lower()
    # a new round: the table without a bell
    new_round = _table(round=2, turn=1, trick=[])
    text = state_update(other, new_round, "en", style)
    assert "Your hand" in text and "\a" not in text
    # exchange: choose the cards to give back (T12)
    give = _table(round=2, phase="exchange", turn=None, trick=[], decision="give", give=2,
                  seats=[{"seat": 0, "name": "Zoé", "cards": 5, "title": "president"}])
    assert "choose 2 cards to give back (give followed by the cards)" in state_update(other, give, "en", style)


def test_state_update_in_speculation():
    style = TermStyle(60, False, False)
    base = {"game": "speculation", "round": 1, "you": 0, "turn": 1, "auction": None, "offers": [],
            "seats": [{"seat": i, "name": n, "chips": 10, "faceup": [], "facedown": 3} for i, n in
                      enumerate(["Zoé", "Bob", "Carmen"])], "trump": "h", "pool": 4}
    mine = {**base, "turn": 0, "decision": "turn"}
    text = state_update(base, mine, "en", style)
    assert "\a" in text and "turn your top card" in text
    sale = {**base, "turn": None, "decision": "auction",
            "auction": {"seat": 0, "card": "Qh", "best_bid": 0, "bidder": None, "deadline": 8}}
    text = state_update(base, sale, "fr", style)
    assert "\a" in text and "vendre" in text and "garder" in text and "(8 s)" in text
    theirs = {**base, "turn": None, "auction": {"seat": 1, "card": "Qh", "best_bid": 0, "bidder": None}}
    text = state_update(base, theirs, "es", style)
    assert "Subasta de Qh (Bob)" in text and "\a" not in text


def test_state_update_alerts_again_when_the_turn_comes_back():
    """Speculation: with everybody else out of face-down cards the turn stays with the reader (S8)."""
    style = TermStyle(60, True, False)
    seats = [{"seat": 0, "name": "Zoé", "chips": 10, "faceup": ["4c"], "facedown": 2},
             {"seat": 1, "name": "Bob", "chips": 10, "faceup": ["Qh"], "facedown": 0}]
    before = {"game": "speculation", "round": 1, "you": 0, "turn": 0, "auction": None, "seats": seats,
              "decision": "turn"}
    after = {**before, "seats": [dict(seats[0], faceup=["4c", "9d"], facedown=1), seats[1]]}
    assert "\a" in state_update(before, after, "en", style)
    assert state_update(after, dict(after), "en", style) == ""
    chat_only = {**after, "seats": [dict(s, connected=False) for s in after["seats"]]}
    assert state_update(after, chat_only, "en", style) == ""
