"""One Président match: the state, the one place that decides legality, events out.

Both tables (RULES P and T) are played here; :class:`PresidentRules` switches
decide where they differ. Hands are 52-bit masks (bit ``i`` = card ``i`` of
``engine.cards``), so the hot path (legal actions, plays) is a few integer
operations; legal actions are shared precomputed objects, cached per state
version; views are flat snapshots whose ``to_dict()`` is computed on demand.

Phases: ``deal`` (waiting for the first deal) → ``exchange`` (T12 choices,
tdc only) → ``play`` → ``round_over`` (waiting for the next deal) … →
``match_over``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations, compress
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from engine._records import record_maker
from engine.api import Action as ApiAction
from engine.api import Pending
from engine.cards import CARDS, RANK_2, RANK_3, RANK_Q, RANKS, Card, format_cards, parse_cards
from engine.errors import BadArgument, IllegalPlay, NotAllowed, NotYourTurn, Refusal
from engine.seeds import SeedStream, commitment, derive, sha256

from .actions import (
    PASSES,
    PLAYS,
    RANK_CARDS,
    TIMEOUTS,
    Action,
    Cut,
    Deal,
    Give,
    Pass,
    Play,
    Timeout,
    _cards,
    action_from_dict,
)
from .events import (
    CutEvent,
    Dealt,
    Event,
    Exchange,
    MatchOver,
    Out,
    Passed,
    Played,
    Revolution,
    RoundOver,
    TimeoutEvent,
    TrickClosed,
)
from .rules import RULESETS, PresidentRules
from .stakes import settle_stakes, titles_for
from .view import PresidentView, TableState, TurnFields, TurnView, cards_of_mask

DEAL, EXCHANGE, PLAY, ROUND_OVER, MATCH_OVER = "deal", "exchange", "play", "round_over", "match_over"
FULL = (1 << 52) - 1
QH = RANK_Q * 4 + 2
_POP = tuple(bin(i).count("1") for i in range(16))
_SEAT_BITS = tuple(1 << s for s in range(8))
_NOT_SEAT = tuple(~(1 << s) for s in range(8))
_SEATS_IN = tuple(tuple(s for s in range(8) if mask >> s & 1) for mask in range(256))
"""``_SEATS_IN[mask]``: the seats of a seat mask, in seat order."""
"""``_NOT_SEAT[seat]``: every bit but the seat's (a tuple read costs less than ``~(1 << seat)``)."""
_LOW: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << b for b in [s for s in range(4) if nib >> s & 1][:k]) for k in range(5)) for nib in range(16)
)
"""``_LOW[nibble][k]``: the ``k`` weakest suits of ``nibble`` (the representative play of that size)."""
_LEADS: tuple[tuple[tuple[Play, ...], ...], ...] = tuple(
    tuple(tuple(row[_LOW[nib][k]] for k in range(1, _POP[nib] + 1)) for nib in range(16)) for row in PLAYS
)
"""``_LEADS[seat * 13 + rank][nibble]``: the representative leads of that rank, single to quad."""
_ByteRows = tuple[tuple[tuple[Play, ...], ...], ...]
"""``rows[i][byte]``: plays of ranks ``2i`` and ``2i + 1`` whose suit bits are the byte (a hand read a
byte, two ranks, at a time)."""
_SeatTables = tuple[_ByteRows, tuple[_ByteRows, ...]]
"""``(leads, follows)`` of one seat: its leads' byte rows, and ``follows[k]`` its plays of ``k`` cards."""
_SEAT_TABLES: dict[int, _SeatTables] = {}


def _seat_tables(seat: int) -> _SeatTables:
    """``(leads, follows)`` of ``seat``, built on first use: ``leads[i][byte]`` are the representative
    leads of ranks ``2i`` and ``2i + 1`` whose suit bits are the byte, ``follows[k][i][byte]`` their
    plays of ``k`` cards (a hand is read a byte, two ranks, at a time)."""
    got = _SEAT_TABLES.get(seat)
    if got is None:
        leads = _LEADS[seat * 13 : seat * 13 + 13]
        row = PLAYS[seat * 13 : seat * 13 + 13]
        got = _SEAT_TABLES[seat] = tuple(
            tuple(
                tuple(p for j in (0, 1) if 2 * i + j < 13 for p in leads[2 * i + j][byte >> 4 * j & 15])
                for byte in range(256)
            )
            for i in range(7)
        ), tuple(
            tuple(
                tuple(
                    tuple(
                        row[2 * i + j][_LOW[byte >> 4 * j & 15][k]]
                        for j in (0, 1)
                        if 2 * i + j < 13 and _POP[byte >> 4 * j & 15] >= k
                    )
                    for byte in range(256)
                )
                for i in range(7)
            )
            if k
            else ()
            for k in range(5)
        )
    return got


_ALL_SEAT_TABLES: dict[int, tuple[_SeatTables, ...]] = {}


def _all_seat_tables(n: int) -> tuple[_SeatTables, ...]:
    """:func:`_seat_tables` of each of ``n`` seats, as one tuple made once per table size (a
    simulator makes a match every five rounds)."""
    got = _ALL_SEAT_TABLES.get(n)
    if got is None:
        got = _ALL_SEAT_TABLES[n] = tuple(_seat_tables(s) for s in range(n))
    return got


_BELOW = tuple((1 << 4 * r) - 1 for r in range(14))
"""``_BELOW[r]``: the bits of the ranks under ``r``."""


_AFTER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((seat + i) % n for i in range(1, n + 1)) for seat in range(n)) if n else () for n in range(9)
)
"""``_AFTER[n][seat]``: the seats after ``seat`` in seat order ("left", P3), ``seat`` itself last."""

_tuple_new = tuple.__new__
"""Builds a named tuple from a tuple of its fields without the Python-level ``__new__`` (hot path)."""



_pending = record_maker(Pending)
"""Builds a :class:`engine.api.Pending` filling its slots directly (its frozen ``__init__`` costs more
than the rest of ``pending()``); the same for the records below (see :mod:`engine._records`)."""
_dealt = record_maker(Dealt)
_round_over = record_maker(RoundOver)
_exchange_event = record_maker(Exchange)
_deal = record_maker(Deal)
_OUT: dict[int, Out] = {}
_REVOLUTION: dict[tuple[int, str], Revolution] = {}
_TIMEOUT: dict[tuple[int, bool, str], TimeoutEvent] = {}

_NEXT: dict[int, tuple[tuple[int | None, ...], ...]] = {}


def _next_table(n: int) -> tuple[tuple[int | None, ...], ...]:
    """``table[seat][mask]``: the first seat after ``seat`` in seat order whose bit is in ``mask``
    (a row per seat: two tuple reads cost less than building the index ``seat << 8 | mask``)."""
    table = _NEXT.get(n)
    if table is None:
        table = _NEXT[n] = tuple(
            tuple(next((s for s in _AFTER[n][seat] if mask >> s & 1), None) for mask in range(256))
            for seat in range(n)
        )
    return table


class _PlayFacts(NamedTuple):
    """What a play of one seat's cards of one rank does (a plain tuple to the hot path, which
    unpacks it): made once per shared :class:`Play` of ``PLAYS``."""

    rank: int
    """Its rank index."""
    mask: int
    """Its cards as a mask."""
    size: int
    """The number of its cards."""
    rank_counts: int
    """The same cards in packed rank counts (see ``_RANK_ONE``)."""
    entry: tuple[int, tuple[Card, ...]]
    """Its ``(seat, cards)`` entry in the trick (``cards``: the shared play's own tuple)."""
    made: list[tuple[Played] | None]
    """Its ``played`` events already made, each a 1-tuple, at index ``remaining`` in the list,
    ``53 + remaining`` for an automatic play (a list read costs less than a dict's ``get``;
    ``None`` until made; a hand holds 52 cards at most)."""


_PlayKey = tuple[int, tuple[Card, ...]]
"""A play's value, ``(seat, cards)``: the key of ``_PLAY_FACTS``."""
_PLAY_FACTS: dict[_PlayKey, _PlayFacts] = {
    (play.seat, play.cards): _PlayFacts(
        i % 13,
        nib << (i % 13 * 4),
        _POP[nib],
        _POP[nib] << 8 * (i % 13),
        (play.seat, play.cards),
        [None] * 106,
    )
    for i, row in enumerate(PLAYS)
    for nib, play in enumerate(row)
    if nib
}
"""The shared plays of ``PLAYS`` by value → their :class:`_PlayFacts`. Those plays (handed out by
``legal_actions`` and played back by bots) hold valid cards of one rank, so ``apply`` only checks
what depends on the state (turn, hand, the top play) for a play whose seat is an ``int`` and whose
cards are the shared play's own tuple (the test at the top of :meth:`PresidentMatch.apply`). Any other play of the same cards is
checked whole and then played through the shared one's facts (:meth:`PresidentMatch._facts`)."""


# Events are immutable: the frequent ones are shared instead of rebuilt (hot path).
_played = record_maker(Played)
_CLOSED: dict[tuple[int, int | None, str], TrickClosed] = {}
_PASSED: tuple[Passed, ...] = tuple(Passed(i >> 1, bool(i & 1)) for i in range(16))
_FORCED_PASSED: tuple[Passed, ...] = tuple(Passed(s, True, True) for s in range(8))
"""``_FORCED_PASSED[seat]``: a pass because nobody can play the rank "ça ou rien" demands (P9 Decision)."""
_PASSED_ALONE: tuple[tuple[Passed], ...] = tuple((p,) for p in _PASSED)
_PASS_ENTRIES: tuple[_PassEntry, ...] = tuple((s, None) for s in range(8))
"""``_PASS_ENTRIES[seat]``: a pass in the trick."""
"""``_PASSED_ALONE[seat << 1 | auto]``: the events of a pass that does not close the trick."""


