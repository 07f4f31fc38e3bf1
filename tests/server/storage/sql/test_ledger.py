"""Invariant 4 under random operations: the ledger against a model, with Hypothesis.

Random sequences of grants, guests arriving and leaving, rounds opened (all or
nothing, or partial: T13), settled (random splits, sometimes twice, sometimes
wrongly), voided (stakes back and round-scoped transfers reversed), transfers
(plain or scoped to a round, some too large), holds (made, paid from, released)
and restarts. After every step the audit holds (balances + escrow = granted −
retired, and everything else it checks) and its figures equal the model's; at
the end every balance and every available balance equals the model's.
"""

from __future__ import annotations

import asyncio
import copy
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from server.storage import StoreSettings, open_store
from server.storage.api import (
    BadAmount,
    Hold,
    InsufficientChips,
    NoSuchAccount,
    OpenRound,
    RefundRound,
    ReleaseHold,
    RoundNotOpen,
    SettleRound,
    StorageError,
    Transfer,
    UnknownHold,
)
from server.storage.sql.store import SQLStore
from tests.kits.pgserver import PgServer
from tests.kits.storefixtures import TEMPLATE

PLAYERS = ["alice", "bob", "carol"]
GUESTS = ["gus", "gwen"]
FAST = StoreSettings(scrypt_n=2**10, starting_chips=50, guest_chips=20, house_chips=0)

who = st.sampled_from(PLAYERS + GUESTS)
op = st.one_of(
    st.tuples(st.just("open"), st.lists(who, min_size=1, max_size=4, unique=True), st.integers(1, 30), st.booleans()),
    st.tuples(st.just("settle"), st.integers(0, 20), st.lists(st.integers(0, 3), min_size=5, max_size=5)),
    st.tuples(st.just("settle_wrong"), st.integers(0, 20), st.integers(1, 5)),
    st.tuples(st.just("transfer"), who, who, st.integers(1, 60), st.none() | st.integers(0, 20)),
    st.tuples(st.just("hold"), who, st.integers(1, 40), st.none() | st.integers(0, 20)),
    st.tuples(st.just("pay_hold"), st.integers(0, 20), who, st.integers(0, 5)),
    st.tuples(st.just("release_hold"), st.integers(0, 20)),
    st.tuples(st.just("guest_in"), st.sampled_from(GUESTS)),
    st.tuples(st.just("guest_out"), st.sampled_from(GUESTS)),
    st.tuples(st.just("grant"), st.sampled_from(PLAYERS), st.integers(1, 10)),
    st.tuples(st.just("refund"), st.integers(0, 20)),
    st.tuples(st.just("restart")),
)


@dataclass
class Round:
    rid: str
    stakes: dict[str, int]  # by identity
    state: str = "open"
    flows: dict[str, int] = field(default_factory=dict)  # identity -> net of the round's transfers


@dataclass
class HoldM:
    hid: str
    owner: str  # identity
    amount: int
    rnd: int | None  # index in Model.rounds


class Model:
    """Accounts by identity: a player's name, or ``guest#generation`` (a guest who came back is another)."""

    def __init__(self) -> None:
        self.balance: dict[str, int] = dict.fromkeys(PLAYERS, 50)
        self.gen: dict[str, int] = dict.fromkeys(GUESTS, 0)
        self.live: set[str] = set(PLAYERS)
        self.rounds: list[Round] = []
        self.holds: list[HoldM | None] = []
        self.granted = 150
        self.retired = 0

    def ident(self, name: str) -> str:
        return name if name in PLAYERS else f"{name}#{self.gen[name]}"

    def is_live(self, name: str) -> bool:
        return self.ident(name) in self.live

    def held(self, ident: str, rnd: int | str | None = "all") -> int:
        return sum(h.amount for h in self.holds if h and h.owner == ident and (rnd == "all" or h.rnd == rnd))

    def available(self, ident: str) -> int:
        pending = sum(
            max(0, r.flows.get(ident, 0) - self.held(ident, i))
            for i, r in enumerate(self.rounds) if r.state == "open"
        )
        return self.balance.get(ident, 0) - self.held(ident) - pending

    def busy(self, ident: str) -> bool:
        return any(r.state == "open" and ident in r.stakes for r in self.rounds)

    def credit(self, ident: str, amount: int) -> None:
        self.balance[ident] = self.balance.get(ident, 0) + amount

    def retire_gone(self) -> None:
        """Chips that a guest who left may spend are retired at once."""
        for ident in list(self.balance):
            if ident not in self.live:
                free = self.available(ident)
                if free > 0:
                    self.balance[ident] -= free
                    self.retired += free

    def close_round(self, i: int, state: str) -> None:
        r = self.rounds[i]
        for j, h in enumerate(self.holds):
            if h and h.rnd == i:
                self.holds[j] = None
        if state == "refunded":
            for ident, amount in r.stakes.items():
                self.credit(ident, amount)
            for ident, net in r.flows.items():
                self.credit(ident, -net)
        r.state = state

    def escrow(self) -> int:
        return sum(sum(r.stakes.values()) for r in self.rounds if r.state == "open")


