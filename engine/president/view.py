"""What one seat may know of a Président match (STYLE 7): :class:`PresidentView`, :class:`TurnView`.

A view is an immutable snapshot built cheaply (plain fields, bit masks);
``to_dict()`` turns it into the protocol's state fields only when asked.
It never holds another seat's cards: only ``hand`` (the viewer's own) and
what was played in public. :class:`TurnView` is the compact form of a seat's
view on its turn of play, for bots and drivers that decide from counts.
"""

from __future__ import annotations

from itertools import chain
from operator import getitem, itemgetter
from typing import Any, NamedTuple

from engine.api import Action
from engine.cards import CARDS, CODES, RANKS, Card, format_cards

_BYTE_CARDS: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(tuple(CARDS[8 * i + b] for b in range(8) if byte >> b & 1 and 8 * i + b < 52) for byte in range(256))
    for i in range(7)
)
"""``_BYTE_CARDS[i][byte]``: the cards of bits ``8i .. 8i+7`` set in ``byte``."""

_BYTE_CODES: list[tuple[tuple[str, ...], ...]] = []
"""``_BYTE_CODES[i][byte]``: the codes of ``_BYTE_CARDS[i][byte]`` (the played cards' codes of a state
in C calls: no card tuple made on the way); made at the first state, not at import."""

_SEAT_FLAGS: dict[int, tuple[tuple[bool, ...], ...]] = {}
"""``_SEAT_FLAGS[n][mask]``: per seat of ``n`` (at most 8), its bit of ``mask`` as a bool (made at a
table size's first state, not at import: a simulation never asks)."""


def _seat_flags(n: int) -> tuple[tuple[bool, ...], ...]:
    flags = _SEAT_FLAGS[n] = tuple(tuple(bool(mask >> s & 1) for s in range(n)) for mask in range(1 << n))
    return flags


_UP = tuple(range(13))
_DOWN = tuple(range(12, -1, -1))
_GIVES = {"president": 2, "vice_president": 1}
"""T12: how many cards the Président and the Vice-président give back."""


def cards_of_mask(mask: int) -> tuple[Card, ...]:
    """The cards of a 52-bit mask (bit ``i`` = card ``i``), weakest first."""
    if not mask:
        return ()
    # each byte's cards from its table, joined: all in C calls (a Python loop over the bytes
    # costs a third more; a deal asks this for every hand)
    return sum(map(getitem, _BYTE_CARDS, mask.to_bytes(7, "little")), ())


def card_codes(cards: tuple[Card, ...]) -> list[str]:
    """The cards' codes: ``format_cards(cards)`` in one C call (a card is an ``int`` subclass, which
    the interpreter's fast path for ``CODES[c]`` does not take)."""
    if len(cards) > 1:
        return list(itemgetter(*cards)(CODES))
    return [CODES[c] for c in cards]


def played_codes(mask: int) -> list[str]:
    """The codes of the cards of a 52-bit mask, weakest first: ``list(map(code, cards_of_mask(mask)))``."""
    if not mask:
        return []
    if not _BYTE_CODES:
        _BYTE_CODES.extend(tuple(tuple(map(CODES.__getitem__, cards)) for cards in row) for row in _BYTE_CARDS)
    return list(chain.from_iterable(map(getitem, _BYTE_CODES, mask.to_bytes(7, "little"))))


class TableState(NamedTuple):
    """The public facts of a match at one moment, shared by every view of that moment.

    Per-seat tuples are indexed by seat. ``trick`` entries are ``(seat, cards)``
    or ``(seat, None)`` for a pass. ``must_rank`` is the rank index a follower
    must play ("ça ou rien", P7/T6) or ``None``. ``played_mask`` holds every
    card played in public this round (bit ``i`` = card ``i``).
    """

    game: str
    rules: str
    round: int
    phase: str
    counts: tuple[int, ...]
    present: tuple[bool, ...]
    places: tuple[int | None, ...]
    titles: tuple[str | None, ...]
    scores: tuple[int, ...]
    chips: tuple[int, ...] | None
    passive_mask: int
    passed_mask: int
    turn: int | None
    trick: tuple[tuple[int, tuple[Card, ...] | None], ...]
    reversed: bool
    dealer: int | None
    played_mask: int
    must_rank: int | None
    stake: int


