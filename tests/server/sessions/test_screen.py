"""server/sessions/screen.py: a terminal's facts and the style the renderers draw for."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from server.messages.terminal import TermStyle
from server.sessions.screen import Screen, term_caps


@dataclass
class Term:
    term: str | None = "xterm-256color"
    width: int = 100
    height: int = 30


@dataclass
class MudTerm(Term):
    screen_reader: bool = False
    reader_mode: bool = False


@pytest.mark.parametrize(("term", "caps"), [("xterm-256color", (True, True)), ("dumb", (False, False)),
                                            (None, (False, False)), ("vt100", (False, False)),
                                            ("tmux-256color", (True, True))])
def test_terminal_types_say_colour_and_unicode(term: str | None, caps: tuple[bool, bool]) -> None:
    assert term_caps(term) == caps


def test_the_transports_facts_with_defaults_for_a_terminal_that_says_nothing() -> None:
    screen = Screen(Term(width=0, height=0, term=None))
    assert (screen.width, screen.height, screen.color, screen.unicode) == (80, 24, False, False)
    assert screen.style == TermStyle(width=80, unicode=False, color=False)


def test_the_style_follows_each_change_and_is_made_once_between_changes() -> None:
    screen = Screen(Term())
    first = screen.style
    assert first == TermStyle(width=100, unicode=True, color=True) and screen.style is first
    screen.color = False
    assert screen.style == TermStyle(width=100, unicode=True, color=False)
    screen.unicode = False
    screen.width = 60
    assert screen.style == TermStyle(width=60, unicode=False, color=False)


def test_a_resize_changes_the_width_unless_a_size_is_missing() -> None:
    screen = Screen(Term())
    screen.resized(0, 50)
    assert (screen.width, screen.height) == (100, 30)
    screen.resized(120, 40)
    assert (screen.width, screen.height, screen.style.width) == (120, 40, 120)


def test_the_reader_mode_is_the_clients_until_chosen_and_draws_without_colour() -> None:
    term = MudTerm()
    screen = Screen(term)
    assert not screen.reader and screen.style.color
    term.screen_reader = True  # MTTS said so, after the session began
    assert screen.reader and screen.style == TermStyle(width=100, unicode=True, color=False, reader=True)
    screen.reader = False  # the person's choice wins, and the transport is told
    assert not screen.reader and not term.reader_mode and screen.style.color
    screen.reader = True
    assert screen.reader and term.reader_mode
