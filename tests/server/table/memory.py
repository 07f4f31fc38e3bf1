"""The server's side of a table in memory, for the table's tests: chips with the store's semantics
(:class:`Ledger`), and what the room's effects reach (:class:`MemoryOwner`: the store, the seat
claims, the bots' thinking)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.rooms.claims import SeatClaims
from server.storage.api import (
    HOUSE,
    Account,
    BadAmount,
    FundBot,
    Hold,
    InsufficientChips,
    NoSuchAccount,
    OpenRound,
    RefundRound,
    ReleaseBot,
    ReleaseHold,
    RoundOpened,
    RoundRecord,
    SettleRound,
    TableClosed,
    TableLog,
    TableOpened,
    Transfer,
    UnknownRound,
    bot_account,
)
from server.table import Balance, Claim, Effect, Record, Think


@dataclass
class Moved:
    src: str
    dst: str
    amount: int
    reason: str
    round_id: str
    undone: bool = False


@dataclass
class RoundBook:
    """One round's escrow in the ledger."""

    stakes: dict[str, int]
    state: str = "open"  # open | settled | voided
    payouts: dict[str, int] | None = None


class Ledger:
    """Chips in memory, with the storage contract of ``server.storage.api.Ledger`` (SQLite's semantics).

    ``void`` undoes every chip movement of a round: its escrow goes back to the payers and its
    transfers are reversed (``server.table.io.Void``).
    """

    def __init__(self, balances: Mapping[str, int] | None = None, *, house: int = 1_000_000) -> None:
        self.balances: dict[str, int] = {HOUSE: house, **dict(balances or {})}
        self.expected = sum(self.balances.values())  # every chip granted: what total() must stay
        self.rounds: dict[str, RoundBook] = {}
        self.transfers: list[Moved] = []
        self.settle_calls: dict[str, int] = defaultdict(int)
        self.void_calls: dict[str, int] = defaultdict(int)
        self.records: list[RoundRecord] = []
        self.bots_funded: dict[str, int] = defaultdict(int)
        self.bots_released: dict[str, int] = defaultdict(int)
        self.holds: dict[str, tuple[str, int, str]] = {}  # hold id -> (account, amount, round id)

    def grant(self, account: str, chips: int) -> None:
        """A new account with ``chips`` (new chips, counted in ``expected``)."""
        assert account not in self.balances
        self.balances[account] = chips
        self.expected += chips

    # reading ---------------------------------------------------------------------------------

    def balance(self, account: str) -> int:
        if account not in self.balances:
            raise NoSuchAccount(account)
        return self.balances[account]

    def available(self, account: str) -> int:
        """The chips an account may stake, pay or hold: its balance less what it holds."""
        return self.balance(account) - sum(n for a, n, _ in self.holds.values() if a == account)

    def escrowed(self) -> int:
        return sum(sum(b.stakes.values()) for b in self.rounds.values() if b.state == "open")

    def total(self) -> int:
        """Every chip there is: balances + open escrows (invariant 4)."""
        return sum(self.balances.values()) + self.escrowed()

    def open_rounds(self) -> list[str]:
        return [r for r, b in self.rounds.items() if b.state == "open"]

    def round_transfers(self, round_id: str) -> list[Moved]:
        return [t for t in self.transfers if t.round_id == round_id]

    # the operations ------------------------------------------------------------------------------

    def _move(self, account: str, delta: int) -> None:
        self.balances[account] = self.balance(account) + delta
        assert self.balances[account] >= 0, f"{account} would go below zero"

    def escrow(self, round_id: str, stakes: Mapping[str, int], partial: bool) -> list[str]:
        """``Escrow`` as ``Room._perform`` does it (``partial``: only those who can cover)."""
        wanted = dict(stakes)
        if partial:
            wanted = {a: n for a, n in wanted.items() if self.available(a) >= n}
        if not wanted:
            return []
        if round_id in self.rounds:
            raise BadAmount(f"round {round_id} was already opened")
        if any(n <= 0 for n in wanted.values()):
            raise BadAmount("a stake must be positive")
        short = [a for a, n in wanted.items() if self.available(a) < n]
        if short:
            raise InsufficientChips(f"not enough chips: {short}")
        for account, amount in wanted.items():
            self._move(account, -amount)
        self.rounds[round_id] = RoundBook(wanted)
        return list(wanted)

    def settle(self, round_id: str, payouts: Mapping[str, int]) -> bool:
        self.settle_calls[round_id] += 1
        book = self.rounds.get(round_id)
        if book is None:
            raise UnknownRound(round_id)
        if book.state != "open":
            return False
        if any(n < 0 for n in payouts.values()) or sum(payouts.values()) != sum(book.stakes.values()):
            raise BadAmount(f"payouts {dict(payouts)} do not add up to the escrow {book.stakes}")
        for account, amount in payouts.items():
            self._move(account, amount)
        book.state, book.payouts = "settled", dict(payouts)
        self._release_round_holds(round_id)
        return True

    def hold(self, hold_id: str, account: str, amount: int, round_id: str) -> None:
        if amount <= 0 or hold_id in self.holds:
            raise BadAmount("a hold sets a positive amount aside, once")
        if self.available(account) < amount:
            raise InsufficientChips(f"{account} has {self.available(account)} chips free, not {amount}")
        self.holds[hold_id] = (account, amount, round_id)

    def release(self, hold_id: str) -> bool:
        return self.holds.pop(hold_id, None) is not None

    def _release_round_holds(self, round_id: str) -> None:
        for hold_id in [h for h, (_, _, r) in self.holds.items() if r == round_id]:
            del self.holds[hold_id]

    def transfer(self, src: str, dst: str, amount: int, reason: str, round_id: str,
                 hold_id: str | None = None) -> None:
        if amount <= 0 or src == dst:
            raise BadAmount("a transfer moves a positive amount between two accounts")
        if hold_id is not None:
            held = self.holds.get(hold_id)
            if held is None or held[0] != src or held[1] < amount:
                raise InsufficientChips(f"no hold {hold_id} of {src} for {amount}")
            del self.holds[hold_id]
        if self.available(src) < amount:
            raise InsufficientChips(f"{src} has {self.balances[src]} chips, not {amount}")
        self.balance(dst)
        self._move(src, -amount)
        self._move(dst, amount)
        self.transfers.append(Moved(src, dst, amount, reason, round_id))

    def void(self, round_id: str) -> bool:
        """Every chip movement of the round undone: transfers reversed, escrow refunded."""
        self.void_calls[round_id] += 1
        book = self.rounds.get(round_id)
        if book is not None and book.state != "open":
            return False
        undone = False
        for t in reversed(self.round_transfers(round_id)):
            if not t.undone:
                self._move(t.dst, -t.amount)
                self._move(t.src, t.amount)
                t.undone = undone = True
        if book is not None:
            for account, amount in book.stakes.items():
                self._move(account, amount)
            book.state = "voided"
            undone = True
        self._release_round_holds(round_id)
        return undone

    def fund_bot(self, display: str, chips: int) -> str:
        """The bot's account topped up from the house to ``chips`` (its surplus goes back)."""
        account = bot_account(display)
        have = self.balances.setdefault(account, 0)
        need = chips - have
        if need > self.balances[HOUSE]:
            raise InsufficientChips(f"the house cannot fund {need} chips")
        self._move(HOUSE, -need)
        self._move(account, need)
        self.bots_funded[display] += 1
        return account

    def release_bot(self, display: str) -> int:
        account = bot_account(display)
        amount = self.balances.get(account, 0)
        if amount:
            self._move(account, -amount)
            self._move(HOUSE, amount)
        self.bots_released[display] += 1
        return amount



