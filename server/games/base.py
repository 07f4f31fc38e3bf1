"""What a table needs to know about a game: the :class:`GameAdapter` contract.

A table runs any game through its adapter and never compares a game's name.
The adapter answers: which options a creator may set and how they are checked
(:meth:`GameAdapter.options`), the seat range, how a match is made and rebuilt,
what a deal needs from the table (the seats present, a stake), which events move
chips and how (:meth:`GameAdapter.money`, in seat terms: the table knows the
accounts), which decisions are timed and for how long, and how a state is
decorated for a reader. Adding a table kind is one adapter plus, when it is a new
game, its engine module.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine import fairness
from engine.api import Action, Event, Match, Pending, View
from server.games.states import SeatOwn, State
from server.protocol import Args, JSONValue, items_in

# -- what a creator chose -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableOptions:
    """A table's configuration, checked by its adapter (``create`` arguments, PROTOCOL.md)."""

    game: str
    rules: str  # the table kind: the adapter's name
    seats: int
    bots: int = 0
    bot_level: str = "normal"
    turn_seconds: float = 30.0
    stake: int = 0  # chips each seat stakes per round (tdc, T13)
    ante: int = 1  # chips each seat antes per deal (Speculation, S3)
    rounds: int | None = None  # rounds or deals to play (None: the game's default)
    extra: Mapping[str, JSONValue] = field(default_factory=dict)  # adapter-specific options

    def seconds(self, key: str, default: float) -> float:
        """An adapter's option counted in seconds (``extra[key]``: a number), else ``default``."""
        value = self.extra.get(key, default)
        return float(value) if isinstance(value, int | float) else default

    def to_dict(self) -> dict[str, JSONValue]:
        return {"game": self.game, "rules": self.rules, "seats": self.seats, "bots": self.bots,
                "bot_level": self.bot_level, "turn_seconds": self.turn_seconds, "stake": self.stake,
                "ante": self.ante, "rounds": self.rounds, **dict(self.extra)}


class Settings(Protocol):
    """The server settings an adapter reads (a subset of :class:`server.config.Config`)."""

    @property
    def turn_seconds(self) -> float: ...

    @property
    def auction_seconds(self) -> float: ...

    @property
    def flip_seconds(self) -> float: ...

    @property
    def default_stake(self) -> int: ...

    @property
    def default_ante(self) -> int: ...

    @property
    def cut_window(self) -> float: ...

    @property
    def trade_window(self) -> float: ...


# -- chips, in seat terms -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stakes:
    """Seats put chips into the escrow of the round being played (all or nothing)."""

    amounts: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class Payout:
    """The round's escrow is paid out: what each seat receives (sums to the escrow)."""

    amounts: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class Payment:
    """Chips from one seat to another during the round (a sale, a trade); ``reserved``: paid from
    the chips reserved under that key."""

    payer: int
    payee: int
    amount: int
    reason: str
    reserved: str | None = None


@dataclass(frozen=True, slots=True)
class Reserve:
    """Chips of a seat set aside for a promise it made (an open offer): the ledger's hold."""

    key: str
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Unreserve:
    key: str


Money = Stakes | Payout | Payment | Reserve | Unreserve


@dataclass(frozen=True, slots=True)
class RoundMoney:
    """What an adapter knows of the round being settled: its stake and who staked."""

    stake: int
    staked: Sequence[int]  # seats that put the stake in (tdc) or antes (Speculation)


# -- the adapter --------------------------------------------------------------------------------


