"""``search``: a Président bot that thinks, by determinized Monte-Carlo search.

For every decision with more than one sensible answer the bot

1. samples the hidden cards (*worlds*): the other seats' hands, dealt from
   the cards it has not seen, with each seat's count, and consistent with
   everything its seat knows (:class:`Knowledge`): cards played in public,
   the exchange it took part in (cards it gave are in the receiver's hand
   unless played; a seat that had to give its strongest cards holds nothing
   stronger, one that gave its weakest nothing weaker, P13/T12);
2. plays each candidate (plays grouped by rank and size, pass, cut, no cut,
   the cards given back in the tdc exchange) in each world, then the rest of
   the round with a fast rollout policy for every seat (:func:`_policy`);
3. keeps the candidate with the best mean result for its seat: P14 points
   (classic) or the chip result of T13 in stakes (tdc), where a forbidden
   last card (T8) costs what it costs.

Rollouts run on :class:`_Sim`, a compact model of one round (rank counts per
seat, bit masks), not on the engine, to be fast; its rules are the engine's
(checked move for move against :class:`engine.president.PresidentMatch` by
``tests/engine/bots/test_search.py``). The bot reads only its view and the
legal actions it is given: it never sees another seat's cards, so two
matches that differ only in hidden cards get the same decision.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, fields
from itertools import combinations
from typing import Any

from engine.bots.search_common import Budget, RaceResult, make_rng, race
from engine.cards import CARDS, RANK_2, RANK_3, Card
from engine.president.rules import RULESETS, PresidentRules

N_RANKS = 13
QH = Card.parse("Qh")
FULL_MASK = (1 << 52) - 1
_NO_UNDEALT = (0,) * 13


# --------------------------------------------------------------------------
# The round model used by rollouts


class _Model:
    """The switches of one :class:`PresidentRules` that the round model reads, checked once.

    Every switch of :class:`PresidentRules` is either read here (it changes how a
    round is played or scored) or known not to matter within a round; a rule
    set with a switch the model does not know (turned away from its default),
    or with a combination it does not play, is refused with a
    :class:`ValueError` that names it.
    """

    __slots__ = (
        "close_on_empty",
        "close_on_four_of_rank",
        "close_on_quad",
        "cut",
        "exchange_choice",
        "forbidden_last",
        "forced_passes",
        "money",
        "pass_leaves_trick",
        "qh_leads",
        "revolution",
        "rules",
    )

    READ = frozenset({
        "pass_leaves_trick", "close_on_quad", "close_on_four_of_rank", "forced_passes", "close_on_empty",
        "revolution", "cut", "forbidden_last", "passive_on_timeout", "money", "exchange_choice", "first_lead",
    })  # fmt: skip
    """Switches the model plays by (``passive_on_timeout``: passive seats come from the view, T14)."""
    OUTSIDE = frozenset({"name", "min_seats", "max_seats", "seats_change", "default_rounds"})
    """Switches about the table, not about playing a round."""

    def __init__(self, rules: PresidentRules) -> None:
        defaults = PresidentRules(name=rules.name)
        for f in fields(PresidentRules):
            if f.name not in self.READ and f.name not in self.OUTSIDE and getattr(rules, f.name) != getattr(
                defaults, f.name
            ):
                raise ValueError(f"the search model does not play the rule switch {f.name!r} (rules {rules.name!r})")
        if rules.first_lead not in ("3c", "qh"):
            raise ValueError(f"the search model does not know first_lead={rules.first_lead!r}")
        if rules.passive_on_timeout and not rules.pass_leaves_trick:
            # T14 skips passive seats through the T5 trick membership; without T5 the engine
            # would still give them the turn, which the model does not play
            raise ValueError("the search model plays passive_on_timeout only with pass_leaves_trick")
        self.rules = rules
        self.pass_leaves_trick = rules.pass_leaves_trick
        self.close_on_quad = rules.close_on_quad
        self.close_on_four_of_rank = rules.close_on_four_of_rank
        self.forced_passes = rules.forced_passes
        self.close_on_empty = rules.close_on_empty
        self.revolution = rules.revolution
        self.cut = rules.cut
        self.forbidden_last = rules.forbidden_last
        self.money = rules.money
        self.exchange_choice = rules.exchange_choice
        self.qh_leads = rules.first_lead == "qh"


_MODELS: dict[PresidentRules, _Model] = {}


def model_of(rules: PresidentRules | str) -> _Model:
    """The round model's reading of ``rules`` (a :class:`PresidentRules` or a standard name),
    checked once per rule set; :class:`ValueError` when the model cannot play it."""
    if isinstance(rules, str):
        if rules not in RULESETS:
            raise ValueError(f"unknown Président rules {rules!r}: give the search bot its PresidentRules")
        rules = RULESETS[rules]
    got = _MODELS.get(rules)
    if got is None:
        got = _MODELS[rules] = _Model(rules)
    return got


class _Sim:
    """One Président round in progress, as rank counts (suits never matter in play, P2).

    Played by the switches of a :class:`PresidentRules` (``model``, see
    :class:`_Model`): classic (P5–P11) and tdc (T3–T9, T14, T15, after the
    exchange) are two configurations. Mutable; :meth:`copy` is the only way to branch.
    """

    __slots__ = (
        "done",
        "forbidden",
        "forced",
        "hands",
        "holders",
        "last",
        "left",
        "model",
        "n",
        "noise",
        "out",
        "passed",
        "passive",
        "passive_order",
        "remaining",
        "rev",
        "steps",
        "top_count",
        "top_played",
        "top_rank",
        "turn",
        "undealt",
    )

    def __init__(self, n: int, rules: PresidentRules | str | _Model) -> None:
        self.n = n
        self.model = rules if isinstance(rules, _Model) else model_of(rules)
        self.hands: list[list[int]] = [[0] * N_RANKS for _ in range(n)]
        self.left = [0] * n
        self.remaining = [0] * N_RANKS
        """Cards of each rank still in some hand."""
        self.undealt: Sequence[int] = _NO_UNDEALT
        """Cards of each rank in no hand and never played (explicit deals of fewer than 52 cards)."""
        self.noise = 0.0
        self.turn = 0
        self.top_rank = -1
        self.top_count = 0
        self.top_played = 0
        self.forced = False
        self.last = -1
        self.passed = 0
        self.rev = False
        self.holders = 0
        self.passive = 0
        self.passive_order: list[int] = []
        self.out: list[int] = []
        self.forbidden: list[int] = []
        self.done = False
        self.steps = 0

    def copy(self) -> _Sim:
        s = _Sim.__new__(_Sim)
        s.n = self.n
        s.model = self.model
        s.hands = [h[:] for h in self.hands]
        s.left = self.left[:]
        s.remaining = self.remaining[:]
        s.undealt = self.undealt
        s.noise = self.noise
        s.turn = self.turn
        s.top_rank = self.top_rank
        s.top_count = self.top_count
        s.top_played = self.top_played
        s.forced = self.forced
        s.last = self.last
        s.passed = self.passed
        s.rev = self.rev
        s.holders = self.holders
        s.passive = self.passive
        s.passive_order = self.passive_order[:]
        s.out = self.out[:]
        s.forbidden = self.forbidden[:]
        s.done = self.done
        s.steps = 0
        return s

    # -- rules ------------------------------------------------------------

    def strongest(self) -> int:
        """The strongest rank in force: 2, or 3 in revolution (T2, T7a); also T8's forbidden rank."""
        return RANK_3 if self.rev else RANK_2

    def _lead_from(self, seat: int) -> int:
        """``seat`` if it may lead, else the next seat in order that may (P10, T7c, T14)."""
        can = self.holders & ~self.passive
        n = self.n
        for i in range(n):
            s = (seat + i) % n
            if can >> s & 1:
                return s
        return -1

    def _close(self, leader: int) -> None:
        self.top_rank = -1
        self.top_count = 0
        self.top_played = 0
        self.forced = False
        self.last = -1
        self.passed = 0
        self.turn = self._lead_from(leader)

    def _over(self) -> bool:
        h = self.holders
        # at most one seat holds cards (P11); every holder is passive (T14 Decision)
        return h & (h - 1) == 0 or h & ~self.passive == 0

    def _advance(self, seat: int) -> None:
        """The turn after ``seat``'s move, or the close of the trick (P9c, T7d).

        The seats that may still act: holding cards, not passive (T14), and
        not passed since the last play (without T5 the mask is reset by each
        play, P8; with T5 a pass is for the whole trick). When the next of
        them is the one who made the top play, everybody else passed.
        """
        n = self.n
        can = self.holders & ~self.passed & ~self.passive
        last = self.last
        for i in range(1, n + 1):
            s = (seat + i) % n
            if can >> s & 1:
                if s == last:
                    break
                self.turn = s
                return
        self._close(last)  # the last player leads (P10, T7d), or the next who can

    def play(self, seat: int, rank: int, k: int, cut: bool = False) -> None:
        self.steps += 1
        self.hands[seat][rank] -= k
        self.remaining[rank] -= k
        left = self.left[seat] - k
        self.left[seat] = left
        m = self.model
        strongest = RANK_3 if self.rev else RANK_2
        if rank == self.top_rank:
            self.forced = True  # ça ou rien (P7, T6)
            self.top_played += k
        else:
            self.forced = False
            self.top_played = k
        self.top_rank = rank
        self.top_count = k
        self.last = seat
        if not m.pass_leaves_trick:
            self.passed = 0  # P9c counts the passes since the last play
        emptied = left == 0
        if emptied:
            self.holders &= ~(1 << seat)
            if m.forbidden_last and rank == strongest:
                self.forbidden.append(seat)  # T8: the order before this play counts
            else:
                self.out.append(seat)
        if k == 4 and m.revolution:
            self.rev = not self.rev  # T10
        if self._over():
            self.done = True
            return
        if emptied and m.close_on_empty:
            self._close((seat + 1) % self.n)  # T7c: the next seat that can leads
        elif (
            cut
            or rank == strongest  # P9a, T7a
            or (k == 4 and m.close_on_quad)  # P9b
            or (m.close_on_four_of_rank and self.top_played == 4)  # T7b
            or (m.forced_passes and self.forced and not self.remaining[rank] and not self.undealt[rank])
        ):
            # T9 (a cut closes), or P9 Decision: "ça ou rien" on a rank whose four cards
            # are all played, the others pass at once; the last player leads (P10)
            self._close(seat)
        else:
            self._advance(seat)

    def pass_(self, seat: int) -> None:
        self.steps += 1
        self.passed |= 1 << seat
        self._advance(seat)

    def cutter(self) -> int:
        """The seat that may cut the top play now (T9), or -1."""
        k = self.top_count
        if not self.model.cut or k > 2 or self.top_played != k or self.top_rank < 0:
            return -1
        rank = self.top_rank
        if rank == (RANK_3 if self.rev else RANK_2):
            return -1  # a closing play closed the trick already; defensive
        need = 4 - k
        can = self.holders & ~self.passive
        for s in range(self.n):
            if s != self.last and can >> s & 1 and self.hands[s][rank] == need:
                return s
        return -1

    # -- the end ------------------------------------------------------------

    def ranking(self) -> list[int]:
        """First to last (P11; T15: out without a forbidden card, holders, passive holders
        latest first, forbidden finishers latest first; without T8/T14 the last two are empty)."""
        active = [s for s in range(self.n) if self.holders >> s & 1 and not self.passive >> s & 1]
        passive = [s for s in reversed(self.passive_order) if self.holders >> s & 1]
        return self.out + active + passive + self.forbidden[::-1]

    def result(self, seat: int) -> float:
        """``seat``'s result of the finished round: P14 points, or T13 chips in stakes (``money``)."""
        ranking = self.ranking()
        n = len(ranking)
        place = ranking.index(seat)
        if not self.model.money:
            return float(n - 1 - place)
        if place == 0:
            return 1.0
        if place == n - 1:
            return -1.0
        if n >= 4:
            if place == 1:
                return 0.5
            if place == n - 2:
                return -0.5
        return 0.0


