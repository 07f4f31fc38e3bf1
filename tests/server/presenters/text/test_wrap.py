"""Human output wraps, never cuts: what a person reads whole at any width (ids, names, answers).

A round id is what ``replay`` and ``verify`` need, a name what ``tell`` and ``friend`` need: at any
terminal width each line fits, and nothing of the text is dropped or replaced by an ellipsis.
"""

from __future__ import annotations

import random
import string

import pytest

from server.messages.terminal import RED, TermStyle, display_width, finish, paint, strip_ansi, wrap_items
from server.presenters.text.games import render_state
from server.presenters.text.news import fit_text
from server.presenters.text.replies import render_reply

ROUND = "r12-85ab12cd-12"
LONG = "Bartholomew_Longname"  # 20 characters: the longest name an account may have

HISTORY = {"history": [
    {"game": "president", "rules": "classic", "ended": "2026-12-06T03:01:02", "place": 1, "title": "president",
     "points": 3, "round": ROUND, "won": True},
    {"game": "president", "rules": "tdc", "ended": "2026-12-06T03:01:02", "place": 3, "title": "vice_last",
     "chips": -10, "round": "r5-0a1b2c3d-4"}]}


def _fits(text: str, width: int) -> None:
    for line in text.split("\n"):
        assert display_width(line) <= width, (width, line)
    assert "…" not in text and "~" not in text, text


def _letters(text: str) -> str:
    return "".join(strip_ansi(text).split())


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
@pytest.mark.parametrize("width", [80, 60, 40, 24])
def test_history_shows_every_round_id_whole(lang: str, width: int) -> None:
    text = render_reply("history", HISTORY, lang, TermStyle(width))
    _fits(text, width)
    lines = text.split("\n")
    assert any(f"[{ROUND}]" in line for line in lines), text  # on one line, to copy
    assert any("[r5-0a1b2c3d-4]" in line for line in lines), text


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_an_answer_wider_than_the_terminal_wraps(lang: str) -> None:
    """``passeauto oui`` said its whole sentence at 80 columns (it was cut with "…")."""
    for width in (80, 40, 20):
        text = render_reply("autopass", {"on": True}, lang, TermStyle(width))
        _fits(text, width)
        assert _letters(text) == _letters(render_reply("autopass", {"on": True}, lang, TermStyle(500)))


def test_long_names_are_never_cut() -> None:
    seats = [{"seat": i, "name": n, "cards": 13} for i, n in enumerate([LONG, "bob", "carol", "dave"])]
    state = {"game": "president", "rules": "classic", "round": 1, "phase": "play", "you": 1, "turn": 0,
             "room": "r3", "status": "playing", "hand": ["3c"], "trick": [], "seats": seats, "moves": ["play"]}
    for width in (80, 40, 30):
        _fits(render_state(state, "fr", TermStyle(width)), width)
        assert LONG in render_state(state, "fr", TermStyle(width))
    board = {"leaderboard": [{"name": LONG, "score": 12, "rounds": 3}], "by": "points", "game": "president",
             "rules": "classic"}
    for width in (80, 30):
        text = render_reply("leaderboard", board, "es", TermStyle(width))
        _fits(text, width)
        assert LONG in text


def test_nothing_is_lost_whatever_the_width() -> None:
    """Any text at any width: every line fits, every character is still there, colours closed."""
    rng = random.Random(7)
    alphabet = string.ascii_letters + "é♥«»:;!?-"
    for _ in range(400):
        words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(rng.randint(1, 12))]
        text = " " * rng.randint(0, 4) + " ".join(paint(w, RED, TermStyle(color=True)) if rng.random() < 0.2 else w
                                                   for w in words)
        width = rng.randint(1, 90)
        style = TermStyle(width, color=True)
        out = finish([text], style)
        for line in out.split("\n"):
            assert display_width(line) <= width, (width, line)
        assert _letters(out) == _letters(text)
        assert _letters(fit_text(text, style)) == _letters(text)


def test_an_item_wider_than_a_line_is_broken_not_cut() -> None:
    lines = wrap_items(["ssh-ed25519", "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"], 20,
                       indent="  ")
    assert all(display_width(line) <= 20 for line in lines)
    assert "".join(line.strip() for line in lines[1:]) == "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