class PresidentView(NamedTuple):
    """A seat's (``you``) or a spectator's (``you is None``) view of the match.

    ``table`` holds the public facts (also readable as attributes of the view:
    ``view.turn``, ``view.counts``, ``view.trick``, ...); ``hand`` is the
    viewer's own cards (``None`` for a spectator), ``cut`` the cards it may cut
    with now (T9) or ``None``, ``exchange`` the ``(from, to, cards)`` moves of
    this round's exchange it took part in.

    An immutable named tuple (a view is built for nearly every decision, and
    a tuple is the cheapest immutable record to build); its fields are
    ``table, you, hand, cut, exchange``. What the viewer may do now is
    computed from them on demand: ``decision``, ``legal``, ``give``, ``must``
    (also in ``to_dict()``), the same answers as the match's ``pending()`` and
    ``legal_actions()``.
    """

    table: TableState
    you: int | None
    hand: tuple[Card, ...] | None
    cut: tuple[Card, ...] | None
    exchange: tuple[tuple[int, int, tuple[Card, ...]], ...]

    @property
    def game(self) -> str:
        return self.table.game

    @property
    def rules(self) -> str:
        return self.table.rules

    @property
    def round(self) -> int:
        return self.table.round

    @property
    def phase(self) -> str:
        return self.table.phase

    @property
    def counts(self) -> tuple[int, ...]:
        """Cards held per seat."""
        return self.table.counts

    @property
    def present(self) -> tuple[bool, ...]:
        """Per seat: plays this round (T1)."""
        return self.table.present

    @property
    def places(self) -> tuple[int | None, ...]:
        """Per seat: going-out number this round, or ``None``."""
        return self.table.places

    @property
    def titles(self) -> tuple[str | None, ...]:
        """Per seat: title earned in the last finished round (P12), or ``None``."""
        return self.table.titles

    @property
    def scores(self) -> tuple[int, ...]:
        """Per seat: match points so far (P14)."""
        return self.table.scores

    @property
    def chips(self) -> tuple[int, ...] | None:
        """Per seat: net chip change over the match (tdc, T13), ``None`` in classic."""
        return self.table.chips

    @property
    def passive_mask(self) -> int:
        return self.table.passive_mask

    @property
    def passed_mask(self) -> int:
        return self.table.passed_mask

    @property
    def turn(self) -> int | None:
        return self.table.turn

    @property
    def trick(self) -> tuple[tuple[int, tuple[Card, ...] | None], ...]:
        return self.table.trick

    @property
    def reversed(self) -> bool:
        """The order is reversed (revolution, T10)."""
        return self.table.reversed

    @property
    def dealer(self) -> int | None:
        return self.table.dealer

    @property
    def played_mask(self) -> int:
        return self.table.played_mask

    @property
    def must_rank(self) -> int | None:
        return self.table.must_rank

    @property
    def stake(self) -> int:
        return self.table.stake

    @property
    def order(self) -> str:
        """``"normal"`` or ``"reversed"`` (T10)."""
        return "reversed" if self.table.reversed else "normal"

    @property
    def top(self) -> tuple[Card, ...] | None:
        """The play to beat, or ``None`` on an empty table."""
        for _, cards in reversed(self.table.trick):
            if cards is not None:
                return cards
        return None

    @property
    def leading(self) -> bool:
        """The viewer must lead (play onto an empty table)."""
        return self.table.turn is not None and self.table.turn == self.you and self.top is None

    @property
    def played(self) -> tuple[Card, ...]:
        """Every card played in public this round, weakest first."""
        return cards_of_mask(self.table.played_mask)

    def passive(self, seat: int) -> bool:
        return bool(self.table.passive_mask >> seat & 1)

    # -- what the viewer may do now (computed on demand from the fields above) --

    @property
    def must(self) -> str | None:
        """The rank code "ça ou rien" demands now (P7/T6), e.g. ``"5"``, or ``None``; public."""
        r = self.table.must_rank
        return None if r is None else RANKS[r]

    @property
    def decision(self) -> str | None:
        """What is awaited from the viewer now: ``"lead"`` (on turn, empty table: he must play,
        P5), ``"follow"`` (on turn, a play to beat: play or pass, P6–P8), ``"give"`` (his T12
        choice), or ``None`` (nothing; a spectator). A cut (T9) is never awaited: see ``cut``."""
        you = self.you
        if you is None:
            return None
        t = self.table
        if t.phase == "play":
            if t.turn != you:
                return None
            for _, cards in t.trick:
                if cards is not None:
                    return "follow"
            return "lead"
        if t.phase == "exchange" and self.give:
            return "give"
        return None

    @property
    def give(self) -> int:
        """How many cards the viewer must choose to give back now (T12), ``0`` when none.

        In the exchange phase the Président gives back 2 cards and the Vice-président 1,
        once they received their partner's strongest and until they gave: the exchange
        moves the viewer took part in (``exchange``) say both (a pair whose partner sits
        the round out never gave, so nothing is due).
        """
        you = self.you
        t = self.table
        if you is None or t.phase != "exchange":
            return 0
        received = False
        for giver, receiver, _ in self.exchange:
            if giver == you:
                return 0
            if receiver == you:
                received = True
        if not received or you >= len(t.titles):
            return 0
        return min(_GIVES.get(t.titles[you] or "", 0), len(self.hand or ()))

    @property
    def legal(self) -> dict[str, Any] | None:
        """The viewer's legal moves now, compactly, or ``None`` when nothing is awaited from him.

        ``{"plays": [[rank, count], ...], "pass": bool}`` on his turn: a play is any
        ``count`` cards of ``rank`` from his hand (suits never matter for legality, P2),
        ranks listed weakest to strongest in the order in force (T10); leading (P5) every
        size of every rank he holds and no pass; following (P6, P7/T6) the top play's
        count, of a rank at least as strong, or only the "ça ou rien" rank, and a pass.
        ``{"give": k}`` in his T12 choice: any ``k`` cards of his hand. A cut is in ``cut``.
        """
        return self._legal(self.decision)

    def awaited(self) -> tuple[str | None, dict[str, Any] | None, int]:
        """``(decision, legal, give)`` at once, each worked out once (a state asks for all three)."""
        decision = self.decision
        if decision is None:  # (then nothing to give either: "give" is the decision while some is due)
            return None, None, 0
        return decision, self._legal(decision), self.give if decision == "give" else 0

    def _legal(self, decision: str | None) -> dict[str, Any] | None:
        if decision is None:
            return None
        if decision == "give":
            return {"give": self.give}
        counts = [0] * 13
        for c in self.hand or ():
            counts[c >> 2] += 1
        t = self.table
        top = self.top
        if top is None:
            return {
                "plays": [[RANKS[r], k] for r in (_DOWN if t.reversed else _UP) for k in range(1, counts[r] + 1)],
                "pass": False,
            }
        k = len(top)
        tr = top[0] >> 2
        ranks: Any
        if t.must_rank is not None:
            ranks = (t.must_rank,)
        elif t.reversed:
            ranks = range(tr, -1, -1)
        else:
            ranks = range(tr, 13)
        return {"plays": [[RANKS[r], k] for r in ranks if counts[r] >= k], "pass": True}

    def to_dict(self) -> dict[str, Any]:
        """The protocol's state fields of the view: a new dict, except for a spectator's view (no
        hand, no cut, no exchange), whose dict is made once per moment of the match and shared by
        every caller (the room's states and its durable log's hash both ask for it): read it, copy
        it before changing anything in it."""
        t = self.table
        public = self.you is None and self.hand is None and self.cut is None and not self.exchange
        if public:
            memo = _public_memo
            if memo[0] is t:
                return memo[1]
        d = self._dict()
        if public:
            _remember(t, d)
        return d

    def _dict(self) -> dict[str, Any]:
        t = self.table
        passive, passed = t.passive_mask, t.passed_mask
        counts = t.counts
        n = len(counts)
        flags = _SEAT_FLAGS.get(n) or _seat_flags(n)  # (at most 8 seats: masks below 1 << n)
        passives, passeds = flags[passive], flags[passed]
        seats: list[dict[str, Any]] = [
            {"seat": s, "cards": cards, "place": place, "title": title, "score": score,
             "passive": pv, "playing": playing, "passed": pd}
            for s, cards, place, title, score, playing, pv, pd in zip(
                range(n), counts, t.places, t.titles, t.scores, t.present, passives, passeds, strict=True)
        ]
        if t.chips is not None:
            for entry, chips in zip(seats, t.chips, strict=True):
                entry["chips"] = chips
        if self.you is None:  # a spectator awaits nothing
            decision, legal, give = None, None, 0
        else:
            decision, legal, give = self.awaited()
        d: dict[str, Any] = {
            "game": t.game,
            "rules": t.rules,
            "round": t.round,
            "phase": t.phase,
            "you": self.you,
            "seats": seats,
            "turn": t.turn,
            "trick": [
                {"seat": s, "pass": True} if c is None else {"seat": s, "cards": card_codes(c)}
                for s, c in t.trick
            ],
            "order": self.order,
            "dealer": t.dealer,
            "cut": None if self.cut is None else format_cards(self.cut),
            "decision": decision,
            "legal": legal,
            "give": give,
            "must": self.must,
            "played": played_codes(t.played_mask),
            "exchange": [{"from": g, "to": r, "cards": format_cards(c)} for g, r, c in self.exchange],
            "stake": t.stake,
        }
        if self.hand is not None:
            d["hand"] = card_codes(self.hand)
        return d


