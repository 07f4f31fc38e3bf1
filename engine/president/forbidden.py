"""T8 seen ahead: a play after which a hand can only go out on a forbidden last card.

Pure and small, on card codes (``"2c"``, ``"Th"``): what a hint must not suggest and
what a person is asked to confirm (T8: going out with a 2 — a 3 in revolution —
ranks the player last, even first out).
"""

from __future__ import annotations

from collections.abc import Sequence


def forbidden_rank(reversed_order: bool) -> str:
    """T8: the rank a hand must not go out with in the order in force (T2, T10)."""
    return "3" if reversed_order else "2"


def stranded(hand: Sequence[str], cards: Sequence[str], reversed_order: bool) -> tuple[str, ...]:
    """The cards left after playing ``cards`` from ``hand`` when every one of them is of the forbidden
    last rank in the order in force after the play (a quad reverses it, T10): the hand can then only
    go out on a forbidden last card (T8). Empty when the play leaves no such trap (or no card)."""
    left = list(hand)
    for card in cards:
        if card in left:
            left.remove(card)
    if not left:
        return ()
    after = reversed_order != (len(cards) == 4 and len({c[0] for c in cards}) == 1)  # T10
    rank = forbidden_rank(after)
    return tuple(left) if all(c[0] == rank for c in left) else ()