async def run_ops(path: Path | str, ops: list[tuple[Any, ...]]) -> None:
    store: SQLStore = await open_store(path, FAST)
    m = Model()
    try:
        for name in PLAYERS:
            await store.accounts.register(name, "secret")
        for step in ops:
            kind = step[0]
            if kind == "open":
                _, names, stake, partial = step
                rid = f"r{len(m.rounds)}"
                if not all(m.is_live(n) for n in names):
                    try:
                        await store.apply([OpenRound(rid, dict.fromkeys(names, stake), partial=partial)])
                    except NoSuchAccount:
                        continue
                    raise AssertionError("opened a round with a gone guest")
                # an account may be staked in several open rounds (a seat left, played out by a bot)
                short = [n for n in names if m.available(m.ident(n)) < stake]
                try:
                    [opened] = await store.apply([OpenRound(rid, dict.fromkeys(names, stake), partial=partial)])
                except InsufficientChips as exc:
                    assert not partial and exc.names == short
                    continue
                covered = [n for n in names if n not in short]
                assert (partial or not short) and list(opened.covered) == covered
                for n in covered:
                    m.balance[m.ident(n)] -= stake
                m.rounds.append(Round(rid, {m.ident(n): stake for n in covered}))
            elif kind in ("settle", "settle_wrong", "refund"):
                if not m.rounds:
                    continue
                i = step[1] % len(m.rounds)
                r = m.rounds[i]
                payers = list(r.stakes)
                pot = sum(r.stakes.values())
                names = [p.split("#")[0] for p in payers]
                if kind == "refund":
                    [done] = await store.apply([RefundRound(r.rid)])
                    assert done == (r.state == "open")
                    if done:
                        m.close_round(i, "refunded")
                elif kind == "settle_wrong":
                    try:
                        await store.apply([SettleRound(r.rid, {(names or ["alice"])[0]: pot + step[2]})])
                    except BadAmount:
                        assert r.state == "open"
                        continue
                    assert r.state != "open"
                else:
                    weights = step[2][: len(names)]
                    if names and sum(weights) == 0:
                        weights = [1, *weights[1:]]
                    shares = [pot * w // sum(weights) for w in weights] if names else []
                    if shares:
                        shares[0] += pot - sum(shares)
                    [done] = await store.apply([SettleRound(r.rid, dict(zip(names, shares, strict=True)))])
                    assert done == (r.state == "open")
                    if done:
                        m.close_round(i, "settled")
                        for p, amount in zip(payers, shares, strict=True):
                            m.credit(p, amount)
            elif kind == "transfer":
                _, a, b, amount, rnd = step
                i = None if rnd is None or not m.rounds else rnd % len(m.rounds)
                rid = None if i is None else m.rounds[i].rid
                ia, ib = m.ident(a), m.ident(b)
                expect = "ok"
                if not (m.is_live(a) and m.is_live(b)):
                    expect = "NoSuchAccount"
                elif a == b:
                    expect = "BadAmount"
                elif i is not None and m.rounds[i].state != "open":
                    expect = "RoundNotOpen"
                else:
                    trial = copy.deepcopy(m)
                    trial.balance[ia] -= amount
                    trial.balance[ib] += amount
                    if i is not None:
                        flows = trial.rounds[i].flows
                        flows[ia] = flows.get(ia, 0) - amount
                        flows[ib] = flows.get(ib, 0) + amount
                    if m.balance[ia] < amount or trial.available(ia) < 0:
                        expect = "InsufficientChips"
                try:
                    await store.apply([Transfer(a, b, amount, "test", round_id=rid)])
                except (NoSuchAccount, BadAmount, RoundNotOpen, InsufficientChips) as exc:
                    assert type(exc).__name__ == expect, (exc, expect)
                    continue
                assert expect == "ok", expect
                m.balance, m.rounds = trial.balance, trial.rounds
            elif kind == "hold":
                _, a, amount, rnd = step
                i = None if rnd is None or not m.rounds else rnd % len(m.rounds)
                hid = f"h{len(m.holds)}"
                m.holds.append(None)  # the id is used once, held or not
                if not m.is_live(a):
                    expect = "NoSuchAccount"
                elif i is not None and m.rounds[i].state != "open":
                    expect = "RoundNotOpen"
                else:
                    m.holds[-1] = HoldM(hid, m.ident(a), amount, i)
                    expect = "ok" if m.available(m.ident(a)) >= 0 else "InsufficientChips"
                    m.holds[-1] = None
                try:
                    await store.apply([Hold(hid, a, amount, round_id=None if i is None else m.rounds[i].rid)])
                except (NoSuchAccount, RoundNotOpen, InsufficientChips) as exc:
                    assert type(exc).__name__ == expect, (exc, expect)
                    continue
                assert expect == "ok", expect
                m.holds[-1] = HoldM(hid, m.ident(a), amount, i)
            elif kind in ("pay_hold", "release_hold"):
                if not m.holds:
                    continue
                j = step[1] % len(m.holds)
                h = m.holds[j]
                hid = f"h{j}"
                if kind == "release_hold":
                    assert await store.apply([ReleaseHold(hid)]) == [h is not None]
                    m.holds[j] = None
                    continue
                _, _, b, less = step
                if h is None:
                    try:
                        await store.apply([Transfer("alice", b, 1, "paid", hold_id=hid)])
                    except (UnknownHold, BadAmount, NoSuchAccount):
                        continue
                    raise AssertionError("paid from a hold that is gone")
                owner = h.owner.split("#")[0]
                amount = max(1, h.amount - less)
                try:
                    await store.apply([Transfer(owner, b, amount, "paid", hold_id=hid)])
                except NoSuchAccount:
                    assert not (h.owner in m.live and m.is_live(b))
                    continue
                except BadAmount:
                    assert owner == b or h.owner not in m.live  # another guest of that name now
                    continue
                except RoundNotOpen:
                    raise AssertionError("a hold outlived its round") from None
                ib = m.ident(b)
                m.holds[j] = None
                m.balance[h.owner] -= amount
                m.balance[ib] += amount
                if h.rnd is not None:
                    flows = m.rounds[h.rnd].flows
                    flows[h.owner] = flows.get(h.owner, 0) - amount
                    flows[ib] = flows.get(ib, 0) + amount
            elif kind == "guest_in":
                name = step[1]
                acc = await store.accounts.login_guest(name)
                if not m.is_live(name):
                    m.gen[name] += 1
                    m.live.add(m.ident(name))
                    m.balance[m.ident(name)] = 20
                    m.granted += 20
                assert acc.chips == m.balance[m.ident(name)]
            elif kind == "guest_out":
                name = step[1]
                await store.accounts.logout_guest(name)
                if m.is_live(name):
                    ident = m.ident(name)
                    for j, h in enumerate(m.holds):
                        if h and h.owner == ident and h.rnd is None:
                            m.holds[j] = None
                    m.live.discard(ident)
            elif kind == "grant":
                _, name, amount = step
                await store.ledger.grant(name, amount, "test")
                m.balance[name] += amount
                m.granted += amount
            elif kind == "restart":
                await store.close()
                store = await open_store(path, FAST)  # recovery: voids, holds released, guests retired
                for i, r in enumerate(m.rounds):
                    if r.state == "open":
                        m.close_round(i, "refunded")
                m.holds = [None] * len(m.holds)
                m.live = set(PLAYERS)
            m.retire_gone()
            audit = await store.ledger.audit()
            assert audit.ok, audit.problems
            assert (audit.escrow, audit.held) == (m.escrow(), sum(h.amount for h in m.holds if h))
            assert (audit.granted, audit.retired) == (m.granted, m.retired)
        for ident in sorted(m.live):
            name = ident.split("#")[0]
            assert await store.ledger.balance(name) == m.balance[ident], name
            assert await store.ledger.available(name) == m.available(ident), name
    finally:
        await store.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(op, min_size=1, max_size=25))
