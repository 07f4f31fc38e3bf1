"""Every protocol error and engine reason has its sentence, in every language."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.cards import parse_cards
from engine.errors import Refusal
from engine.president import Cut, Play, PresidentMatch
from server.messages import (
    LANGS,
    error_message,
)
from server.start import catalogs

NAMES = ["Zoé", "Bob", "Carmen", "Dmitri"]


# --------------------------------------------------------------------------- errors

PROTOCOL_CODES = [
    "bad_json",
    "unknown_command",
    "bad_argument",
    "not_logged_in",
    "no_such_room",
    "room_full",
    "not_your_turn",
    "illegal_play",
    "not_allowed",
    "insufficient_chips",
    "rate_limited",
    "name_taken",
    "bad_name",
    "bad_password",
    "line_too_long",
    "no_such_player",
    "no_such_offer",
    "already_in_room",
    "not_in_room",
    "internal_error",
]

# Every reason code the Président engine raises (engine/president/match.py) gets its own sentence.
PRESIDENT_REASONS = [
    ("illegal_play", {"reason": "count"}),
    ("illegal_play", {"reason": "mixed_ranks"}),
    ("illegal_play", {"reason": "duplicate"}),
    ("illegal_play", {"reason": "not_in_hand"}),
    ("illegal_play", {"reason": "must_follow_count", "count": 2}),
    ("illegal_play", {"reason": "ca_ou_rien", "rank": "7"}),
    ("illegal_play", {"reason": "too_weak"}),
    ("illegal_play", {"reason": "must_lead"}),
    ("not_allowed", {"reason": "no_cut"}),
    ("not_allowed", {"reason": "cannot_cut"}),
    ("illegal_play", {"reason": "cut_cards"}),
    ("not_allowed", {"reason": "no_give"}),
    ("illegal_play", {"reason": "give_count", "count": 2}),
    ("not_allowed", {"reason": "not_awaited"}),
    ("not_allowed", {"reason": "phase", "phase": "exchange"}),
    ("bad_argument", {"reason": "cards"}),
]

SPECULATION_DETAILS = [
    ("not_allowed", {"detail": "no auction"}),
    ("not_allowed", {"detail": "the owner does not bid"}),
    ("illegal_play", {"detail": "a bid beats the best bid by at least 1 chip", "min": 4}),
    ("not_allowed", {"detail": "only the owner sells or keeps"}),
    ("not_allowed", {"detail": "no bid to sell to"}),
    ("not_allowed", {"detail": "only the buyer withdraws an offer"}),
    ("not_allowed", {"detail": "only the seller accepts or declines an offer"}),
    ("not_allowed", {"detail": "no offer while an auction is open (S12c)"}),
    ("illegal_play", {"detail": "that many face-down cards are not there", "max": 2}),
    ("illegal_play", {"detail": "a price is at least 1 chip"}),
    ("not_allowed", {"detail": "offers go to another player of this deal"}),
]


ENGINE_CODES = {"IllegalPlay": "illegal_play", "NotAllowed": "not_allowed", "NotYourTurn": "not_your_turn",
                "InsufficientChips": "insufficient_chips", "BadArgument": "bad_argument"}
INTERNAL_REASONS = {"action", "hands", "log", "present", "seed", "unknown_command", "table",
                    "contributions", "shown", "dealer"}
"""Reasons only a program can trigger (a bad log, deal facts); people never see them."""
INTERNAL_REASONS |= {"contribution", "contribution_characters", "contribution_too_long"}
"""engine.fairness refusals of a player's entropy text: no command reaches them yet; they need
sentences when the table's ``entropy`` command is wired in (then drop them from this set)."""


def engine_reasons() -> set[tuple[str, str]]:
    """Every (code, reason) the engines raise, read from their source."""
    import ast
    from pathlib import Path

    found = set()
    root = Path(catalogs.__file__).resolve().parents[2] / "engine"
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ENGINE_CODES:
                for kw in node.keywords:
                    if kw.arg == "reason" and isinstance(kw.value, ast.Constant):
                        found.add((ENGINE_CODES[node.func.id], kw.value.value))
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_every_engine_reason_has_its_sentence(lang):
    reasons = engine_reasons()
    assert len(reasons) > 30
    for code, reason in sorted(reasons):
        if reason in INTERNAL_REASONS:
            continue
        text = error_message(lang, code, reason=reason)
        assert text != error_message(lang, code), f"no sentence for {code}/{reason}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("code", PROTOCOL_CODES)
def test_every_protocol_error_has_a_sentence(lang, code):
    text = error_message(lang, code)
    assert text and "{" not in text and code not in text


