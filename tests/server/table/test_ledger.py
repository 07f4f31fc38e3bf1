"""The ledger refusing: the action that needed it is undone (the match as before it, the person's
command refused with the store's code), the table goes on, and no chip is created or lost; a round
that will not finish is voided, every chip movement of it undone (invariant 4, T13, S3, S7, S9)."""

from __future__ import annotations

from typing import Any

from server.storage.api import (
    BadAmount,
    FundBot,
    InsufficientChips,
    OpenRound,
    RefundRound,
    SettleRound,
    Transfer,
)
from server.table import Closed, Gone, Record, Refused, Released
from tests.server.table.harness import Harness, simple_president

P3 = ["alice", "bob", "carol"]


def snapshot(h: Harness) -> tuple[Any, ...]:
    """The match as everyone sees it, its log, and every balance."""
    m = h.table.match
    views = tuple(m.view(s).to_dict() for s in [None, *range(len(h.table.seats))])
    return views, list(h.table.log), dict(h.ledger.balances)


def key_of(h: Harness, seat: int) -> str:
    member = h.table.seats[seat].member
    assert member is not None
    return member


def _speculation(h: Harness) -> tuple[str, str, str]:
    """Three people; the first deal opens an auction: (owner, bidder, other)."""
    h.join("alice", "bob")
    h.seed_for_next_deal(lambda m, events: events[-1].name == "auction")
    h.join("carol")
    dealer = h.table.match.view(None).dealer
    return key_of(h, dealer), key_of(h, (dealer + 1) % 3), key_of(h, (dealer + 2) % 3)


def test_S7_a_refused_sale_payment_undoes_the_sale_and_refuses_the_command() -> None:
    h = Harness("speculation", seats=3, turn_seconds=60)
    owner, bidder, other = _speculation(h)
    h.ok(bidder, "bid", amount=5)
    before = snapshot(h)
    for key in P3:
        h.inbox[key].clear()
    h.refuse(Transfer, InsufficientChips("the store says no"))
    refused = h.refused(owner, "sell")
    assert refused.code == "insufficient_chips"
    assert snapshot(h) == before  # the sale never happened
    assert [r.kind for r in h.inbox[owner].items] == ["refused"]  # nothing but the refusal
    assert h.inbox[bidder].items == [] and h.inbox[other].items == []
    # the table goes on: the auction is still open, the same sale goes through now
    assert h.table.match.view(None).auction is not None
    h.ok(owner, "sell")
    assert h.balance(owner) == before[2][owner] + 5 and h.balance(bidder) == before[2][bidder] - 5
    assert [p.amount for p in h.effects_of(Transfer)] == [5, 5]  # the refused one and the real one
    assert len(h.ledger.transfers) == 1


def test_S9_a_refused_trade_payment_leaves_the_offer_open() -> None:
    h = Harness("speculation", seats=3, turn_seconds=60)
    owner, bidder, other = _speculation(h)
    h.ok(owner, "keep")
    offer = h.ok(bidder, "offer", to=h.seat(other), cards=1, price=3)["offer"]
    before = snapshot(h)
    h.refuse(Transfer, BadAmount("the store says no"))
    refused = h.refused(other, "accept", offer=offer)
    assert refused.code == "bad_argument"
    assert snapshot(h) == before and not h.events("alice", "traded")
    assert [o.offer for o in h.table.match.view(None).offers] == [offer]
    h.ok(other, "accept", offer=offer)
    assert h.events("alice", "traded")[0]["price"] == 3
    assert h.balance(other) == before[2][other] + 3


def test_T13_a_refused_settlement_refuses_the_move_that_ends_the_round() -> None:
    h = Harness("tdc", seats=3, stake=10, turn_seconds=60)
    h.join(*P3)
    start = dict(h.ledger.balances)
    rule = h.refuse(SettleRound, BadAmount("the store says no"))
    refusals: list[tuple[Refused, Any, Any]] = []

    def act(h: Harness) -> bool:
        m = h.table.match
        if m.needs_deal():
            return False
        seat = m.pending()[0].seat
        action = next(a for a in m.legal_actions(seat) if a.cmd in ("play", "pass"))
        before = snapshot(h)
        args = {"cards": [str(c) for c in action.cards]} if action.cmd == "play" else {}
        answer = h.cmd(key_of(h, seat), action.cmd, **args)
        if isinstance(answer, Refused):
            refusals.append((answer, before, snapshot(h)))
        return True

    h.run(lambda: bool(h.events("alice", "round_over")), act=act)
    # the round's last move was refused once with the store's code, changing nothing; sent again, it ended
    # the round and the escrow was paid out once
    assert rule.hits == 1 and len(refusals) == 1
    answer, before, after = refusals[0]
    assert answer.code == "bad_argument" and before == after
    assert [s.round_id for s in h.effects_of(SettleRound)] == ["t1-u1-1", "t1-u1-1"]
    assert h.ledger.rounds["t1-u1-1"].state == "settled" and h.ledger.escrowed() == 0
    result = h.events("alice", "round_over")[0]
    assert {k: h.balance(k) for k in P3} == {k: start[k] + 10 + result["chips"][h.seat(k)] for k in P3}


