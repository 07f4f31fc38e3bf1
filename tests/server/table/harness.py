"""A harness for the sans-I/O table core: a fake clock, an in-memory ledger and seat registry, a driver.

:class:`Harness` owns one :class:`server.table.Table` (or several sharing one
`server.rooms.claims.SeatClaims` and one in-memory ``Ledger``) and plays the part of
``server.rooms.room.Room``: it feeds inputs with the fake time, and the room's own
effect handling (:class:`server.rooms.effects.Effects`) performs what the table asks
for and hands the results back, reaching memory instead of the server
(``tests.server.table.memory``: the ``Ledger`` with the store's semantics — escrows
per round, a settlement exactly once, transfers, voids, bot accounts funded by
a house —, the history, the seat claims, the bots' thinking), and hands the
table's items to :class:`Inboxes` (messages to members, who is in the room, seat
claims released, closing).

What each member received is kept in order (:class:`Inbox`): events as plain
dicts, each state as the reader's dict and its JSON line, replies and refusals.

After every call the harness checks what must always hold: the table waits for
no effect, ``wake`` is ``None`` or later than now (a table due now would make its
room spin), and the chips of the ledger (balances + escrows) never change.
With ``probe=True`` it also ticks just before ``wake`` and checks that nothing
at all happens then.

Deals are explicit: the table draws its seeds from a queue (:meth:`Harness.queue_seed`,
:meth:`Harness.seed_for_next_deal`), then from ``seed_from_int`` numbers.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.seeds import seed_from_int
from server.config import Config, load_config
from server.games import ADAPTERS, parse_options
from server.protocol import encode
from server.rooms.claims import SeatClaims
from server.rooms.effects import Effects
from server.storage.api import (
    InsufficientChips,
)
from server.table import (
    Closed,
    Command,
    Connected,
    Disconnected,
    Effect,
    Gone,
    Input,
    Member,
    Outputs,
    Pause,
    Placed,
    Refused,
    Released,
    Reply,
    Send,
    Shared,
    Shutdown,
    StateSet,
    Table,
    Think,
)
from server.table.fair import ExplicitSeed
from tests.server.table.memory import Ledger, MemoryOwner

TIMERS: dict[str, Any] = {
    "turn_seconds": 30.0,
    "auction_seconds": 10.0,
    "flip_seconds": 5.0,
    "grace_seconds": 60.0,
    "round_pause": 3.0,
    "bot_delay": 1.0,
    "close_after_over": 120.0,
    "bot_chips": 1000,
    "cut_window": 0.0,  # people's windows: their own tests set them (test_windows)
    "trade_window": 0.0,
    "entropy_window": 0.0,  # the contribution window: its own tests set it (test_fair_deals)
    "autopass_delay": 2.0,
}
"""Settings of the tests (every timer positive, so each one is a distinct moment of the fake clock)."""

START = 1000.0


# -- the clock -------------------------------------------------------------------------------------


class FakeClock:
    def __init__(self, now: float = START) -> None:
        self.now = now

    def set(self, when: float) -> float:
        assert when >= self.now, f"the clock goes back: {when} < {self.now}"
        self.now = when
        return when


# -- refusals the test asks for --------------------------------------------------------------------


@dataclass
class Refusal:
    """Refuse effects of ``kind`` (matching ``when``) ``times`` times, raising ``error``."""

    kind: type
    error: BaseException
    when: Callable[[Any], bool]
    times: int
    hits: int = 0


# -- what members receive --------------------------------------------------------------------------


@dataclass
class Received:
    kind: str  # event | state | reply | refused
    seat: int | None  # the seat the member read it as
    body: Any  # event dict, state dict, Reply, Refused
    line: str | None = None  # a state's JSON line
    names: tuple[str, ...] | None = None  # an event's seat names, as its words name the seats


@dataclass
class Inbox:
    items: list[Received] = field(default_factory=list)

    def events(self, name: str | None = None) -> list[dict[str, Any]]:
        return [r.body for r in self.items if r.kind == "event" and (name is None or r.body.get("event") == name)]

    def states(self) -> list[dict[str, Any]]:
        return [r.body for r in self.items if r.kind == "state"]

    @property
    def state(self) -> dict[str, Any] | None:
        states = self.states()
        return states[-1] if states else None

    def refusals(self) -> list[Refused]:
        return [r.body for r in self.items if r.kind == "refused"]

    def clear(self) -> None:
        self.items.clear()


def _plain(obj: Any) -> Any:
    """What a JSON client would read of ``obj``."""
    return json.loads(encode(obj))


def _consistent(state: dict[str, Any]) -> None:
    """A state is one moment of the table: a reader's own hand is as big as its seat's count says."""
    you, hand = state.get("you"), state.get("hand")
    if you is not None and hand is not None and state.get("seats"):
        assert state["seats"][you]["cards"] == len(hand), f"seat {you}: {len(hand)} cards in hand, " \
            f"{state['seats'][you]['cards']} in the seats (a state made of two moments)"


# -- the readers ------------------------------------------------------------------------------------


class Inboxes:
    """The table's readers (:class:`server.rooms.effects.Readers`): every item noted in order, what each
    member received in their :class:`Inbox`, who is in the room, the claims released, the end."""

    def __init__(self, h: Harness) -> None:
        self.h = h

    async def answer(self, item: Send) -> None:
        self.send(item)

    def send(self, item: Send) -> None:
        h = self.h
        h.items.append(item)
        msg = item.msg
        for key, seat in item.recipients:
            inbox = h.inbox[key]
            if isinstance(msg, Reply):
                h.replies[msg.req] = msg
                inbox.items.append(Received("reply", seat, msg))
            elif isinstance(msg, Refused):
                h.replies[msg.req] = msg
                inbox.items.append(Received("refused", seat, msg))
            elif isinstance(msg, StateSet):
                state = _plain(msg.state(seat))
                line = msg.line(seat)
                assert json.loads(line) == {"type": "state", **state}
                _consistent(state)
                inbox.items.append(Received("state", seat, state, line))
            elif isinstance(msg, Shared):
                inbox.items.append(Received("event", seat, _plain(dict(msg.event)), names=tuple(msg.names or ())))
            else:
                raise AssertionError(f"unknown message {msg!r}")
            for check in h.on_deliver:
                check(h, key, inbox.items[-1])

    def placed(self, item: Placed) -> None:
        self.h.items.append(item)
        self.h.where[item.member] = item.seat

    async def gone(self, item: Gone) -> None:
        self.h.items.append(item)
        self.h.where.pop(item.member, None)

    def released(self, item: Released) -> None:
        self.h.items.append(item)
        self.h.released.append(item.account)

    def ended(self, item: Closed) -> None:
        self.h.items.append(item)
        self.h.closed = item.reason


def run_now(step: Coroutine[Any, Any, None]) -> None:
    """Run ``step`` to its end here and now: in memory, the room's effects never wait on anything but
    a turn of the loop (``asyncio.sleep(0)``, a bare ``yield``), so no loop is needed (nor may one be
    running already: a test of async code uses the harness too)."""
    try:
        while True:
            waited = step.send(None)
            assert waited is None, f"the room's effects wait for {waited!r}"
    except StopIteration:
        return


# -- the driver ------------------------------------------------------------------------------------


class Harness:
    """One table driven by inputs and the fake clock (see the module's documentation)."""

    def __init__(self, rules: str, *, table_id: str = "t1", ledger: Ledger | None = None,
                 claims: SeatClaims | None = None, clock: FakeClock | None = None,
                 settings: Mapping[str, Any] | None = None, seeds: Iterable[bytes] = (),
                 chips: int = 1000, probe: bool = True, bot_seed: bytes = b"table-tests-bots",
                 bot_options: Mapping[str, Any] | None = None, fair: bool = False, **create: Any) -> None:
        self.settings: Config = load_config(None, **{**TIMERS, **dict(settings or {})})
        self.adapter = ADAPTERS[rules]
        self.opts = parse_options({"game": self.adapter.game, "rules": rules, **create}, self.settings)
        self.clock = clock if clock is not None else FakeClock()
        self.ledger = ledger if ledger is not None else Ledger()
        self.claims = claims if claims is not None else SeatClaims()
        self.chips = chips
        self.probe = probe
        self._seeds: list[bytes] = list(seeds)
        self.fair = fair  # deals from the seed and the contributions (server.table.fair); else explicit
        self._fallback = itertools.count(10_000)
        self.drawn: list[bytes] = []
        self.table = Table(table_id, self.adapter, self.opts, self.settings, owner="owner", uid="u1",
                           draw_seed=self._draw, bot_seed=bot_seed, bot_options=bot_options)
        self.members: dict[str, Member] = {}
        self.inbox: dict[str, Inbox] = defaultdict(Inbox)
        self.replies: dict[int, Reply | Refused] = {}
        self.where: dict[str, int | None] = {}  # Placed / Gone: who is in the room, on which seat
        self.released: list[str] = []  # accounts, in the order their claims were released
        self.items: list[Any] = []  # every item, in order
        self.effects: list[Effect] = []  # every effect performed, in order
        self.refusals: list[Refusal] = []
        self.closed: str | None = None
        self.calls = 0
        self._req = itertools.count(1)
        self.after_call: list[Callable[[Harness], None]] = []  # extra checks after every call
        self.on_deliver: list[Callable[[Harness, str, Received], None]] = []  # checks of each message, as it goes
        # the room's own effect handling, on the fake clock, reaching memory instead of the server
        self.room = Effects(self.table, MemoryOwner(self.ledger, self.claims, self._asked, lambda e: self.think(e)),
                            lambda: self.clock.now)  # type: ignore[arg-type]
        self.readers = Inboxes(self)

    @property
    def table(self) -> Table:
        return self._table

    @table.setter
    def table(self, table: Table) -> None:
        """(A test may put a table rebuilt from its log in the place of the one it played: the room's
        effects go on with that one, as a room made for it would; a test keeps its own journal.)"""
        self._table = table
        room = getattr(self, "room", None)
        if room is not None:
            room.table, room.id = table, table.id

    # -- people ----------------------------------------------------------------------------------

    def member(self, key: str, *, account: str | None = None, name: str | None = None, chips: int | None = None,
               **prefs: bool) -> Member:
        """``key``'s member (made on first use; a new ledger account gets ``chips``, else the harness's)."""
        if key not in self.members:
            account = account or key
            if account not in self.ledger.balances:
                self.ledger.grant(account, self.chips if chips is None else chips)
            self.members[key] = Member(key, name or key.capitalize(), account, dict(prefs))
        return self.members[key]

    # -- inputs ------------------------------------------------------------------------------------

    def cmd(self, key: str, cmd: str, **args: Any) -> Reply | Refused:
        """``key``'s command now; its reply or refusal."""
        req = next(self._req)
        self._call(lambda now: self.table.handle(now, Command(self.member(key), cmd, args, req)))
        answer = self.replies.pop(req, None)
        assert answer is not None, f"{cmd} got no answer"
        return answer

    def ok(self, key: str, cmd: str, **args: Any) -> Any:
        """A command that must succeed: its result fields."""
        answer = self.cmd(key, cmd, **args)
        assert isinstance(answer, Reply), f"{key} {cmd} {args}: {answer}"
        return answer.result

    def refused(self, key: str, cmd: str, **args: Any) -> Refused:
        answer = self.cmd(key, cmd, **args)
        assert isinstance(answer, Refused), f"{key} {cmd} {args} was not refused"
        return answer

    def join(self, *keys: str, **args: Any) -> None:
        for key in keys:
            self.ok(key, "join", **args)

    def connected(self, key: str) -> None:
        self._call(lambda now: self.table.handle(now, Connected(self.member(key))))

    def disconnected(self, key: str) -> None:
        self._call(lambda now: self.table.handle(now, Disconnected(self.member(key))))

    def shutdown(self) -> None:
        self._call(lambda now: self.table.handle(now, Shutdown()))

    def handle(self, inp: Input) -> None:
        self._call(lambda now: self.table.handle(now, inp))

    # -- time --------------------------------------------------------------------------------------

    def tick(self, at: float | None = None) -> None:
        if at is not None:
            self.clock.set(at)
        self._call(lambda now: self.table.tick(now))

    def advance(self, seconds: float) -> None:
        self.tick(self.clock.now + seconds)

    def tick_wake(self) -> None:
        """Tick at ``wake``; something must change then."""
        wake = self.table.wake
        assert wake is not None, "the table waits for nothing"
        before = self.fingerprint()
        self.tick(wake)
        assert self.fingerprint() != before, f"nothing happened at wake {wake}"

    def run(self, until: Callable[[], bool], *, act: Callable[[Harness], bool] | None = None,
            limit: int = 20_000) -> None:
        """Let people act (``act`` returns whether it sent something) and time pass, until ``until()``."""
        for _ in range(limit):
            if until():
                return
            if act is not None and act(self):
                continue
            if self.table.wake is None:
                raise AssertionError("the table waits for nothing and the condition does not hold")
            self.tick_wake()
        raise AssertionError(f"not done after {limit} steps")

    # -- seeds ---------------------------------------------------------------------------------------

    def _draw(self) -> bytes | ExplicitSeed:
        """The next server seed; explicit (dealt as given, no contributions) unless ``fair``."""
        seed = self._seeds.pop(0) if self._seeds else seed_from_int(next(self._fallback))
        self.drawn.append(seed)
        return seed if self.fair else ExplicitSeed(seed)

    def queue_seed(self, seed: bytes) -> None:
        self._seeds.append(seed)

    def present_next(self) -> tuple[int, ...]:
        """The seats the next deal would seat (before their stakes are checked)."""
        return tuple(s.index for s in self.table.seats if not s.empty and not s.leaving)

    def preview(self, seed: bytes, present: Sequence[int] | None = None) -> tuple[Any, tuple[Any, ...]]:
        """A copy of the match after dealing ``seed`` next (the table's match is untouched). Before
        the match starts: a new match of the table's options, every seat on ``chips``."""
        table = self.table
        if table.match is None:
            match = table.adapter.new_match(table.opts, [self.chips] * table.opts.seats)
            default: tuple[int, ...] = tuple(range(table.opts.seats))
        else:
            match = table.adapter.replay(table.match.config, table.log)
            default = self.present_next()
        facts = table.adapter.deal_table(table.opts, tuple(present) if present is not None else default)
        events = match.apply(match.deal_action(seed, **facts))
        return match, tuple(events)

    def seed_for_next_deal(self, wanted: Callable[[Any, tuple[Any, ...]], bool], *,
                           present: Sequence[int] | None = None, tries: int = 5000) -> bytes:
        """The first ``seed_from_int`` seed whose next deal pleases ``wanted(match, events)``; queued."""
        for i in range(tries):
            seed = seed_from_int(i)
            match, events = self.preview(seed, present)
            if wanted(match, events):
                self.queue_seed(seed)
                return seed
        raise AssertionError(f"no seed in {tries}")

    # -- the room's part -------------------------------------------------------------------------------

    def refuse(self, kind: type, error: BaseException | None = None, *, when: Callable[[Any], bool] | None = None,
               times: int = 1) -> Refusal:
        """The next ``times`` effects of ``kind`` (matching ``when``) fail with ``error``."""
        rule = Refusal(kind, error or InsufficientChips("refused by the test"), when or (lambda e: True), times)
        self.refusals.append(rule)
        return rule

    def _call(self, call: Callable[[float], Outputs]) -> None:
        assert not self.table.waiting
        self.calls += 1
        run_now(self.room.drain(call(self.clock.now), self.readers))
        self._check()
        if self.probe:
            self._probe()

    def _asked(self, effect: Effect) -> None:
        """The room's effects reach the store, the seat claims or the thinking with ``effect``: noted,
        and refused as the test asked (:meth:`refuse`)."""
        # the room closes the table's log with its Closed item: no chip, bot or record after it
        assert isinstance(effect, Pause | Think) or not self.items_of(Closed), \
            f"{effect!r} asked after the table closed ({self.closed})"
        self.effects.append(effect)
        for rule in self.refusals:
            if rule.times > 0 and isinstance(effect, rule.kind) and rule.when(effect):
                rule.times -= 1
                rule.hits += 1
                raise rule.error

    def think(self, effect: Think) -> Any:
        """A search bot's decision (the room's: in the server's thinking processes)."""
        return effect.bot.decide(effect.view, effect.legal)

    # -- checks ----------------------------------------------------------------------------------------

    def fingerprint(self) -> tuple[Any, ...]:
        """What time can change at a table."""
        t = self.table
        seats = tuple((s.member, s.bot is not None, s.leaving, s.present, s.grace_until) for s in t.seats)
        return (len(t.log), t.status, t.closed, tuple(sorted(map(repr, t.deadlines.items()))), t.bot_due,
                t.next_deal_at, t.over_at, seats, t.wake)

    def _check(self) -> None:
        table = self.table
        assert not table.waiting
        wake = table.wake
        assert wake is None or wake > self.clock.now, f"due now and not done: wake {wake} at {self.clock.now}"
        assert self.ledger.total() == self.ledger.expected, "chips were created or lost"
        for round_id, calls in self.ledger.settle_calls.items():
            assert calls == 1, f"round {round_id} settled {calls} times"
        for check in self.after_call:
            check(self)

    def _probe(self) -> None:
        """Ticking before ``wake`` changes nothing and sends nothing."""
        wake = self.table.wake
        if wake is None or self.table.closed:
            return
        now = self.clock.now
        before = self.fingerprint()
        for at in (now, (now + wake) / 2, wake - 1e-6):
            if at < now:
                continue
            out = self.table.tick(at)
            assert out.effect is None or isinstance(out.effect, Pause)
            items = list(out.items)
            while out.effect is not None:
                out = self.table.resume(at, None)
                items += out.items
            assert items == [], f"ticking at {at}, before wake {wake}, produced {items}"
            assert self.fingerprint() == before, f"ticking at {at}, before wake {wake}, changed the table"

    # -- reading -------------------------------------------------------------------------------------

    def state(self, key: str) -> dict[str, Any]:
        state = self.inbox[key].state
        assert state is not None, f"{key} received no state"
        return state

    def events(self, key: str, name: str | None = None) -> list[dict[str, Any]]:
        return self.inbox[key].events(name)

    def seat(self, key: str) -> int:
        seat = self.table.seat_of(key)
        assert seat is not None, f"{key} has no seat"
        return seat

    def account(self, seat: int) -> str:
        return self.table.chips.account(seat)

    def balance(self, key: str) -> int:
        return self.ledger.balance(self.member(key).account)

    def effects_of(self, kind: type) -> list[Any]:
        return [e for e in self.effects if isinstance(e, kind)]

    def items_of(self, kind: type) -> list[Any]:
        return [i for i in self.items if isinstance(i, kind)]


# -- people who play -----------------------------------------------------------------------------


def command_of(action: Any) -> tuple[str, dict[str, Any]]:
    """The protocol command of an engine action (what a person would type)."""
    d = action.to_dict()
    cmd = d.pop("cmd")
    d.pop("seat", None)
    return cmd, d


def simple_president(keys: Sequence[str]) -> Callable[[Harness], bool]:
    """People who, when a decision is theirs, play their weakest legal play (else pass) or give their
    first legal choice; they never cut."""

    def act(h: Harness) -> bool:
        match = h.table.match
        if match is None or h.table.status != "playing" or match.needs_deal():
            return False
        awaited = {p.seat for p in match.pending()}
        for key in keys:
            seat = h.table.seat_of(key)
            if seat is None or seat not in awaited:
                continue
            legal = [a for a in match.legal_actions(seat) if a.cmd != "cut"]
            choice = next((a for a in legal if a.cmd in ("play", "give")), None) or next(
                (a for a in legal if a.cmd == "pass"), None)
            if choice is None:
                continue
            cmd, args = command_of(choice)
            h.ok(key, cmd, **args)
            return True
        return False

    return act
