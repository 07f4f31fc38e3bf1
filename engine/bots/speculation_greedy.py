"""A Speculation bot that values the best trump by counting unseen cards (RULES S7–S10).

While a card is the best trump, every higher trump of its suit is still
unseen (a turned higher trump would be the best). Of the ``U`` unseen cards
(52 minus every face-up card: the stacks *and* the undealt rest, which
nobody can tell apart), ``H`` beat the best trump. The holder loses the pool
only if one of the ``F`` face-down cards that others will turn is among
those ``H``; with the unseen cards equally likely anywhere,

    P(keep the pool) = C(U - H, F) / C(U, F) = Π_{i<F} (U - H - i) / (U - i).

The bot bids up to that probability × pool when buying would make it the
holder, sells when the best bid reaches its own value of keeping, as holder
offers to buy other stacks' face-down cards for less than the gain in
probability they bring, and accepts offers for its cards above what they are
worth to it. It never repeats an offer in the same situation (one per seller
per turned card) and answers each offer once, so a polling driver ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.api import Action, Event
from engine.speculation.actions import Accept, Bid, Decline, Offer, Sell, Turn, Withdraw
from engine.speculation.rules import higher_trumps
from engine.speculation.view import SpeculationView


def keep_probability(unseen: int, higher: int, threat: int) -> float:
    """Chance that none of ``threat`` cards drawn from ``unseen`` is one of the ``higher`` ones."""
    p = 1.0
    for i in range(threat):
        rest = unseen - i
        if rest <= 0:
            break
        p *= (rest - higher) / rest
        if p <= 0.0:
            return 0.0
    return p


class GreedySpeculationBot:
    """Counting bot for ``seat``. Options: ``margin`` (share of the expected value it pays, default 0.8)."""

    observes = False

    def __init__(self, seat: int, seed: bytes, *, margin: float = 0.8, **_options: Any) -> None:
        self.seat = seat
        self.margin = margin
        self._offered: set[tuple[int, int, int]] = set()
        """(round, turned cards, seller) already offered to: one offer per seller per situation."""

    def observe(self, event: Event) -> None:
        pass

    def decide(self, view: SpeculationView, legal: Sequence[Action]) -> Action | None:
        if not legal or not view.in_deal or view.best is None:
            return None
        me = self.seat
        a = view.auction
        holder, best = view.best
        if a is None and holder != me and view.turn != me:
            for o in view.offers:
                if o.seller == me or o.buyer == me:
                    break
            else:
                return None  # nothing to decide: the fast path of most polls
        seats = view.seats
        mine = [o for o in view.offers if o.seller == me or o.buyer == me]
        turned = 0
        facedown = 0
        for s in seats:
            turned += len(s.faceup)
            facedown += s.facedown
        unseen = 52 - turned
        higher = higher_trumps(best)
        pool = view.pool
        chips = seats[me].chips
        if a is not None:
            if a.seat == me:
                keep = keep_probability(unseen, higher, facedown - seats[me].facedown) * pool
                if a.bidder is not None and a.best_bid >= keep:
                    return Sell(me)
                return None  # the deadline keeps (S7)
            if a.bidder == me:
                return None
            worth = keep_probability(unseen, higher, facedown - seats[me].facedown) * pool * self.margin
            amount = a.best_bid + 1
            if amount <= chips and amount < worth:
                return Bid(me, amount)
            return None
        threat = facedown - seats[holder].facedown
        p_holder = keep_probability(unseen, higher, threat)
        for o in mine:
            if o.seller == me:
                if me == holder:  # selling protection: what the holder loses
                    loss = (p_holder - keep_probability(unseen, higher, threat + o.cards)) * pool
                    ok = o.price > loss
                else:  # the chance that a higher trump is among these cards, half of the pool
                    ok = o.price >= (1.0 - keep_probability(unseen, higher, o.cards)) * pool * 0.5
                return Accept(me, o.offer) if ok else Decline(me, o.offer)
            if holder != me:
                return Withdraw(me, o.offer)  # bought while holder; no longer worth it
        if holder == me:
            best_gain, best_seat = 0.0, -1
            for s in seats:
                if s.seat != me and s.facedown and (view.round, turned, s.seat) not in self._offered:
                    gain = (keep_probability(unseen, higher, threat - s.facedown) - p_holder) * pool
                    if gain > best_gain:
                        best_gain, best_seat = gain, s.seat
            if best_seat >= 0:
                price = max(1, int(best_gain * 0.5))
                if price < best_gain and price <= chips:
                    self._offered.add((view.round, turned, best_seat))
                    return Offer(me, best_seat, seats[best_seat].facedown, price)
        if view.turn == me:
            return Turn(me)
        return None
