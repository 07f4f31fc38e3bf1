"""A play that leaves only forbidden last cards (T8) is said first and played when typed again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.president.forbidden import forbidden_rank, stranded
from server.messages.games import forbids_last_cards
from server.messages.labels import rank_label
from server.messages.terminal import TermStyle
from server.messages.translations import translation
from server.presenters.text.draw import cards_text


def risky_play(state: Mapping[str, Any] | None, cmd: str, args: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The cards a play (or cut) of ``args`` would leave when they are all forbidden last cards at
    this tdc table (T8), else ``None``."""
    if state is None or not forbids_last_cards(state.get("rules")) or cmd not in ("play", "cut"):
        return None
    hand = state.get("hand")
    cards = args.get("cards") or (state.get("cut") if cmd == "cut" else None)
    if not isinstance(hand, list) or not isinstance(cards, list | tuple) or not cards:
        return None
    if not all(isinstance(c, str) and c for c in [*hand, *cards]):
        return None
    left = stranded(hand, list(cards), state.get("order") == "reversed")
    return left or None


def risky_warning(left: tuple[str, ...], cards_played: int, reversed_order: bool, word: str, lang: str,
                  style: TermStyle) -> str:
    """Say what the play costs (T8) and how to make it anyway: the same line again."""
    t = translation(lang)
    after = reversed_order != (cards_played == 4)
    return t.ngettext(
        "Careful: after this play you would hold only {cards}, and going out on a {rank} ranks you last "
        "(forbidden last card). Type {again} again to play it anyway.",
        "Careful: after this play you would hold only {cards}, and going out on a {rank} ranks you last "
        "(forbidden last card). Type {again} again to play them anyway.",
        cards_played,
    ).format(cards=cards_text(left, lang, style), rank=rank_label(lang, forbidden_rank(after)), again=word)