_public_memo: tuple[TableState | None, dict[str, Any]] = (None, {})
"""The last spectator's ``to_dict()`` and the moment it was made of (a match's ``TableState`` is a new
object at each of its versions, and held here, so the same object is the same moment): a memo,
replaced whole (one assignment, so a reader always sees a matching pair)."""


def _remember(table: TableState, d: dict[str, Any]) -> None:
    global _public_memo
    _public_memo = (table, d)


TurnFields = tuple[int, str, int, int, int, int, int, bool, bool, int, "tuple[Card, ...] | None", "Action | None"]
"""A :class:`TurnView`'s fields in its order as a plain tuple, which ``PresidentMatch.next_turn()``
gives drivers: building a tuple subclass costs about three times a plain tuple of the same fields
(and a simulator builds one for most actions); ``TurnView._make(fields)`` names them. A
``TurnView`` is one too (a bot's ``decide_turn`` takes either and unpacks it)."""


class TurnView(NamedTuple):
    """What ``seat`` may know on its turn of play, compactly (``PresidentMatch.turn_view``).

    The same facts as its :class:`PresidentView` that a bot needs to choose a
    play, in the engine's own representation, plus what ``legal_actions()``
    would say when there is no choice: building it costs a fraction of a
    view and a legal list, which is what lets a simulator ask a bot for each
    turn (``engine/bots/driver.py``). Like any view it holds only the
    seat's own cards and public facts.
    """

    seat: int
    rules: str
    hand_mask: int
    """The seat's cards (bit ``i`` = card ``i``): ``view.hand`` as a mask."""
    rank_counts: int
    """Per rank index (0 = ``3`` … 12 = ``2``): how many cards of it the seat holds, packed a
    byte per rank (rank ``r`` in bits ``8r`` to ``8r + 7``: ``rank_counts >> 8 * r & 255``), the
    engine's own form, so that a bot may test the whole hand with a few integer operations."""
    cards: int
    """How many cards the seat holds."""
    top_rank: int
    """The rank index of the play to beat; meaningless when ``top_count`` is 0."""
    top_count: int
    """The size of the play to beat (P6: a follower plays as many); 0 when the seat leads."""
    must: bool
    """"Ça ou rien" (P7/T6): only ``top_rank`` may follow (``view.must_rank == top_rank``)."""
    reversed: bool
    """The order is reversed (revolution, T10)."""
    played_mask: int
    """Every card played in public this round."""
    cut: tuple[Card, ...] | None
    """The cards the seat may cut with now (T9), as ``view.cut``."""
    forced: Action | None
    """The seat's only legal action when it has no choice (``legal_actions(seat)`` is that one
    action), else ``None``."""
