"""Constants of Speculation (RULES S1–S12) and the trump strength table.

Cards are the ints of :mod:`engine.cards` (Président order: ``3`` = rank 0 …
``A`` = 11, ``2`` = 12). In Speculation only the trump suit matters and it
ranks 2 (low) … K, A (high) (S1), so a card's strength is looked up in
:data:`STRENGTH` by its Président rank index.
"""

from __future__ import annotations

from engine.cards import RANK_A

MIN_PLAYERS = 3
"""S1 (players) and S3 Decision: a deal needs at least 3 players."""
MAX_PLAYERS = 9
"""S1: up to nine players (seed 003: «до девяти человек»)."""
STACK = 3
"""S4: three face-down cards each."""
DEFAULT_CHIPS = 100
"""Chips per seat when a table gives none (simulations; rooms pass the balances)."""

STRENGTH: tuple[int, ...] = tuple((rank + 1) % 13 for rank in range(13))
"""Speculation strength by Président rank index: ``2`` → 0, ``3`` → 1, … ``K`` → 11, ``A`` → 12 (S1)."""
ACE_STRENGTH = STRENGTH[RANK_A]

CARD_STRENGTH: tuple[int, ...] = tuple(STRENGTH[c >> 2] for c in range(52))
"""Strength of each card id within its suit (hot path: no shifts)."""


def is_trump_ace(card: int, trump: int) -> bool:
    """S6/S12b: the ace of the trump suit, which nothing can beat."""
    return (card & 3) == trump and (card >> 2) == RANK_A


def beats(card: int, best: int) -> bool:
    """S8: ``card`` is a higher trump than the best trump ``best`` (trump = ``best``'s suit)."""
    return (card & 3) == (best & 3) and CARD_STRENGTH[card] > CARD_STRENGTH[best]


def higher_trumps(best: int) -> int:
    """How many cards of the trump suit beat ``best`` (all of them unseen while ``best`` is best)."""
    return ACE_STRENGTH - CARD_STRENGTH[best]
