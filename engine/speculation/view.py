"""What one seat (or a spectator) may see of a Speculation match.

Built by :meth:`SpeculationMatch.view`; the only way information leaves the
engine (STYLE 7). It never holds a face-down card: only how many each seat
has (S4). Bots read the attributes; the room sends ``to_dict()``.
The records are named tuples: immutable, and cheap to build on the hot path
(a simulation builds one per bot poll).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.cards import CODES, SUITS


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
            "faceup": [CODES[c] for c in self.faceup],
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
        return {"seat": self.seat, "card": CODES[self.card], "best_bid": self.best_bid, "bidder": self.bidder}


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

    # -- what the viewer may do now (computed on demand from the fields above) --

    def _playing(self) -> bool:
        you = self.you
        return you is not None and self.in_deal and 0 <= you < len(self.seats) and self.seats[you].playing

    @property
    def decision(self) -> str | None:
        """What is awaited from the viewer now: ``"turn"`` (turn his top card, S8), ``"auction"``
        (he owns the card on sale: sell or keep, S7), or ``None`` (nothing; a spectator)."""
        if not self._playing():
            return None
        a = self.auction
        if a is not None:
            return "auction" if a.seat == self.you else None
        return "turn" if self.turn == self.you else None

    @property
    def can(self) -> dict[str, Any] | None:
        """What the viewer may do now, compactly (``None`` for a spectator).

        ``turn``: turn his top card (S8); ``sell`` / ``keep``: the owner of the card on
        sale (``sell`` needs a bid, S7); ``bid``: the least bid he may make (best bid + 1,
        at most his chips, S7), or ``None``; ``offer``: he may offer for other players'
        face-down cards (S9: during turning, a price of 1 to his chips), to the seats of
        ``offer_to`` (each for 1 to its ``facedown`` cards); ``accept`` / ``decline``: ids of
        the open offers to him (no ``accept`` during an auction, S12c); ``withdraw``: ids of
        his own open offers.
        """
        you = self.you
        if you is None:
            return None
        playing = self._playing()
        a = self.auction
        owner = playing and a is not None and a.seat == you
        chips = self.seats[you].chips if 0 <= you < len(self.seats) else 0
        bid = None
        if playing and a is not None and not owner and chips > a.best_bid:
            bid = a.best_bid + 1
        offer_to: list[int] = []
        if playing and a is None and chips >= 1:
            offer_to = [s.seat for s in self.seats if s.seat != you and s.facedown > 0]
        mine = self.offers if playing else ()
        return {
            "turn": playing and a is None and self.turn == you,
            "sell": owner and a is not None and a.bidder is not None,
            "keep": owner,
            "bid": bid,
            "offer": bool(offer_to),
            "offer_to": offer_to,
            "accept": [o.offer for o in mine if o.seller == you] if a is None else [],
            "decline": [o.offer for o in mine if o.seller == you],
            "withdraw": [o.offer for o in mine if o.buyer == you],
        }

    def to_dict(self) -> dict[str, Any]:
        """The protocol's state fields of the view: a new dict, except for a spectator's view, whose
        dict is made once per view and shared by every caller (the room's states and its durable
        log's hash both ask for it): read it, copy it before changing anything in it."""
        if self.you is None:
            memo = _public_memo
            if memo[0] is self:
                return memo[1]
            d = self._dict()
            _remember(self, d)
            return d
        return self._dict()

    def _dict(self) -> dict[str, Any]:
        best = self.best
        return {
            "game": "speculation",
            "rules": "speculation",
            "round": self.round,
            "you": self.you,
            "dealer": self.dealer,
            "turn": self.turn,
            "trump": None if self.trump is None else SUITS[self.trump],
            "best": None if best is None else {"seat": best[0], "card": CODES[best[1]]},
            "pool": self.pool,
            "auction": None if self.auction is None else self.auction.to_dict(),
            "offers": [o.to_dict() for o in self.offers],
            "seats": [s.to_dict() for s in self.seats],
            "in_deal": self.in_deal,
            "unseen": self.unseen,
            "deals": self.deals,
            "ante": self.ante,
            "over": self.over,
            "decision": self.decision,
            "can": self.can,
        }


_public_memo: tuple[SpeculationView | None, dict[str, Any]] = (None, {})
"""The last spectator's view and its ``to_dict()`` (a view is immutable, so the same object gives
the same dict; the match makes a new one at each step): a memo, replaced whole (one assignment, so
a reader always sees a matching pair)."""


def _remember(view: SpeculationView, d: dict[str, Any]) -> None:
    global _public_memo
    _public_memo = (view, d)
