"""The open round's chips (server/table/chips.py): the adapter's moves in seat terms become the
store's own operations on each seat's account, in order (T13, S3, S7, S9)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from server.games import ADAPTERS
from server.games.base import Money, Payment, Payout, Reserve, RoundMoney, Stakes, Unreserve
from server.storage.api import Hold, InsufficientChips, OpenRound, ReleaseHold, SettleRound, Transfer
from server.table.chips import RoundChips
from server.table.seats import Seat


@dataclass(frozen=True)
class Ev:
    name: str
    data: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, **self.data}

    def for_seat(self, seat: int | None) -> Ev:
        return self


class Scripted(type(ADAPTERS["classic"])):  # type: ignore[misc]
    """An adapter whose every event moves the chips given for its name."""

    def __init__(self, moves: Mapping[str, list[Money]]) -> None:
        self.moves = moves
        self.asked: list[RoundMoney] = []

    def money(self, event: Any, round_money: RoundMoney) -> list[Money]:
        self.asked.append(round_money)
        return list(self.moves.get(event.name, []))


def chips(moves: Mapping[str, list[Money]]) -> tuple[RoundChips, list[Seat]]:
    seats = [Seat(i, account=name) for i, name in enumerate(["ann", "bob", None])]
    return RoundChips("t9", Scripted(moves), seats, 5), seats


def run(gen: Any, results: Mapping[type, Any] | None = None) -> list[Any]:
    """Every operation the generator yields, each answered as ``results`` says (else None)."""
    out: list[Any] = []
    try:
        op = next(gen)
        while True:
            out.append(op)
            op = gen.send((results or {}).get(type(op)))
    except StopIteration:
        return out


def test_stakes_open_the_round_on_each_seats_account_and_payouts_settle_it() -> None:
    rc, seats = chips({"ante": [Stakes({0: 5, 1: 5})], "deal_over": [Payout({0: 10, 1: 0})]})
    rc.round_id = "t9-u1-1"
    ante = Ev("ante", {"payments": [{"seat": 0}, {"seat": 1}]})
    assert run(rc.moves((ante,))) == [OpenRound("t9-u1-1", {"ann": 5, "bob": 5}, table="t9")]
    assert rc.stakes == {0: "ann", 1: "bob"} and rc.escrow == {0: 5, 1: 5}
    seats[1].account = None  # bob left: his stake is still his (the round's account of the seat)
    assert run(rc.moves((Ev("deal_over", {}),))) == [SettleRound("t9-u1-1", {"ann": 10, "bob": 0})]
    assert rc.stakes == {} and rc.escrow == {}


def test_payments_holds_and_releases_belong_to_the_round() -> None:
    rc, _ = chips({"sold": [Reserve("o1", 1, 7), Payment(1, 0, 7, "sold", reserved="o1"), Unreserve("o2")]})
    rc.round_id = "t9-u1-2"
    assert run(rc.moves((Ev("sold", {}),))) == [
        Hold("t9-u1-2-o1", "bob", 7, round_id="t9-u1-2"),
        Transfer("bob", "ann", 7, "sold", round_id="t9-u1-2", hold_id="t9-u1-2-o1"),
        ReleaseHold("t9-u1-2-o2")]


def test_a_refusal_of_the_store_stops_the_moves_where_it_came() -> None:
    rc, _ = chips({"x": [Payment(0, 1, 3, "a"), Payment(0, 1, 4, "b")]})
    gen = rc.moves((Ev("x", {}),))
    assert next(gen) == Transfer("ann", "bob", 3, "a", round_id=None, hold_id=None)
    with pytest.raises(InsufficientChips):
        gen.throw(InsufficientChips("no"))


def test_the_adapter_is_told_the_stake_and_who_staked_and_a_seat_without_account_is_an_error() -> None:
    rc, _ = chips({"x": [Payment(2, 0, 1, "a")]})
    rc.stakes = {0: "ann"}
    with pytest.raises(RuntimeError):
        run(rc.moves((Ev("x", {}),)))
    assert rc._adapter.asked == [RoundMoney(5, [0])]  # type: ignore[attr-defined]


def test_forget_and_staked_bots() -> None:
    rc, seats = chips({})
    seats[2].bot_display, seats[2].account = "t9-u1-2", "bot:t9-u1-2"
    assert rc.staked_bots() == set()
    rc.round_id = "r"
    rc.staked([0, 2], 5)
    assert rc.stakes == {0: "ann", 2: "bot:t9-u1-2"} and rc.escrow == {0: 5, 2: 5}
    assert rc.staked_bots() == {"t9-u1-2"}
    assert rc.forget() == "r" and rc.round_id is None and rc.stakes == {} and rc.escrow == {}
