"""Social replies as a person reads them: a profile names the tournaments a player entered."""

from __future__ import annotations

from typing import Any

import pytest

from server.messages.terminal import TermStyle, display_width
from server.presenters.text.replies import render_reply

FINGER: dict[str, Any] = {
    "name": "bruno", "online": True, "registered": "2026-12-06T12:37:00Z",
    "tables": [{"game": "president", "rules": "classic", "rounds": 4, "matches": 4, "titles": 1, "rating": 2.6,
                "rated_games": 4}],
    "tournaments": [
        {"tournament": "e4", "kind": "arena", "game": "president", "rules": "classic", "rank": 3, "entrants": 3,
         "final": True},
        {"tournament": "e1", "kind": "swiss", "game": "president", "rules": "classic", "rank": 1, "entrants": 3,
         "final": True},
        {"tournament": "e7", "kind": "swiss", "game": "speculation", "rules": "speculation", "rank": 2,
         "entrants": 12, "final": False}],
    "tournament_best": 1}


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", ["Tournois (meilleure place finale\u00a0: 1er)\u00a0:",
            "e4 arène, Président classique\u00a0: 3e sur 3",
            "e1 suisse, Président classique\u00a0: 1er sur 3",
            "e7 suisse, Spéculation\u00a0: 2e sur 12 (en cours)"]),
    ("es", ["Torneos (mejor puesto final: 1.º):", "e4 arena, Presidente clásica: 3.º de 3",
            "e1 suizo, Presidente clásica: 1.º de 3", "e7 suizo, Especulación: 2.º de 12 (en curso)"]),
    ("en", ["Tournaments (best final place: 1st):", "e4 arena, Président classic: 3rd of 3",
            "e7 Swiss, Speculation: 2nd of 12 (under way)"]),
])
def test_a_profile_lists_the_tournaments_entered_with_the_place_in_each(lang: str, said: list[str]) -> None:
    """docs/tournaments.md, "Results": finger lists the events a player entered and their best rank."""
    text = render_reply("finger", FINGER, lang, TermStyle(80, True, False))
    for words in said:
        assert words in text, (words, text)
    lines = text.splitlines()
    head = next(line for line in lines if said[0] in line)
    assert head.startswith("  ") and not head.startswith("   "), text  # under the name, as the tables
    assert all(line.startswith("    e") for line in lines[lines.index(head) + 1:]), text


def test_a_profile_without_tournaments_says_nothing_of_them() -> None:
    text = render_reply("finger", {**FINGER, "tournaments": [], "tournament_best": None}, "fr",
                        TermStyle(80, True, False))
    assert "Tournois" not in text and "Président classique" in text


@pytest.mark.parametrize("width", [40, 60, 80])
def test_a_profile_with_tournaments_fits_the_terminal(width: int) -> None:
    for lang in ("fr", "es", "en"):
        text = render_reply("finger", FINGER, lang, TermStyle(width, True, False))
        assert all(display_width(line) <= width for line in text.splitlines()), text


def test_a_profile_s_bio_sits_under_the_name_as_its_other_lines() -> None:
    text = render_reply("finger", {"name": "ana", "online": True, "bio": "joue le soir " * 8}, "fr",
                        TermStyle(40, True, False))
    lines = text.splitlines()
    assert lines[1] == "  connecté" and lines[2].startswith("  Présentation\u00a0: joue"), text
    assert all(line.startswith("    ") for line in lines[3:]), text
