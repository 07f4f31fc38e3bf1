"""``search``: a Speculation bot that simulates the rest of the deal (RULES S7–S10).

Nobody sees a face-down card (S4), so every face-down card and every undealt
card is one of the *unseen* cards: 52 minus every card face up on the table
(the turned trump, dead cards, best trumps). A *world* deals the face-down
stacks from the unseen cards at random; in each world the bot plays the
turning out (S8: clockwise from the right seat, the holder never turns, a
higher trump takes over and turning goes on after its finder, the ace or an
empty table ends the deal, S10/S12b) and sees who takes the pool. Over many
worlds that gives, for each seat, the chance to win the pool; the same
worlds are replayed for each alternative (the holder after a sale, the
stacks after a trade), so alternatives are compared on common worlds.

Decisions, each valued in chips (pool × chance of winning, plus prices):

* auction owner (S7): sell to the best bid when the bid plus what it would
  still win after the sale beats keeping; otherwise wait (the deadline keeps);
* bidder: raise by one chip while the gain of holding the card (its chance
  as holder minus its chance otherwise, times the pool) stays above the
  price with a margin;
* holder of the best trump (S9): offer to buy the face-down cards of the seat
  whose cards threaten it most, for part of what removing them is worth;
* an offer received: accept when the price beats what the cards are worth to
  it, decline otherwise; withdraw its own offers that lost their point.

Simulated deals assume every later auction is kept and no further trade:
prices paid at fair value move chips, not chances.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.bots.search_common import Budget, make_rng
from engine.speculation.actions import Accept, Bid, Decline, Offer, Sell, Turn, Withdraw
from engine.speculation.rules import CARD_STRENGTH, is_trump_ace

Scenario = tuple[int, tuple[tuple[int, int, int], ...]]
"""(holder, trades): the holder of the best trump, and trades ``(seller, buyer, k)`` already made."""


def simulate_deal(
    stacks: Sequence[Sequence[int]], holder: int, best: int, start: int, rng: random.Random, worlds: int,
    scenarios: Sequence[Scenario], unseen: Sequence[int],
) -> tuple[list[list[float]], int]:
    """Win chances per seat for each scenario, over ``worlds`` common worlds; and the turns simulated.

    ``stacks``: face-down counts per seat (as ``len``-able sequences).
    ``start``: the first seat that may turn next (the turner, or the seat
    after the owner of the card on auction). Each scenario sets the holder
    and moves the top ``k`` cards of a seller under a buyer's stack (S9).
    """
    n = len(stacks)
    counts = [len(s) for s in stacks]
    total = sum(counts)
    wins = [[0.0] * n for _ in scenarios]
    steps = 0
    pool = list(unseen)
    if total > len(pool):
        total = len(pool)
    for _ in range(max(1, worlds)):
        drawn = rng.sample(pool, total)
        base: list[list[int]] = []
        i = 0
        for s in range(n):
            k = min(counts[s], total - i)
            base.append(drawn[i : i + k])  # the last item is the top of the stack
            i += k
        for j, (h, trades) in enumerate(scenarios):
            world = [list(st) for st in base]
            for seller, buyer, k in trades:
                moved = world[seller][-k:]
                del world[seller][-k:]
                world[buyer][0:0] = moved  # under the buyer's stack (S9)
            winner, turns = _play_out(world, h, best, start)
            steps += turns
            wins[j][winner] += 1.0
    w = float(max(1, worlds))
    return [[x / w for x in row] for row in wins], steps


def _play_out(stacks: list[list[int]], holder: int, best: int, start: int) -> tuple[int, int]:
    """S8–S10 in one world: the seat that takes the pool, and the number of turns."""
    n = len(stacks)
    suit = best & 3
    strength = CARD_STRENGTH[best]
    turns = 0
    seat = start % n
    while True:
        t = -1
        for i in range(n):
            s = (seat + i) % n
            if s != holder and stacks[s]:
                t = s
                break
        if t < 0:
            return holder, turns  # S10: nobody but the holder can turn
        card = stacks[t].pop()
        turns += 1
        if card & 3 == suit and CARD_STRENGTH[card] > strength:
            holder = t
            strength = CARD_STRENGTH[card]
            if is_trump_ace(card, suit):
                return holder, turns  # S12b
        seat = t + 1


class SearchSpeculationBot:
    """Monte-Carlo Speculation player. Options: ``budget_ms``, ``rollouts`` (worlds per
    decision), ``clock`` (see :mod:`engine.bots.search_common`), ``margin`` (share of a
    card's value it pays or demands, default 0.85)."""

    observes = False

    def __init__(
        self,
        seat: int,
        seed: bytes,
        budget_ms: float = 200.0,
        rollouts: int | None = None,
        clock: Any = None,
        margin: float = 0.85,
        max_worlds: int = 2000,
        **opts: Any,
    ) -> None:
        self.seat = seat
        self.seed = bytes(seed)
        self.budget_ms = float(budget_ms)
        self.rollouts = rollouts
        self.clock = clock
        self.margin = float(margin)
        self.max_worlds = max(1, int(max_worlds))
        self._cache: dict[tuple[Any, ...], list[list[float]]] = {}
        self._offered: set[tuple[int, int, int]] = set()
        self._answered: set[int] = set()
        self.stats_rollouts = 0
        self.stats_searches = 0
        self.stats_steps = 0

    def observe(self, event: Any) -> None:
        """Everything this bot uses is in the view (every Speculation event is public)."""

    # -- estimates ------------------------------------------------------------

    def _chances(self, view: Any, scenarios: Sequence[Scenario]) -> list[list[float]]:
        """Win chances per seat for each scenario, in the situation of ``view`` (cached per situation)."""
        seats = view.seats
        holder, best = view.best
        shown = tuple(c for s in seats for c in s.faceup)
        facedown = tuple(s.facedown for s in seats)
        if view.auction is not None:
            start = view.auction.seat + 1
        else:
            start = view.turn if view.turn is not None else holder + 1
        key = (view.round, shown, facedown, start, tuple(scenarios))
        got = self._cache.get(key)
        if got is not None:
            return got
        seen = set(shown)
        unseen = [c for c in range(52) if c not in seen]
        stacks = [range(k) for k in facedown]
        budget = Budget.make(self.budget_ms, self.rollouts, self.clock)
        rng = make_rng(self.seed, f"spec-{view.round}-{len(shown)}-{facedown}-{start}")
        if budget.rollouts is not None:
            worlds = budget.rollouts
        else:
            # the work of one world: a turn per face-down card at most, per scenario
            per_world = (sum(facedown) + 4) * len(scenarios)
            worlds = max(16, min(self.max_worlds, budget.steps // max(1, per_world)))
        chances, steps = simulate_deal(stacks, holder, best, start, rng, worlds, scenarios, unseen)
        self.stats_searches += 1
        self.stats_rollouts += worlds
        self.stats_steps += steps
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[key] = chances
        return chances

    # -- decisions ------------------------------------------------------------

    def decide(self, view: Any, legal: Sequence[Any]) -> Any:
        if not legal or not view.in_deal or view.best is None:
            return None
        me = self.seat
        holder, _best = view.best
        auction = view.auction
        mine = [o for o in view.offers if o.seller == me or o.buyer == me]
        if auction is None and holder != me and view.turn != me and not mine:
            return None  # nothing for this seat now: the fast path of out-of-turn polls
        pool = view.pool
        chips = view.seats[me].chips
        if auction is not None:
            return self._auction(view, legal, pool, chips)
        for o in mine:
            if o.seller == me and o.offer not in self._answered:
                self._answered.add(o.offer)
                return self._answer(view, o, holder, pool)
        for o in mine:
            if o.buyer == me and holder != me:
                return Withdraw(me, o.offer)  # bought as holder; no longer the holder
        if holder == me and chips >= 1:
            offer = self._buy(view, pool, chips)
            if offer is not None:
                return offer
        if view.turn == me:
            return Turn(me)
        return None

    def _auction(self, view: Any, legal: Sequence[Any], pool: int, chips: int) -> Any:
        me = self.seat
        a = view.auction
        if a.seat == me:
            if a.bidder is None:
                return None  # wait for bids; the deadline keeps (S7)
            keep, sold = self._chances(view, ((me, ()), (a.bidder, ())))
            if a.best_bid + sold[me] * pool > keep[me] * pool:
                return Sell(me)
            return None  # a better bid may come; the deadline keeps (S7)
        if a.bidder == me or not any(isinstance(x, Bid) for x in legal):
            return None
        amount = a.best_bid + 1
        if amount > chips:
            return None
        mine, theirs = self._chances(view, ((me, ()), (a.seat, ())))
        # the owner may still sell to someone else: what buying changes for me
        gain = (mine[me] - theirs[me]) * pool
        if amount < gain * self.margin:
            return Bid(me, amount)
        return None

    def _answer(self, view: Any, o: Any, holder: int, pool: int) -> Any:
        me = self.seat
        now, after = self._chances(view, ((holder, ()), (holder, ((me, o.buyer, o.cards),))))
        worth = (now[me] - after[me]) * pool  # what keeping those cards is worth to me
        if worth <= 0.0 or o.price > worth / self.margin:
            return Accept(me, o.offer)
        return Decline(me, o.offer)

    def _buy(self, view: Any, pool: int, chips: int) -> Any:
        me = self.seat
        shown = sum(len(s.faceup) for s in view.seats)
        candidates = [
            s.seat for s in view.seats
            if s.seat != me and s.facedown and (view.round, shown, s.seat) not in self._offered
        ]
        if not candidates:
            return None
        scenarios: list[Scenario] = [(me, ())]
        scenarios += [(me, ((s, me, view.seats[s].facedown),)) for s in candidates]
        chances = self._chances(view, scenarios)
        base = chances[0][me]
        best_gain, best_seat = 0.0, -1
        for i, s in enumerate(candidates):
            gain = (chances[i + 1][me] - base) * pool
            if gain > best_gain:
                best_gain, best_seat = gain, s
        for s in candidates:
            self._offered.add((view.round, shown, s))
        if best_seat < 0:
            return None
        price = max(1, int(best_gain * 0.6))
        if price >= best_gain or price > chips:
            return None
        return Offer(me, best_seat, view.seats[best_seat].facedown, price)