class GameAdapter:
    """Base of every adapter; subclasses set the class attributes and override what differs."""

    name: str = ""  # the table kind (``rules`` in summaries): unique
    game: str = ""  # the engine game (``engine.game_class``)
    min_seats: int = 3
    max_seats: int = 8
    min_players: int = 3  # fewer present than this: no deal
    funded_bots: bool = False  # bots sit on chips funded by the house
    chips_in_match: bool = False  # the match is made with each seat's chips (and keeps count of them)
    joins_between_rounds: bool = False  # people may sit down while the match goes on (T1)
    presence_per_deal: bool = False  # who plays is decided again at every deal (T1, S12a)
    too_few_ends_match: bool = False  # fewer than min_players at a deal: the match ends (else: waits)
    replace_leaver: bool = False  # a person leaving mid-match is replaced by a bot for good (P16)
    round_end: str = "round_over"  # the engine event that ends a round (history, pause)
    batch_states: bool = False  # per-seat states share a public part (see private_fields)
    moves: tuple[str, ...] = ()  # the commands a seat may send at this table (the state's "moves")
    scored_by: str = "chips"  # what ranks its players on the leaderboard: "points" (P14) or "chips" won
    question_event: str = ""  # the engine event that puts a question to a seat (``questions``)
    seed_published: bool = False  # a finished round's seed is public (its end event reveals it; replays show it)

    # options -----------------------------------------------------------------------------------

    def options(self, args: Args, settings: Settings) -> TableOptions:
        """The ``create`` arguments checked for this table (raises ``CommandError``)."""
        raise NotImplementedError

    def chips_to_sit(self, opts: TableOptions) -> int:
        """Chips a person needs to take a seat (0: none)."""
        return 0

    def deal_stake(self, opts: TableOptions) -> int:
        """Chips the table escrows from each present seat before a deal (0: none)."""
        return 0

    def timer_seconds(self, kind: str, opts: TableOptions, settings: Settings) -> float:
        """How long a pending decision of ``kind`` (``engine.api.Pending.kind``) may take."""
        return opts.turn_seconds

    # matches -----------------------------------------------------------------------------------

    def new_match(self, opts: TableOptions, chips: Sequence[int]) -> Match:
        raise NotImplementedError

    def replay(self, config: Mapping[str, JSONValue], log: Sequence[Mapping[str, JSONValue]]) -> Match:
        """The match rebuilt from its configuration and log (same state, byte for byte)."""
        raise NotImplementedError

    def deal_table(self, opts: TableOptions, present: Sequence[int] | None,
                   newcomers: Sequence[int] = ()) -> dict[str, object]:
        """The table facts of ``match.deal_action(seed, **facts)``; ``newcomers``: the seats of ``present``
        whose player sat down since the last deal."""
        return {}

    def action_from_dict(self, entry: Mapping[str, JSONValue]) -> Action:
        """A log entry (an action's ``to_dict()``) read back as the engine's action."""
        raise NotImplementedError

    def replay_steps(self, config: Mapping[str, JSONValue],
                     log: Sequence[Mapping[str, JSONValue]]) -> list[tuple[Mapping[str, JSONValue], tuple[Event, ...]]]:
        """Each logged action with the engine events it caused, replayed from the match's start
        (``config``: the match's engine configuration). Same events, byte for byte (RULES invariant 3)."""
        match = self.replay(config, [])
        return [(entry, tuple(match.apply(self.action_from_dict(entry)))) for entry in log]

    def round_tricks(self, config: Mapping[str, JSONValue], log: Sequence[Mapping[str, JSONValue]]) -> dict[str, JSONValue] | None:
        """The tricks of the round being played (or just played), as everyone saw them
        (:func:`server.games.tricks.public_tricks`); ``None`` for a game without tricks."""
        return None

    def round_scores(self, config: Mapping[str, JSONValue], log: Sequence[Mapping[str, JSONValue]],
                     result: Mapping[str, JSONValue]) -> dict[int, float]:
        """What ranks a finished round's players for the ratings: ``{seat: score}``, higher is
        better, for the seats that played it (``config``, ``log``, ``result``: its history record).
        By default the round's ``ranking``, first to last."""
        ranking = result.get("ranking")
        if not isinstance(ranking, list):
            return {}
        seats = [s for s in ranking if isinstance(s, int) and not isinstance(s, bool)]
        return {seat: float(len(seats) - place) for place, seat in enumerate(seats)}

    def match_totals(self, result: Mapping[str, JSONValue]) -> list[int]:
        """What ranks a finished match's seats (``result``: its ``match_over`` event), higher is
        better: by default its ``totals`` (Président: P14's points, P15; tdc: its rounds ranked by T15
        and totalled the same way). A tournament's places come from these."""
        return ints(result.get("totals"))

    def match_chips(self, result: Mapping[str, JSONValue], rounds: Sequence[Mapping[str, JSONValue]],
                    seats: int) -> list[int]:
        """The chips each seat won (negative: lost) over a finished match: by default the sum of its
        rounds' ``chips`` (``rounds``: their ``round_over`` events; none moved at a classic table)."""
        won = [0] * seats
        for r in rounds:
            for seat, chips in enumerate(ints(r.get("chips"))[:seats]):
                won[seat] += chips
        return won

    def in_round(self, match: Match, seat: int) -> bool:
        """``seat`` holds cards in the round or deal being played (beyond any stake)."""
        return False

    def money(self, event: Event, round_money: RoundMoney) -> list[Money]:
        """The chip movements an engine event causes (in seat terms)."""
        return []

    # states --------------------------------------------------------------------------------------

    def empty_state(self, opts: TableOptions, seat: int | None) -> State:
        """A reader's state before the match starts."""
        return {"game": opts.game, "rules": opts.rules, "round": 0, "you": seat, "turn": None,
                "seats": [{"seat": s, "cards": 0} for s in range(opts.seats)]}

    def decorate(self, state: State, opts: TableOptions, match: Match | None, seat: int | None,
                 pending: Sequence[Pending]) -> None:
        """The table's own fields of a reader's state, added last. With ``batch_states`` what it writes
        for a seat must be the same for every seat: the others' lines are made from the first seat's
        (``server.table.states.StateSet``; a key it adds sends the set back to building each seat whole)."""

    def private_fields(self, view: View) -> SeatOwn | None:
        """The fields of a seat's state that differ from the spectator's (``batch_states``), taken
        from the seat's view; ``None`` when this view cannot be built that way."""
        return None

    def private_key(self, view: View) -> tuple[object, ...] | None:
        """Everything :meth:`private_fields` makes of ``view``, or ``None`` (not kept): a table keeps a
        seat's fields and their encoding by seat under this key, and reuses them at a later moment
        whose key is equal (``server.table.states.StateSet``). Equal keys must make equal fields:
        the key holds the seat itself and every card and fact the fields are made of."""
        return None

    def on_leave(self, match: Match, seat: int) -> list[Action]:
        """Actions that undo what a person who leaves had promised (their open offers)."""
        return []

    def automatic(self, match: Match, seat: int, prefs: Mapping[str, bool]) -> tuple[Action, bool] | None:
        """A move the server makes for a person who asked for it (``prefs``: autocut, autopass):
        ``(action, at_once)`` — at once, or after a short pause — or ``None``."""
        return None

    # fair deals (docs/fairness.md) ---------------------------------------------------------------

    def commit(self, server_seed: bytes) -> tuple[str, object]:
        """The commitment published before the contribution window (hex), and the private side of
        it the table keeps to deal and to reveal, handed back to this adapter (``secret``) and read by
        it alone (Président: nothing; the seed is enough)."""
        return fairness.president_commitment(server_seed), None

    def fair_deal_action(self, match: Match, server_seed: bytes, secret: object,
                         contributions: Sequence[str | None], facts: Mapping[str, object]) -> Action:
        """The deal action made from the server seed and every seat's contribution."""
        return match.deal_action(fairness.deal_seed(server_seed, contributions), **facts)

    def fair_record(self, match: Match, *, server_seed: bytes, secret: object, contributions: Sequence[str | None],
                    bots: Sequence[int], round: int, dealt: Mapping[str, JSONValue], chips: Sequence[int],
                    first: bool, ante: int) -> dict[str, JSONValue]:
        """The record published with the round's end (``round_end``) and stored with the round:
        what ``engine.fairness.verify`` checks. ``dealt``: the full ``dealt`` event of the deal;
        ``chips``: every seat's chips before it; ``first``: the match's first deal."""
        dealer = dealt["dealer"]
        if not isinstance(dealer, int):
            raise TypeError(f"not a seat: {dealer!r}")
        present = [s for s in items_in(dealt["present"]) if isinstance(s, int)]
        return fairness.president_reveal(server_seed, list(contributions), round=round, dealer=dealer,
                                         present=present, dealer_drawn=first, bots=bots)

    def window_after(self, events: Sequence[Event], match: Match) -> str | None:
        """After these events, a window people get before any bot or clock moves on: its kind
        (``"cut"``: a cut may follow, T9; ``"trade"``: between auctions, S9), ``"close"`` when the
        events end the open window, or ``None`` (no change)."""
        return None

    def window_seconds(self, kind: str, opts: TableOptions, settings: Settings) -> float:
        """How long a window of ``kind`` lasts at this table (0: none)."""
        return 0.0

    def questions(self, match: Match) -> Mapping[Hashable, int]:
        """The questions open now that wait for one seat's answer out of turn (Speculation: each open
        offer -> its seller, S9): a person gets a clock to answer each (``server.table.answers``)."""
        return {}

    def question_timeout(self, match: Match, question: Hashable, seat: int) -> Action:
        """The answer the table gives for a person whose time to answer ``question`` ran out."""
        raise NotImplementedError

    def window_bot_moves(self, kind: str) -> frozenset[str]:
        """The moves (commands) bots may make while a window of ``kind`` is open, after their usual
        pause; every other bot move waits for the window's end (none by default)."""
        return frozenset()


def ints(value: JSONValue | None) -> list[int]:
    """A JSON list of whole numbers (``None`` entries: 0); anything else: empty."""
    if not isinstance(value, list):
        return []
    return [v if isinstance(v, int) and not isinstance(v, bool) else 0 for v in value]