# --------------------------------------------------------------------------
# The rollout policy: cheap, sensible, a little random


def _policy(sim: _Sim, seat: int, rnd: Any) -> int:
    """The rollout move of ``seat``: ``rank * 8 + count``, or -1 to pass.

    The heuristics of the ``greedy`` bot (:mod:`engine.bots.president_greedy`)
    on rank counts: lead the weakest set whole and keep control plays (the
    strongest rank, quads) to win the lead when the hand is nearly done;
    follow with the weakest play that breaks no set; block with "ça ou rien"
    when nobody can follow (P7); with T8 never go out on, nor keep only,
    forbidden cards, and with T10 revolt with a quad on a weak hand. The
    heuristics follow the rule switches (``sim.model``), so on the two
    standard tables they are the greedy bot's exactly.
    ``sim.noise`` is the chance of a random pass instead of a follow.
    """
    h = sim.hands[seat]
    rev = sim.rev
    m = sim.model
    fl = m.forbidden_last
    strongest = RANK_3 if rev else RANK_2
    forb = strongest if fl else -1
    n = sim.left[seat]
    top = sim.top_rank
    if top < 0:
        controls: list[int] = []
        others: list[int] = []
        for r in _REV if rev else _NORMAL:
            c = h[r]
            if c:
                if r == strongest or c == 4:
                    controls.append(r)
                else:
                    others.append(r)
        if m.revolution and len(others) >= 2:
            for r in controls:
                if h[r] == 4 and r != strongest:
                    low = high = 0
                    for o in others:
                        st = 12 - o if rev else o
                        if st < 6:
                            low += h[o]
                        elif st > 6:
                            high += h[o]
                    if low > high:
                        return r * 8 + 4  # T10: a revolution on a weak hand
                    break
        if controls and len(others) <= 1:
            r = controls[0]
            for c in controls:
                if c == forb:
                    r = c
                    break
            else:
                for c in controls:
                    if h[c] != 4:
                        r = c
                        break
            if fl and m.revolution and others and h[r] == 4 and others[0] == (RANK_2 if rev else RANK_3):
                return others[0] * 8 + h[others[0]]
            return r * 8 + h[r]
        if others:
            r = others[0]
            if fl and h[forb] and n == h[r] + h[forb]:
                return forb * 8 + h[forb]
            return r * 8 + h[r]
        r = controls[0]
        return r * 8 + h[r]
    k = sim.top_count
    left = n - k
    fcnt = h[forb] if fl else 0
    if sim.forced:
        ranks: Sequence[int] = (top,)
    elif rev:
        ranks = range(top, -1, -1)
    else:
        ranks = range(top, N_RANKS)
    natural = broken = control = -1
    for r in ranks:
        c = h[r]
        if c < k:
            continue
        if fl:
            if left == 0 and r == forb:
                continue  # T8
            if left and fcnt == left and r != forb:
                continue  # would keep nothing but forbidden cards
        # P7: after this play only this rank may follow; if nobody can, the lead is ours
        if r == top and r != strongest and sim.remaining[r] - c < k and (c == k or c < 4):
            return r * 8 + k
        if r == strongest:
            control = r
            continue
        if c == k:
            if natural < 0:
                natural = r
        elif c < 4 and broken < 0:
            broken = r
    if natural >= 0:
        if sim.noise and rnd() < sim.noise:
            return -1
        return natural * 8 + k
    if broken >= 0:
        st = 12 - broken if rev else broken
        if st < (10 if m.pass_leaves_trick else 9) or n <= 6:
            return broken * 8 + k
    if control >= 0:
        top_st = 12 - top if rev else top
        if n - k <= 5 or top_st >= 10 or sum(1 for c in h if c) <= 3:
            return control * 8 + k
    return -1


