"""Refusals as people read them: the engine's reason and the legal moves, in every language."""

from __future__ import annotations

from typing import Any

from engine.cards import parse_cards
from engine.errors import Refusal
from engine.president import Cut, Play, PresidentMatch
from server.messages import error_message


def _refusal(match: PresidentMatch, action: Any) -> Refusal:
    try:
        match.apply(action)
    except Refusal as exc:
        return exc
    raise AssertionError(f"{action} was not refused")


def _says(lang: str, exc: Refusal) -> str:
    return error_message(lang, exc.code, **exc.params)


def test_P6_a_play_that_cannot_follow_is_refused_with_the_plays_allowed() -> None:
    m = PresidentMatch.from_hands("classic", ["8c 8d 4c 5c", "3c 7c 7h 9d 9s Kd Ah", "6c 6d 5d"], leader=0)
    m.apply(Play(0, parse_cards("8c 8d")))
    too_weak = _refusal(m, Play(1, parse_cards("7c 7h")))
    assert too_weak.code == "illegal_play" and too_weak.params["reason"] == "too_weak"
    text = _says("fr", too_weak)
    assert "Trop faible" in text and "9 9" in text
    count = _refusal(m, Play(1, parse_cards("9d")))
    assert count.params["reason"] == "must_follow_count"
    assert "Play 2 cards" in _says("en", count) and "9 9" in _says("en", count)


def test_P7_that_or_nothing_names_the_rank_and_what_may_be_played() -> None:
    m = PresidentMatch.from_hands("classic", ["7d 4c 4d", "7s 9c 4h", "7c 9d 3c"], leader=0)
    m.apply(Play(0, parse_cards("7d")))
    m.apply(Play(1, parse_cards("7s")))
    exc = _refusal(m, Play(2, parse_cards("9d")))
    assert exc.params["reason"] == "ca_ou_rien"
    text = _says("es", exc)
    assert "o eso o nada" in text.lower() and "7" in text


def test_nothing_can_follow_a_two_only_a_pass() -> None:
    m = PresidentMatch.from_hands("classic", ["2c 4c 4d", "Ah 9c 4h", "7c 9d 3c"], leader=0)
    m.apply(Play(0, parse_cards("2c")))  # P9a closes the trick: the leader leads again
    m2 = PresidentMatch.from_hands("classic", ["Kc 4c 4d", "Ah 9c 4h", "7c 9d 3c"], leader=0)
    m2.apply(Play(0, parse_cards("Kc")))
    m2.apply(Play(1, parse_cards("Ah")))
    exc = _refusal(m2, Play(2, parse_cards("9d")))
    assert "You can only pass." in _says("en", exc)


def test_T9_no_cut_after_that_or_nothing_says_the_true_reason_in_every_language() -> None:
    """After two single 5s the two others cannot be a cut (T9 Decision): played in turn, they close the
    trick (T7b). The refusal says so, not "you need the three remaining 5s"."""
    m = PresidentMatch.from_hands("tdc", ["5c 4c 4d Qh", "5d 9c 4h", "5h 5s 3c"], leader=0, stake=2)
    m.apply(Play(0, parse_cards("5c")))
    m.apply(Play(1, parse_cards("5d")))
    exc = _refusal(m, Cut(2, parse_cards("5h 5s")))
    assert exc.params["reason"] == "cut_ca_ou_rien"
    texts = {lang: _says(lang, exc) for lang in ("fr", "es", "en")}
    assert "ça ou rien" in texts["fr"] and "o eso o nada" in texts["es"] and "that or nothing" in texts["en"]
    assert all("remaining" not in t and "restantes" not in t for t in texts.values())
