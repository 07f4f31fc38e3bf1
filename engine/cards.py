"""Cards, ranks, suits and the deck, in the notation of RULES.md.

A card is a small ``int`` (0..51): ``rank * 4 + suit``, where ``rank`` counts
in Président order (``3`` = 0 … ``2`` = 12) and ``suit`` is ``c d h s`` (0..3).
So plain integer order is Président strength with the suit as tie-break
(``3c`` weakest, ``2s`` strongest), exactly as P13 wants, and sets of cards
are cheap to sort, hash and compare on the hot path. The 52 instances are
created once; :meth:`Card.parse` and :data:`CARDS` hand them out.

    >>> Card.parse("Qh"), str(Card.parse("Th")), Card.parse("2s") > Card.parse("As")
    (Card('Qh'), 'Th', True)
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "3456789TJQKA2"
"""Rank symbols, weakest first in Président order (RULES P2)."""
SUITS = "cdhs"
"""Suit symbols: clubs, diamonds, hearts, spades (suit tie-break order of P13)."""

RANK_3 = 0
RANK_Q = RANKS.index("Q")
RANK_A = RANKS.index("A")
RANK_2 = RANKS.index("2")
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


class CardError(ValueError):
    """A text that does not name a card."""


class Card(int):
    """One of the 52 cards. Immutable; compare, hash and sort as an ``int``."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """Rank index in Président order: 0 for ``3`` … 12 for ``2``."""
        return self >> 2

    @property
    def suit(self) -> int:
        """Suit index: 0 ``c``, 1 ``d``, 2 ``h``, 3 ``s``."""
        return self & 3

    @property
    def rank_symbol(self) -> str:
        return RANKS[self >> 2]

    @property
    def suit_symbol(self) -> str:
        return SUITS[self & 3]

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The card of a rank index and a suit index."""
        return CARDS[rank * 4 + suit]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"Th"``, ``"2s"``; ``"10h"`` is accepted for ``"Th"``. Case-insensitive."""
        t = text.strip()
        if len(t) == 3 and t[:2] == "10":
            t = "T" + t[2]
        if len(t) != 2:
            raise CardError(f"not a card: {text!r}")
        r = RANKS.find(t[0].upper())
        s = SUITS.find(t[1].lower())
        if r < 0 or s < 0:
            raise CardError(f"not a card: {text!r}")
        return CARDS[r * 4 + s]

    def __str__(self) -> str:
        return CODES[self]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(52))
"""All 52 cards, in Président order (``3c`` first, ``2s`` last)."""

CODES: tuple[str, ...] = tuple(RANKS[i >> 2] + SUITS[i & 3] for i in range(52))
"""Each card's code by its number (``CODES[0] == "3c"``): what ``str(card)`` gives."""


def parse_cards(texts: Iterable[str] | str) -> tuple[Card, ...]:
    """Parse ``"7c 7h"`` or ``["7c", "7h"]`` into cards (order kept)."""
    items = texts.split() if isinstance(texts, str) else texts
    return tuple(Card.parse(t) for t in items)


def format_cards(cards: Iterable[int]) -> list[str]:
    """Card codes, for JSON and logs."""
    return [CODES[c] for c in cards]


def deck() -> list[Card]:
    """A fresh, ordered 52-card deck."""
    return list(CARDS)