def _cut_ok(sim: _Sim, seat: int) -> bool:
    """The greedy bot's cut rule (T9, T8): cut unless it leaves a forbidden finish."""
    h = sim.hands[seat]
    k = 4 - sim.top_count
    left = sim.left[seat] - k
    forb = RANK_3 if sim.rev else RANK_2
    if left == 0:
        return sim.top_rank != forb
    return h[forb] != left


_NORMAL = tuple(range(N_RANKS))
_REV = tuple(reversed(range(N_RANKS)))
_POS_REV = tuple(N_RANKS - 1 - r for r in range(N_RANKS))


def _rollout(sim: _Sim, rnd: Any) -> None:
    """Play ``sim`` to the end of the round with :func:`_policy` for every seat."""
    while not sim.done:
        seat = sim.turn
        if seat < 0:
            return  # nobody can move (defensive: the engine ended the round already)
        if sim.passive >> seat & 1:
            sim.pass_(seat)  # T14; never happens: passive seats never get the turn
            continue
        move = _policy(sim, seat, rnd)
        if move < 0:
            sim.pass_(seat)
            continue
        sim.play(seat, move >> 3, move & 7)
        _maybe_cut(sim, rnd)


def _maybe_cut(sim: _Sim, rnd: Any) -> None:
    """Rollout cuts (T9): whoever can cut the play just made usually does."""
    if sim.model.cut and not sim.done and sim.top_count <= 2 and sim.top_rank >= 0:
        cutter = sim.cutter()
        if cutter >= 0 and _cut_ok(sim, cutter):
            sim.play(cutter, sim.top_rank, 4 - sim.top_count, cut=True)


