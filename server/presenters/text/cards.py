"""Cards as people type them: ``7 7``, ``10``, ``dh`` (fr: dame de cœur), ``7♥``, ``7x2``, ``77``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from server.messages.errors import error_message
from server.messages.labels import rank_label
from server.messages.translations import translation
from server.presenters.text.context import ParseError
from server.presenters.text.words import RANK_WORDS, RANKS, SUITS, TYPED_SUITS, fold, lang_code

# --------------------------------------------------------------------------- cards


@dataclass(frozen=True, slots=True)
class CardSpec:
    rank: str  # "3".."2" code letter
    suit: str | None
    token: str


def parse_card_token(token: str, lang: str) -> list[CardSpec] | None:
    """Cards named by one token, or ``None`` when it names no card."""
    raw = token.strip()
    t = fold(raw)
    for sym, letter in TYPED_SUITS.items():
        t = t.replace(sym, letter)
    if not t:
        return None
    words = {**RANK_WORDS["en"], **RANK_WORDS[lang_code(lang)]}
    # "7x2": two sevens
    if "x" in t[1:]:
        head, _, times = t.rpartition("x")
        if times.isdigit() and 1 <= int(times) <= 4:
            one = parse_card_token(head, lang)
            if one and len(one) == 1 and one[0].suit is None:
                return one * int(times)
    rank = _rank_of(t, words)
    if rank is not None:
        return [CardSpec(rank, None, raw)]
    # rank + suit: "7h", "10h", "th", "dh" (fr), "as" is a word in fr/es (any ace)
    if len(t) >= 2 and t[-1] in SUITS:
        rank = _rank_of(t[:-1], words)
        if rank is not None:
            return [CardSpec(rank, t[-1], raw)]
    # "77", "jj": the same rank symbol repeated
    if 2 <= len(t) <= 4 and len(set(t)) == 1:
        rank = _rank_of(t[0], words)
        if rank is not None:
            return [CardSpec(rank, None, raw)] * len(t)
    return None


def _rank_of(text: str, words: Mapping[str, str]) -> str | None:
    if text in words:
        return words[text]
    if text == "10":
        return "T"
    if len(text) == 1 and text.upper() in RANKS:
        return text.upper()
    return None


def parse_cards(tokens: Sequence[str], lang: str) -> tuple[list[CardSpec], str | None]:
    specs: list[CardSpec] = []
    for tok in tokens:
        got = parse_card_token(tok, lang)
        if got is None:
            return specs, tok
        specs.extend(got)
    return specs, None


def resolve_cards(specs: Sequence[CardSpec], hand: Sequence[str] | None, lang: str) -> list[str] | ParseError:
    """Card codes for ``specs``: explicit cards as named, bare ranks with the weakest suits held."""
    t = translation(lang)
    if hand is None:
        if all(s.suit for s in specs):
            return [s.rank + s.suit for s in specs if s.suit]
        return ParseError(
            "bad_argument", t.gettext("Name the suits too (for example 7h), or wait for your cards.")
        )
    held = [c for c in hand]
    chosen: list[str] = []
    for s in specs:
        if s.suit is not None:
            code = s.rank + s.suit
            if code in chosen:
                return ParseError("illegal_play", error_message(lang, "illegal_play", reason="duplicate"))
            if code not in held:
                return ParseError(
                    "illegal_play", error_message(lang, "illegal_play", reason="not_in_hand", cards=[code])
                )
            chosen.append(code)
    for s in specs:
        if s.suit is None:
            options = [c for c in held if c[0] == s.rank and c not in chosen]
            options.sort(key=lambda c: SUITS.index(c[1]))
            if not options:
                have = sum(1 for c in held if c[0] == s.rank)
                if have == 0:
                    return ParseError(
                        "illegal_play",
                        t.gettext("You hold no {rank}.").format(rank=_rank_text(lang, s.rank)),
                    )
                return ParseError(
                    "illegal_play",
                    error_message(lang, "illegal_play", reason="not_enough", rank=s.rank, have=have),
                )
            chosen.append(options[0])
    return chosen


def _rank_text(lang: str, rank: str) -> str:

    return rank_label(lang, rank)
