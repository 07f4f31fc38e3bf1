"""What one seat (or a spectator) may see of a Speculation match.

Built by :meth:`SpeculationMatch.view`; the only way information leaves the
engine (STYLE 7). It never holds a face-down card: only how many each seat
has (S4). Bots read the attributes; the room sends ``to_dict()``.
The records are named tuples: immutable, and cheap to build on the hot path
(a simulation builds one per bot poll).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.cards import CARDS, SUITS

_CODES = tuple(str(c) for c in CARDS)


class SeatView(NamedTuple):
    seat: int
    chips: int
    faceup: tuple[int, ...]
    """Cards turned face up in front of the seat, oldest first (a bought best trump included, S7)."""
    facedown: int
    """How many face-down cards the seat's stack holds (never which)."""
    playing: bool
    """Whether the seat plays the current (or last) deal (S3, S12a)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "chips": self.chips,
            "faceup": [_CODES[c] for c in self.faceup],
            "facedown": self.facedown,
            "cards": self.facedown + len(self.faceup),
            "playing": self.playing,
        }


class AuctionView(NamedTuple):
    seat: int
    """The owner selling the best trump."""
    card: int
    best_bid: int
    """0 while nobody bid."""
    bidder: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "card": _CODES[self.card], "best_bid": self.best_bid, "bidder": self.bidder}


class OfferView(NamedTuple):
    offer: int
    buyer: int
    seller: int
    cards: int
    price: int

    def to_dict(self) -> dict[str, Any]:
        return {"offer": self.offer, "from": self.buyer, "to": self.seller, "cards": self.cards, "price": self.price}


class SpeculationView(NamedTuple):
    """The public state of the table, seen by ``you`` (a seat, or ``None`` for a spectator)."""

    round: int
    you: int | None
    dealer: int | None
    turn: int | None
    trump: int | None
    """Trump suit index (``engine.cards.SUITS``), ``None`` before the first deal."""
    best: tuple[int, int] | None
    """(holder seat, card) of the best trump."""
    pool: int
    auction: AuctionView | None
    offers: tuple[OfferView, ...]
    seats: tuple[SeatView, ...]
    in_deal: bool
    unseen: int
    """Cards not seen this deal: 52 minus the cards face up (stacks and undealt cards alike)."""
    deals: int
    """How many deals the match plays (S11)."""
    ante: int
    over: bool

    def to_dict(self) -> dict[str, Any]:
        best = self.best
        return {
            "game": "speculation",
            "rules": "speculation",
            "round": self.round,
            "you": self.you,
            "dealer": self.dealer,
            "turn": self.turn,
            "trump": None if self.trump is None else SUITS[self.trump],
            "best": None if best is None else {"seat": best[0], "card": _CODES[best[1]]},
            "pool": self.pool,
            "auction": None if self.auction is None else self.auction.to_dict(),
            "offers": [o.to_dict() for o in self.offers],
            "seats": [s.to_dict() for s in self.seats],
            "in_deal": self.in_deal,
            "unseen": self.unseen,
            "deals": self.deals,
            "ante": self.ante,
            "over": self.over,
        }