# --------------------------------------------------------------------------
# What the seat knows, and worlds consistent with it


@dataclass(slots=True)
class Knowledge:
    """What a seat knows of the hidden cards this round, besides its hand and the public plays.

    ``located[s]``: cards known to be in seat ``s``'s hand (unless played since).
    ``below[s]``: every other card of ``s`` is weaker than this card (``s`` gave
    its strongest cards, P13/T12); ``above[s]``: every other card of ``s`` is
    stronger (``s`` gave its weakest, P13).
    """

    located: dict[int, int]
    below: dict[int, int]
    above: dict[int, int]

    @classmethod
    def from_view(cls, view: Any, rules: PresidentRules | None = None) -> Knowledge:
        """``rules``: the table's (default: the standard set named by ``view.rules``)."""
        me = view.you
        located: dict[int, int] = {}
        below: dict[int, int] = {}
        above: dict[int, int] = {}
        titles = view.titles
        automatic = not model_of(view.rules if rules is None else rules).exchange_choice
        for giver, receiver, cards in view.exchange:
            if not cards:
                continue
            mask = 0
            for c in cards:
                mask |= 1 << int(c)
            if giver == me:
                located[receiver] = located.get(receiver, 0) | mask
            elif receiver == me:
                title = titles[giver] if giver < len(titles) else None
                if title in ("last", "vice_last"):
                    # gave his strongest (P13, T12): holds nothing stronger
                    low = min(int(c) for c in cards)
                    below[giver] = min(below.get(giver, 52), low)
                elif automatic:
                    # classic Président / VP gave his weakest (P13)
                    high = max(int(c) for c in cards)
                    above[giver] = max(above.get(giver, -1), high)
        return cls(located, below, above)


def sample_hands(
    view: Any, knowledge: Knowledge, rng: random.Random, extra_known: int = 0
) -> list[list[int]] | None:
    """Deal the unseen cards to the other seats (card ints per seat), or ``None`` if impossible."""
    me = view.you
    n = len(view.counts)
    hand_mask = 0
    for c in view.hand or ():
        hand_mask |= 1 << int(c)
    played = view.played_mask
    hands: list[list[int]] = [[] for _ in range(n)]
    need = list(view.counts)
    need[me] = 0
    hands[me] = [int(c) for c in view.hand or ()]
    taken = hand_mask | played | extra_known
    for s, mask in knowledge.located.items():
        if s == me:
            continue
        mask &= ~played & ~hand_mask
        cards = _bits(mask)
        if len(cards) > need[s]:
            cards = cards[: need[s]]
        hands[s].extend(cards)
        need[s] -= len(cards)
        for c in cards:
            taken |= 1 << c
    pool = [c for c in range(52) if not taken >> c & 1]
    rng.shuffle(pool)
    # constrained seats first: each draws among the cards it may hold
    constrained = sorted(
        {s for s in knowledge.below if s != me} | {s for s in knowledge.above if s != me}
    )
    for s in constrained:
        if need[s] <= 0:
            continue
        lo = knowledge.above.get(s, -1)
        hi = knowledge.below.get(s, 52)
        eligible = [c for c in pool if lo < c < hi]
        if len(eligible) < need[s]:
            continue  # knowledge inconsistent with the counts (should not happen): ignore it
        chosen = eligible[: need[s]]  # pool is shuffled: a uniform choice
        chosen_set = set(chosen)
        hands[s].extend(chosen)
        need[s] = 0
        pool = [c for c in pool if c not in chosen_set]
    i = 0
    for s in range(n):
        k = need[s]
        if k <= 0:
            continue
        if i + k > len(pool):
            return None
        hands[s].extend(pool[i : i + k])
        i += k
    return hands


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sim_from_view(view: Any, hands: Sequence[Sequence[int]], forbidden: Sequence[int] = (),
                  passive_order: Sequence[int] = (), rules: PresidentRules | _Model | None = None) -> _Sim:
    """The round of ``view`` with ``hands`` (card ints per seat) for the hidden cards.

    ``rules``: the table's rule set (default: the standard set named by ``view.rules``).
    """
    n = len(view.counts)
    sim = _Sim(n, view.rules if rules is None else rules)
    remaining = sim.remaining
    for s in range(n):
        row = sim.hands[s]
        for c in hands[s]:
            row[c >> 2] += 1
            remaining[c >> 2] += 1
        sim.left[s] = len(hands[s])
        if hands[s]:
            sim.holders |= 1 << s
    played = view.played_mask
    if any(remaining[r] + (played >> (4 * r) & 15).bit_count() != 4 for r in range(N_RANKS)):
        # cards in no hand and never played: an explicit deal of fewer than 52 cards (P9 Decision
        # looks at the cards played, so a rank with an undealt card is never "all played")
        sim.undealt = tuple(4 - remaining[r] - (played >> (4 * r) & 15).bit_count() for r in range(N_RANKS))
    sim.passive = view.passive_mask
    # T15: latest passive first; seats passive without an observed order keep seat order
    order = [s for s in passive_order if view.passive_mask >> s & 1]
    order += [s for s in range(n) if view.passive_mask >> s & 1 and s not in order]
    sim.passive_order = order
    sim.rev = bool(view.reversed)
    forb = [s for s in forbidden if view.places[s] is not None]
    out_seats = [
        s for s in sorted(range(n), key=lambda s: view.places[s] or 0)
        if view.places[s] is not None and s not in forb
    ]
    sim.out = out_seats
    sim.forbidden = list(forb)
    turn = view.turn
    sim.turn = -1 if turn is None else turn
    # the trick: top play, ça ou rien, cards of the top rank in it, passes (P7, T5, T7b)
    plays = [(s, cards) for s, cards in view.trick if cards is not None]
    if plays:
        last_seat, top = plays[-1]
        rank = int(top[0]) >> 2
        sim.top_rank = rank
        sim.top_count = len(top)
        sim.last = last_seat
        same = 0
        for _, cards in reversed(plays):
            if int(cards[0]) >> 2 != rank:
                break
            same += len(cards)
        sim.top_played = same
        sim.forced = same > len(top)
        sim.passed = view.passed_mask
    sim.done = sim._over()
    return sim


