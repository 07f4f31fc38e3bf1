"""The play page's sentences (``TermStyle.browser``, the ``lang`` command's ``browser``) tell nobody to
type a command, in every language; every other reader keeps the text mode's hints unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from server.messages.errors import error_message
from server.messages.events import event_text
from server.messages.terminal import BROWSER, PLAIN
from tests.e2e.web.test_no_typing import typing_in

NAMES = ("lea", "bob", "bot3")
EVENTS: list[tuple[dict[str, Any], int | None]] = [
    ({"event": "commitment", "round": 1, "commitment": "ab" * 32, "window": 30, "given": [], "game": "speculation"}, 0),
    ({"event": "commitment", "round": 1, "commitment": "ab" * 32, "window": 2, "given": [], "game": "president"}, 0),
    ({"event": "auction", "seat": 0, "card": "Qh"}, 0),
    ({"event": "auction", "seat": 1, "card": "Qh"}, 0),
    ({"event": "offered", "from": 1, "to": 0, "cards": 2, "price": 3, "offer": 4, "answer_seconds": 20}, 0),
    ({"event": "notice", "code": "resume_code", "resume": "ABCD-EFGH", "name": "lea"}, None),
    ({"event": "seek", "name": "bob", "missing": 2, "seek": 7, "game": "president", "rules": "classic", "seats": 4}, None),
    ({"event": "challenge", "name": "bob", "seek": 7, "game": "president", "rules": "classic", "seats": 4}, None),
]
ERRORS: list[tuple[str, dict[str, Any]]] = [
    ("unknown_command", {"cmd": "frob"}), ("unknown_command", {}), ("no_such_room", {"room": "r9"}),
    ("no_such_room", {}), ("room_full", {"room": "r9"}), ("not_in_room", {}), ("no_such_seek", {"seek": 3}),
    ("no_such_seek", {}), ("no_such_round", {"round": "r1-2"}), ("not_allowed", {"reason": "over"}),
    ("not_online", {"name": "bob"}), ("no_reply", {}), ("account_needed", {}), ("resume_needed", {"name": "lea"}),
]


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_the_play_page_is_told_no_command_to_type(lang: str) -> None:
    for event, you in EVENTS:
        browser = event_text(lang, event, NAMES, you, BROWSER)
        assert not typing_in(browser), (event, browser)
        assert browser and browser != event_text(lang, event, NAMES, you, PLAIN), event
    for code, params in ERRORS:
        browser = error_message(lang, code, BROWSER, **params)
        assert not typing_in(browser), (code, browser)


def test_other_readers_keep_the_text_mode_s_hints() -> None:
    """A program (and the text mode) still reads how to answer: the JSON contract is unchanged."""
    offer = event_text("fr", EVENTS[4][0], NAMES, 0, PLAIN)
    assert "(accepter 4 / refuser 4)" in offer and "20\u00a0secondes" in offer
    assert "20\u00a0secondes" in event_text("fr", EVENTS[4][0], NAMES, 0, BROWSER)
    assert "graine" in event_text("fr", EVENTS[0][0], NAMES, 0, PLAIN)
    assert "Votre aléa" in event_text("fr", EVENTS[0][0], NAMES, 0, BROWSER)
    assert "moi" in event_text("fr", EVENTS[5][0], NAMES, None, PLAIN)
    assert "tables" in error_message("fr", "no_such_room", PLAIN, room="r9")
