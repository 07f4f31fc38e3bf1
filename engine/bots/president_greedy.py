"""A Président bot that plays sensible one-move-ahead heuristics (level "normal").

It sees only its seat's view (``hand``, the trick, ``must_rank``, the order,
the cards played in public) and keeps no memory, so it ignores events
(``observes = False`` lets the driver skip them). Deterministic: it has no
randomness at all; its seed is accepted for the common bot signature.

Both tables:

* it leads its weakest set whole (a pair is led as a pair), keeping its
  control plays — the strongest rank in force, which closes the trick (P9a,
  T7a), and quads (P9b) — for when winning the lead ends its hand: with at
  most one other set left it plays a control first, then goes out on the lead;
* it follows with the weakest play that does not break a set (a natural
  single before splitting a pair), breaks a set only of middling rank,
  never splits a quad, and plays its control cards when the trick is high or
  its hand is nearly done;
* "ça ou rien" (P7/T6): it plays an equal rank when nobody else can hold
  enough cards of that rank to follow, which blocks the table and wins the
  lead.

tdc only:

* T8: it never goes out on a forbidden card (a 2 in normal order, a 3 in
  revolution) when it can avoid it, and never leaves itself with nothing but
  forbidden cards;
* T9: it cuts whenever that is not such a forbidden finish: the cut closes
  the trick and gives it the lead;
* T10: it leads a quad for a revolution when its hand is weak (more low
  cards than high ones in the order in force), and otherwise keeps it;
* T12: it gives back its weakest cards that do not break a set (two low
  singles, else a low pair), never a 2;
* T5: a pass takes it out of the trick, so it passes only when playing
  costs too much.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.api import Action, Event
from engine.cards import RANK_2, RANK_3, Card
from engine.president.actions import PASSES, PLAYS, Cut, Give
from engine.president.view import PresidentView, TurnFields, TurnView

_RANKS = range(13)
_DOWN = range(12, -1, -1)
_POP = tuple(bin(i).count("1") for i in range(16))
_LOW: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << b for b in [s for s in range(4) if nib >> s & 1][:k]) for k in range(5)) for nib in range(16)
)
"""``_LOW[suits][k]``: the ``k`` weakest suits of a 4-bit suit mask (the engine's representative play)."""
_BIT = tuple(1 << c for c in range(52))
_RANK_OF = bytes(c >> 2 for c in range(52))
"""``_RANK_OF[card]``: the card's rank index (a table: arithmetic on a ``Card``, an ``int``
subclass, takes the interpreter's slow path)."""

# Packed rank counts (``TurnView.rank_counts``): rank ``r``'s count in byte ``r`` (bits 8r..8r+7),
# at most 4, so adding under 0x80 to every byte never carries: set tests on the whole hand at once.
_ONES = int.from_bytes(b"\x01" * 13, "little")
_TOP = 0x80 * _ONES
"""The top bit of every rank's byte: where the tests below leave their answer."""
_AT_LEAST = tuple((0x80 - k) * _ONES for k in range(6))
"""``(counts + _AT_LEAST[k]) & _TOP``: the top bit of every rank holding ``k`` cards or more."""
_FOURS = 0x04 * _ONES
"""Bit 2 of every byte: set exactly in the ranks holding 4 (counts are 0..4)."""
_TOP_UNDER_2 = _TOP & ((1 << 8 * RANK_2) - 1)
"""The top bits of the ranks under the 2 (the classic order's control rank, P9a)."""
_TOP_ABOVE = tuple(_TOP_UNDER_2 & ~((1 << 8 * r + 8) - 1) for r in range(13))
"""``_TOP_ABOVE[r]``: the top bits of the ranks above ``r`` and under the 2."""


def _lowest_rank(flags: int) -> int:
    """The weakest rank whose top bit is set in ``flags`` (not 0)."""
    return ((flags & -flags).bit_length() >> 3) - 1


class GreedyPresidentBot:
    """Heuristic Président player for the ``classic`` and ``tdc`` tables.

    Options: ``break_below`` (rank index strength under which it splits a set
    to follow, default 9 = Q in classic, 10 = K in tdc where a pass costs the
    trick), ``control_hand`` (hand size at or under which it spends control
    plays to win the lead, default 5).
    """

    observes = False
    """This bot keeps no memory: the driver need not send it events."""

    __slots__ = ("_break_below", "_cnt", "_control_hand", "_hand", "_mask", "seat", "seed")

    def __init__(
        self,
        seat: int,
        seed: bytes = b"",
        break_below: int | None = None,
        control_hand: int = 5,
        **_: Any,
    ) -> None:
        self.seat = seat
        self.seed = bytes(seed)
        self._break_below = break_below
        self._control_hand = control_hand
        self._hand: tuple[Card, ...] | None = None
        self._mask = 0
        self._cnt = bytes(13)

    def observe(self, event: Event) -> None:
        """No memory: the view holds everything this bot uses."""

    # ------------------------------------------------------------------ entry point

    def decide(self, view: PresidentView, legal: Sequence[Action]) -> Action | None:
        if not legal:
            return None
        first = legal[0]
        kind = type(first)
        if kind is Give:
            return self._give(view, first)
        if kind is Cut and len(legal) == 1:
            # an optional cut offered out of turn (T9)
            return first if self._cut_ok(view, first) else None
        return self._turn(view, legal)

    # ------------------------------------------------------------------ helpers

    def _cut_ok(self, view: PresidentView, cut: Action) -> bool:
        """T9 / T8: cut unless it leaves a forbidden finish."""
        hand = view.hand or ()
        counts = int.from_bytes(self._facts(hand)[1], "little")
        return self._cut_fits(counts, len(hand), cut.cards, view.reversed)  # type: ignore[attr-defined]

    @staticmethod
    def _cut_fits(counts: int, n: int, cards: tuple[Card, ...], rev: bool) -> bool:
        """T9 / T8: a cut of ``cards`` from a hand of ``n`` cards (packed rank counts ``counts``)
        leaves no forbidden finish."""
        left = n - len(cards)
        forb = RANK_3 if rev else RANK_2
        if left == 0:
            return _RANK_OF[cards[0]] != forb
        # do not strand ourselves with nothing but forbidden cards
        return counts >> 8 * forb & 255 != left

    # ------------------------------------------------------------------ T12 exchange

    def _give(self, view: PresidentView, first: Action) -> Action:
        """T12: the weakest cards that break no set; never a 2 (while anything else is left)."""
        k = len(first.cards)  # type: ignore[attr-defined]
        hand = view.hand or ()
        cnt = self._facts(hand)[1]
        by_rank: list[list[Card]] = [[] for _ in _RANKS]
        for c in hand:
            by_rank[c >> 2].append(c)
        singles = [by_rank[r][0] for r in range(RANK_2) if cnt[r] == 1]
        pairs = [r for r in range(RANK_2) if cnt[r] == 2]
        chosen: list[Card] = []
        if k == 1:
            if singles:
                chosen = [singles[0]]
        elif k == 2:
            pair = pairs[0] if pairs else None
            if len(singles) >= 2 and (pair is None or singles[1] >> 2 <= pair + 3):
                chosen = singles[:2]
            elif pair is not None:
                chosen = list(by_rank[pair])
            elif singles:
                chosen = [singles[0]]
        if len(chosen) < k:
            # break sets, smallest sets and weakest ranks first, 2s last of all
            order = sorted(
                (c for c in hand if c not in chosen),
                key=lambda c: (c >> 2 == RANK_2, cnt[c >> 2] == 4, cnt[c >> 2], c),
            )
            chosen += order[: k - len(chosen)]
        return Give(self.seat, tuple(sorted(chosen)))

    # ------------------------------------------------------------------ a turn

    def _facts(self, hand: tuple[Card, ...]) -> tuple[int, bytes]:
        """The hand as a mask and its cards per rank index (cached per hand)."""
        if hand is not self._hand:
            mask = sum(map(_BIT.__getitem__, hand))
            cnt = bytearray(13)
            for r in map(_RANK_OF.__getitem__, hand):
                cnt[r] += 1
            self._hand, self._mask, self._cnt = hand, mask, bytes(cnt)
        return self._mask, self._cnt

    def _turn(self, view: PresidentView, legal: Sequence[Action]) -> Action:
        """A turn of play decided from the view: its facts as a :class:`TurnView` (the cut, if any,
        decided here), then :meth:`decide_turn`."""
        hand = view.hand or ()
        # the public facts, read once from the view's shared table (the view's own
        # attributes of the same names are properties reading it)
        t = getattr(view, "table", view)
        top = None
        for _, cards in reversed(t.trick):
            if cards is not None:
                top = cards  # the play to beat
                break
        if top is not None and view.cut is not None:
            # T9: we may cut on our turn too; the engine lists the cut after the plays
            for a in reversed(legal):
                if type(a) is Cut:
                    if self._cut_ok(view, a):
                        return a
                    break
        mask, cnt = self._facts(hand)
        turn = TurnView(
            self.seat,
            t.rules,
            mask,
            int.from_bytes(cnt, "little"),
            len(hand),
            0 if top is None else _RANK_OF[top[0]],
            0 if top is None else len(top),
            t.must_rank is not None,
            t.reversed,
            t.played_mask,
            None,
            None,
        )
        return self.decide_turn(turn)

    def decide_turn(self, turn: TurnFields) -> Action:
        """The same choice as :meth:`decide` on this seat's turn of play, from the compact view
        (``PresidentMatch.turn_view``, or its fields as ``next_turn()`` gives them) instead of the
        view and the legal list: the strategy of this bot for a turn."""
        seat = self.seat
        # every field at once: one unpacking costs about half of reading them one by one
        _, rules, hand_mask, counts, n, tr, k, must, rev, played_mask, cut, _ = turn
        if cut is not None and self._cut_fits(counts, n, cut, rev):
            return Cut(seat, cut)  # T9 on our turn: the cut legal_actions() lists
        tdc = rules == "tdc"
        if not tdc and not rev:
            # the classic order (most turns of a classic table): the common cases read the
            # packed counts a whole hand at a time, here (a call saved per turn); the others go
            # through the rank loops below, which decide the same (a test compares them)
            if k == 0:
                # _lead's first loop: with two sets or more that are neither 2s nor quads, the
                # weakest goes whole (every card of that rank)
                # the ranks under the 2 holding 1 to 3 cards: "at least 1" xor "at least 4"
                others = ((counts + _AT_LEAST[1]) ^ (counts + _AT_LEAST[4])) & _TOP_UNDER_2
                if others & (others - 1):
                    r = ((others & -others).bit_length() >> 3) - 1  # _lowest_rank(others)
                    return PLAYS[seat * 13 + r][hand_mask >> 4 * r & 15]
            elif not must:
                # _follow without "ça ou rien" on us: the same rank, or -1 to pass
                c = counts >> 8 * tr & 255 if tr < RANK_2 else 0
                if c >= k and (c == k or (4 - c - (played_mask >> 4 * tr & 15).bit_count() < k and c < 4)):
                    # P7 "ça ou rien" on the top rank: if the others cannot hold k of them after
                    # our play, nobody can follow and the lead is ours
                    r = tr
                else:
                    above = _TOP_ABOVE[tr]
                    more = counts + _AT_LEAST[k + 1]  # (its top bits: the ranks holding more than k)
                    exactly = ((counts + _AT_LEAST[k]) ^ more) & above  # "at least k" xor "more"
                    if exactly:  # the weakest play that breaks no set (_lowest_rank(exactly))
                        r = ((exactly & -exactly).bit_length() >> 3) - 1
                    else:
                        r = self._broken_or_control(counts, n, k, tr, c, more & above)
                if r < 0:
                    return PASSES[seat]  # P8: anyone may pass onto a play
                return PLAYS[seat * 13 + r][_LOW[hand_mask >> 4 * r & 15][k]]
        cnt = counts.to_bytes(13, "little")  # the rank loops read a count per rank
        strongest = RANK_3 if rev else RANK_2  # T7a; classic: always 2 (P9a)
        forb = strongest if tdc else -1  # T8: forbidden last card
        if k == 0:
            # leading (P5): any set of ours is legal; the engine's shared representative play
            r, k = self._lead(cnt, n, strongest, forb, tdc, rev)
        else:
            r = self._follow(tr if must else None, played_mask, cnt, n, k, tr, strongest, forb, tdc, rev)
            if r < 0:
                return PASSES[seat]  # P8/T5: anyone may pass onto a play
        return PLAYS[seat * 13 + r][_LOW[hand_mask >> 4 * r & 15][k]]

    # ------------------------------------------------------------------ the classic order, packed

    def _broken_or_control(self, counts: int, n: int, k: int, tr: int, c: int, more: int) -> int:
        """The classic follow of :meth:`decide_turn` when no rank above ``tr`` holds exactly ``k``
        cards (``more``: the top bits of those above it holding more, ``c``: our cards of rank
        ``tr``): a set broken to follow, the control play or -1 to pass (as :meth:`_follow`)."""
        # a set broken to follow: the weakest of more than k cards and fewer than 4
        if tr < RANK_2 and k < c < 4:
            broken = tr
        else:
            splittable = more & ~((counts & _FOURS) << 5)
            broken = _lowest_rank(splittable) if splittable else -1
        if broken >= 0:
            break_below = self._break_below if self._break_below is not None else 9
            if broken < break_below or n <= self._control_hand + 1:
                return broken
        if counts >> 8 * RANK_2 & 255 >= k:
            # the control play (P9a: a 2 closes the trick)
            sets = ((counts + _AT_LEAST[1]) & _TOP).bit_count()
            if n - k <= self._control_hand or tr >= 10 or sets <= 3:
                return RANK_2
        return -1

    def _lead(
        self,
        cnt: bytes,
        n: int,
        strongest: int,
        forb: int,
        tdc: bool,
        rev: bool,
    ) -> tuple[int, int]:
        """The (rank, count) to lead."""
        # ranks from weakest to strongest in the order in force
        ranks = _DOWN if rev else _RANKS
        if not tdc:
            # classic, most leads: with two sets or more besides the controls, the weakest goes
            first = -1
            for r in ranks:
                c = cnt[r]
                if c and c != 4 and r != strongest:
                    if first >= 0:
                        return first, cnt[first]
                    first = r
        controls: list[int] = []
        others: list[int] = []
        for r in ranks:
            c = cnt[r]
            if c:
                if r == strongest or c == 4:
                    controls.append(r)
                else:
                    others.append(r)
        if tdc:
            quads = [r for r in controls if cnt[r] == 4 and r != strongest]
            if quads and len(others) >= 2:
                # T10: a revolution when the rest of the hand is weak in the order in force
                low = high = 0
                for r in others:
                    st = 12 - r if rev else r
                    if st < 6:
                        low += cnt[r]
                    elif st > 6:
                        high += cnt[r]
                if low > high:
                    return quads[0], 4
        if controls and len(others) <= 1:
            # win the lead with a control, then go out on the last set (P9, T7a);
            # T8: the forbidden rank first, so that it is never the last card
            controls.sort(key=lambda r: (r != forb, cnt[r] == 4))
            r = controls[0]
            if tdc and others and cnt[r] == 4 and others[0] == (RANK_2 if rev else RANK_3):
                # a quad reverses the order (T10) and would make the last set forbidden:
                # play that set while it still may go
                return others[0], cnt[others[0]]
            return r, cnt[r]
        if others:
            r = others[0]
            if tdc and n == cnt[r] + cnt[forb] and cnt[forb] and r != forb:
                # leading this set would leave only forbidden cards: lead the forbidden set first
                return forb, cnt[forb]
            return r, cnt[r]
        r = controls[0]
        return r, cnt[r]

    def _follow(
        self,
        must: int | None,
        played_mask: int,
        cnt: bytes,
        n: int,
        k: int,
        tr: int,
        strongest: int,
        forb: int,
        tdc: bool,
        rev: bool,
    ) -> int:
        """The rank to follow ``k`` cards of rank ``tr`` with, or -1 to pass.

        ``must``: the "ça ou rien" rank (P7/T6) or ``None``; ``played_mask``: the
        cards played in public this round."""
        ranks: Sequence[int]
        if must is not None:
            ranks = (must,)  # P7/T6: that or nothing
        elif rev:
            ranks = range(tr, -1, -1)  # T2/T4: at least as strong in the order in force
        else:
            ranks = range(tr, 13)  # P6
        left = n - k
        # T8: a play that leaves nothing but forbidden cards strands us
        strand = tdc and left > 0 and cnt[forb] == left
        broken = -1
        control = -1
        for r in ranks:  # weakest first
            c = cnt[r]
            if c < k:
                continue
            if tdc:
                if left == 0 and r == forb:
                    continue  # T8: never go out on a forbidden card if we can help it
                if strand and r != forb:
                    continue
            if r == strongest:
                control = r
                continue
            if r == tr:
                # P7/T6 "ça ou rien": after our play only this rank may follow; if the
                # others cannot hold k of them, nobody can, and the lead is ours.
                seen = (played_mask >> (r * 4) & 15).bit_count()
                if 4 - c - seen < k and (c == k or c < 4):
                    return r
            if c == k:
                return r  # the weakest play that breaks no set
            if broken < 0 and c < 4:
                broken = r
        if broken >= 0:
            break_below = self._break_below if self._break_below is not None else (10 if tdc else 9)
            if (12 - broken if rev else broken) < break_below or n <= self._control_hand + 1:
                return broken
        if control >= 0:
            top_s = 12 - tr if rev else tr
            sets = 0
            for x in cnt:
                if x:
                    sets += 1
            if left <= self._control_hand or top_s >= 10 or sets <= 3:
                return control
        return -1