class Tracker:
    """The public history of the round, from the events a seat observes, to weigh worlds.

    Each other seat's plays and passes are recorded with the public state
    they were made in (top play, "ça ou rien", order, cards of each rank
    still out), and so are the cut chances it let go (T9). A world is
    *consistent* when the rollout policy (the greedy bot's rules), given the
    hand that world says the seat held then, makes every recorded decision:
    :meth:`mismatches` counts the decisions it would not have made. Worlds
    with fewer mismatches are preferred (:func:`draw_world`), which is how the
    bot reads its opponents' play. Nothing here is hidden information: only
    events as this seat receives them.
    """

    __slots__ = (
        "active",
        "counts",
        "forced",
        "me",
        "model",
        "n",
        "passive",
        "pending_cut",
        "records",
        "remaining",
        "rev",
        "scratch",
        "top_count",
        "top_rank",
    )

    def __init__(self, me: int) -> None:
        self.me = me
        self.active = False
        self.n = 0
        self.model = model_of("classic")
        self.records: list[list[tuple[Any, ...]]] = []
        self.counts: list[int] = []
        self.remaining = [4] * N_RANKS
        self.top_rank = -1
        self.top_count = 0
        self.forced = False
        self.rev = False
        self.passive = 0
        self.pending_cut: tuple[int, int, bool, int] | None = None
        self.scratch = _Sim(1, self.model)

    def start(self, n: int, counts: Sequence[int]) -> None:
        self.active = True
        self.n = n
        self.records = [[] for _ in range(n)]
        self.counts = list(counts)
        self.remaining = [4] * N_RANKS
        self.top_rank = -1
        self.top_count = 0
        self.forced = False
        self.rev = False
        self.passive = 0
        self.pending_cut = None
        self.scratch = _Sim(n, self.model)

    def set_rules(self, rules: PresidentRules | str) -> None:
        """The table's rules (a :class:`PresidentRules` or a standard name), learnt from the
        first view or given to the bot (events do not name them)."""
        model = model_of(rules)
        if self.model is not model or self.scratch.n != self.n:
            self.model = model
            self.scratch = _Sim(self.n, model)

    def _flush_cut(self, cutter: int = -1) -> None:
        """Nobody but ``cutter`` took the cut chance of the last single or pair (T9)."""
        pending = self.pending_cut
        if pending is None:
            return
        self.pending_cut = None
        rank, need, rev, player = pending
        for s in range(self.n):
            if s != player and s != cutter and s != self.me and not self.passive >> s & 1:
                self.records[s].append((1, rank, need, rev))

    def observe(self, event: Any) -> None:
        name = event.name
        if name == "dealt":
            self.start(len(event.counts), event.counts)
            return
        if not self.active:
            return
        if name == "played":
            self._flush_cut()
            seat = event.seat
            cards = event.cards
            k = len(cards)
            rank = int(cards[0]) >> 2
            if seat != self.me and not event.auto:
                self.records[seat].append(
                    (0, self.top_rank, self.top_count, self.forced, self.rev, self.remaining[:], rank * 8 + k, rank, k)
                )
            self.forced = self.top_count > 0 and rank == self.top_rank
            self.top_rank = rank
            self.top_count = k
            self.remaining[rank] -= k
            self.counts[seat] = event.remaining
            if k <= 2 and not self.forced:
                self.pending_cut = (rank, 4 - k, self.rev, seat)
        elif name == "passed":
            self._flush_cut()
            seat = event.seat
            if seat != self.me and not event.auto:
                self.records[seat].append(
                    (0, self.top_rank, self.top_count, self.forced, self.rev, self.remaining[:], -1, -1, 0)
                )
        elif name == "cut":
            self._flush_cut(event.seat)
            cards = event.cards
            rank = int(cards[0]) >> 2
            if event.seat != self.me:
                self.records[event.seat].append((2, rank, len(cards)))  # gives the cards back when walking back
            self.remaining[rank] -= len(cards)
            self.counts[event.seat] = event.remaining
        elif name == "trick_closed":
            if event.reason != "cut":
                self.pending_cut = None
            self.top_rank = -1
            self.top_count = 0
            self.forced = False
        elif name == "revolution":
            self.rev = event.order == "reversed"
        elif name == "exchange":
            self.counts[event.giver] -= event.count
            self.counts[event.receiver] += event.count
        elif name == "timeout":
            if event.passive:
                self.passive |= 1 << event.seat
        elif name == "round_over":
            self.active = False

    def mismatches(self, hands: Sequence[Sequence[int]], limit: int) -> tuple[int, int]:
        """(decisions of the other seats that ``hands`` cannot explain, checks made); stops at ``limit``."""
        bad = 0
        checks = 0
        for seat in range(self.n):
            if seat == self.me or not self.records[seat]:
                continue
            b, c = self.seat_mismatches(seat, hands[seat], limit - bad)
            bad += b
            checks += c
            if bad >= limit:
                break
        return bad, checks

    def seat_mismatches(self, seat: int, hand: Sequence[int], limit: int) -> tuple[int, int]:
        """(decisions of ``seat`` that ``hand`` (its cards now) cannot explain, checks made)."""
        bad = 0
        checks = 0
        sim = self.scratch
        h = [0] * N_RANKS
        for c in hand:
            h[c >> 2] += 1
        left = len(hand)
        sim.hands[seat] = h
        cuts = self.model.cut
        for rec in reversed(self.records[seat]):
            checks += 1
            if rec[0] == 2:
                h[rec[1]] += rec[2]
                left += rec[2]
                continue
            if rec[0] == 1:
                if not cuts:
                    continue  # no cut at this table (P: classic)
                _, rank, need, rev = rec
                if h[rank] == need:
                    sim.rev = rev
                    sim.top_rank = rank
                    sim.top_count = 4 - need
                    sim.left[seat] = left
                    if _cut_ok(sim, seat):
                        bad += 1
                continue
            _, top, count, forced, rev, remaining, move, rank, k = rec
            if k:
                h[rank] += k  # the hand then still held the cards it played
                left += k
            sim.left[seat] = left
            sim.top_rank = top
            sim.top_count = count
            sim.forced = forced
            sim.rev = rev
            sim.remaining = remaining
            if _policy(sim, seat, _never) != move:
                bad += 1
                if bad >= limit:
                    break
        return bad, checks


