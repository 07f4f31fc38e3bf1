"""A table's effects performed and its items handed out (server/rooms/effects.py), with a scripted table,
store and readers: a chip movement is the store's own operation, applied before the messages of its
step leave; a refused one is the table's to handle and its messages wait; claims end as the table
says; an outage is waited out, off the table's clock."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from server.protocol import Shared
from server.rooms.claims import SeatClaims
from server.rooms.effects import Effects
from server.storage.api import InsufficientChips, OpenRound, RoundOpened, Transfer, Unreachable
from server.table import Claim, Closed, Gone, Outputs, Placed, Released, Send, Think
from tests.server.table.harness import run_now


@dataclass
class Scripted:
    """A table that answers each resume with the next outputs of its script."""

    script: list[Outputs]
    id: str = "t1"
    journal: None = None
    resumed: list[tuple[float, Any, BaseException | None]] = field(default_factory=list)

    def resume(self, now: float, result: Any = None, error: BaseException | None = None) -> Outputs:
        self.resumed.append((now, result, error))
        return self.script.pop(0)


@dataclass
class Owner:
    clock: list[float]
    refuse: list[BaseException] = field(default_factory=list)
    outages: int = 0
    applied: list[list[Any]] = field(default_factory=list)
    seats: SeatClaims = field(default_factory=SeatClaims)

    @property
    def store(self) -> Owner:
        return self

    @property
    def thinkers(self) -> Owner:
        return self

    async def apply(self, ops: Sequence[Any]) -> list[Any]:
        if self.refuse:
            raise self.refuse.pop(0)
        self.applied.append(list(ops))
        return [RoundOpened(op.round_id, tuple(op.stakes)) if isinstance(op, OpenRound) else None for op in ops]

    def log_ahead(self, op: Any) -> None:
        return None

    async def decide(self, bot: Any, view: Any, legal: Sequence[Any]) -> Any:
        return legal[-1]

    async def outage(self, exc: BaseException) -> bool:
        if isinstance(exc, Unreachable):
            self.outages += 1
            self.clock[0] += 7.0  # the outage lasted 7 s
            return True
        return False

    def acting(self, rid: str) -> bool:
        return True

    def lost(self, rid: str) -> bool:
        return False

    def fence(self, rid: str) -> None:
        return None


@dataclass
class Readers:
    owner: Owner
    got: list[Any] = field(default_factory=list)

    async def answer(self, item: Send) -> None:
        raise AssertionError("no command here")

    def send(self, item: Send) -> None:
        assert isinstance(item.msg, Shared)
        self.got.append((item.msg.event["event"], len(self.owner.applied)))  # (what the store had then)

    def placed(self, item: Placed) -> None:
        self.got.append(item)

    async def gone(self, item: Gone) -> None:
        self.got.append(item)

    def released(self, item: Released) -> None:
        self.got.append(item)

    def ended(self, item: Closed) -> None:
        self.got.append(item)


def hello(text: str) -> Send:
    return Send((("ann", 0),), Shared({"event": text}))


def effects(script: list[Outputs], **owner: Any) -> tuple[Effects, Scripted, Owner, Readers]:
    clock = [100.0]
    table = Scripted(script)
    got = Owner(clock, **owner)
    return Effects(table, got, lambda: clock[0]), table, got, Readers(got)  # type: ignore[arg-type]


def test_a_chip_movement_is_applied_as_it_is_before_its_steps_messages_leave() -> None:
    op = OpenRound("t1-u1-1", {"ann": 5}, table="t1")
    fx, table, owner, readers = effects([Outputs([hello("after")])])
    run_now(fx.drain(Outputs([hello("before")], op), readers))
    assert owner.applied == [[op]]  # the store's own operation, as the table gave it
    assert table.resumed == [(100.0, RoundOpened("t1-u1-1", ("ann",)), None)]
    assert readers.got == [("before", 1), ("after", 1)]  # the step's message left once its chips moved


def test_a_refused_chip_movement_is_the_tables_and_its_messages_wait_for_the_next_write() -> None:
    refusal = InsufficientChips("no")
    op = Transfer("ann", "bob", 5, "sold", round_id="r")
    fx, table, owner, readers = effects([Outputs([hello("undone")])], refuse=[refusal])
    run_now(fx.drain(Outputs([hello("offered")], op), readers))
    assert table.resumed == [(100.0, None, refusal)] and owner.applied == []
    assert readers.got == [("offered", 0), ("undone", 0)]


def test_claims_end_as_the_table_says_and_the_readers_hear_of_it() -> None:
    fx, table, owner, readers = effects([Outputs([Released("ann"), Gone("ann"), Closed("empty")])])
    run_now(fx.drain(Outputs([Placed("ann", 0)], Claim("ann", "t1")), readers))
    assert table.resumed == [(100.0, None, None)]  # the claim was free: held by nobody else
    assert owner.seats.holder("ann") is None
    assert readers.got == [Placed("ann", 0), Released("ann"), Gone("ann"), Closed("empty")]


def test_a_search_bot_thinks_where_the_owner_says() -> None:
    fx, table, _, readers = effects([Outputs()])
    run_now(fx.drain(Outputs([], Think(None, None, ["a", "b"])), readers))  # type: ignore[arg-type]
    assert table.resumed == [(100.0, "b", None)]


def test_an_outage_is_waited_out_off_the_tables_clock() -> None:
    op = OpenRound("t1-u1-1", {"ann": 5}, table="t1")
    fx, table, owner, readers = effects([Outputs()], refuse=[Unreachable("down")])
    run_now(fx.drain(Outputs([], op), readers))
    assert owner.outages == 1 and owner.applied == [[op]]
    assert fx.lag == 7.0 and table.resumed[0][0] == 100.0  # the clock moved on 7 s; the table's did not