# -- what the room's effects reach ------------------------------------------------------------------


class MemoryOwner:
    """What the room's effects (:class:`server.rooms.effects.Effects`) reach, in memory: the store (the
    :class:`Ledger`, the history), the seat claims and the bots' thinking (``think``). Each effect
    that reaches it is told to ``asked`` first, which may refuse it by raising."""

    def __init__(self, ledger: Ledger, claims: SeatClaims, asked: Callable[[Effect], None],
                 think: Callable[[Think], Any]) -> None:
        self.ledger_ = ledger
        self.claims = claims
        self.asked = asked
        self.think = think
        self.logs: dict[str, list[Mapping[str, Any]]] = {}  # a durable table's log, as the room wrote it

    @property
    def store(self) -> MemoryOwner:
        return self

    @property
    def ledger(self) -> MemoryOwner:
        return self

    @property
    def history(self) -> MemoryOwner:
        return self

    @property
    def seats(self) -> MemoryOwner:
        return self

    @property
    def thinkers(self) -> MemoryOwner:
        return self

    async def apply(self, ops: Sequence[Any]) -> list[Any]:
        results = []
        for op in ops:
            if isinstance(op, TableOpened | TableLog | TableClosed):  # (the room's writes, not the table's asks)
                results.append(self._log(op))
                continue
            self.asked(op)
            results.append(self._op(op))
        return results

    def _log(self, op: TableOpened | TableLog | TableClosed) -> Any:
        if isinstance(op, TableOpened):
            self.logs.setdefault(op.table_id, [])
            return None
        if isinstance(op, TableLog):
            log = self.logs.setdefault(op.table_id, [])
            assert op.seq == len(log), f"a gap or an overlap in {op.table_id}'s log"
            log.extend(op.entries)
            return op.seq + len(op.entries)
        return True

    def log_ahead(self, op: Any) -> None:
        return None

    async def available(self, account: str) -> int:
        self.asked(Balance(account))
        return self.ledger_.available(account)

    async def record_round(self, record: RoundRecord, rated: Any = None, **_: Any) -> None:
        self.asked(Record(record))
        self.ledger_.records.append(record)

    def claim(self, account: str, table: str) -> str | None:
        self.asked(Claim(account, table))
        return self.claims.claim(account, table)

    def release(self, account: str, table: str) -> None:
        self.claims.release(account, table)

    async def decide(self, bot: Any, view: Any, legal: Sequence[Any]) -> Any:
        effect = Think(bot, view, legal)
        self.asked(effect)
        return self.think(effect)

    async def outage(self, exc: BaseException) -> bool:
        return False

    def acting(self, rid: str) -> bool:
        return True

    def lost(self, rid: str) -> bool:
        return False

    def fence(self, rid: str) -> None:
        return None

    def _op(self, op: Any) -> Any:
        """One operation of ``store.apply`` on the in-memory ledger."""
        ledger = self.ledger_
        if isinstance(op, OpenRound):
            try:
                covered = ledger.escrow(op.round_id, op.stakes, op.partial)
            except InsufficientChips:
                if not op.partial:
                    raise
                covered = []
            return RoundOpened(op.round_id, tuple(covered))
        if isinstance(op, SettleRound):
            return ledger.settle(op.round_id, op.payouts)
        if isinstance(op, Transfer):
            return ledger.transfer(op.src, op.dst, op.amount, op.reason, op.round_id or "", op.hold_id)
        if isinstance(op, Hold):
            return ledger.hold(op.hold_id, op.account, op.amount, op.round_id or "")
        if isinstance(op, ReleaseHold):
            return ledger.release(op.hold_id)
        if isinstance(op, RefundRound):
            return ledger.void(op.round_id)
        if isinstance(op, FundBot):
            return Account(ledger.fund_bot(op.display, op.chips), False, op.chips)
        if isinstance(op, ReleaseBot):
            return ledger.release_bot(op.display)
        raise TypeError(f"unknown operation {op!r}")