# a guest leaves mid-round, comes back as a new guest, then the round is settled / refunded at restart
@example([("guest_in", "gus"), ("open", ["gus", "bob"], 5, False), ("guest_out", "gus"), ("guest_in", "gus"),
          ("settle", 0, [1, 1, 0, 0, 0])])
@example([("guest_in", "gwen"), ("open", ["alice", "gwen"], 7, False), ("guest_out", "gwen"), ("restart",)])
# a sale in a deal, the buyer's receipts held for another offer, then the deal voided (the attack)
@example([("open", ["alice", "bob"], 1, False), ("transfer", "bob", "alice", 40, 0), ("hold", "alice", 60, 0),
          ("pay_hold", 0, "carol", 0), ("refund", 0)])
# a guest who received chips in a deal leaves; the deal is voided, then settled-twice attempts
@example([("guest_in", "gus"), ("open", ["gus", "bob"], 2, True), ("transfer", "bob", "gus", 30, 0),
          ("guest_out", "gus"), ("refund", 0), ("settle", 0, [1, 0, 0, 0, 0])])
# an open offer when its deal settles: released with the deal
@example([("open", ["alice", "bob"], 2, False), ("hold", "bob", 10, 0), ("hold", "carol", 5, None),
          ("settle", 0, [1, 1, 0, 0, 0]), ("transfer", "carol", "alice", 46, None)])
def test_invariant_4_ledger_matches_model(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run_ops(Path(tmp), ops))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(op, min_size=1, max_size=20))
def test_invariant_4_on_postgresql(postgres: PgServer, ops: list[tuple[Any, ...]]) -> None:
    """The same model against PostgreSQL (the SQL is shared; its locks and types are not)."""
    asyncio.run(run_ops(postgres.new_database(TEMPLATE), ops))


def test_storage_errors_carry_protocol_codes() -> None:
    assert InsufficientChips.code == "insufficient_chips"
    assert BadAmount.code == "bad_argument"
    assert issubclass(NoSuchAccount, StorageError)
