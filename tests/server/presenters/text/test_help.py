"""``help tournament``: every tournament command with a typed example the parser reads back, in the
reader's words, fitting the terminal."""

from __future__ import annotations

import re

import pytest

import server.presenters.text  # noqa: F401  (registers the tournament handlers into the parser)
from server.games import ADAPTERS
from server.messages import LANGS
from server.messages.terminal import TermStyle, display_width
from server.presenters.text.context import Command, CommandContext
from server.presenters.text.help import help_text, tournament_help
from server.presenters.text.parse import parse_line
from server.presenters.text.words import verb
from tests.server.presenters.text.samples import STYLES, check

LOBBY = CommandContext()


@pytest.mark.parametrize(("lang", "topic"), [("fr", "tournoi"), ("fr", "tournois"), ("es", "torneo"),
                                             ("es", "torneos"), ("en", "tournament"), ("fr", "tournament")])
def test_help_on_tournaments_is_their_own_page(lang: str, topic: str) -> None:
    assert help_text(lang, LOBBY, TermStyle(80, True, False), topic) == tournament_help(lang, TermStyle(80, True, False))


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_every_example_of_the_tournament_help_is_read_back_as_a_command(lang: str) -> None:
    text = tournament_help(lang, TermStyle(200, True, False))
    word = {"fr": "tournoi", "es": "torneo", "en": "tournament"}[lang]
    examples = [m.group(1).replace(" [12]", " 12") for m in re.finditer(rf"^  ({word} .+?)(?:  |$)", text, re.M)]
    assert len(examples) == 7, examples
    for line in examples:
        got = parse_line(line, lang, LOBBY)
        assert isinstance(got, Command) and got.cmd.startswith("tournament"), (line, got)


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
@pytest.mark.parametrize("width", [30, 44, 80])
def test_the_tournament_help_fits(lang: str, width: int) -> None:
    text = tournament_help(lang, TermStyle(width, True, False))
    assert all(display_width(line) <= width for line in text.splitlines())


@pytest.mark.parametrize(("lang", "on", "off"), [("fr", "bots", "sans bots"), ("es", "bots", "sin bots"),
                                               ("en", "bots", "without bots")])
def test_the_tournament_help_shows_how_a_switch_is_turned_on_and_off(lang: str, on: str, off: str) -> None:
    """The help showed « bots=oui|non : un réglage nommé seul est activé », which says neither what
    to type nor how to turn it off; it names both, and both are read as documented."""
    text = " ".join(tournament_help(lang, TermStyle(200, True, False)).replace("\u00a0", " ").split())
    assert f"({on})" in text and f"{off} " in text, text
    word = {"fr": "tournoi créer arène", "es": "torneo crear arena", "en": "tournament create arena"}[lang]
    assert parse_line(f"{word} {on}", lang, LOBBY).args["bots"] is True  # type: ignore[union-attr]
    assert parse_line(f"{word} {off}", lang, LOBBY).args["bots"] is False  # type: ignore[union-attr]


def test_the_lobby_help_points_to_tournaments() -> None:
    assert "tournois" in help_text("fr", LOBBY, TermStyle(80, True, False))
    assert "aide tournoi" in help_text("fr", LOBBY, TermStyle(80, True, False))
    assert "ayuda torneo" in help_text("es", LOBBY, TermStyle(80, True, False))


HELP_CONTEXTS = [
    CommandContext(),
    CommandContext(where="room", moves=frozenset(ADAPTERS["classic"].moves), phase="play", hand=("3c",), your_turn=True,
                   you=0, top=("5d",)),
    CommandContext(where="room", moves=frozenset(ADAPTERS["tdc"].moves), phase="play", hand=("3c",), your_turn=True, you=0,
                   top=("5d", "5h")),
    CommandContext(where="room", moves=frozenset(ADAPTERS["tdc"].moves), phase="give", hand=("3c",), you=0, give=2),
    CommandContext(where="room", moves=frozenset(ADAPTERS["classic"].moves), phase="play", you=None),
    CommandContext(where="room", moves=frozenset(ADAPTERS["speculation"].moves), phase="auction", you=0, auction={"seat": 0, "card": "Qh"}),
    CommandContext(where="room", moves=frozenset(ADAPTERS["speculation"].moves), phase="auction", you=1, auction={"seat": 0, "card": "Qh"}),
    CommandContext(where="room", moves=frozenset(ADAPTERS["speculation"].moves), phase="turning", you=1, your_turn=True),
]


@pytest.mark.parametrize("style", STYLES, ids=str)
@pytest.mark.parametrize("lang", LANGS)
def test_help_fits_and_is_in_context(lang, style):
    for ctx in HELP_CONTEXTS:
        check(help_text(lang, ctx, style), style)
    wide = TermStyle(120, True, False)
    lobby = help_text("fr", HELP_CONTEXTS[0], wide)
    assert "tables" in lobby and "créer" in lobby and "rejoindre 3" in lobby
    turn = help_text("es", HELP_CONTEXTS[1], wide)
    assert "paso" in turn and "jugar" in turn and "cortar" not in turn
    tdc = help_text("es", HELP_CONTEXTS[2], wide)
    assert "cortar" in tdc and "9 9" in tdc
    give = help_text("fr", HELP_CONTEXTS[3], wide)
    assert "donner 3 4" in give
    sell = help_text("en", HELP_CONTEXTS[5], wide)
    assert "sell" in sell and "keep" in sell
    bid = help_text("fr", HELP_CONTEXTS[6], wide)
    assert "enchérir 3" in bid
    turning = help_text("es", HELP_CONTEXTS[7], wide)
    assert "destapar" in turning and "ofrecer" in turning


@pytest.mark.parametrize("lang", LANGS)
def test_help_offers_an_account_only_to_a_guest(lang):
    wide = TermStyle(120, True, False)
    word = verb(lang, "register")
    assert word in help_text(lang, HELP_CONTEXTS[0], wide).split()
    assert word not in help_text(lang, HELP_CONTEXTS[0], wide, guest=False).split()


def test_help_lines_keep_their_indent_when_narrow():
    for lang in LANGS:
        text = help_text(lang, HELP_CONTEXTS[0], TermStyle(40, True, False))
        body = text.split("\n")[1:]
        first_unindented = next(i for i, line in enumerate(body) if not line.startswith("  "))
        assert body[first_unindented].startswith(("Cartes", "Cartas", "Cards")), text
        assert first_unindented > 10


def test_help_on_a_topic_lists_its_words():
    style = TermStyle(80, True, False)
    text = help_text("fr", CommandContext(), style, topic="play").replace("\u00a0", " ")
    assert "« jouer » peut s’écrire : jouer, joue, poser, pose, entamer, entame, play, pl." in text
    assert "pasar" in help_text("es", CommandContext(), style, topic="paso")
    assert "zzz" in help_text("en", CommandContext(), style, topic="zzz")
