"""Durable tables (server/table/durable.py): the log a table writes, and the table rebuilt from it.

On the fake clock, with the harness's ledger: a table whose journal is taken after every
call (as the room writes it, docs/restart.md) is rebuilt from its log at EVERY moment of
whole matches (classic with bots and a leaver replaced, P16; tdc with cuts T9, a revolution
T10, the exchange choice T12, a passive seat T14, its cut window; Speculation with antes S3,
sales S7, offers and trades S9, a refused payment undone), and the rebuilt table is the
table: every seat's view, the table's facts, the log, what is pending. Then, at seeded
moments, the live table is dropped ("the server died") and the rebuilt one plays on to the
end of the match with the same ledger: chips conserved, each round settled once, and the
result is what the engine computes from the whole log. A changed engine rule makes a log
unreplayable, with a reason that names no card.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from engine.president import rules as president_rules
from engine.seeds import seed_from_int
from server.storage.api import Transfer
from server.table import Table, durable
from tests.server.table.harness import Harness, command_of

CARD = re.compile(r"\b(?:[2-9TJQKA][cdhs])\b")


# -- a harness whose table is durable --------------------------------------------------------------


def durable_harness(rules: str, **kw: Any) -> Harness:
    h = Harness(rules, **kw)
    durable.enable(h.table)
    _attach(h, [], durable.Journal(h.table))
    return h


def _attach(h: Harness, stored: list[dict[str, Any]], journal: durable.Journal) -> None:
    """After every call, the journal's entries are "written" (what the room does before delivering)."""
    h.stored = stored  # type: ignore[attr-defined]
    h.journal = journal  # type: ignore[attr-defined]

    def write(h: Harness) -> None:
        entries = h.journal.take()  # type: ignore[attr-defined]
        h.stored.extend(entries)  # type: ignore[attr-defined]
        h.journal.written()  # type: ignore[attr-defined]

    h.after_call.insert(0, write)


def rebuilt(h: Harness, *, resume_window: float = 0.0, config: dict[str, Any] | None = None) -> Table:
    return durable.restore(h.table.id, config or durable.table_config(h.table), list(h.stored),  # type: ignore[attr-defined]
                           h.settings, now=h.clock.now, resume_window=resume_window, draw_seed=h._draw)


def same(live: Table, again: Table) -> None:
    assert durable.facts(again) == durable.facts(live)
    assert again.log == live.log
    if live.match is None:
        assert again.match is None
        return
    for seat in [*range(live.opts.seats), None]:
        assert again.match.view(seat).to_dict() == live.match.view(seat).to_dict(), seat
    assert [p.key for p in again.match.pending()] == [p.key for p in live.match.pending()]
    assert [s.bot is not None for s in again.seats] == [s.bot is not None for s in live.seats]


def check_every_moment(h: Harness) -> None:
    def check(h: Harness) -> None:
        if h.table.closed is None:
            same(h.table, rebuilt(h))
            h.moments += 1  # type: ignore[attr-defined]

    h.moments = 0  # type: ignore[attr-defined]
    h.after_call.append(check)


# -- people who play at random, steered to the situations that matter --------------------------------


def people(keys: list[str], rng: random.Random, *, idle: str | None = None) -> Callable[[Harness], bool]:
    """Seeded people: they always cut (T9) and play a quad when they can (T10), give back what they
    like (T12), bid, sell, offer and answer offers at random (S7, S9); ``idle`` never plays in round 1
    (the clock passes for it: passive, T14)."""
    offers: dict[str, int] = {}

    def act(h: Harness) -> bool:
        m = h.table.match
        if m is None or h.table.status != "playing" or m.needs_deal():
            return False
        for key in rng.sample(keys, len(keys)):
            seat = h.table.seat_of(key)
            if seat is None or (key == idle and m.round == 1):
                continue
            legal = list(m.legal_actions(seat))
            choice = _pick(legal, rng, offers, key, m)
            if choice is None:
                continue
            cmd, args = command_of(choice)
            h.cmd(key, cmd, **args)
            return True
        return False

    return act


def _pick(legal: list[Any], rng: random.Random, offers: dict[str, int], key: str, m: Any) -> Any:
    by: dict[str, list[Any]] = {}
    for a in legal:
        by.setdefault(str(a.to_dict()["cmd"]), []).append(a)
    if "cut" in by:
        return by["cut"][0]
    if "give" in by:
        return rng.choice(by["give"])
    if "play" in by or "pass" in by:
        quads = [a for a in by.get("play", []) if len(a.cards) == 4]
        if quads:
            return quads[0]
        if "pass" in by and (not by.get("play") or rng.random() < 0.2):
            return by["pass"][0]
        return rng.choice(by["play"])
    if "keep" in by:
        return by["sell"][0] if "sell" in by and rng.random() < 0.6 else by["keep"][0]
    if "bid" in by:
        return by["bid"][0] if rng.random() < 0.3 else None
    if ("accept" in by or "decline" in by) and rng.random() < 0.7:
        return rng.choice(by.get("accept", []) + by.get("decline", []))
    if "offer" in by and offers.get(f"{key}/{m.round}", 0) < 2 and rng.random() < 0.3:
        offers[f"{key}/{m.round}"] = offers.get(f"{key}/{m.round}", 0) + 1
        return rng.choice(by["offer"])
    if "turn" in by:
        return by["turn"][0]
    return None


