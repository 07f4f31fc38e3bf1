"""The news — events as a reader sees them — fit any terminal and cannot be driven by what people type."""

from __future__ import annotations

import pytest

from server.messages import LANGS
from server.messages.terminal import TermStyle
from server.presenters.text.news import fit_text, render_event
from server.presenters.text.replies import render_rooms
from tests.server.messages.test_events import EVENTS
from tests.server.presenters.text.samples import LONG_NAMES, STYLES, check


@pytest.mark.parametrize("style", STYLES, ids=str)
@pytest.mark.parametrize("lang", LANGS)
def test_events_fit(lang, style):
    for event in EVENTS:
        for you in (0, None):
            text = render_event(event, lang, style, LONG_NAMES, you)
            assert text
            check(text, style)


def test_round_over_has_a_score_table():
    event = next(e for e in EVENTS if e["event"] == "round_over")
    text = render_event(event, "en", TermStyle(80, True, False), LONG_NAMES, 0)
    lines = text.split("\n")
    assert len(lines) >= 5 and "+2 chips" in text and "-2 chips" in text  # tdc: chips (T13)
    classic = {**event, "chips": None}
    text = render_event(classic, "fr", TermStyle(80, True, False), LONG_NAMES, 0)
    assert "+3 pts  total 3 pts" in text and "+0 pt   total 0 pt" in text


def test_chat_is_not_translated_and_state_events_are_skipped():
    text = render_event({"event": "chat", "name": "Bob", "text": "gg {name}"}, "fr", TermStyle(), LONG_NAMES, 0)
    assert text == "Bob\u00a0: gg {name}"  # French puts a no-break space before the colon
    text = render_event({"event": "chat", "name": "Bob", "text": "gg {name}"}, "es", TermStyle(), LONG_NAMES, 0)
    assert text == "Bob: gg {name}"
    assert render_event({"event": "state"}, "fr", TermStyle(), LONG_NAMES, 0) is None


def test_a_tournament_table_is_offered_to_watch_not_to_join():
    """Its people are seated by the event: the news says whose table it is and how to watch it, and the
    list of rooms marks it."""
    opened = {"event": "room_created", "room": "r7", "game": "president", "rules": "classic", "seats": 4,
              "name": "Ada", "tournament": "e2"}
    style = TermStyle(80, True, False)
    assert render_event(opened, "fr", style, [], None) == (
        "La table r7 du tournoi e2 s’ouvre\u00a0: Président classique (regarder r7).")
    assert "(mirar r7)" in (render_event(opened, "es", style, [], None) or "")
    assert "join" not in (render_event(opened, "en", style, [], None) or "")
    room = {"room": "r7", "game": "president", "rules": "classic", "seats": 4, "players": ["Ada", "Bob"],
            "status": "playing", "tournament": "e2"}
    assert "tournoi e2" in render_rooms([room], "fr", style)


def test_fit_text_wraps_foreign_sentences_and_never_cuts_a_seed():
    seed = "5c1397d0242a95b206852a69fb02e3a56fcc7e7485dad2292c9ef1048dbe6987"
    text = f"Donne 1 : la graine du mélange est {seed} ; vérifiez-la avec l’engagement."
    for style in STYLES:
        out = fit_text(text, style)
        check(out, style)
        assert seed in out.replace("\n", "").replace(" ", "")
    assert fit_text("court", TermStyle(40)) == "court"
    assert fit_text("\x1b[31mrouge\x1b[0m", TermStyle(40, True, False)) == "rouge"


def test_chat_cannot_drive_other_terminals():
    nasty = {"event": "chat", "name": "Bob\x1b[2J", "text": "hi\x1b[2J\x07\x1b]0;pwned\x07 there\r"}
    for style in STYLES:
        text = render_event(nasty, "en", style, LONG_NAMES, 0)
        assert "\x07" not in text and "\x1b[2J" not in text and "\x1b]" not in text and "\r" not in text
        assert "hi" in text and "there" in text


def test_a_hidden_persons_chat_is_signed_with_their_seat_for_spectators():
    """A spectator is not told the name of someone who hides where they sit (``hide``): their chat
    line reads as their seat's."""
    from server.messages.terminal import PLAIN
    from server.presenters.text.news import render_event

    line = render_event({"event": "chat", "room": "r1", "name": None, "seat": 0, "text": "hola"}, "es", PLAIN,
                        ("", "ana"), None)
    assert line is not None and "plaza 0: hola" in line


@pytest.mark.parametrize("width", range(40, 81))
def test_guillemets_never_leave_their_words_at_a_line_end(width: int) -> None:
    text = ("Donne 1 : le serveur s’est engagé sur son mélange (867bbc04a1751ee0). Tapez « graine TEXTE » "
            "dans les 2 s pour mêler votre propre aléa à cette donne et aux suivantes.")
    lines = fit_text(text, TermStyle(width, True, False)).splitlines()
    assert all(not line.rstrip().endswith("«") and not line.lstrip().startswith("»") for line in lines), lines
    assert all(not line.lstrip().startswith((":", ";", "?", "!")) for line in lines), lines