def test_T13_a_round_that_cannot_settle_is_voided_and_the_table_closes() -> None:
    h = Harness("tdc", seats=3, bots=2, stake=10, turn_seconds=30)
    start = 1000
    h.join("alice")
    h.refuse(SettleRound, BadAmount("the store is broken"), times=1000)
    escrowed = {a: b for a, b in h.ledger.balances.items()}

    def alice(h: Harness) -> bool:
        m = h.table.match
        seat = h.seat("alice") if h.table.seat_of("alice") is not None else None
        if seat is None or m.needs_deal() or not any(p.seat == seat for p in m.pending()):
            return False
        action = next(a for a in m.legal_actions(seat) if a.cmd in ("play", "pass"))
        args = {"cards": [str(c) for c in action.cards]} if action.cmd == "play" else {}
        answer = h.cmd("alice", action.cmd, **args)
        return not isinstance(answer, Refused)  # refused: she lets the clock decide

    h.run(lambda: h.closed is not None, act=alice)
    assert h.closed == "error"
    assert [v.round_id for v in h.effects_of(RefundRound)] == ["t1-u1-1"]
    assert h.ledger.rounds["t1-u1-1"].state == "voided"
    # every stake went back: alice has what she had before the round, the bots gave theirs to the house
    assert h.balance("alice") == start and escrowed["alice"] == start - 10
    assert h.ledger.escrowed() == 0 and h.ledger.balances["bot:t1-u1-1"] == 0
    assert not h.events("alice", "round_over")
    assert Released("alice") in h.items and Gone("alice") in h.items and h.claims.holder("alice") is None
    assert h.items_of(Closed) == [Closed("error")]


def test_T13_stakes_that_cannot_be_escrowed_make_the_round_wait() -> None:
    h = Harness("tdc", seats=3, stake=10, turn_seconds=30)
    h.join("alice", "bob")
    h.refuse(OpenRound, BadAmount("the store is busy"))
    h.join("carol")  # the match starts, but its first round's stakes are refused
    assert h.events("alice", "dealt") == [] and h.table.match.round == 0
    assert h.ledger.escrowed() == 0 and all(h.balance(k) == 1000 for k in P3)
    assert h.table.wake == h.clock.now + h.settings.round_pause
    h.tick_wake()
    assert len(h.events("alice", "dealt")) == 1 and h.ledger.escrowed() == 30
    assert [e.round_id for e in h.effects_of(OpenRound)] == ["t1-u1-1", "t1-u1-1"]


def test_S3_S7_S9_a_deal_voided_at_shutdown_gives_back_every_chip_it_moved() -> None:
    h = Harness("speculation", seats=3, turn_seconds=60)
    owner, bidder, other = _speculation(h)
    assert all(h.balance(k) < 1000 for k in P3)  # the antes are in the pool
    h.ok(bidder, "bid", amount=7)
    h.ok(owner, "sell")
    offer = h.ok(bidder, "offer", to=h.seat(other), cards=2, price=4)["offer"]
    h.ok(other, "accept", offer=offer)
    assert h.balance(owner) != 1000 and len(h.ledger.transfers) == 2
    h.shutdown()
    assert h.closed == "shutdown"
    assert [v.round_id for v in h.effects_of(RefundRound)] == ["t1-u1-1"]
    # the antes, the sale and the trade: all undone
    assert {k: h.balance(k) for k in P3} == dict.fromkeys(P3, 1000)
    assert h.ledger.escrowed() == 0 and all(t.undone for t in h.ledger.transfers)
    assert sorted(h.released) == sorted(P3) and len(h.claims) == 0
    assert h.events("alice", "room_closed")[0]["reason"] == "shutdown"


def test_T13_a_tdc_round_voided_at_shutdown_gives_the_stakes_back() -> None:
    h = Harness("tdc", seats=3, stake=10, turn_seconds=30)
    h.join(*P3)
    h.run(lambda: len(h.table.log) > 5, act=simple_president(P3))
    assert h.ledger.escrowed() == 30
    h.shutdown()
    assert {k: h.balance(k) for k in P3} == dict.fromkeys(P3, 1000) and h.ledger.escrowed() == 0
    assert h.effects_of(SettleRound) == []


def test_a_bot_the_house_cannot_fund_leaves_its_seat_free_and_the_join_stands() -> None:
    h = Harness("tdc", seats=3, bots=2, stake=2)
    h.refuse(FundBot, InsufficientChips("the house is empty"))
    h.ok("alice", "join")
    assert h.table.seat_of("alice") == 0 and h.claims.holder("alice") == "t1"
    # no bot could sit: the table waits for players (or bots, at the next join)
    assert h.table.match is None and h.table.seats[2].bot is None
    h.join("bob")
    bots = [s.index for s in h.table.seats if s.bot is not None]
    assert len(bots) == 1 and h.table.match is not None  # the next join seated the bot, the match started


def test_S3_antes_the_store_refuses_void_the_deal_and_close_the_table_with_every_chip_home() -> None:
    h = Harness("speculation", seats=3, turn_seconds=60)
    h.join("alice", "bob")
    h.refuse(OpenRound, InsufficientChips("the store says no"))
    h.join("carol")  # the match starts; its first deal's antes are refused
    assert h.closed == "error"
    assert h.table.log == [] and h.events("alice", "dealt") == []  # the deal was undone
    assert {k: h.balance(k) for k in P3} == dict.fromkeys(P3, 1000) and h.ledger.escrowed() == 0
    assert sorted(h.released) == sorted(P3) and len(h.claims) == 0 and h.where == {}


def test_a_round_the_history_cannot_record_is_played_on() -> None:
    h = Harness("classic", seats=3, rounds=2)
    h.refuse(Record, RuntimeError("history is down"))
    h.join(*P3)
    h.run(lambda: h.table.status == "over", act=simple_president(P3))
    assert len(h.events("alice", "round_over")) == 2
    assert [r.record.result.get("round") for r in h.effects_of(Record)] == [1, 2, None]  # None: the match
    assert [r.result.get("round") for r in h.ledger.records] == [2, None]  # only the first failed
