"""A Speculation bot that plays at random, but only legal moves (RULES S7–S9).

It uses every action of the game — turn, bid, sell, keep, offer, accept,
decline, withdraw — with fixed probabilities, driven only by its own seed
(a private ``random.Random``, never the global one), so a simulation with
the same seeds replays exactly. It is never chatty: at most one new offer
per turned card (a "situation"), each offer to it answered once, each of its
own offers considered for withdrawal once; on its turn it always ends by
turning, so a driver that polls every bot after every action terminates.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.api import Action, Event
from engine.seeds import derive
from engine.speculation.actions import Accept, Bid, Decline, Keep, Offer, Sell, Turn, Withdraw
from engine.speculation.view import SpeculationView


class RandomSpeculationBot:
    """Random legal play for ``seat``. Options: ``bid_rate``, ``offer_rate``, ``sell_rate``, ``max_raise``."""

    observes = False
    """The driver may skip :meth:`observe`: the view says everything this bot uses."""

    def __init__(
        self,
        seat: int,
        seed: bytes,
        *,
        bid_rate: float = 0.3,
        offer_rate: float = 0.2,
        sell_rate: float = 0.4,
        max_raise: int = 3,
        **_options: Any,
    ) -> None:
        self.seat = seat
        self._rng = random.Random(int.from_bytes(derive(seed, f"speculation-random-{seat}"), "big"))
        self.bid_rate = bid_rate
        self.offer_rate = offer_rate
        self.sell_rate = sell_rate
        self.max_raise = max(0, max_raise)
        self._situation: tuple[int, int] = (-1, -1)
        self._answered: set[int] = set()
        """Offers (to or from this seat) already considered."""

    def observe(self, event: Event) -> None:
        pass

    def decide(self, view: SpeculationView, legal: Sequence[Action]) -> Action | None:
        if not legal:
            return None
        me = self.seat
        rng = self._rng
        a = view.auction
        if a is not None:
            if a.seat == me:
                if a.bidder is not None and rng.random() < self.sell_rate:
                    return Sell(me)
                if rng.random() < 0.1:
                    return Keep(me)
            elif a.bidder != me:
                chips = view.seats[me].chips
                low = a.best_bid + 1
                if chips >= low and rng.random() < self.bid_rate:
                    return Bid(me, min(chips, low + rng.randrange(self.max_raise + 1)))
        # offers to answer (accept only when no auction is open, S12c), or own ones to withdraw
        for o in view.offers:
            if o.offer in self._answered:
                continue
            if o.seller == me:
                if a is not None:
                    continue
                self._answered.add(o.offer)
                r = rng.random()
                if r < 0.45:
                    return Accept(me, o.offer)
                if r < 0.8:
                    return Decline(me, o.offer)
            elif o.buyer == me:
                self._answered.add(o.offer)
                if rng.random() < 0.2:
                    return Withdraw(me, o.offer)
        if a is None and view.in_deal:
            seats = view.seats
            situation = (view.round, view.unseen)
            if situation != self._situation:
                self._situation = situation
                chips = seats[me].chips
                sellers = [s for s in seats if s.seat != me and s.playing and s.facedown]
                if chips >= 1 and sellers and rng.random() < self.offer_rate:
                    seller = rng.choice(sellers)
                    k = 1 + rng.randrange(seller.facedown)
                    price = 1 + rng.randrange(min(chips, 6))
                    return Offer(me, seller.seat, k, price)
            if view.turn == me:
                return Turn(me)
        return None
