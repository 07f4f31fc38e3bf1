"""Words a person reads: why they pass, what a seek sets, the commitment's round, French typography."""

from __future__ import annotations

import pytest

from server.messages import event_text
from server.messages.labels import punct
from server.messages.social_events import seek_terms
from server.messages.terminal import TermStyle
from server.presenters.text.news import render_event

NAMES = ["Zoé", "Bob", "Carmen", "Dmitri"]
STYLE = TermStyle(width=80, unicode=True, color=False)


@pytest.mark.parametrize(("lang", "why"), [("fr", "personne ne peut suivre"), ("es", "nadie puede seguir"),
                                           ("en", "nobody can follow")])
def test_P9_a_forced_pass_says_why(lang: str, why: str) -> None:
    """P9 Decision: when "ça ou rien" demands a rank whose four cards are out, the passes applied
    at once say so to the person who passes; a pass of the clock or one's own does not."""
    forced = event_text(lang, {"event": "passed", "seat": 0, "auto": True, "forced": True}, NAMES, 0, STYLE)
    assert why in forced
    plain = event_text(lang, {"event": "passed", "seat": 0, "auto": True}, NAMES, 0, STYLE)
    assert why not in plain
    other = event_text(lang, {"event": "passed", "seat": 1, "auto": True, "forced": True}, NAMES, 0, STYLE)
    assert why not in other and "Bob" in other


SEEK = {"seek": 3, "name": "marc", "game": "president", "rules": "tdc", "seats": 4, "bots": 1,
        "bot_level": "hard", "turn_seconds": 45.0, "stake": 2, "ante": 1, "rounds": 3, "options": {"cut_window": 6},
        "rated": False, "fill": True, "missing": 2, "accepted": []}


@pytest.mark.parametrize(("lang", "words"), [
    ("fr", ("trou du cul", "4 places", "mise 2 jetons", "3 manches", "1 robot (difficile)", "45 s par coup",
            "6 s pour couper", "amicale", "robots prennent")),
    ("es", ("4 plazas", "apuesta 2 fichas", "3 rondas", "1 bot (difícil)", "45 s por jugada", "6 s para cortar",
            "amistosa", "bots ocupan")),
    ("en", ("4 seats", "stake 2 chips", "3 rounds", "1 bot (hard)", "45 s a turn", "6 s to cut", "not rated",
            "bots fill")),
])
def test_a_seek_shows_the_stake_and_every_option_before_anyone_accepts(lang: str, words: tuple[str, ...]) -> None:
    for text in (seek_terms(lang, SEEK), event_text(lang, {"event": "seek", **SEEK}, NAMES, None, STYLE),
                 event_text(lang, {"event": "challenge", **SEEK}, NAMES, None, STYLE)):
        for word in words:
            assert word in text, (word, text)


def test_speculation_seek_terms_show_the_ante_and_deals() -> None:
    spec = {"game": "speculation", "rules": "speculation", "seats": 5, "bots": 0, "ante": 3, "rounds": 4,
            "stake": 0, "rated": True}
    assert seek_terms("fr", spec) == "Spéculation, 5 places, ante de 3 jetons, 4 donnes, classée"
    assert "mise" not in seek_terms("fr", spec)


def test_a_challenge_table_is_not_called_a_seek() -> None:
    started = {"event": "seek_started", "seek": 1, "room": "r2", "seat": 1, "name": "Ana"}
    assert "du défi de Ana" in event_text("fr", {**started, "challenge": True}, NAMES, 1, STYLE)
    assert "recherche" in event_text("fr", {**started, "challenge": False}, NAMES, 1, STYLE)
    assert "desafío" in event_text("es", {**started, "challenge": True}, NAMES, 1, STYLE)


@pytest.mark.parametrize(("game", "fr", "es"), [("president", "Manche 1 :", "Ronda 1:"),
                                                ("speculation", "Donne 1 :", "Mano 1:")])
def test_the_commitment_names_a_round_with_the_game_s_own_word(game: str, fr: str, es: str) -> None:
    event = {"event": "commitment", "round": 1, "commitment": "ab" * 32, "window": 0, "given": [], "game": game}
    assert event_text("fr", event, NAMES, 0, STYLE).replace("\u00a0", " ").startswith(fr)
    assert event_text("es", event, NAMES, 0, STYLE).startswith(es)


def test_french_puts_a_no_break_space_before_high_punctuation() -> None:
    assert punct("fr", ":") == "\u00a0:" and punct("fr", ";") == "\u00a0;"
    assert punct("es", ":") == ":" and punct("en", ";") == ";" and punct("fr", ",") == ","
    shown = {"event": "revealed", "hands": {"0": ["Th", "5d"], "1": ["4s"]}}
    text = event_text("fr", shown, NAMES, 0, STYLE)
    if text:
        assert "5♦; " not in text and "\u00a0; " in text


def test_lobby_news_of_a_room_closing_is_not_shown_to_people() -> None:
    """The lobby's room-list news (reason closed) reaches everyone in the lobby; a person hears of
    the rooms they sit at from the room itself, with its own reason."""
    assert render_event({"event": "room_closed", "room": "r4", "reason": "closed"}, "es", STYLE, NAMES, None) is None
    assert "r4" in (render_event({"event": "room_closed", "room": "r4", "reason": "empty"}, "es", STYLE, NAMES, 0)
                    or "")


def test_a_spectator_of_a_finished_room_hears_it_closed_and_where_they_are() -> None:
    closed = {"event": "room_closed", "room": "r4", "reason": "over"}
    assert event_text("fr", closed, NAMES, None, STYLE) == (
        "La table r4 est fermée\u00a0: sa partie est finie\u00a0; vous voilà de retour au salon.")
    assert event_text("es", closed, NAMES, None, STYLE) == (
        "La mesa r4 se ha cerrado: su partida ha terminado; has vuelto al vestíbulo.")


def test_the_telnet_menu_in_the_docs_is_the_one_the_server_shows() -> None:
    """docs/playing.md shows the menu with the embedded default language (config: default_lang)."""
    from pathlib import Path

    from server.config import load_config
    from server.messages.greetings import language_prompt

    docs = (Path(__file__).resolve().parents[3] / "docs" / "playing.md").read_text(encoding="utf-8")
    shown = next(line.strip() for line in docs.splitlines() if "Language / Langue / Idioma" in line)
    menu = language_prompt(load_config().default_lang).splitlines()[-1].strip()
    assert shown.startswith(menu), (shown, menu)


def test_the_french_catalog_puts_a_no_break_space_before_high_punctuation_and_inside_guillemets() -> None:
    """docs/i18n.md: French punctuation takes a no-break space before « : ; ! ? » and inside « »; an
    ordinary space there lets a line part before the mark (and a client that wraps by itself does)."""
    import re

    from babel.messages.pofile import read_po

    from server.messages.translations import po_path

    with po_path("fr").open("rb") as f:
        catalog = read_po(f, locale="fr")
    plain = re.compile(r"(?<=\S) [:;!?»](?=\s|$|[).,])|« ")
    found = [text for msg in catalog if msg.id
             for text in (msg.string if isinstance(msg.string, list | tuple) else [msg.string])
             if text and plain.search(text)]
    assert not found, found