def _never() -> float:
    """A random draw that never triggers the policy's noise."""
    return 1.0


def draw_world(
    view: Any, knowledge: Knowledge, tracker: Tracker | None, rng: random.Random, tries: int
) -> tuple[list[list[int]] | None, int]:
    """A world consistent with what the seat saw, as far as ``tries`` allow, and the work done.

    Without a tracker: :func:`sample_hands`. With one, the other seats are
    dealt one after the other from the unseen cards, each seat's hand drawn
    up to ``tries`` times until the rollout policy explains its recorded
    decisions (:meth:`Tracker.seat_mismatches`), the least inconsistent draw
    kept otherwise; the seat with the fewest records takes what is left.
    Exchange knowledge (:class:`Knowledge`) is kept as in :func:`sample_hands`.
    """
    if tracker is None or not tracker.active or tracker.n != len(view.counts):
        return sample_hands(view, knowledge, rng), 8
    me = view.you
    n = len(view.counts)
    played = view.played_mask
    hand_mask = 0
    for c in view.hand or ():
        hand_mask |= 1 << int(c)
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[me] = [int(c) for c in view.hand or ()]
    need = list(view.counts)
    need[me] = 0
    taken = hand_mask | played
    for s, mask in knowledge.located.items():
        if s == me:
            continue
        cards = _bits(mask & ~played & ~hand_mask)[: max(0, need[s])]
        hands[s].extend(cards)
        need[s] -= len(cards)
        for c in cards:
            taken |= 1 << c
    pool = [c for c in range(52) if not taken >> c & 1]
    seats = [s for s in range(n) if s != me and need[s] > 0]
    if not seats:
        return hands, 4
    bounded = [s for s in seats if s in knowledge.below or s in knowledge.above]
    free = sorted((s for s in seats if s not in bounded), key=lambda s: -len(tracker.records[s]))
    order = bounded + free
    work = 4
    for i, s in enumerate(order):
        k = need[s]
        lo = knowledge.above.get(s, -1)
        hi = knowledge.below.get(s, 52)
        eligible = [c for c in pool if lo < c < hi] if s in bounded else pool
        if len(eligible) < k:
            eligible = pool  # inconsistent knowledge: ignore it
        if len(eligible) < k:
            return None, work
        if i == len(order) - 1 and len(eligible) == k:
            chosen = list(eligible)
        else:
            chosen = []
            best_bad = 1 << 30
            base = hands[s]
            for _ in range(max(1, tries) if tracker.records[s] else 1):
                draw = rng.sample(eligible, k)
                bad, checks = tracker.seat_mismatches(s, base + draw, best_bad)
                work += 4 + checks
                if bad < best_bad:
                    chosen, best_bad = draw, bad
                    if bad == 0:
                        break
        hands[s].extend(chosen)
        gone = set(chosen)
        pool = [c for c in pool if c not in gone]
    return hands, work