_PassEntry = tuple[int, None]
"""A pass in the trick: ``(seat, None)``."""
_ForcedPasses = tuple[tuple[_PassEntry, ...], tuple[Passed, ...]]
"""Automatic passes of some seats (P9 Decision): their trick entries and their ``passed`` events."""
_ForcedPassTable = tuple[tuple[_ForcedPasses, ...], ...]
"""``table[seat][mask]``: see :func:`_forced_pass_table`."""
_FORCED: dict[int, _ForcedPassTable] = {}


def _forced_pass_table(n: int) -> _ForcedPassTable:
    """``table[seat][mask]``: the automatic passes of the seats of ``mask`` after ``seat``'s play, in
    seat order from ``seat`` on (P9 Decision): their trick entries and their ``passed`` events."""
    table = _FORCED.get(n)
    if table is None:
        table = _FORCED[n] = tuple(
            tuple(
                (
                    tuple(_PASS_ENTRIES[s] for s in _AFTER[n][seat] if mask >> s & 1),
                    tuple(_FORCED_PASSED[s] for s in _AFTER[n][seat] if mask >> s & 1),
                )
                for mask in range(1 << n)
            )
            for seat in range(n)
        )
    return table


_CLOSING = frozenset({"twos", "strongest", "quad", "four_of_rank", "emptied"})
"""``trick_closed`` reasons where the last play itself closed the trick (T9: no cut on a closing play)."""

_BLOCKS = tuple(c.to_bytes(8, "big") for c in range(8))
_RANK_ONE = tuple(1 << 8 * (c >> 2) for c in range(52))
"""``_RANK_ONE[card]``: one card of its rank in packed rank counts (a byte per rank: rank ``r``
in bits ``8r`` to ``8r + 7``; a hand holds at most 4 of a rank, so bytes never carry)."""
_CARD_AND_RANK = tuple(1 << c | _RANK_ONE[c] << 64 for c in range(52))
"""``_CARD_AND_RANK[card]``: the card's bit (bits 0-51) and one of its rank in packed rank counts
shifted above the mask (bit 64 on): summed over a hand, its mask and its rank counts at once."""
_BYTES_UNDER = tuple((1 << 8 * r) - 1 for r in range(14))
"""``_BYTES_UNDER[r]``: the bytes of the ranks under ``r`` in packed rank counts."""
_SET_OF = tuple((0x80 - k) * 0x01010101010101010101010101 for k in range(5))
"""``_SET_OF[k]``: added to packed rank counts, sets the top bit of every rank's byte holding at
least ``k`` cards (4 + 0x7F never carries into the next byte)."""
_TOP_BITS = 0x80808080808080808080808080
_SET_FROM = tuple(tuple(_SET_OF[k] & ~_BYTES_UNDER[r] for r in range(13)) for k in range(5))
"""``_SET_FROM[k][r]``: ``_SET_OF[k]`` in the bytes of the ranks from ``r`` up only: added to packed
rank counts, sets the top bit of every rank from ``r`` up holding at least ``k`` cards (the bytes
under ``r`` hold at most 4: no top bit, no carry), without shifting the counts first."""


def _rank_counts(hand: int) -> int:
    """The packed rank counts of a hand mask (see ``_RANK_ONE``)."""
    return sum(_POP[hand >> 4 * r & 15] << 8 * r for r in range(13))


def _timeout_event(seat: int, passive: bool, kind: str) -> TimeoutEvent:
    key = (seat, passive, kind)
    got = _TIMEOUT.get(key)
    if got is None:
        got = _TIMEOUT[key] = TimeoutEvent(seat, passive, kind)
    return got


_KEEP_BITS: dict[int, tuple[int, ...]] = {m: tuple(x & m for x in range(256)) for m in (1, 3, 7, 15, 31, 63)}
"""``_KEEP_BITS[mask][byte]``: ``byte & mask``, for the masks of :func:`shuffled_deck`'s draws."""


def shuffled_deck(seed: bytes) -> list[int]:
    """``engine.seeds.shuffled(deck(), seed)`` as card ints, computed without per-draw allocations.

    The same SHA-256 counter stream, rejection sampling and Fisher–Yates as
    :func:`engine.seeds.shuffled` (a test checks they agree), so a published
    seed still replays with the generic function. The stream is produced
    three blocks at a time (a shuffle takes about 72 bytes), more if needed.
    """
    out = list(range(52))
    stream = b"".join([sha256(seed + block).digest() for block in _BLOCKS[:3]])
    counter = 3
    i = 51  # the position drawn for, from the last one down to 1
    mask = 63  # the bits a draw for i keeps: (1 << i.bit_length()) - 1, while i >= low
    keep = _KEEP_BITS[mask]
    low = 32
    while True:
        for x in stream:  # one byte per draw, rejected while above i
            if (x := keep[x]) <= i:  # x & mask, read from a tuple (a generic & costs more)
                out[i], out[x] = out[x], out[i]
                i -= 1
                if i < low:
                    if not i:
                        return out
                    mask >>= 1
                    keep = _KEEP_BITS[mask]
                    low >>= 1
        stream = sha256(seed + counter.to_bytes(8, "big")).digest()
        counter += 1


_BYTES = (bytes, bytearray)
"""The seed types (a tuple: ``bytes | bytearray`` would build a union type at every test)."""


def _mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _valid_cards(cards: Any) -> tuple[Card, ...]:
    if not isinstance(cards, tuple | list):
        raise BadArgument("cards must be a list of cards", reason="cards")
    for c in cards:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52:
            raise BadArgument("not a card", reason="cards")
    return tuple(CARDS[c] for c in cards)