def _has_quad(m: Any, seat: int) -> bool:
    hand = m.hand(seat)
    return any(sum(1 for c in hand if c.rank == r) == 4 for r in {c.rank for c in hand})


TABLES: dict[str, dict[str, Any]] = {
    "classic": {"rules": "classic", "seats": 4, "bots": 2, "rounds": 2},
    "tdc": {"rules": "tdc", "seats": 3, "stake": 10, "rounds": 3, "turn_seconds": 20, "cut_window": 2},
    "speculation": {"rules": "speculation", "seats": 4, "bots": 1, "ante": 2, "rounds": 2, "trade_window": 3},
}
PEOPLE = {"classic": ["alice", "bob"], "tdc": ["alice", "bob", "carol"], "speculation": ["alice", "bob", "carol"]}


def _table(kind: str, seed: int, **extra: Any) -> tuple[Harness, Callable[[Harness], bool]]:
    spec = dict(TABLES[kind])
    rules = spec.pop("rules")
    h = durable_harness(rules, **spec, **extra)
    rng = random.Random(seed)
    keys = PEOPLE[kind]
    if kind == "tdc":
        h.join(*keys[:2])
        # the first deal gives someone a quad (T10: a revolution follows)
        h.seed_for_next_deal(lambda m, events: any(_has_quad(m, s) for s in range(3)))
        h.join(keys[2])
        return h, people(keys, rng, idle="carol")
    if kind == "speculation":
        h.refuse(Transfer, when=lambda e: e.reason == "traded", times=1)  # a trade the ledger refuses: undone
    h.join(*keys)
    return h, people(keys, rng)


# -- the tests ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["classic", "tdc", "speculation"])
def test_a_table_rebuilt_from_its_log_at_every_moment_of_a_match_is_the_table(kind: str) -> None:
    h, act = _table(kind, seed=7)
    check_every_moment(h)
    if kind == "classic":  # P16: a person who leaves mid-match is replaced by a bot for good
        h.run(lambda: len(h.events("alice", "round_over")) == 1, act=act)
        h.ok("bob", "leave")
        act = people(["alice"], random.Random(8))
    h.run(lambda: h.table.status == "over", act=act)
    assert h.moments > 50  # type: ignore[attr-defined]
    kinds = {e["k"] for e in h.stored}  # type: ignore[attr-defined]
    assert {"m", "a", "s"} <= kinds
    names = {ev for key in PEOPLE[kind] for ev in (e["event"] for e in h.events(key))}
    if kind == "tdc":
        assert {"cut", "revolution", "exchange", "timeout"} <= names, names
        assert any(e.get("passive") for e in h.events("alice", "timeout"))
    if kind == "speculation":
        assert {"sold", "offered", "traded"} <= names, names
        assert "u" in kinds  # the refused trade's action was undone in the log too
    if kind == "classic":
        assert any(s.substitute for s in h.table.seats)


MOMENTS = 8


@pytest.mark.parametrize("kind", ["classic", "tdc", "speculation"])
def test_a_table_rebuilt_at_seeded_moments_plays_on_to_the_end_with_the_same_chips(kind: str) -> None:
    rng = random.Random(f"moments-{kind}")
    probe, act = _table(kind, seed=11)
    probe.run(lambda: probe.table.status == "over", act=act)
    length = probe.calls
    for moment in sorted(rng.sample(range(2, length - 1), MOMENTS)):
        _crash_at(kind, moment)


def _crash_at(kind: str, moment: int) -> None:
    h, act = _table(kind, seed=11)
    h.run(lambda: h.calls >= moment or h.table.status == "over", act=act)
    # the server dies: everything written so far is all there is
    before = durable.facts(h.table)
    h.table = again = rebuilt(h, resume_window=5.0)
    _attach(h, h.stored, durable.Journal(again, len(h.stored), dict(before)))  # type: ignore[attr-defined]
    assert again.resume_until == h.clock.now + 5.0
    for key in PEOPLE[kind]:
        if again.seat_of(key) is not None:
            h.connected(key)  # everyone comes back
    assert again.resume_until is None or all(not s.member for s in again.seats)
    h.run(lambda: h.table.status == "over", act=act)
    # every chip is where the rounds put it (the harness checks the totals after every call)
    assert set(h.ledger.settle_calls.values()) <= {1}
    assert h.ledger.escrowed() == 0 and not h.ledger.holds
    # the result is what the engine computes from the whole log, uninterrupted
    match, actions, events = durable.replay(durable.table_config(again), h.stored)  # type: ignore[attr-defined]
    assert actions == again.log and match.over
    ends = [ev.to_dict() for evs in events for ev in evs if ev.name == "match_over"]
    assert ends == [{k: v for k, v in e.items() if k != "room"} for e in h.events(PEOPLE[kind][0], "match_over")]


