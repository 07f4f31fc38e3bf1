"""Speculation events: frozen records of what changed, in protocol form.

Every Speculation event is public: nobody, not even its owner, ever sees a
face-down card (S4), so no event names one until :class:`Revealed` at the
end of a deal (S12h). ``for_seat`` therefore returns the event itself for
every seat and for spectators. Cards are card ids (``engine.cards``) and
appear as codes (``"Qh"``) in ``to_dict()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

from engine.cards import CODES, SUITS


def _code(card: int) -> str:
    return CODES[card]


class _Public:
    """Mixin: an event everyone may see as it is."""

    __slots__ = ()

    def for_seat(self, seat: int | None) -> Self | None:
        return self


@dataclass(frozen=True, slots=True)
class Ante(_Public):
    """S3: each playing seat paid its ante into the pool (the dealer double)."""

    name = "ante"
    payments: tuple[tuple[int, int], ...]
    """(seat, chips) pairs, in seat order."""
    pool: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.name,
            "payments": [{"seat": s, "amount": a} for s, a in self.payments],
            "pool": self.pool,
        }


@dataclass(frozen=True, slots=True)
class Dealt(_Public):
    """S4: a deal started: who deals, who plays, how many face-down cards each holds (never which)."""

    name = "dealt"
    round: int
    dealer: int
    players: tuple[int, ...]
    facedown: tuple[int, ...]
    """Face-down cards per seat (0 for seats sitting the deal out)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.name,
            "round": self.round,
            "dealer": self.dealer,
            "players": list(self.players),
            "facedown": list(self.facedown),
        }


@dataclass(frozen=True, slots=True)
class Trump(_Public):
    """S5: the card turned up after the deal; its suit is trump, it belongs to the dealer."""

    name = "trump"
    seat: int
    card: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "seat": self.seat, "card": _code(self.card), "suit": SUITS[self.card & 3]}


@dataclass(frozen=True, slots=True)
class Turned(_Public):
    """S8: ``seat`` turned the top card of its stack; ``best`` if it is the new best trump."""

    name = "turned"
    seat: int
    card: int
    best: bool

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "seat": self.seat, "card": _code(self.card), "best": self.best}


@dataclass(frozen=True, slots=True)
class AuctionOpened(_Public):
    """S7: the new best trump ``card`` of ``seat`` is up for sale."""

    name = "auction"
    seat: int
    card: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "seat": self.seat, "card": _code(self.card)}


@dataclass(frozen=True, slots=True)
class BidMade(_Public):
    """S7: ``seat`` bids ``amount`` chips."""

    name = "bid"
    seat: int
    amount: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "seat": self.seat, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class Sold(_Public):
    """S7: ``seat`` sold the best trump ``card`` to ``to`` for ``price`` chips (paid to the seller)."""

    name = "sold"
    seat: int
    to: int
    card: int
    price: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "seat": self.seat, "to": self.to, "card": _code(self.card), "price": self.price}


@dataclass(frozen=True, slots=True)
class Kept(_Public):
    """S7: ``seat`` keeps the best trump; ``timeout`` when the auction's time ran out."""

    name = "kept"
    seat: int
    card: int
    timeout: bool

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "seat": self.seat, "card": _code(self.card), "timeout": self.timeout}


@dataclass(frozen=True, slots=True)
class Offered(_Public):
    """S9: offer ``offer``: ``buyer`` offers ``price`` for the top ``cards`` face-down cards of ``seller``."""

    name = "offered"
    offer: int
    buyer: int
    seller: int
    cards: int
    price: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.name,
            "offer": self.offer,
            "from": self.buyer,
            "to": self.seller,
            "cards": self.cards,
            "price": self.price,
        }


@dataclass(frozen=True, slots=True)
class Declined(_Public):
    """S9: the seller ``seat`` declined offer ``offer``."""

    name = "declined"
    offer: int
    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "offer": self.offer, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Withdrawn(_Public):
    """S9: the buyer ``seat`` withdrew offer ``offer``."""

    name = "withdrawn"
    offer: int
    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "offer": self.offer, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Lapsed(_Public):
    """S9/S12d: offer ``offer`` is no longer possible.

    ``reason``: ``"cards"`` (one of its cards left the seller's stack),
    ``"chips"`` (the buyer's chips fell below the price) or ``"deal_over"``.
    """

    name = "lapsed"
    offer: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "offer": self.offer, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Traded(_Public):
    """S9: offer ``offer`` accepted: ``cards`` face-down cards went under ``buyer``'s stack, ``price`` to ``seller``."""

    name = "traded"
    offer: int
    buyer: int
    seller: int
    cards: int
    price: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.name,
            "offer": self.offer,
            "from": self.buyer,
            "to": self.seller,
            "cards": self.cards,
            "price": self.price,
        }


@dataclass(frozen=True, slots=True)
class PoolWon(_Public):
    """S3/S6/S10: ``seat`` holds the best trump when the deal ends and takes the pool."""

    name = "pool_won"
    seat: int
    amount: int
    card: int
    reason: str
    """``"ace"`` (trump ace face up, S6/S12b) or ``"end"`` (no face-down card left but the holder's, S10)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.name,
            "seat": self.seat,
            "amount": self.amount,
            "card": _code(self.card),
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Revealed(_Public):
    """S12h: at the end of a deal every stack is shown (top card first); undealt cards never are."""

    name = "revealed"
    stacks: tuple[tuple[int, ...], ...]
    """Per seat, the face-down cards left, top first (empty for seats sitting out)."""

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "stacks": [[_code(c) for c in stack] for stack in self.stacks]}


@dataclass(frozen=True, slots=True)
class DealOver(_Public):
    """A deal ended; ``chips`` are every seat's chips after it."""

    name = "deal_over"
    round: int
    winner: int
    chips: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "round": self.round, "winner": self.winner, "chips": list(self.chips)}


@dataclass(frozen=True, slots=True)
class MatchOver(_Public):
    """S11: the set number of deals is played (or no deal is possible any more).

    ``totals`` are the final chips, ``changes`` the gain or loss of each
    seat over the match, ``winners`` the seats with the largest gain.
    """

    name = "match_over"
    winners: tuple[int, ...]
    totals: tuple[int, ...]
    changes: tuple[int, ...]
    deals: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.name,
            "winners": list(self.winners),
            "totals": list(self.totals),
            "changes": list(self.changes),
            "deals": self.deals,
        }


SpeculationEvent = (
    Ante
    | Dealt
    | Trump
    | Turned
    | AuctionOpened
    | BidMade
    | Sold
    | Kept
    | Offered
    | Declined
    | Withdrawn
    | Lapsed
    | Traded
    | PoolWon
    | Revealed
    | DealOver
    | MatchOver
)