class PresidentMatch:
    """A match of Président under one rule set (``"classic"``, ``"tdc"`` or a :class:`PresidentRules`).

    ``seats``: table size (3–8); ``stake``: default stake of a round (tdc, T13);
    ``rounds``: number of rounds (default: the rule set's, 5 for classic, P15;
    unlimited for tdc, T1).
    """

    game = "president"

    __slots__ = (
        "_actions",
        "_checks",
        "_chips",
        "_closed_reason",
        "_closed_trick",
        "_counts",
        "_cut_cache",
        "_cut_version",
        "_dealer",
        "_exchange_since",
        "_exchange_views",
        "_exchanges",
        "_forbidden",
        "_forced_tab",
        "_gives",
        "_hand_cache",
        "_hands",
        "_holding",
        "_last_ranking",
        "_last_titles",
        "_leader_override",
        "_legal_cache",
        "_legal_list",
        "_legal_seat",
        "_legal_version",
        "_must",
        "_n",
        "_newcomer_mask",
        "_next_tab",
        "_out",
        "_passed",
        "_passive",
        "_passive_order",
        "_pending_turn",
        "_pending_version",
        "_per_round",
        "_phase",
        "_places",
        "_plain",
        "_played",
        "_present",
        "_present_flags",
        "_present_mask",
        "_ranks",
        "_reversed",
        "_round",
        "_round_points",
        "_rounds",
        "_rounds_played",
        "_rules",
        "_seats_mask",
        "_seed",
        "_stake",
        "_stake_default",
        "_table",
        "_tables",
        "_top_count",
        "_top_rank",
        "_top_seat",
        "_totals",
        "_trick",
        "_trick_mask",
        "_turn",
        "_undealt",
        "_view_cache",
        "_view_last",
        "_view_version",
        "rules_name",
    )

    def __init__(
        self,
        rules: str | PresidentRules = "classic",
        seats: int = 4,
        stake: int = 0,
        rounds: int | None = None,
    ) -> None:
        if isinstance(rules, str):
            if rules not in RULESETS:
                raise BadArgument(f"unknown rules {rules!r}", reason="rules")
            rules = RULESETS[rules]
        if not isinstance(seats, int) or not rules.min_seats <= seats <= rules.max_seats:
            raise BadArgument("number of seats out of range", reason="seats")
        if not isinstance(stake, int) or stake < 0 or stake % 2:
            raise BadArgument("the stake must be an even number of chips", reason="stake")
        if rounds is not None and (not isinstance(rounds, int) or rounds < 1):
            raise BadArgument("rounds must be positive", reason="rounds")
        self._rules = rules
        self.rules_name = rules.name
        self._plain = not (
            rules.pass_leaves_trick or rules.close_on_four_of_rank or rules.close_on_empty or rules.revolution
        )
        """Plays and passes take :meth:`apply`'s fast path: none of T5, T7b, T7c, T10 (the classic table)."""
        self._n = seats
        self._next_tab = _next_table(seats)
        self._forced_tab = _forced_pass_table(seats)
        self._tables = _all_seat_tables(seats)
        self._checks = 3 * seats + 1  # card checks per call: 3 per seat and the partition
        self._seats_mask = (1 << seats) - 1
        self._round_points = 0 if rules.seats_change else seats * (seats - 1) // 2
        """P14: the points a round gives out (0: not checked, the seats change between rounds)."""
        self._stake_default = stake
        self._rounds = rounds if rounds is not None else rules.default_rounds
        self._phase = DEAL
        self._round = 0
        self._actions: list[Action] = []
        self._totals = [0] * seats
        self._chips = [0] * seats
        self._rounds_played = 0
        self._last_titles: tuple[str | None, ...] | None = None
        self._last_ranking: tuple[int, ...] = ()
        self._present: tuple[int, ...] = tuple(range(seats))
        self._present_mask = (1 << seats) - 1
        self._newcomer_mask = 0  # seats whose player joined since the last round (T12)
        self._stake = 0
        self._seed = b""
        self._dealer: int | None = None
        self._undealt = FULL
        self._hands = [0] * seats
        self._counts = [0] * seats
        self._ranks = [0] * seats
        """Per seat, its cards of each rank index as packed rank counts (see ``_RANK_ONE``),
        kept with ``_hands``: the compact hand of :meth:`turn_view`."""
        self._holding = 0
        self._played = 0
        self._hand_cache: list[tuple[int, tuple[Card, ...]]] = [(0, ())] * seats
        # per state version: the first seat asked and its answer, then a dict for the others
        self._legal_version = -1
        self._legal_seat = -1
        self._legal_list: list[Action] = []
        self._legal_cache: dict[int, list[Action]] | None = None
        self._cut_version = -1
        self._cut_cache: dict[int, tuple[Card, ...]] = {}
        self._view_version = -1
        self._view_last: PresidentView | None = None
        self._view_cache: dict[int | None, PresidentView] | None = None
        self._pending_version = -1
        self._pending_turn: list[Pending] = []
        self._table: TableState | None = None
        self._present_flags: tuple[bool, ...] = (True,) * seats
        self._reset_round_state()

    def _reset_round_state(self) -> None:
        n = self._n
        self._turn: int | None = None
        self._trick: list[tuple[int, tuple[Card, ...] | None]] = []
        self._closed_trick: list[tuple[int, tuple[Card, ...] | None]] = []
        """The last closed trick of this round and why it closed (to tell a late cut why not, T9)."""
        self._closed_reason = ""
        self._trick_mask = 0
        self._top_seat = -1
        self._top_rank = 0
        self._top_count = 0
        self._must = False
        self._passed = 0
        self._passive = 0
        self._passive_order: list[int] = []
        self._reversed = False
        self._out: list[int] = []
        self._forbidden: list[int] = []
        self._places: list[int | None] = [None] * n
        self._exchanges: list[tuple[int, int, tuple[Card, ...]]] = []
        self._exchange_views: list[tuple[tuple[int, int, tuple[Card, ...]], ...] | None] = [None] * n
        self._per_round: tuple[tuple[str | None, ...], tuple[int, ...], tuple[int, ...] | None] | None = None
        self._gives: dict[int, tuple[int, int]] = {}
        self._exchange_since = 0
        self._leader_override: int | None = None

    # ------------------------------------------------------------------ construction helpers

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> PresidentMatch:
        rules = config.get("rules", "classic")
        if isinstance(rules, dict):
            rules = PresidentRules.from_dict(rules)
        return cls(rules=rules, seats=config["seats"], stake=config.get("stake", 0), rounds=config.get("rounds"))

    @property
    def config(self) -> dict[str, Any]:
        """What :meth:`replay` needs besides the log."""
        rules: Any = self.rules_name if RULESETS.get(self.rules_name) == self._rules else self._rules.to_dict()
        return {"game": "president", "rules": rules, "seats": self._n, "stake": self._stake_default, "rounds": self._rounds}

    @classmethod
    def from_hands(
        cls,
        rules: str | PresidentRules,
        hands: Sequence[str | Sequence[int]],
        *,
        leader: int | None = None,
        dealer: int = 0,
        stake: int = 0,
        rounds: int | None = None,
        seed: bytes = b"explicit",
    ) -> PresidentMatch:
        """Test helper: a match whose first round is dealt ``hands`` (per seat, ``"3c 4d"`` or cards).

        Seats with an empty hand sit the round out (tdc); fewer than 52 cards
        may be dealt (the rest stays undealt). ``leader`` overrides P4/T3.
        """
        m = cls(rules=rules, seats=len(hands), stake=stake, rounds=rounds)
        m.deal_hands(hands, leader=leader, dealer=dealer, seed=seed)
        return m

    def deal_hands(
        self,
        hands: Sequence[str | Sequence[int]],
        *,
        leader: int | None = None,
        dealer: int | None = None,
        stake: int | None = None,
        seed: bytes = b"explicit",
    ) -> tuple[Event, ...]:
        """Test helper: apply an explicit :class:`Deal` (the next round gets exactly ``hands``)."""
        parsed = tuple(parse_cards(h) if isinstance(h, str) else tuple(CARDS[c] for c in h) for h in hands)
        present = tuple(s for s, h in enumerate(parsed) if h)
        return self.apply(Deal(seed, present=present, stake=stake, hands=parsed, leader=leader, dealer=dealer))

    @classmethod
    def replay(cls, config: Mapping[str, Any], log: Iterable[Mapping[str, Any]]) -> tuple[PresidentMatch, list[Event]]:
        """Rebuild a match from its configuration and log; the events are the same, byte for byte."""
        m = cls.from_config(config)
        events: list[Event] = []
        for entry in log:
            events.extend(m.apply(action_from_dict(dict(entry))))
        return m, events

    def log(self) -> list[dict[str, Any]]:
        """The match log: every applied action's ``to_dict()``."""
        return [a.to_dict() for a in self._actions]

    # ------------------------------------------------------------------ public state

    @property
    def rules(self) -> PresidentRules:
        return self._rules

    @property
    def seats(self) -> int:
        return self._n

    @property
    def round(self) -> int:
        return self._round

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def over(self) -> bool:
        return self._phase == MATCH_OVER

    @property
    def turn(self) -> int | None:
        return self._turn

    @property
    def version(self) -> int:
        """Number of actions applied (the log's length: no other count is kept); changes with every
        state change."""
        return len(self._actions)

    @property
    def present(self) -> tuple[int, ...]:
        """Seats playing the current (or last) round."""
        return self._present

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self._totals)

    @property
    def chips(self) -> tuple[int, ...]:
        """Net chip change per seat over the match (tdc, T13)."""
        return tuple(self._chips)

    @property
    def last_titles(self) -> tuple[str | None, ...] | None:
        return self._last_titles

    @property
    def last_ranking(self) -> tuple[int, ...]:
        """The last finished round's ranking, first to last (its ``round_over`` event's; ``()``
        before the first round ends)."""
        return self._last_ranking

    def hand(self, seat: int) -> tuple[Card, ...]:
        """``seat``'s cards, weakest first (for the room and tests; never send to others)."""
        mask = self._hands[seat]
        cached = self._hand_cache[seat]
        if cached[0] == mask:
            return cached[1]
        cards = cards_of_mask(mask)
        self._hand_cache[seat] = (mask, cards)
        return cards

    def needs_deal(self) -> bool:
        return self._phase == DEAL or self._phase == ROUND_OVER

    def deal_action(self, seed: bytes, **table: Any) -> Deal:
        """The chance step: ``present`` (tdc, T1), ``stake`` (tdc, T13) and ``newcomers`` (T12) may come
        from the table."""
        if not table:  # classic tables: every seat, the match's stake, no newcomers
            return _deal(bytes(seed), None, None, None, None, None, ())
        unknown = set(table) - {"present", "stake", "newcomers"}
        if unknown:
            raise BadArgument(f"unknown table facts {sorted(unknown)}", reason="table")
        present = table.get("present")
        return _deal(
            bytes(seed), None if present is None else tuple(sorted(present)), table.get("stake"), None, None, None,
            tuple(sorted(table.get("newcomers") or ())),
        )

    # ------------------------------------------------------------------ decisions awaited

    def pending(self) -> list[Pending]:
        t = self._turn
        if t is not None and self._phase == PLAY:
            version = len(self._actions)
            if self._pending_version == version:
                return self._pending_turn
            # Every action of the play phase gives the turn (a play or a pass moves it, P5-P8; a
            # closed trick gives the lead, P10, even back to the same seat; the deal or the last
            # exchange move gives the first), so the seat's turn began with the last action.
            out = [_pending(("turn", self._round, version - 1), "turn", t, TIMEOUTS[t])]
            self._pending_turn = out
            self._pending_version = version
            return out
        if self._phase == EXCHANGE:
            return [
                Pending(("give", self._round, s, self._exchange_since), "give", s, TIMEOUTS[s])
                for s in sorted(self._gives)
            ]
        return []

    def awaited_turn(self) -> int | None:
        """A cheap form of :meth:`pending` for drivers: the seat whose turn of play the table
        waits for, or ``None`` when it waits for something else or nothing (ask ``pending()``).
        That seat's every action ends the decision; its time-out is ``Timeout(seat)``."""
        return self._turn if self._phase == PLAY else None

    def turn_view(self, seat: int) -> TurnView:
        """The compact view of the seat whose turn of play it is (:meth:`awaited_turn`): its
        hand as a mask and rank counts, the play to beat, and its only legal action when it
        has no choice (``TurnView.forced``, the object ``legal_actions(seat)`` would list).
        Raises :class:`NotYourTurn` for another seat."""
        if seat != self._turn or seat is None:  # (the turn is None outside the play phase)
            self._check_turn(seat)  # raises the reason
        # each fact read once (this runs before every decision of a simulated game)
        ranks = self._ranks[seat]
        hand = self._hands[seat]
        count = self._counts[seat]
        tc = self._top_count
        tr = self._top_rank
        must = self._must
        reverse = self._reversed
        cut = self.cut_options().get(seat) if self._rules.cut else None
        forced: Action | None = None
        if tc == 0:
            if count == 1:  # P5: a lone card is the only lead
                c = hand.bit_length() - 1
                forced = PLAYS[seat * 13 + (c >> 2)][1 << (c & 3)]
        elif not self._can_beat(ranks):  # a seat that may cut (T9) holds the top rank: it can follow
            forced = PASSES[seat]
        return _tuple_new(
            TurnView,
            (
                seat,
                self.rules_name,
                hand,
                ranks,
                count,
                tr,
                tc,
                must,
                reverse,
                self._played,
                cut,
                forced,
            ),
        )

    def _can_beat(self, ranks: int) -> bool:
        """Whether a seat holding these rank counts has a play over the top one (a trick is open):
        the same plays as ``_plays()`` — P7 that rank ("ça ou rien"), T4 reversed at most as
        strong, P6 at least as strong (some rank of the range holds as many cards: see _SET_OF).
        turn_view() and forced_pass() ask it; next_turn() has it written out (profiled: a call a
        turn), and tests/engine/test_views.py's check_turn_view holds the two together on random games."""
        tc = self._top_count
        tr = self._top_rank
        if self._must:
            return ranks >> 8 * tr & 255 >= tc
        if self._reversed:
            return (ranks & _BYTES_UNDER[tr + 1]) + _SET_OF[tc] & _TOP_BITS != 0
        return ranks + _SET_FROM[tc][tr] & _TOP_BITS != 0

    def next_turn(self) -> TurnFields | Action | None:
        """What the table waits for from the seat on turn, in one call (for drivers): the seat's
        only legal action when it has no choice (a pass when it cannot beat the top play, P6/P7/T4;
        its lone card when it leads with one, P5: ``turn_view(seat).forced``), else its turn view's
        fields as a plain tuple (:data:`~engine.president.view.TurnFields`: ``turn_view(seat)``
        equals it, with ``forced`` then ``None``; an action is never a plain tuple). ``None`` when
        no turn of play is awaited (ask ``pending()``). ``awaited_turn()``, ``turn_view()`` and the
        forced test at once: a simulator asks it before every action of a round."""
        seat = self._turn
        if seat is None:  # no turn of play awaited (the turn is None outside the play phase)
            return None
        ranks = self._ranks[seat]
        tc = self._top_count
        tr = self._top_rank
        must = self._must
        reverse = self._reversed
        # _can_beat(ranks) written out (a call a turn: about 2% of a simulated round); the same
        # answer as turn_view() on random games: tests/engine/test_views.py (check_turn_view)
        if tc and not (
            ranks >> 8 * tr & 255 >= tc
            if must
            else (ranks & _BYTES_UNDER[tr + 1]) + _SET_OF[tc] & _TOP_BITS != 0
            if reverse
            else ranks + _SET_FROM[tc][tr] & _TOP_BITS != 0
        ):
            return PASSES[seat]
        hand = self._hands[seat]
        count = self._counts[seat]
        if not tc and count == 1:  # P5: a lone card is the only lead
            c = hand.bit_length() - 1
            return PLAYS[seat * 13 + (c >> 2)][1 << (c & 3)]
        return (
            seat,
            self.rules_name,
            hand,
            ranks,
            count,
            tr,
            tc,
            must,
            reverse,
            self._played,
            self.cut_options().get(seat) if self._rules.cut else None,
            None,
        )

    def forced_pass(self) -> tuple[Pass, tuple[Event, ...]] | None:
        """Apply the pass of the seat on turn when it is its only legal action (it cannot beat
        the top play, P6/P7/T4: ``turn_view(seat).forced`` is that pass): ``(action, events)``
        exactly as ``apply(action)`` gives them. ``None``, changing nothing, when the seat on
        turn has a choice or no turn of play is awaited. For drivers that apply forced moves
        without asking a bot (``engine/bots/driver.py``) at tables where nobody plays out of
        turn (no T9 cut): it spares the seat's turn view."""
        seat = self._turn
        tc = self._top_count
        if seat is None or tc == 0 or self._phase != PLAY:
            return None  # a lead is never forced to pass (P5)
        if self._can_beat(self._ranks[seat]):
            return None
        action = PASSES[seat]
        events = self._do_pass(seat, False)
        self._actions.append(action)
        return action, events

    def cut_open(self) -> bool:
        """T9: a cut may follow the top play now, whoever holds the cards — a single or a pair that
        did not close the trick, not after "ça ou rien" (nobody can hold the others). A public fact:
        a table waits the same whether or not someone can cut, so waiting tells nobody anything."""
        return (self._rules.cut and self._phase == PLAY and (self._top_count == 1 or self._top_count == 2)
                and not self._must)

    def cut_options(self) -> dict[int, tuple[Card, ...]]:
        """T9: seat → the cards it may cut with now (empty when nobody can)."""
        version = len(self._actions)
        if self._cut_version == version:
            return self._cut_cache
        out: dict[int, tuple[Card, ...]] = {}
        tc = self._top_count
        if self._rules.cut and self._phase == PLAY and (tc == 1 or tc == 2):
            r = self._top_rank
            need = 4 - tc
            shift = r * 4
            elig = self._holding & ~self._passive & ~(1 << self._top_seat)
            hands = self._hands
            s = 0
            while elig:
                if elig & 1:
                    nib = hands[s] >> shift & 15
                    if _POP[nib] == need:
                        out[s] = RANK_CARDS[r][nib]
                elig >>= 1
                s += 1
        self._cut_cache = out
        self._cut_version = version
        return out

    def legal_actions(self, seat: int) -> list[Action]:
        """What ``seat`` may do now: one representative :class:`Play` per (rank, count)
        — the weakest suits of that rank — plus :class:`Pass`, a :class:`Cut` (out of
        turn, T9) or every :class:`Give` choice (T12). ``can()`` accepts any other
        suit choice too. Timeouts are the room's, not listed."""
        version = len(self._actions)
        if self._legal_version == version:
            if self._legal_seat == seat:
                return self._legal_list
            more = self._legal_cache
            if more is not None:
                got = more.get(seat)
                if got is not None:
                    return got
        out: list[Action] = []
        phase = self._phase
        if phase == PLAY:
            if seat == self._turn:
                self._plays(seat, out)
            if self._rules.cut:
                cards = self.cut_options().get(seat)
                if cards:
                    out.append(Cut(seat, cards))
        elif phase == EXCHANGE and seat in self._gives:
            _, k = self._gives[seat]
            for combo in combinations(self.hand(seat), k):
                out.append(Give(seat, combo))
        if self._legal_version != version:
            self._legal_version = version
            self._legal_seat = seat
            self._legal_list = out
            self._legal_cache = None
        else:
            more = self._legal_cache
            if more is None:
                more = self._legal_cache = {}
            more[seat] = out
        return out

    def _plays(self, seat: int, out: list[Action]) -> None:
        # the hand is read a byte (two ranks) at a time through tables of the shared plays
        hand = self._hands[seat]
        tc = self._top_count
        i = 0
        if tc == 0:
            leads = self._tables[seat][0]
            while hand:
                byte = hand & 255
                if byte:
                    out += leads[i][byte]
                hand >>= 8
                i += 1
            return
        tr = self._top_rank
        if self._must:  # P7: that rank or nothing
            nib = hand >> (tr * 4) & 15
            if _POP[nib] >= tc:
                out.append(PLAYS[seat * 13 + tr][_LOW[nib][tc]])
        else:
            # P6 / T4: at least as strong in the order in force
            follows = self._tables[seat][1][tc]
            if self._reversed:
                h = hand & _BELOW[tr + 1]
            else:
                i = tr >> 1
                h = (hand & ~_BELOW[tr]) >> (i * 8)
            while h:
                byte = h & 255
                if byte:
                    out += follows[i][byte]
                h >>= 8
                i += 1
        out.append(PASSES[seat])

    def can(self, action: Action) -> bool:
        try:
            self._check(action)
        except Refusal:
            return False
        return True

    # ------------------------------------------------------------------ checks (never mutate)

    def _check_seat(self, seat: Any) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self._n:
            raise BadArgument("no such seat", reason="seat")
        return int(seat)

    def _check(self, action: Any) -> Any:
        t = type(action)
        if t is Play:
            return self._check_play(action)
        if t is Pass:
            return self._check_pass(action)
        if t is Cut:
            return self._check_cut(action)
        if t is Give:
            return self._check_give(action)
        if t is Timeout:
            return self._check_timeout(action)
        if t is Deal:
            return self._check_deal(action)
        raise BadArgument("not a Président action", reason="action")

    def _check_turn(self, seat_arg: Any) -> int:
        if seat_arg == self._turn and seat_arg.__class__ is int and self._phase == PLAY:
            return int(seat_arg)
        seat = self._check_seat(seat_arg)
        if self._phase != PLAY:
            raise NotAllowed("no play now", reason="phase", phase=self._phase)
        if seat != self._turn:
            raise NotYourTurn("not your turn", reason="not_your_turn", turn=self._turn)
        return seat

    def _legal(self, seat: int) -> dict[str, Any] | None:
        """``seat``'s legal moves now in the view's compact form (for the params of a refusal)."""
        return self.view(seat).legal

    def _check_play(self, a: Play) -> tuple[int, int, int]:
        seat = self._check_turn(a.seat)
        cards = a.cards
        if cards.__class__ is not tuple:
            cards = _valid_cards(cards)
        k = len(cards)
        if not 1 <= k <= 4:
            raise IllegalPlay("a play is 1 to 4 cards", reason="count", legal=self._legal(seat))
        r = -1
        m = 0
        for c in cards:
            if c.__class__ is not Card and (not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52):
                raise BadArgument("not a card", reason="cards")
            if r != c >> 2:
                if r >= 0:
                    raise IllegalPlay("cards of one rank only", reason="mixed_ranks", legal=self._legal(seat))
                r = c >> 2
            m |= 1 << c
        if m.bit_count() != k:
            raise IllegalPlay("the same card twice", reason="duplicate", legal=self._legal(seat))
        if self._hands[seat] & m != m:
            raise IllegalPlay("you do not hold these cards", reason="not_in_hand", legal=self._legal(seat))
        tc = self._top_count
        if tc:
            tr = self._top_rank
            if k != tc:
                raise IllegalPlay(
                    "play as many cards as the top play",
                    reason="must_follow_count",
                    count=tc,
                    legal=self._legal(seat),
                )
            if self._must and r != tr:
                raise IllegalPlay("that or nothing", reason="ca_ou_rien", rank=RANKS[tr], count=tc, legal=self._legal(seat))
            if (r > tr) if self._reversed else (r < tr):
                raise IllegalPlay("too weak", reason="too_weak", rank=RANKS[tr], count=tc, legal=self._legal(seat))
        return r, m, k

    def _check_pass(self, a: Pass) -> int:
        seat = self._check_turn(a.seat)
        if self._top_count == 0:
            raise IllegalPlay("the leader must play", reason="must_lead", legal=self._legal(seat))
        return seat

    def _check_cut(self, a: Cut) -> tuple[int, int]:
        seat = self._check_seat(a.seat)
        cards = _valid_cards(a.cards)
        if not self._rules.cut:
            raise NotAllowed("no cut at this table", reason="no_cut")
        if self._phase != PLAY:
            raise NotAllowed("no play now", reason="phase", phase=self._phase)
        options = self.cut_options()
        if seat not in options:
            raise self._cut_refusal(seat, cards)
        m = _mask(cards)
        mine = options[seat]
        if m != _mask(mine) or len(cards) != len(mine):
            raise IllegalPlay(
                "a cut plays all the remaining cards of the rank",
                reason="cut_cards",
                rank=RANKS[self._top_rank],
                count=len(mine),
                cut=format_cards(mine),
                legal=self._legal(seat),
            )
        return seat, m

    def _cut_refusal(self, seat: int, cards: tuple[Card, ...]) -> Refusal:
        """Why ``seat`` may not cut now (T9, T14), the true reason, from public facts and its own hand.

        ``cards``: the cut it asked for (their rank tells which play it meant to cut).
        """
        legal = self._legal(seat)
        if self._passive >> seat & 1:
            return NotAllowed("a passive player never cuts (T14)", reason="passive", legal=legal)
        rank = cards[0] >> 2 if cards and all(c >> 2 == cards[0] >> 2 for c in cards) else None
        tc, tr = self._top_count, self._top_rank
        if tc and (rank is None or rank == tr):
            code = RANKS[tr]
            need = 4 - tc
            if tc == 3:
                return NotAllowed("never after a triple (T9)", reason="cut_triple", rank=code, legal=legal)
            if seat == self._top_seat:
                return NotAllowed("a cut is another player's (T9)", reason="cut_own", rank=code, legal=legal)
            if self._must:
                # T9 Decision: two singles of the rank are in the trick, nobody holds the three others
                return NotAllowed("no cut after ça ou rien (T9)", reason="cut_ca_ou_rien", rank=code, legal=legal)
            left = 4 - _POP[self._played >> (tr * 4) & 15]
            if left < need:
                return NotAllowed(
                    "fewer cards of the rank remain than a cut needs",
                    reason="cut_short",
                    rank=code,
                    count=need,
                    left=left,
                    legal=legal,
                )
            return NotAllowed("you do not hold all the remaining cards of the rank", reason="cannot_cut",
                              rank=code, count=need, legal=legal)  # fmt: skip
        if rank is not None:
            # a play of that rank is no longer the top: covered in this trick, or its trick closed
            code = RANKS[rank]
            for _, played in self._trick[:-1]:
                if played is not None and played[0] >> 2 == rank and len(played) <= 2:
                    return NotAllowed("the trick moved on", reason="cut_moved_on", rank=code, legal=legal)
            closed = [played for _, played in self._closed_trick if played is not None]
            if closed and closed[-1][0] >> 2 == rank and len(closed[-1]) <= 2 and self._closed_reason in _CLOSING:
                return NotAllowed("never on a closing play (T9)", reason="cut_closing", rank=code, legal=legal)
            if any(played[0] >> 2 == rank and len(played) <= 2 for played in closed):
                return NotAllowed("the trick moved on", reason="cut_moved_on", rank=code, legal=legal)
        return NotAllowed("you cannot cut now", reason="cannot_cut", legal=legal)

    def _check_give(self, a: Give) -> tuple[int, int]:
        seat = self._check_seat(a.seat)
        cards = _valid_cards(a.cards)
        if self._phase != EXCHANGE or seat not in self._gives:
            raise NotAllowed("nothing to give now", reason="no_give", give=0)
        _, k = self._gives[seat]
        m = _mask(cards)
        if len(cards) != k or m.bit_count() != k:
            raise IllegalPlay("give exactly the number of cards due", reason="give_count", count=k, legal={"give": k})
        if self._hands[seat] & m != m:
            raise IllegalPlay("you do not hold these cards", reason="not_in_hand", legal={"give": k})
        return seat, m

    def _check_timeout(self, a: Timeout) -> tuple[int, str]:
        seat = self._check_seat(a.seat)
        if self._phase == PLAY and seat == self._turn:
            return seat, "turn"
        if self._phase == EXCHANGE and seat in self._gives:
            return seat, "give"
        raise NotAllowed("no decision of this seat is awaited", reason="not_awaited")

    def _check_deal(self, a: Deal) -> tuple[tuple[int, ...], int, list[int] | None]:
        if not self.needs_deal():
            raise NotAllowed("no deal now", reason="phase", phase=self._phase)
        if not isinstance(a.seed, _BYTES):
            raise BadArgument("the seed must be bytes", reason="seed")
        n, rules = self._n, self._rules
        if a.present is None:
            present = tuple(range(n))
        else:
            try:
                present = tuple(sorted({self._check_seat(s) for s in a.present}))
            except TypeError:
                raise BadArgument("present must be seat numbers", reason="present") from None
            if present != tuple(range(n)) and not rules.seats_change:
                raise NotAllowed("the seats of this table are fixed (P16)", reason="fixed_seats")
            if len(present) < rules.min_seats:
                raise NotAllowed("not enough players for a round", reason="too_few_players")
        stake = self._stake_default if a.stake is None else a.stake
        if not rules.money:
            stake = 0
        elif not isinstance(stake, int) or stake < 0 or stake % 2:
            raise BadArgument("the stake must be an even number of chips (T13)", reason="stake")
        hands: list[int] | None = None
        if a.hands is not None:
            if len(a.hands) != n:
                raise BadArgument("one hand per seat", reason="hands")
            hands = []
            union = 0
            for s, h in enumerate(a.hands):
                m = _mask(_valid_cards(h))
                if m & union or m.bit_count() != len(h):
                    raise BadArgument("a card dealt twice", reason="hands")
                if bool(m) != (s in present):
                    raise BadArgument("present seats get cards, others none", reason="hands")
                union |= m
                hands.append(m)
        for extra in (a.leader, a.dealer):
            if extra is not None and self._check_seat(extra) not in present:
                raise BadArgument("leader and dealer must play the round", reason="seat")
        try:
            for s in a.newcomers:
                self._check_seat(s)
        except TypeError:
            raise BadArgument("newcomers must be seat numbers", reason="seat") from None
        return present, stake, hands

    # ------------------------------------------------------------------ apply

    def apply(self, action: ApiAction) -> tuple[Event, ...]:
        """Apply one action; raises a :class:`Refusal` and changes nothing when the rules forbid it.

        Plays and passes at a table without T5, T7b, T7c and T10 (``_plain``: the classic one) take
        the fast path (:meth:`_plain_play`, :meth:`_plain_pass`); every other play or pass takes
        :meth:`_do_play` or :meth:`_do_pass`. ``tests/engine/president/test_match.py`` plays
        the same games through both."""
        a: Any = action
        ev: tuple[Event, ...]
        cls = a.__class__
        if cls is Play:
            # a shared play of PLAYS (the same seat, as an int, and the same tuple of cards) carries
            # valid cards of one rank; any other is checked whole first
            facts = _PLAY_FACTS.get((a.seat, a.cards))
            if facts is None or a.cards is not facts[4][1] or a.seat.__class__ is not int:
                facts = self._facts(a.seat, self._check_play(a))
            if self._plain:
                return self._plain_play(a, facts)
            ev = self._do_play(a, facts, False)
        elif cls is Pass:
            seat = a.seat
            if seat != self._turn or seat.__class__ is not int or not self._top_count:
                seat = self._check_pass(a)
            if self._plain:
                return self._plain_pass(a, seat)
            ev = self._do_pass(seat, False)
        else:
            ev = tuple(self._apply_other(a))
        self._actions.append(a)
        return ev

    # ---------------------------------------------------- the plain table's fast path
    # A play or a pass at a table without T5, T7b, T7c and T10 (most actions of a simulated round):
    # :meth:`_do_play`'s and :meth:`_do_pass`'s checks, state and events without the tests of those
    # rules (the order is never reversed, a pass leaves no trick, only a 2 or a quad closes a trick,
    # P9). tests/engine/president/test_match.py plays the same games through both paths.

    def _plain_play(self, a: Play, facts: _PlayFacts) -> tuple[Event, ...]:
        """:meth:`_do_play` of ``a`` (cards of ``facts``) at a plain table, logged."""
        seat = a.seat
        r, m, k, rank_counts, trick_entry, made = facts
        hands = self._hands
        hand = hands[seat]
        tc = self._top_count
        tr = self._top_rank
        if seat != self._turn or hand & m != m or (tc and (k != tc or ((r != tr) if self._must else r < tr))):
            self._check_play(a)  # raises the refusal
        self._actions.append(a)  # the play is valid (nothing below reads the version)
        hand ^= m  # (m is in the hand: checked above; one operation where &= ~m takes two)
        hands[seat] = hand
        counts = self._counts
        left = counts[seat] - k
        counts[seat] = left
        self._ranks[seat] -= rank_counts
        played = self._played | m
        self._played = played
        alone = made[left]
        if alone is None:
            alone = made[left] = (_played(seat, trick_entry[1], left, False),)
        self._trick.append(trick_entry)
        must = tc != 0 and r == tr  # P7: "ça ou rien"
        self._must = must
        self._top_seat = seat
        self._top_rank = r
        self._top_count = k
        self._passed = 0  # P9c counts passes since the last play
        if not hand or r == RANK_2 or k == 4 or (must and played >> 4 * r & 15 == 15):
            return self._after_plain_play(seat, r, k, must, hand, alone)
        self._turn = self._next_tab[seat][self._holding]
        return alone

    def _plain_pass(self, a: Pass, seat: int) -> tuple[Event, ...]:
        """:meth:`_do_pass` of the checked ``seat`` at a plain table (a pass leaves no trick, P9c), logged."""
        self._actions.append(a)
        passed = self._passed | _SEAT_BITS[seat]
        self._passed = passed
        self._trick.append(_PASS_ENTRIES[seat])
        others = self._holding & _NOT_SEAT[self._top_seat]
        if passed & others == others:  # every other player holding cards has passed
            closing: list[Event] = [_PASSED[seat << 1]]
            self._close(self._top_seat, "all_passed", closing)  # P10
            return tuple(closing)
        self._turn = self._next_tab[seat][self._holding]
        return _PASSED_ALONE[seat << 1]

    def _after_plain_play(
        self, seat: int, r: int, k: int, must: bool, hand: int, alone: tuple[Played]
    ) -> tuple[Event, ...]:
        """The rest of a plain play (:meth:`_plain_play`) that may do more than give the turn:
        one that empties the hand (P11), plays 2s or a quad (P9a / P9b) or says "ça ou rien" on a
        rank whose four cards are played (P9 Decision): its events (``alone``: the shared
        ``played`` event's 1-tuple)."""
        ev: list[Event] | None = None  # made when the play has more events than its own
        holding = self._holding
        if not hand:
            ev = [alone[0]]
            self._go_out(seat, r, ev)
            holding = self._holding
            if holding & (holding - 1) == 0 or holding & ~self._passive == 0:  # P11
                self._end_round(ev)
                return tuple(ev)
        if r == RANK_2 or (k == 4 and self._rules.close_on_quad):  # P9a / P9b
            if ev is None:
                ev = [alone[0]]
            self._close(seat, "twos" if r == RANK_2 else "quad", ev)
            return tuple(ev)
        if must and self._rules.forced_passes and self._played >> (r * 4) & 15 == 15:
            if ev is None:
                ev = [alone[0]]
            self._forced_passes(seat, ev)  # P9 Decision: nobody can play that rank any more
            return tuple(ev)
        self._turn = self._next_tab[seat][holding]
        return alone if ev is None else tuple(ev)

    # ------------------------------------------------------- end of the fast path

    @staticmethod
    def _facts(seat: int, checked: tuple[int, int, int]) -> _PlayFacts:
        """The facts of ``seat``'s play of the checked ``(rank, mask, count)``: those of the shared
        :class:`Play` of the same cards (see ``_PLAY_FACTS``)."""
        r, m, _ = checked
        play = PLAYS[seat * 13 + r][m >> 4 * r & 15]
        return _PLAY_FACTS[play.seat, play.cards]

    def _apply_other(self, action: Any) -> Sequence[Event]:
        if isinstance(action, Deal):  # once a round; the others are rarer still
            present, stake, hands = self._check_deal(action)
            return self._do_deal(action, present, stake, hands)
        if isinstance(action, Play):
            return self._do_play(action, self._facts(action.seat, self._check_play(action)), False)
        if isinstance(action, Pass):
            return self._do_pass(self._check_pass(action), False)
        if isinstance(action, Cut):
            seat, m = self._check_cut(action)
            return self._do_cut(seat, m)
        if isinstance(action, Give):
            seat, m = self._check_give(action)
            return self._do_give(seat, m, True)
        if isinstance(action, Timeout):
            seat, kind = self._check_timeout(action)
            return self._do_timeout(seat, kind)
        raise BadArgument("not a Président action", reason="action")

    def _next_in(self, seat: int, mask: int) -> int | None:
        """The first seat after ``seat`` (cyclically, ``seat`` itself last) whose bit is in ``mask``."""
        return self._next_tab[seat][mask]

    def _round_should_end(self) -> bool:
        h = self._holding
        # P11 / T8: exactly one player holds cards; T14 Decision: every holder is passive.
        return h & (h - 1) == 0 or h & ~self._passive == 0

    def _new_trick(self) -> None:
        self._trick = []
        self._trick_mask = 0
        self._top_count = 0
        self._top_seat = -1
        self._must = False
        self._passed = 0

    def _close(self, by: int, reason: str, ev: list[Event]) -> None:
        """The trick closes (won by ``by``, for ``reason``) and the next one is led by ``by`` if it may
        lead, else by the next seat holding cards and not passive (P10 / T7c / T14)."""
        # ``by`` itself first, then the seats after it: the row of the seat before ``by``
        leader = self._next_tab[by - 1][self._holding & ~self._passive]
        self._closed_trick = self._trick
        self._closed_reason = reason
        self._new_trick()
        key = (by, leader, reason)
        closed = _CLOSED.get(key)
        if closed is None:
            closed = _CLOSED[key] = TrickClosed(by, leader, reason)
        ev.append(closed)
        self._turn = leader

    def _go_out(self, seat: int, r: int, ev: list[Event]) -> None:
        """P11: ``seat`` played its last card (rank ``r``), under the order in force before the play (T8)."""
        self._holding &= ~(1 << seat)
        place = len(self._out) + 1
        self._out.append(seat)
        self._places[seat] = place
        forbidden = False
        if self._rules.forbidden_last:
            forbidden = r == (RANK_3 if self._reversed else RANK_2)
            if forbidden:
                self._forbidden.append(seat)
        key = seat << 5 | place << 1 | forbidden
        out = _OUT.get(key)
        if out is None:
            out = _OUT[key] = Out(seat, place, forbidden)
        ev.append(out)

    def _do_play(self, a: Play, facts: _PlayFacts, auto: bool) -> tuple[Event, ...]:
        """The play ``a`` of the cards of ``facts`` (valid cards of one rank), checked against the
        state (the turn, the hand, the play to beat: a :class:`Refusal` changes nothing), then
        applied: its events. Most plays keep cards, change no order and close nothing: their events
        are the shared 1-tuple of the ``played`` event. Every rule set (:meth:`_plain_play` is the same
        for the tables without T5, T7b, T7c and T10)."""
        seat = a.seat
        r, m, k, rank_counts, trick_entry, made = facts
        hands = self._hands
        hand = hands[seat]
        tc = self._top_count
        tr = self._top_rank
        if (
            seat != self._turn  # no seat has the turn outside the play phase
            or hand & m != m
            or (tc and (k != tc or ((r != tr) if self._must else (r > tr) if self._reversed else (r < tr))))
        ):
            self._check_play(a)  # raises the refusal
        rules = self._rules
        hand ^= m  # (m is in the hand: checked above)
        hands[seat] = hand
        counts = self._counts
        left = counts[seat] - k
        counts[seat] = left
        self._ranks[seat] -= rank_counts
        self._played |= m
        if rules.close_on_four_of_rank:
            self._trick_mask |= m  # T7b looks at the cards of this trick
        key = left + 53 if auto else left
        alone = made[key]
        if alone is None:
            alone = made[key] = (_played(seat, trick_entry[1], left, auto),)
        self._trick.append(trick_entry)
        # P7: "ça ou rien" holds while the top play has the rank of the play under it.
        self._must = tc != 0 and r == tr
        self._top_seat = seat
        self._top_rank = r
        self._top_count = k
        if not rules.pass_leaves_trick:
            self._passed = 0  # P9c counts passes since the last play
        strongest = RANK_3 if self._reversed else RANK_2  # in the order before this play
        ev: list[Event] | None = None  # made when the play has more events than its own
        if not hand:
            ev = [alone[0]]
            self._go_out(seat, r, ev)  # T8 judged in the order before this play
        if k == 4 and rules.revolution:  # T10
            if ev is None:
                ev = [alone[0]]
            self._reversed = not self._reversed
            order = "reversed" if self._reversed else "normal"
            revolution = _REVOLUTION.get((seat, order))
            if revolution is None:
                revolution = _REVOLUTION[seat, order] = Revolution(seat, order)
            ev.append(revolution)
        holding = self._holding
        # _round_should_end(): only a play that empties the hand can end the round here (a round
        # starts with three holders or more, and every action that changes the holders or the
        # passive seats ends the round when it should)
        if ev is not None and not hand and (holding & (holding - 1) == 0 or holding & ~self._passive == 0):
            self._end_round(ev)
            return tuple(ev)
        reason = None
        if not hand and rules.close_on_empty:
            reason = "emptied"  # T7c, wins over T7a/T7b for the lead
        elif r == strongest:
            reason = "strongest" if rules.revolution else "twos"  # T7a / P9a
        elif k == 4 and rules.close_on_quad:
            reason = "quad"  # P9b
        elif rules.close_on_four_of_rank and self._trick_mask >> (r * 4) & 15 == 15:
            reason = "four_of_rank"  # T7b
        if reason is not None:
            if ev is None:
                ev = [alone[0]]
            self._close(seat, reason, ev)
            return tuple(ev)
        if self._must and rules.forced_passes and self._played >> (r * 4) & 15 == 15:
            if ev is None:
                ev = [alone[0]]
            self._forced_passes(seat, ev)  # P9 Decision: nobody can play that rank any more
            return tuple(ev)
        if rules.pass_leaves_trick:
            in_trick = holding & ~self._passed & ~self._passive
            if in_trick & ~(1 << seat) == 0:  # T7d: every other player in the trick has passed
                if ev is None:
                    ev = [alone[0]]
                self._close(seat, "all_passed", ev)
                return tuple(ev)
            self._turn = self._next_tab[seat][in_trick]
        else:
            self._turn = self._next_tab[seat][holding]
        return alone if ev is None else tuple(ev)

    def _forced_passes(self, seat: int, ev: list[Event]) -> None:
        """P9 Decision: "ça ou rien" demands a rank whose four cards are all played, so nobody can
        play; every seat still to answer ``seat``'s play passes at once, in seat order (each an
        automatic ``passed`` event), and the trick closes by P9c: ``seat`` leads (P10)."""
        waiting = self._holding & ~self._passed & _NOT_SEAT[seat]
        if self._rules.pass_leaves_trick:
            waiting &= ~self._passive
        entries, passes = self._forced_tab[seat][waiting]
        self._trick += entries
        ev += passes
        self._passed |= waiting
        self._close(seat, "all_passed", ev)

    def _do_pass(self, seat: int, auto: bool) -> tuple[Event, ...]:
        passed = self._passed | 1 << seat
        self._passed = passed
        self._trick.append(_PASS_ENTRIES[seat])
        top = self._top_seat
        holding = self._holding
        if self._rules.pass_leaves_trick:
            # T5 / T7d: passing takes you out of the trick; it closes when nobody else is in it.
            in_trick = holding & ~passed & ~self._passive
            if in_trick & ~(1 << top) == 0:
                ev: list[Event] = [_PASSED[seat << 1 | auto]]
                self._close(top, "all_passed", ev)
                return tuple(ev)
            self._turn = self._next_tab[seat][in_trick]
        else:
            # P9c: closes when every other player still holding cards has passed since the last play.
            others = holding & ~(1 << top)
            if passed & others == others:
                ev = [_PASSED[seat << 1 | auto]]
                self._close(top, "all_passed", ev)  # P10
                return tuple(ev)
            self._turn = self._next_tab[seat][holding]
        return _PASSED_ALONE[seat << 1 | auto]

    def _do_cut(self, seat: int, m: int) -> list[Event]:
        r = self._top_rank
        hand = self._hands[seat] & ~m
        self._hands[seat] = hand
        k = m.bit_count()
        self._counts[seat] -= k
        self._ranks[seat] -= k << 8 * r
        self._played |= m
        ev: list[Event] = [CutEvent(seat, RANK_CARDS[r][m >> (r * 4) & 15], self._counts[seat])]
        if hand == 0:
            self._go_out(seat, r, ev)  # counts for T8 like any play
        if self._round_should_end():
            self._end_round(ev)
            return ev
        # T9: the cut closes the trick and the cutter leads (T7c if his hand is empty).
        self._close(seat, "cut", ev)
        return ev

    def _do_timeout(self, seat: int, kind: str) -> list[Event]:
        if kind == "give":
            _, k = self._gives[seat]
            m = _weakest(self._hands[seat], k)  # T12 Decision: the weakest cards go
            ev: list[Event] = [_timeout_event(seat, False, "give")]
            ev.extend(self._do_give(seat, m, False))
            return ev
        if self._rules.passive_on_timeout:
            # T14: passive for the rest of the round; the time-out counts as a pass.
            self._passive |= 1 << seat
            self._passive_order.append(seat)
            ev = [_timeout_event(seat, True, "turn")]
            if self._round_should_end():
                self._end_round(ev)
                return ev
            if self._top_count == 0:
                # a passive player never leads: the lead goes to the next seat that can
                self._turn = self._next_in(seat, self._holding & ~self._passive)
                return ev
            ev.extend(self._do_pass(seat, True))
            return ev
        # classic (the server's timer rule): pass, or play the weakest single when leading
        ev = [_timeout_event(seat, False, "turn")]
        if self._top_count == 0:
            hand = self._hands[seat]
            low = hand & -hand
            c = low.bit_length() - 1
            play = PLAYS[seat * 13 + (c >> 2)][1 << (c & 3)]
            ev.extend(self._do_play(play, _PLAY_FACTS[play.seat, play.cards], True))
        else:
            ev.extend(self._do_pass(seat, True))
        return ev

    def _do_give(self, seat: int, m: int, chosen: bool) -> list[Event]:
        receiver, _ = self._gives.pop(seat)  # _check_give / _weakest: m holds exactly the cards due
        ev: list[Event] = []
        self._transfer(seat, receiver, m, ev, chosen)
        if not self._gives:
            self._start_play()
        return ev

    def _transfer(self, giver: int, receiver: int, m: int, ev: list[Event], chosen: bool = False) -> None:
        """One exchange move (P13, T12): the cards of mask ``m`` change hands, recorded and announced."""
        hands = self._hands
        hands[giver] &= ~m
        hands[receiver] |= m
        cards = cards_of_mask(m)
        k = len(cards)
        self._counts[giver] -= k
        self._counts[receiver] += k
        moved = sum(map(_RANK_ONE.__getitem__, cards))
        self._ranks[giver] -= moved
        self._ranks[receiver] += moved
        self._exchanges.append((giver, receiver, cards))
        self._exchange_views = [None] * self._n
        ev.append(_exchange_event(giver, receiver, k, cards, chosen))

    # ------------------------------------------------------------------ rounds

    def _do_deal(self, a: Deal, present: tuple[int, ...], stake: int, hands: list[int] | None) -> list[Event]:
        n = self._n
        self._round += 1
        self._present = present
        present_mask = sum(map(_SEAT_BITS.__getitem__, present))
        self._present_mask = present_mask
        self._present_flags = tuple(map(present.__contains__, range(n)))
        self._newcomer_mask = sum(map(_SEAT_BITS.__getitem__, set(a.newcomers))) if a.newcomers else 0
        self._stake = stake
        self._seed = bytes(a.seed)
        self._reset_round_state()
        # P3: random dealer in round 1, then one seat left (the next seat that plays).
        if a.dealer is not None:
            dealer = a.dealer
        elif self._dealer is None:
            dealer = present[SeedStream(derive(self._seed, "dealer")).below(len(present))]
        else:
            nxt = self._next_in(self._dealer, self._present_mask)
            assert nxt is not None
            dealer = nxt
        self._dealer = dealer
        if hands is None:
            hands = [0] * n
            ranks = [0] * n
            left = self._next_in(dealer, self._present_mask)
            assert left is not None
            start = present.index(left)
            order = present[start:] + present[:start]
            p = len(order)
            cards = shuffled_deck(self._seed)
            for i, seat in enumerate(order):  # one card at a time from the dealer's left
                # (6 cards or more each: itemgetter gives a tuple, read in one C call, where
                # mapping _CARD_AND_RANK.__getitem__ called a slot wrapper per card)
                both = sum(itemgetter(*cards[i::p])(_CARD_AND_RANK))
                hands[seat] = both & FULL
                ranks[seat] = both >> 64
        else:
            ranks = [_rank_counts(h) for h in hands]
        self._hands = hands
        self._ranks = ranks
        self._counts = list(map(int.bit_count, hands))
        self._holding = present_mask
        self._played = 0
        dealt = 0
        for h in hands:
            dealt |= h
        self._undealt = FULL & ~dealt
        self._leader_override = a.leader
        ev: list[Event] = [
            _dealt(
                self._round,
                dealer,
                present,
                tuple(self._counts),
                self._dealt_hands(hands),
                commitment(self._seed),
                stake,
            )
        ]
        self._phase = PLAY
        self._exchange(ev)
        if not self._gives:
            self._start_play()
        return ev

    def _dealt_hands(self, hands: list[int]) -> tuple[tuple[Card, ...], ...]:
        """Each seat's cards as dealt (for the ``dealt`` event), remembered for :meth:`hand`."""
        out = tuple([cards_of_mask(h) if h else () for h in hands])
        self._hand_cache = list(zip(hands, out, strict=True))
        return out

    def _exchange(self, ev: list[Event]) -> None:
        """P13 / T12: the pairs come from the previous round's titles; absent players skip theirs, and
        so do players who joined since (T12: a newcomer on a seat does not take its title's exchange)."""
        titles = self._last_titles
        if titles is None:
            return
        pm = self._present_mask & ~self._newcomer_mask
        pairs = []
        for high, low, k in (("president", "last", 2), ("vice_president", "vice_last", 1)):
            # each title is one seat's (P12)
            if high not in titles or low not in titles:
                continue
            hi = titles.index(high)
            lo = titles.index(low)
            if pm >> hi & 1 and pm >> lo & 1:
                pairs.append((hi, lo, k))
        if not pairs:
            return
        hands = self._hands
        if not self._rules.exchange_choice:
            # P13 Decision: computed on the hands as dealt, then every card moves at once.
            moves = []
            for hi, lo, k in pairs:
                moves.append((lo, hi, _strongest(hands[lo], k)))
                moves.append((hi, lo, _weakest(hands[hi], k)))
            for giver, receiver, m in moves:
                self._transfer(giver, receiver, m, ev)
            return
        # T12: the strongest go up at once; the Président / VP then choose what to give back.
        for hi, lo, k in pairs:
            self._transfer(lo, hi, _strongest(hands[lo], k), ev)
            self._gives[hi] = (lo, min(k, self._hands[hi].bit_count()))
        self._phase = EXCHANGE
        self._exchange_since = len(self._actions)

    def _start_play(self) -> None:
        self._phase = PLAY
        self._new_trick()
        leader = self._leader_override
        if leader is None:
            if self._rules.first_lead == "qh":
                leader = self._holder(QH)  # T3
            elif self._last_titles is None:
                leader = self._holder(0)  # P4: 3c, round 1
            else:
                titles = self._last_titles
                leader = titles.index("last") if "last" in titles else None
                if leader is not None and not self._present_mask >> leader & 1:
                    leader = None
            if leader is None:  # explicit deals without that card: the dealer's left
                assert self._dealer is not None
                leader = self._next_in(self._dealer, self._holding)
        self._turn = leader

    def _holder(self, card: int) -> int | None:
        for s in self._present:
            if self._hands[s] >> card & 1:
                return s
        return None

    def _end_round(self, ev: list[Event]) -> None:
        n = self._n
        forbidden = self._forbidden
        # T15 (P11 in classic: the out order, then the one left with cards)
        if not forbidden and not self._passive:  # (every classic round: no T8, no T14)
            ranking = self._out + list(_SEATS_IN[self._holding])  # the holders, in seat order
        else:
            fset = set(forbidden)
            ranking = [s for s in self._out if s not in fset]
            holders = [s for s in self._present if self._holding >> s & 1]
            ranking += [s for s in holders if not self._passive >> s & 1]
            ranking += [s for s in reversed(self._passive_order) if self._holding >> s & 1]
            ranking += list(reversed(forbidden))
        count = len(ranking)
        titles_map = titles_for(ranking)
        titles: list[str | None] = [None] * n
        scores: list[int | None] = [None] * n
        for i, s in enumerate(ranking):
            titles[s] = titles_map[s]
            scores[s] = count - 1 - i  # P14
            self._totals[s] += count - 1 - i
        chips: tuple[int, ...] | None = None
        if self._rules.money:
            delta = settle_stakes(ranking, titles_map, self._stake)  # T13
            for s, d in delta.items():
                self._chips[s] += d
            chips = tuple(delta.get(s, 0) for s in range(n))
        self._rounds_played += 1
        self._per_round = None
        self._last_titles = tuple(titles)
        self._last_ranking = tuple(ranking)
        self._phase = ROUND_OVER
        self._turn = None
        self._new_trick()
        ev.append(
            _round_over(
                self._round,
                tuple(ranking),
                tuple(titles),
                tuple(scores),
                tuple(self._totals),
                chips,
                tuple(map(cards_of_mask, self._hands)),
                self._stake,
                self._seed.hex(),
            )
        )
        if self._rounds is not None and self._rounds_played >= self._rounds:
            best = max(self._totals)
            winners = tuple(s for s in range(n) if self._totals[s] == best)  # P15: ties share
            self._phase = MATCH_OVER
            ev.append(MatchOver(winners, tuple(self._totals)))

    # ------------------------------------------------------------------ information

    def view(self, seat: int | None) -> PresidentView:
        """What ``seat`` (``None``: a spectator) may know now; never another seat's cards."""
        version = len(self._actions)
        if self._view_version != version:
            self._view_version = version
            self._view_last = None
            self._view_cache = None
            self._table = None
        else:
            last = self._view_last
            if last is not None and last.you == seat:
                return last
            cache = self._view_cache
            if cache is not None:
                got = cache.get(seat)
                if got is not None:
                    return got
        if seat is not None and (seat.__class__ is not int or not 0 <= seat < self._n):
            seat = self._check_seat(seat)
        table = self._table
        if table is None:
            table = self._table = self._make_table()
        if seat is None:
            v = _tuple_new(PresidentView, (table, None, None, None, ()))
        else:
            exchange = self._exchange_views[seat] if self._exchanges else ()
            if exchange is None:
                exchange = self._exchange_of(seat)
            mask, hand = self._hand_cache[seat]
            if mask != self._hands[seat]:
                hand = self.hand(seat)
            v = _tuple_new(
                PresidentView,
                (table, seat, hand, self.cut_options().get(seat) if self._rules.cut else None, exchange),
            )
        if self._view_last is None:
            self._view_last = v
        else:
            cache = self._view_cache
            if cache is None:
                cache = self._view_cache = {}
            cache[seat] = v
        return v

    def _make_table(self) -> TableState:
        per_round = self._per_round
        if per_round is None:
            n = self._n
            per_round = self._per_round = (
                self._last_titles if self._last_titles is not None else (None,) * n,
                tuple(self._totals),
                tuple(self._chips) if self._rules.money else None,
            )
        return _tuple_new(
            TableState,
            (
                "president",
                self.rules_name,
                self._round,
                self._phase,
                tuple(self._counts),
                self._present_flags,
                tuple(self._places),
                per_round[0],
                per_round[1],
                per_round[2],
                self._passive,
                self._passed,
                self._turn,
                tuple(self._trick),
                self._reversed,
                self._dealer,
                self._played,
                self._top_rank if self._must else None,
                self._stake,
            ),
        )

    def _exchange_of(self, seat: int) -> tuple[tuple[int, int, tuple[Card, ...]], ...]:
        """This round's exchange moves ``seat`` took part in (cached until the next move)."""
        got = tuple(e for e in self._exchanges if seat == e[0] or seat == e[1])
        self._exchange_views[seat] = got
        return got

    def action_from(self, seat: int, cmd: str, args: Mapping[str, Any]) -> Action:
        """A protocol command (``"play"``, ``{"cards": ["7c", "7h"]}``) as an action of ``seat``."""
        seat = self._check_seat(seat)
        if cmd == "play":
            return Play(seat, _cards(args.get("cards")))
        if cmd == "pass":
            return Pass(seat)
        if cmd == "cut":
            if not args.get("cards"):  # "cut" alone: with the cards the seat holds for it (T9)
                mine = self.cut_options().get(seat) if self._phase == PLAY else None
                if mine is None:
                    self._check_cut(Cut(seat, ()))  # raises the true reason there is no cut now
                    raise NotAllowed("you cannot cut now", reason="cannot_cut")
                return Cut(seat, mine)
            return Cut(seat, _cards(args.get("cards")))
        if cmd == "give":
            return Give(seat, _cards(args.get("cards")))
        raise BadArgument(f"not a Président command: {cmd!r}", reason="unknown_command")

    def check_invariants(self) -> int:
        """Invariants of RULES (cards conserved, hidden cards, chips); AssertionError on failure.

        Every check runs on every call, recomputed from the state: the cards of
        the hands, the played and the undealt cards cover the 52 cards exactly
        once (their masks add up to the deck without a carry: the sizes sum to 52), each count is
        its hand's size, the holding flags and absent seats agree with the
        hands, chips sum to 0 (T13), points per round (P14), the turn. The
        common case is a few whole-table integer operations; on a failure the
        seat-by-seat pass below names the broken invariant.
        """
        hands = self._hands
        played = self._played
        undealt = self._undealt
        sizes = [*map(int.bit_count, hands)]
        # Disjoint sets add without a carry: the masks sum to the deck and the sizes to 52
        # exactly when the hands, the played and the undealt cards partition the 52 cards.
        if (
            sizes != self._counts
            or sum(hands, played + undealt) != FULL
            or sum(sizes, played.bit_count() + undealt.bit_count()) != 52
        ):
            self._check_seats()
        phase = self._phase
        if phase != DEAL:
            held = sum(compress(_SEAT_BITS, hands))  # seats whose hand is not empty
            if held & ~self._present_mask or (held != self._holding & self._seats_mask and phase in (PLAY, EXCHANGE)):
                self._check_seats()
        checks = self._checks
        if self._rules.money:
            assert sum(self._chips) == 0, "chips created or lost"
            checks += 1
        rounds = self._rounds_played
        if rounds and self._round_points:
            assert sum(self._totals) == rounds * self._round_points, "points per round"
            checks += 1
        if phase == PLAY:
            t = self._turn
            holding = self._holding
            assert t is not None and holding >> t & 1 and not self._passive >> t & 1, "turn"
            assert holding & (holding - 1), "a round with one player left"
            checks += 2
        else:
            # apply(), next_turn() and turn_view() test the turn alone for "a turn of play now"
            # (not counted in the result: the pinned figures of the simulator count the checks)
            assert self._turn is None, "a turn outside the play phase"
        return checks

    def _check_seats(self) -> NoReturn:
        """The card invariants seat by seat, each with its own message (the slow path of a failure)."""
        union = self._played | self._undealt
        total = self._played.bit_count() + self._undealt.bit_count()
        assert self._played & self._undealt == 0, "a played card is also undealt"
        for s in range(self._n):
            h = self._hands[s]
            assert h & union == 0, f"seat {s} holds a card that is elsewhere"
            union |= h
            total += h.bit_count()
            assert self._counts[s] == h.bit_count(), f"seat {s} card count"
            assert bool(self._holding >> s & 1) == (h != 0) or self._phase in (DEAL, ROUND_OVER, MATCH_OVER), (
                f"seat {s} holding flag"
            )
            if not self._present_mask >> s & 1:
                assert h == 0 or self._phase == DEAL, f"absent seat {s} holds cards"
        assert union == FULL and total == 52, "the 52 cards are not partitioned"
        raise AssertionError("card invariants")  # not reached: a check above failed


def _strongest(hand: int, k: int) -> int:
    """The ``k`` strongest cards of a mask (P13: suit breaks ties, 2s strongest)."""
    m = 0
    for _ in range(k):
        rest = hand & ~m
        if not rest:
            break
        m |= 1 << (rest.bit_length() - 1)
    return m


def _weakest(hand: int, k: int) -> int:
    """The ``k`` weakest cards of a mask (P13: 3c weakest)."""
    m = 0
    for _ in range(k):
        rest = hand & ~m
        if not rest:
            break
        m |= rest & -rest
    return m



if TYPE_CHECKING:  # mypy checks that the match keeps the engine contract (engine/api.py)
    from engine.api import Match

    def _keeps_the_contract(m: PresidentMatch) -> Match:
        return m