def test_a_rebuilt_table_waits_for_its_people_then_gives_each_decision_its_full_time() -> None:
    h = durable_harness("tdc", seats=3, stake=10, turn_seconds=20)
    h.join("alice", "bob", "carol")
    turn = h.table.match.pending()[0].seat
    key = h.table.seats[turn].member
    h.advance(15)  # 15 of the 20 seconds are gone when the server dies
    h.table = again = rebuilt(h, resume_window=30.0)
    _attach(h, h.stored, durable.Journal(again, len(h.stored)))  # type: ignore[attr-defined]
    assert all(s.grace_until == h.clock.now + 60.0 for s in again.seats)  # grace: max(grace, window)
    assert set(again.deadlines.values()) == {h.clock.now + 30.0 + 20.0}  # held, then the full time
    h.advance(10)
    for k in ("alice", "bob"):
        h.connected(k)
    assert again.resume_until is not None  # carol is not back yet: the clocks stay held
    h.advance(5)
    h.connected("carol")
    assert again.resume_until is None  # everyone is back: the clocks start now, in full
    assert set(again.deadlines.values()) == {h.clock.now + 20.0}
    assert h.state(key)["deadline"] == 20.0 and h.state(key)["turn"] == turn


def test_who_does_not_come_back_is_handled_as_a_disconnection() -> None:
    h = durable_harness("classic", seats=3, rounds=2)
    h.join("alice", "bob", "carol")
    h.table = again = rebuilt(h, resume_window=10.0)
    _attach(h, h.stored, durable.Journal(again, len(h.stored)))  # type: ignore[attr-defined]
    h.connected("alice")
    h.connected("bob")
    h.tick(h.clock.now + h.settings.grace_seconds)  # carol's grace runs out: a bot for good (P16)
    carol = again.seats[2]
    assert carol.member is None and carol.bot is not None and carol.substitute
    assert [e["name"] for e in h.events("alice", "replaced")] == ["Carol"]


def test_a_changed_engine_rule_makes_the_log_unreplayable_with_a_reason_that_shows_no_card(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = durable_harness("tdc", seats=3, stake=10, turn_seconds=20)
    h.join("alice", "bob", "carol")
    h.run(lambda: len(h.table.log) > 5, act=people(["alice", "bob", "carol"], random.Random(3)))
    same(h.table, rebuilt(h))
    # T3 changed: the holder of 3c leads instead of the holder of Qh
    changed = dataclasses.replace(president_rules.TDC, first_lead="3c")
    monkeypatch.setitem(president_rules.RULESETS, "tdc", changed)
    with pytest.raises(durable.Unreplayable) as caught:
        rebuilt(h)
    reason = caught.value.reason
    assert reason.startswith("entry ") and ("differs" in reason or "refuses" in reason)
    assert not CARD.search(reason), reason


def test_a_log_of_another_format_or_kind_or_broken_is_unreplayable() -> None:
    h = durable_harness("classic", seats=3)
    h.join("alice", "bob", "carol")
    config = durable.table_config(h.table)
    for bad, entries in [({**config, "v": 99}, h.stored), ({**config, "rules": "poker"}, h.stored),  # type: ignore[attr-defined]
                         (config, [{"k": "a", "a": {"cmd": "pass", "seat": 0}}]), (config, [{"k": "zz"}]),
                         (config, [{"k": "u"}])]:
        with pytest.raises(durable.Unreplayable):
            durable.restore("t1", bad, entries, h.settings, now=0.0, resume_window=0.0,
                            draw_seed=lambda: seed_from_int(1))


@pytest.mark.parametrize("kind", ["classic", "tdc", "speculation"])
def test_state_hashes_are_the_bytes_earlier_versions_hashed(kind: str) -> None:
    """A log written before the hashes' encoder changed must still replay: the text hashed is the
    standard library's sorted, compact, ASCII JSON of each view, at every moment of a match."""
    import json

    std = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str).encode
    h, act = _table(kind, seed=11)
    seen = 0
    for _ in range(3000):
        if h.table.status == "over":
            break
        match = h.table.match
        if match is not None:
            for seat in [None, *range(match.seats)]:
                view = match.view(seat).to_dict()
                assert durable._encode(view) == std(view)
                seen += 1
        if not act(h):
            h.tick_wake()
    assert h.table.status == "over" and seen > 100
    for odd in ({"b": [1, {"é": None}]}, {2: "x", 10: "y"}, {"a": 2**70}):  # non-ASCII, int keys, a big int
        assert durable._encode(odd) == std(odd)


def test_a_rebuilt_table_nobody_sits_at_goes_on_at_once() -> None:
    """The resume window is for people: a table only bots play (its person left mid-round, a bot
    plays the seat out) is not held by it after a restart."""
    h = durable_harness("tdc", seats=3, bots=2, stake=10, turn_seconds=20)
    h.join("alice")
    h.ok("alice", "leave")
    assert all(s.member is None for s in h.table.seats) and h.table.status == "playing"
    h.table = again = rebuilt(h, resume_window=60.0)
    assert again.resume_until is None
    assert again.bot_due is not None and again.bot_due < h.clock.now + 60.0
