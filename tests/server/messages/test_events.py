"""One sentence per event, speaking to its reader, in every language."""

from __future__ import annotations

import re

import pytest

from server.messages import (
    LANGS,
    event_text,
    labels,
    translation,
)

NAMES = ["Zoé", "Bob", "Carmen", "Dmitri"]


# --------------------------------------------------------------------------- events

EVENTS = [
    {"event": "dealt", "round": 2, "dealer": 1, "present": [0, 1, 2, 3], "counts": [13] * 4,
     "hands": [["3c", "4d"], None, None, None], "commitment": "ab", "stake": 0},
    {"event": "exchange", "from": 3, "to": 0, "count": 2, "cards": ["2s", "Ah"]},
    {"event": "exchange", "from": 0, "to": 3, "count": 2, "cards": ["3c", "4d"]},
    {"event": "exchange", "from": 2, "to": 1, "count": 1},
    {"event": "played", "seat": 1, "cards": ["7c", "7h"], "remaining": 5},
    {"event": "passed", "seat": 2},
    {"event": "cut", "seat": 3, "cards": ["7d", "7s"], "remaining": 1},
    {"event": "trick_closed", "by": 3, "leader": 3, "reason": "cut"},
    {"event": "out", "seat": 1, "place": 1, "forbidden": False},
    {"event": "out", "seat": 2, "place": 2, "forbidden": True},
    {"event": "revolution", "seat": 1, "order": "reversed"},
    {"event": "revolution", "seat": 2, "order": "normal"},
    {"event": "timeout", "seat": 2, "passive": True, "kind": "turn"},
    {"event": "timeout", "seat": 0, "passive": False, "kind": "give"},
    {"event": "round_over", "round": 1, "ranking": [1, 0, 3, 2], "titles": ["vice_president", "president", "last",
     "vice_last"], "scores": [2, 3, 0, 1], "totals": [2, 3, 0, 1], "chips": [1, 2, -2, -1], "hands": [[], [], ["5c"],
     []], "stake": 2, "seed": "00"},
    {"event": "match_over", "winners": [1], "totals": [8, 12, 3, 5]},
    {"event": "match_over", "winners": [0, 1], "totals": [12, 12, 3, 5]},
    {"event": "ante", "payments": [{"seat": 0, "amount": 2}, {"seat": 1, "amount": 1}], "pool": 3},
    {"event": "dealt", "round": 1, "dealer": 0, "players": [0, 1, 2], "facedown": [3, 3, 3, 0]},
    {"event": "trump", "seat": 0, "card": "9h", "suit": "h"},
    {"event": "turned", "seat": 1, "card": "Qh", "best": True},
    {"event": "turned", "seat": 2, "card": "4c", "best": False},
    {"event": "auction", "seat": 1, "card": "Qh"},
    {"event": "bid", "seat": 2, "amount": 3},
    {"event": "sold", "seat": 1, "to": 2, "card": "Qh", "price": 3},
    {"event": "kept", "seat": 1, "card": "Qh", "timeout": True},
    {"event": "offered", "offer": 4, "from": 2, "to": 0, "cards": 2, "price": 5},
    {"event": "declined", "offer": 4, "seat": 0},
    {"event": "withdrawn", "offer": 4, "seat": 2},
    {"event": "lapsed", "offer": 4, "reason": "cards"},
    {"event": "traded", "offer": 4, "from": 2, "to": 0, "cards": 2, "price": 5},
    {"event": "pool_won", "seat": 2, "amount": 6, "card": "Qh", "reason": "end"},
    {"event": "revealed", "stacks": [["4c"], [], ["Kh", "2h"]]},
    {"event": "deal_over", "round": 1, "winner": 2, "chips": [18, 20, 25]},
    {"event": "match_over", "winners": [2], "totals": [18, 20, 25], "changes": [-2, 0, 5], "deals": 6},
    {"event": "chat", "name": "Bob", "text": "salut"},
    {"event": "joined", "name": "Bob", "seat": 1},
    {"event": "left", "name": "Bob"},
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("you", [0, 1, None])
def test_every_event_has_a_sentence(lang, you):
    fallback = translation(lang).gettext("Event: {event}.")
    seen = set()
    for event in EVENTS:
        text = event_text(lang, event, NAMES, you)
        assert text and not re.search(r"\{\w+\}", text), (event, text)
        assert text != fallback.format(event=event["event"]), event
        seen.add(text)
    assert len(seen) > len(EVENTS) * 0.8


def test_events_speak_to_the_reader():
    played = {"event": "played", "seat": 0, "cards": ["Qh"], "remaining": 3}
    assert event_text("fr", played, NAMES, 0) == "Vous jouez D♥."
    assert event_text("es", played, NAMES, 0) == "Juegas Q♥."
    assert event_text("en", played, NAMES, 1) == "Zoé plays Q♥."
    assert event_text("fr", {"event": "passed", "seat": 2}, NAMES, 0) == "Carmen passe."


def test_exchange_shows_cards_only_when_present():
    """An outsider's exchange event has a count and no cards: the sentence names no card (P13, T12)."""
    outsider = {"event": "exchange", "from": 3, "to": 0, "count": 2}
    for lang in LANGS:
        text = event_text(lang, outsider, NAMES, 1)
        assert "2" in text and not re.search(r"[♣♦♥♠]", text)
    mine = {"event": "exchange", "from": 3, "to": 0, "count": 2, "cards": ["2s", "Ah"]}
    assert event_text("fr", mine, NAMES, 0) == "Dmitri vous donne 2♠ A♥."


def test_dealt_tells_only_the_own_hand_size():
    dealt = {"event": "dealt", "round": 1, "dealer": 0, "present": [0, 1, 2], "counts": [18, 17, 17],
             "hands": [None, ["3c"] * 17, None], "commitment": "x", "stake": 0}
    assert "17" in event_text("en", dealt, NAMES, 1)
    assert "Round 1" in event_text("en", dealt, NAMES, None)



def test_ordinals():
    assert [labels.ordinal("fr", n) for n in (1, 2)] == ["1er", "2e"]
    assert labels.ordinal("es", 3) == "3.º"
    assert [labels.ordinal("en", n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]
    out = {"event": "out", "seat": 1, "place": 1, "forbidden": False}
    assert event_text("fr", out, NAMES, 0) == "Bob sort au 1er rang."
    assert event_text("es", out, NAMES, 0) == "Bob sale en 1.º lugar."