# --------------------------------------------------------------------------
# The bot


@dataclass(frozen=True, slots=True)
class _Cand:
    """A candidate answer: ``kind`` in play/pass/cut/none/give, ``rank``/``count`` for plays."""

    kind: str
    rank: int = -1
    count: int = 0
    cards: tuple[Card, ...] = ()
    action: Any = None


class SearchPresidentBot:
    """Determinized Monte-Carlo search for Président, classic and tdc.

    ``budget_ms``: thinking per decision (deterministic work units, see
    :mod:`engine.bots.search_common`); ``rollouts``: a fixed number of
    rollouts per decision instead; ``clock``: an optional wall clock for a
    hard bound. ``give_candidates``: how many exchange choices to weigh (T12).
    ``infer``: read the other seats' play when sampling worlds (:class:`Tracker`),
    with up to ``tries`` draws per seat and world. ``rules``: the table's
    :class:`PresidentRules` (or a standard name); by default the standard set
    the view names. A rule set the round model cannot play is refused here
    (:class:`ValueError`), or at the first decision for a view's name.
    """

    observes = True

    def __init__(
        self,
        seat: int,
        seed: bytes,
        budget_ms: float = 200.0,
        rollouts: int | None = None,
        clock: Any = None,
        give_candidates: int = 8,
        infer: bool = True,
        tries: int = 12,
        rules: PresidentRules | str | None = None,
        **opts: Any,
    ) -> None:
        self.model = None if rules is None else model_of(rules)
        self.seat = seat
        self.seed = bytes(seed)
        self.budget_ms = float(budget_ms)
        self.rollouts = rollouts
        self.clock = clock
        self.give_candidates = max(1, int(give_candidates))
        self.infer = bool(infer)
        self.tries = max(1, int(tries))
        self.tracker = Tracker(seat)
        self.decisions = 0
        self.forbidden: list[int] = []
        self.passive_order: list[int] = []
        self.stats_rollouts = 0
        self.stats_searches = 0
        self.stats_steps = 0

    # -- memory -------------------------------------------------------------

    def observe(self, event: Any) -> None:
        name = getattr(event, "name", "")
        if self.infer:
            self.tracker.observe(event)
        if name == "dealt":
            self.forbidden = []
            self.passive_order = []
        elif name == "out" and getattr(event, "forbidden", False):
            self.forbidden.append(event.seat)
        elif name == "timeout" and getattr(event, "passive", False):
            self.passive_order.append(event.seat)

    # -- decisions ----------------------------------------------------------

    def decide(self, view: Any, legal: Sequence[Any]) -> Any:
        self.decisions += 1
        if not legal:
            return None
        kinds = {type(a).__name__ for a in legal}
        optional = not (kinds & {"Play", "Pass", "Give"})
        if "Give" in kinds:
            return self._decide_give(view, legal)
        cands = self._candidates(legal, optional)
        if len(cands) == 1:
            return cands[0].action
        return self._search(view, cands)

    def _candidates(self, legal: Sequence[Any], optional: bool) -> list[_Cand]:
        seen: dict[tuple[str, int, int], _Cand] = {}
        for a in legal:
            kind = type(a).__name__
            if kind == "Pass":
                seen.setdefault(("pass", -1, 0), _Cand("pass", action=a))
            elif kind in ("Play", "Cut"):
                cards = a.cards
                key = ("play" if kind == "Play" else "cut", int(cards[0]) >> 2, len(cards))
                prev = seen.get(key)
                # among equal plays keep the one without Qh (T3 looks at Qh only
                # after the exchange; harmless) and with the weakest suits
                if prev is None or sorted(cards) < sorted(prev.cards):
                    seen[key] = _Cand(key[0], key[1], key[2], tuple(cards), a)
        cands = list(seen.values())
        if optional:
            cands.append(_Cand("none"))
        return cands

    def _search(self, view: Any, cands: list[_Cand]) -> Any:
        me = self.seat
        model = self._model(view)
        knowledge = Knowledge.from_view(view, model.rules)
        rng = make_rng(self.seed, f"decide-{self.decisions}")
        # the prior favourite (candidate 0): what the rollout policy itself would do
        first = sample_hands(view, knowledge, make_rng(self.seed, f"prior-{self.decisions}"))
        base = sim_from_view(view, first or self._own_only(view), self.forbidden, self.passive_order, model)
        cands = self._order(base, cands)
        budget = Budget.make(self.budget_ms, self.rollouts, self.clock)
        tracker = self.tracker if self.infer and self.tracker.active else None
        if tracker is not None:
            tracker.set_rules(model.rules)

        def evaluate(w: int, alive: Sequence[int]) -> list[float]:
            hands, work = draw_world(view, knowledge, tracker, rng, self.tries)
            budget.used_steps += work
            if hands is None:
                hands = self._own_only(view)
            world = sim_from_view(view, hands, self.forbidden, self.passive_order, model)
            seed = rng.getrandbits(64)
            out = []
            for c in alive:
                sim = world.copy()
                r = random.Random(seed).random
                self._apply(sim, cands[c], r)
                _rollout(sim, r)
                budget.used_steps += sim.steps + 8
                out.append(sim.result(me) if sim.done else 0.0)
            budget.used_steps += 30  # building the world
            return out

        result = race(len(cands), evaluate, budget)
        self._account(result)
        return cands[result.best].action

    def _model(self, view: Any) -> _Model:
        """The round model of this table: the bot's ``rules``, else the standard set the view names."""
        if self.model is None:
            self.model = model_of(view.rules)
        return self.model

    def _account(self, result: RaceResult) -> None:
        self.stats_searches += 1
        self.stats_rollouts += result.rollouts
        self.stats_steps += result.steps

    @staticmethod
    def _own_only(view: Any) -> list[list[int]]:
        n = len(view.counts)
        hands: list[list[int]] = [[] for _ in range(n)]
        hands[view.you] = [int(c) for c in view.hand or ()]
        return hands

    def _order(self, base: _Sim, cands: list[_Cand]) -> list[_Cand]:
        """Put the rollout policy's own choice first (it wins ties)."""
        me = self.seat
        fav: tuple[str, int, int] | None = None
        if base.turn == me and not base.done:
            move = _policy(base, me, lambda: 0.5)
            fav = ("pass", -1, 0) if move < 0 else ("play", move >> 3, move & 7)
        for i, c in enumerate(cands):
            if (c.kind, c.rank, c.count) == fav or (fav is None and c.kind == "cut"):
                return [c, *cands[:i], *cands[i + 1 :]]
        return cands

    def _apply(self, sim: _Sim, cand: _Cand, rnd: Any) -> None:
        me = self.seat
        if sim.done:
            return
        if cand.kind == "play":
            sim.play(me, cand.rank, cand.count)
            _maybe_cut(sim, rnd)
        elif cand.kind == "cut":
            sim.play(me, cand.rank, cand.count, cut=True)
        elif cand.kind == "pass":
            sim.pass_(me)

    # -- the exchange choice (T12) --------------------------------------------

    def _decide_give(self, view: Any, legal: Sequence[Any]) -> Any:
        give = legal[0]
        hand = sorted(int(c) for c in view.hand or ())
        k = len(give.cards)
        receiver = self._receiver(view)
        options = self._give_options(hand, k)
        if len(options) == 1 or receiver is None:
            return type(give)(self.seat, tuple(CARDS[c] for c in options[0]))
        me = self.seat
        model = self._model(view)
        knowledge = Knowledge.from_view(view, model.rules)
        rng = make_rng(self.seed, f"give-{self.decisions}")
        budget = Budget.make(self.budget_ms, self.rollouts, self.clock)
        n = len(view.counts)

        def evaluate(w: int, alive: Sequence[int]) -> list[float]:
            hands = sample_hands(view, knowledge, rng)
            if hands is None:
                hands = self._own_only(view)
            seed = rng.getrandbits(64)
            out = []
            for c in alive:
                gift = options[c]
                hs = [list(h) for h in hands]
                mine = [x for x in hs[me] if x not in gift]
                hs[me] = mine
                hs[receiver] = hs[receiver] + list(gift)
                sim = _Sim(n, model)
                for s in range(n):
                    row = sim.hands[s]
                    for x in hs[s]:
                        row[x >> 2] += 1
                        sim.remaining[x >> 2] += 1
                    sim.left[s] = len(hs[s])
                    if hs[s]:
                        sim.holders |= 1 << s
                if model.qh_leads:
                    leader = next((s for s in range(n) if int(QH) in hs[s]), me)  # T3
                else:
                    leader = next((s for s, t in enumerate(view.titles) if t == "last"), me)  # P4
                sim.turn = leader
                _rollout(sim, random.Random(seed).random)
                budget.used_steps += sim.steps + 40  # building each candidate's round costs more here
                out.append(sim.result(me) if sim.done else 0.0)
            budget.used_steps += 30
            return out

        result = race(len(options), evaluate, budget)
        self._account(result)
        return type(give)(self.seat, tuple(CARDS[c] for c in options[result.best]))

    def _receiver(self, view: Any) -> int | None:
        """Who gets the cards: the seat that gave to this one this round (T12)."""
        for giver, receiver, _cards in view.exchange:
            if receiver == self.seat:
                return int(giver)
        return None

    def _give_options(self, hand: list[int], k: int) -> list[tuple[int, ...]]:
        """Sensible gifts, the plain one (weakest cards, Qh kept) first; never a 2 when avoidable."""
        non2 = [c for c in hand if c >> 2 != RANK_2]
        pool = non2 if len(non2) >= k else hand
        counts = [0] * N_RANKS
        for c in hand:
            counts[c >> 2] += 1

        def cost(gift: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
            # weak cards, and cards that leave no broken group behind, first
            broken = sum(1 for c in gift if counts[c >> 2] > sum(1 for g in gift if g >> 2 == c >> 2))
            return (sum(c >> 2 for c in gift) + 2 * broken, int(int(QH) in gift), gift)

        # one representative per multiset of ranks (the weakest suits, Qh kept)
        reps: dict[tuple[int, ...], tuple[int, ...]] = {}
        for gift in combinations(pool, k):
            ranks = tuple(c >> 2 for c in gift)
            prev = reps.get(ranks)
            if prev is None or (int(QH) in prev and int(QH) not in gift):
                reps[ranks] = gift
        options = sorted(reps.values(), key=cost)[: self.give_candidates]
        # giving the Qh hands the first lead to the receiver (T3): weigh it too
        if int(QH) in hand and int(QH) in pool and not any(int(QH) in g for g in options):
            rest = [c for c in options[0] if c != int(QH)][: k - 1]
            alt = tuple(sorted([*rest, int(QH)]))
            if len(alt) == k:
                options.append(alt)
        return options
