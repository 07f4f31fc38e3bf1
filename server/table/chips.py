"""The chips of a table's open round: its escrow, who staked it, and the store's operations that move them.

A staked round's stakes (T13) and Speculation's antes (S3) go into an escrow keyed by the
round's id (:class:`~server.storage.api.OpenRound`), paid out from the round's end
(:class:`~server.storage.api.SettleRound`, T13, S10); sale and trade prices are transfers of
the round (:class:`~server.storage.api.Transfer`, S7, S9), an open offer's price is held
(:class:`~server.storage.api.Hold`). A round that will not finish is voided
(:class:`~server.storage.api.RefundRound`): every chip movement of it undone.

The game adapter says, in seat terms, which engine events move chips (``adapter.money``);
:meth:`RoundChips.moves` turns them into the store's operations, on each seat's account.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

from engine.api import Event
from server.games.base import GameAdapter, Payment, Payout, Reserve, RoundMoney, Stakes, Unreserve
from server.storage.api import Hold, OpenRound, ReleaseHold, SettleRound, Transfer
from server.table.seats import Seat

Moves = Generator[OpenRound | SettleRound | Transfer | Hold | ReleaseHold, object, None]


class RoundChips:
    """The open round's id and escrow, by seat (see the module's documentation)."""

    __slots__ = ("_adapter", "_seats", "_stake", "_table", "escrow", "round_id", "stakes", "start")

    def __init__(self, table: str, adapter: GameAdapter, seats: Sequence[Seat], stake: int) -> None:
        self._table = table
        self._adapter = adapter
        self._seats = seats
        self._stake = stake
        self.round_id: str | None = None  # open escrow (a staked round, a deal)
        self.stakes: dict[int, str] = {}  # seat -> account that staked this round
        self.escrow: dict[int, int] = {}  # seat -> chips it has in the round's escrow
        self.start: tuple[int, ...] = ()  # each seat's chips when the round began

    def account(self, seat: int) -> str:
        """The ledger account of a seat: who sits there, or who staked it in this round."""
        account = self._seats[seat].account or self.stakes.get(seat)
        if account is None:
            raise RuntimeError(f"seat {seat} has no account")
        return account

    def forget(self) -> str | None:
        """The round ends (settled, or to be voided): its id, if one was open."""
        round_id, self.round_id = self.round_id, None
        self.stakes, self.escrow = {}, {}
        return round_id

    def staked(self, present: Sequence[int], stake: int) -> None:
        """``present`` staked ``stake`` each in the round's escrow."""
        self.stakes = {s: self.account(s) for s in present}
        self.escrow = dict.fromkeys(present, stake)

    def staked_bots(self) -> set[str]:
        """The funded bots whose chips are in the open round (they stay until it settles)."""
        if self.round_id is None:
            return set()
        return {s.bot_display for s in self._seats if s.bot_display and s.index in self.stakes}

    def moves(self, events: Sequence[Event]) -> Moves:
        """The store's operations for the chips these events move, in order; each yielded and performed
        before the next (raises what the store refused)."""
        money = self._adapter.money
        now = RoundMoney(self._stake, list(self.stakes))
        for move in [m for ev in events for m in money(ev, now)]:
            if isinstance(move, Stakes):
                self.stakes = {s: self.account(s) for s in _ante_seats(events)}
                self.escrow = dict(move.amounts)
                if move.amounts and self.round_id is not None:
                    yield OpenRound(self.round_id, {self.account(s): a for s, a in move.amounts.items()},
                                    table=self._table)
            elif isinstance(move, Payout):
                assert self.round_id is not None
                payouts: dict[str, int] = {}
                for s, amount in move.amounts.items():
                    account = self.account(s)
                    payouts[account] = payouts.get(account, 0) + amount
                yield SettleRound(self.round_id, payouts)
                self.stakes, self.escrow = {}, {}
            elif isinstance(move, Payment):
                hold = None if move.reserved is None else f"{self.round_id}-{move.reserved}"
                yield Transfer(self.account(move.payer), self.account(move.payee), move.amount, move.reason,
                               round_id=self.round_id, hold_id=hold)
            elif isinstance(move, Reserve):
                yield Hold(f"{self.round_id}-{move.key}", self.account(move.seat), move.amount,
                           round_id=self.round_id)
            elif isinstance(move, Unreserve):
                yield ReleaseHold(f"{self.round_id}-{move.key}")


def _ante_seats(events: Sequence[Event]) -> list[int]:
    for ev in events:
        if ev.name == "ante":
            return [p["seat"] for p in ev.to_dict()["payments"]]
    return []
