"""``help tournament``: every tournament command with a typed example the parser reads back, in the
reader's words, fitting the terminal."""

from __future__ import annotations

import re

import pytest

import server.presenters.text  # noqa: F401  (registers the tournament handlers into the parser)
from server.messages.terminal import TermStyle, display_width
from server.presenters.text.context import Command, CommandContext
from server.presenters.text.help import help_text, tournament_help
from server.presenters.text.parse import parse_line

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


def test_the_lobby_help_points_to_tournaments() -> None:
    assert "tournois" in help_text("fr", LOBBY, TermStyle(80, True, False))
    assert "aide tournoi" in help_text("fr", LOBBY, TermStyle(80, True, False))
    assert "ayuda torneo" in help_text("es", LOBBY, TermStyle(80, True, False))