@pytest.mark.parametrize("lang", LANGS)
def test_engine_reasons_get_their_own_sentence(lang):
    for code, params in PRESIDENT_REASONS + SPECULATION_DETAILS:
        text = error_message(lang, code, **params)
        generic = error_message(lang, code)
        assert text != generic, (code, params)
        assert "{" not in text
        if "detail" in params:
            assert params["detail"] not in text, "English engine details are never shown"


def test_errors_say_what_is_legal():
    text = error_message("fr", "illegal_play", reason="too_weak", legal=[["9c"], ["Kh"]])
    assert "9♣" in text and "R♥" in text
    assert "passer" in error_message("fr", "illegal_play", reason="too_weak", legal=[])
    assert "4" in error_message("es", "illegal_play", reason="bid_too_low", min=4)
    assert "Bob" in error_message("en", "not_your_turn", name="Bob")
    assert "3" in error_message("en", "insufficient_chips", chips=3)
    text = error_message("fr", "unknown_command", cmd="joeur", suggestion="jouer")
    assert "joeur" in text and "jouer" in text
    assert "12" in error_message("en", "line_too_long", limit=12)


def test_error_message_never_breaks_on_odd_params():
    assert error_message("en", "illegal_play", reason="must_follow_count")  # count missing
    assert error_message("en", "illegal_play", reason="what_is_this")
    assert error_message("fr", "no_such_code_at_all")



def test_bad_arguments_are_named_in_the_language():
    import pathlib

    assert error_message("fr", "bad_argument", arg="turn_seconds") == "Temps par décision\u00a0: de 1 à 600 secondes."
    assert "«mesa»" in error_message("es", "bad_argument", arg="room")
    # every argument name the server reports gets a sentence or a translated name
    root = pathlib.Path(catalogs.__file__).resolve().parents[1]
    args = set()
    for path in root.rglob("*.py"):
        args |= set(re.findall(r'arg="([a-z_]+)"', path.read_text(encoding="utf-8")))
        args |= set(re.findall(r'arg_(?:int|str|bool)\(args, "([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert len(args) > 10
    for arg in args:
        fr = error_message("fr", "bad_argument", arg=arg)
        en = error_message("en", "bad_argument", arg=arg)
        assert fr != en, arg
        if f"“{arg}”" in en:  # the generic sentence: the name itself is translated (or a shared word)
            assert arg in ("ante",) or f"« {arg} »" not in fr.replace("\u00a0", " "), arg



# -- refusals of the engine, as people read them: the reason and the legal moves


def _refusal(match: PresidentMatch, action: Any) -> Refusal:
    try:
        match.apply(action)
    except Refusal as exc:
        return exc
    raise AssertionError(f"{action} was not refused")


def _says(lang: str, exc: Refusal) -> str:
    """The refusal's words, no-break spaces (which keep a play's cards on one line) read as spaces."""
    return error_message(lang, exc.code, **exc.params).replace("\u00a0", " ")


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


def test_the_plays_allowed_are_counted_past_four_never_cut_with_an_ellipsis() -> None:
    legal = {"plays": [["7", 1], ["8", 1], ["9", 1], ["Q", 1], ["K", 1], ["A", 1]], "pass": True}
    texts = {lang: error_message(lang, "illegal_play", reason="too_weak", legal=legal) for lang in ("fr", "es", "en")}
    assert "7, 8, 9, Q and 2 other plays." in texts["en"]
    assert "y 2 jugadas más." in texts["es"] and "et 2 autres coups." in texts["fr"]
    assert not any("…" in text or "/" in text for text in texts.values())
    pair = error_message("en", "illegal_play", reason="too_weak", legal={"plays": [["9", 2]], "pass": True})
    assert "You can play: 9\u00a09." in pair  # a play's cards never part across lines


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


@pytest.mark.parametrize(("lang", "word"), [("fr", "partir"), ("es", "dejar"), ("en", "leave")])
def test_already_in_a_room_names_the_word_that_leaves_it_not_the_one_that_logs_out(lang: str, word: str) -> None:
    """A spectator of a finished table asked to leave it first would type the word the sentence
    uses: in French « quitter » and in Spanish « salir » log out, so the sentence names the
    command that leaves the table, and that command is `leave`."""
    from server.presenters.text.context import Command, CommandContext
    from server.presenters.text.parse import parse_line

    for said in (error_message(lang, "already_in_room", room="r2"), error_message(lang, "already_in_room")):
        assert re.search(rf"\b{word}\b", said), said
        assert not re.search(r"\b(quittez|quitter|salir|sal)\b", said), said
    assert parse_line(word, lang, CommandContext()) == Command("leave", {})
