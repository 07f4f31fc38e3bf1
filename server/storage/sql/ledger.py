"""The ledger operations of ``apply``: rounds, round-scoped transfers, holds, bots.

Every function here runs in the database thread inside the caller's
transaction (one ``apply`` = one savepoint) and either does all of its work
or raises a :class:`~server.storage.api.StorageError`, which undoes the whole
``apply``. Balances are checked after the movement (``available >= 0``),
never read then written by the caller.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from server.storage import names as _names
from server.storage.api import (
    BOT_PREFIX,
    Account,
    BadAmount,
    BadName,
    Fence,
    FundBot,
    Hold,
    InsufficientChips,
    Op,
    OpenRound,
    OpResult,
    RefundRound,
    ReleaseBot,
    ReleaseHold,
    RoundNotOpen,
    RoundOpened,
    SettleRound,
    TableClosed,
    TableLog,
    TableOpened,
    TournamentLog,
    TournamentOpened,
    TournamentTable,
    Transfer,
    UnknownHold,
    UnknownRound,
    bot_account,
    table_bots,
)
from server.storage.sql import tables as _tables
from server.storage.sql import tournaments as _tournaments
from server.storage.sql.accounts import available, create, find, lock, move, require
from server.storage.sql.tx import Row, Tx, hook
from server.storage.sql.values import integer, text, text_or_none

log = logging.getLogger("donne.storage")


def positive(amount: object, what: str) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise BadAmount(f"{what} must be a positive whole number of chips, not {amount!r}")
    return amount


def _ident(value: object, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 200:
        raise BadAmount(f"{what} must be a non-empty string of at most 200 characters, not {value!r}")
    return value


def check(op: Op) -> None:
    """What can be refused without the database (bad amounts, bad ids): before any transaction."""
    if isinstance(op, OpenRound):
        _ident(op.round_id, "a round id")
        if not isinstance(op.stakes, Mapping):
            raise BadAmount("stakes must map names to chips")
        for amount in op.stakes.values():
            positive(amount, "a stake")
        if op.table is not None:
            _ident(op.table, "a table id")
    elif isinstance(op, SettleRound):
        _ident(op.round_id, "a round id")
        if not isinstance(op.payouts, Mapping):
            raise BadAmount("payouts must map names to chips")
        for amount in op.payouts.values():
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise BadAmount(f"a payout must be a whole number >= 0, not {amount!r}")
    elif isinstance(op, RefundRound):
        _ident(op.round_id, "a round id")
    elif isinstance(op, Transfer):
        positive(op.amount, "a transfer")
        if op.round_id is not None:
            _ident(op.round_id, "a round id")
        if op.hold_id is not None:
            _ident(op.hold_id, "a hold id")
    elif isinstance(op, Hold):
        _ident(op.hold_id, "a hold id")
        positive(op.amount, "a hold")
        if op.round_id is not None:
            _ident(op.round_id, "a round id")
    elif isinstance(op, ReleaseHold):
        _ident(op.hold_id, "a hold id")
    elif isinstance(op, FundBot) and (isinstance(op.chips, bool) or not isinstance(op.chips, int) or op.chips < 0):
        raise BadAmount(f"bot chips must be a whole number >= 0, not {op.chips!r}")


def _short(tx: Tx, row: Row, amount: int, what: str) -> InsufficientChips:
    free = available(tx, integer(row["id"])) + amount
    name = text(row["name"])
    return InsufficientChips(f"{name} has {free} chips available, {what} needs {amount}", account=name)


def _insist_available(tx: Tx, row: Row, amount: int, what: str) -> None:
    """After a debit: the account must still have ``available >= 0``."""
    if available(tx, integer(row["id"])) < 0:
        raise _short(tx, row, amount, what)


def open_round(tx: Tx, op: OpenRound) -> RoundOpened:
    round_id = op.round_id
    if tx.one("SELECT 1 FROM rounds WHERE round_id = ?", (round_id,)) is not None:
        raise BadAmount(f"round {round_id} was already opened")
    wanted: list[tuple[str, int, int]] = []  # name as given, account id, stake
    seen: set[int] = set()
    for name, amount in op.stakes.items():
        account_id = integer(require(tx, name)["id"])
        if account_id in seen:
            raise BadAmount(f"{name!r} appears twice in round {round_id}")
        seen.add(account_id)
        wanted.append((name, account_id, amount))
    rows = lock(tx, seen)
    covered: list[tuple[str, int, int]] = []
    short: list[str] = []
    # An account may be staked in several unsettled rounds: a seat its person left is played to its
    # round's end by a bot on their stake while they sit elsewhere (the seat claims keep one seat per
    # person). Each stake is its own escrow, paid from the available chips: nothing is counted twice.
    for name, account_id, amount in wanted:
        if available(tx, account_id, integer(rows[account_id]["balance"])) < amount:
            short.append(name)
        else:
            covered.append((name, account_id, amount))
    if not op.partial and short:
        raise InsufficientChips(f"not enough chips: {', '.join(short)}", names=short)
    escrow = sum(amount for _, _, amount in covered)
    tx.execute(
        "INSERT INTO rounds (round_id, state, escrow, opened, table_id) VALUES (?, 'open', ?, ?, ?)",
        (round_id, escrow, tx.now(), op.table),
    )
    for i, (_, account_id, amount) in enumerate(covered):
        tx.execute("INSERT INTO stakes (round_id, account_id, amount) VALUES (?, ?, ?)", (round_id, account_id, amount))
        move(tx, account_id, -amount, "stake", round_id=round_id)
        if i == 0:
            hook("open_round.after_first_stake")
    tx.bump(escrow=escrow)
    names = tuple(name for name, _, _ in covered)
    return RoundOpened(
        round_id=round_id,
        covered=names,
        skipped=tuple(name for name, _, _ in wanted if name not in names),
        escrow=escrow,
    )


def _round(tx: Tx, round_id: str) -> Row:
    """The round's row, locked: two settlements of one round wait for each other."""
    rnd = tx.one("SELECT * FROM rounds WHERE round_id = ?" + tx.lock, (round_id,))
    if rnd is None:
        raise UnknownRound(f"no round {round_id}")
    return rnd


def _release_round_holds(tx: Tx, round_id: str) -> None:
    holds = tx.all("SELECT hold_id, account_id, amount FROM holds WHERE round_id = ?", (round_id,))
    if holds:
        lock(tx, {integer(h["account_id"]) for h in holds})
    for h in holds:
        tx.execute("DELETE FROM holds WHERE hold_id = ?", (h["hold_id"],))
        tx.bump(held=-integer(h["amount"]))
        tx.credited.add(integer(h["account_id"]))  # a gone guest's freed chips are retired


def settle_round(tx: Tx, op: SettleRound) -> bool:
    round_id = op.round_id
    rnd = _round(tx, round_id)
    if rnd["state"] != "open":
        return False
    total = sum(op.payouts.values())
    if total != integer(rnd["escrow"]):
        raise BadAmount(f"payouts of round {round_id} add up to {total}, the escrow holds {rnd['escrow']!s}")
    payers = {
        r["key"]: integer(r["id"])
        for r in tx.rows(
            "SELECT a.key, a.id FROM stakes s JOIN accounts a ON a.id = s.account_id WHERE s.round_id = ?", (round_id,)
        )
    }
    targets: list[tuple[int, int]] = []
    for name, amount in op.payouts.items():
        account_id = payers.get(_names.name_key(name))
        if account_id is None:
            account_id = integer(require(tx, name)["id"])
        targets.append((account_id, amount))
    _release_round_holds(tx, round_id)
    first = True
    for account_id, amount in targets:
        if amount == 0:
            continue
        move(tx, account_id, amount, "payout", round_id=round_id)
        if first:
            hook("settle_round.after_first_payout")
            first = False
    for r in tx.rows("SELECT account_id FROM round_flows WHERE round_id = ? AND net > 0", (round_id,)):
        tx.credited.add(integer(r[0]))  # their receipts are theirs now: a gone guest's are retired
    tx.execute("DELETE FROM round_flows WHERE round_id = ?", (round_id,))
    tx.execute("UPDATE rounds SET state = 'settled', closed = ? WHERE round_id = ?", (tx.now(), round_id))
    tx.bump(escrow=-integer(rnd["escrow"]))
    return True


def void_round(tx: Tx, round_id: str) -> bool:
    """Stakes back, round-scoped transfers reversed, holds released: as before the round."""
    rnd = _round(tx, round_id)
    if rnd["state"] != "open":
        return False
    _release_round_holds(tx, round_id)
    stakes = tx.all("SELECT account_id, amount FROM stakes WHERE round_id = ?", (round_id,))
    # What each account gained or lost through the round's transfers (and earlier reversals).
    nets = {
        integer(r[0]): integer(r[1])
        for r in tx.rows(
            """SELECT account_id, SUM(delta) FROM entries
               WHERE round_id = ? AND kind IN ('transfer', 'reverse') GROUP BY account_id""",
            (round_id,),
        )
    }
    lock(tx, {integer(s["account_id"]) for s in stakes} | set(nets))
    for s in stakes:
        move(tx, integer(s["account_id"]), integer(s["amount"]), "refund", round_id=round_id)
    # Credits before debits: no balance dips below zero on the way.
    for account_id, net in sorted(nets.items(), key=lambda kv: (kv[1] > 0, kv[0])):
        if net:
            move(tx, account_id, -net, "reverse", round_id=round_id, note="void")
    tx.execute("DELETE FROM round_flows WHERE round_id = ?", (round_id,))
    tx.execute("UPDATE rounds SET state = 'refunded', closed = ? WHERE round_id = ?", (tx.now(), round_id))
    tx.bump(escrow=-integer(rnd["escrow"]))
    return True


def refund_round(tx: Tx, op: RefundRound) -> bool:
    return void_round(tx, op.round_id)


def _open_round_row(tx: Tx, round_id: str) -> Row:
    rnd = tx.one("SELECT state FROM rounds WHERE round_id = ?", (round_id,))
    if rnd is None:
        raise UnknownRound(f"no round {round_id}")
    if rnd["state"] != "open":
        raise RoundNotOpen(f"round {round_id} is {rnd['state']!s}")
    return rnd


def _flow(tx: Tx, round_id: str, account_id: int, delta: int) -> None:
    tx.execute(
        """INSERT INTO round_flows (round_id, account_id, net) VALUES (?, ?, ?)
           ON CONFLICT (round_id, account_id) DO UPDATE SET net = round_flows.net + excluded.net""",
        (round_id, account_id, delta),
    )


def transfer(tx: Tx, op: Transfer) -> None:
    a = require(tx, op.src)
    b = require(tx, op.dst)
    if a["id"] == b["id"]:
        raise BadAmount("a transfer needs two different accounts")
    rows = lock(tx, {integer(a["id"]), integer(b["id"])})
    a = rows[integer(a["id"])]
    round_id = op.round_id
    if op.hold_id is not None:
        h = tx.one("SELECT * FROM holds WHERE hold_id = ?" + tx.lock, (op.hold_id,))
        if h is None:
            raise UnknownHold(f"no hold {op.hold_id}")
        if integer(h["account_id"]) != integer(a["id"]):
            raise BadAmount(f"hold {op.hold_id} is not {a['name']!s}'s")
        if op.amount > integer(h["amount"]):
            raise BadAmount(f"hold {op.hold_id} reserves {h['amount']!s} chips, not {op.amount}")
        held_for = text_or_none(h["round_id"])
        if held_for is not None:
            if round_id is not None and round_id != held_for:
                raise BadAmount(f"hold {op.hold_id} belongs to round {held_for}, not {round_id}")
            round_id = held_for
        tx.execute("DELETE FROM holds WHERE hold_id = ?", (op.hold_id,))
        tx.bump(held=-integer(h["amount"]))
    if round_id is not None:
        _open_round_row(tx, round_id)
    if integer(a["balance"]) < op.amount:
        raise _short(tx, a, op.amount, "a transfer")
    note = str(op.reason)[:200]
    move(tx, integer(a["id"]), -op.amount, "transfer", round_id=round_id, ref=str(op.ref)[:200], note=note)
    move(tx, integer(b["id"]), op.amount, "transfer", round_id=round_id, ref=str(op.ref)[:200], note=note)
    if round_id is not None:
        _flow(tx, round_id, integer(a["id"]), -op.amount)
        _flow(tx, round_id, integer(b["id"]), op.amount)
    _insist_available(tx, a, op.amount, "a transfer")


def hold(tx: Tx, op: Hold) -> None:
    row = require(tx, op.account)
    row = lock(tx, [integer(row["id"])])[integer(row["id"])]
    if tx.one("SELECT 1 FROM holds WHERE hold_id = ?", (op.hold_id,)) is not None:
        raise BadAmount(f"hold {op.hold_id} exists already")
    if op.round_id is not None:
        _open_round_row(tx, op.round_id)
    tx.execute(
        "INSERT INTO holds (hold_id, account_id, amount, round_id, created) VALUES (?, ?, ?, ?, ?)",
        (op.hold_id, row["id"], op.amount, op.round_id, tx.now()),
    )
    tx.bump(held=op.amount)
    _insist_available(tx, row, op.amount, "a hold")


def release_hold(tx: Tx, op: ReleaseHold) -> bool:
    h = tx.one("SELECT * FROM holds WHERE hold_id = ?", (op.hold_id,))
    if h is None:
        return False
    lock(tx, [integer(h["account_id"])])
    tx.execute("DELETE FROM holds WHERE hold_id = ?", (op.hold_id,))
    tx.bump(held=-integer(h["amount"]))
    tx.credited.add(integer(h["account_id"]))  # a gone guest's freed chips are retired
    return True


def fund_bot(tx: Tx, op: FundBot) -> Account:
    settings = tx.settings
    name = bot_account(op.display)
    if name == settings.house_account or not op.display or not isinstance(op.display, str):
        raise BadName(f"{op.display!r} cannot be a bot's name")
    row = find(tx, name)
    account_id = create(tx, name, "bot") if row is None else integer(row["id"])
    house_id = integer(require(tx, settings.house_account)["id"])
    rows = lock(tx, {account_id, house_id})
    balance = integer(rows[account_id]["balance"])
    need = op.chips - balance
    if need > 0:
        house_free = available(tx, house_id, integer(rows[house_id]["balance"]))
        if house_free < need:
            if not settings.house_topup:
                raise InsufficientChips(
                    f"the house has {house_free} chips, a bot needs {need}", account=settings.house_account
                )
            # The bankroll ran dry (bots lost a lot): new chips, granted and audited like any.
            extra = max(need - house_free, settings.house_chips)
            move(tx, house_id, extra, "grant", note="house top-up")
            log.warning("house bankroll topped up with %d chips", extra)
        move(tx, house_id, -need, "transfer", ref=name, note="bot_fund")
        move(tx, account_id, need, "transfer", ref=name, note="bot_fund")
    elif need < 0:
        back = min(-need, available(tx, account_id, balance))
        if back > 0:
            move(tx, account_id, -back, "transfer", ref=name, note="bot_fund")
            move(tx, house_id, back, "transfer", ref=name, note="bot_fund")
        balance -= back
        return Account(name=name, guest=False, chips=balance)
    return Account(name=name, guest=False, chips=op.chips)


def release_bot(tx: Tx, op: ReleaseBot) -> int:
    settings = tx.settings
    name = bot_account(op.display)
    row = find(tx, name)
    if row is None or row["kind"] != "bot" or integer(row["balance"]) == 0:
        return 0
    house_id = integer(require(tx, settings.house_account)["id"])
    rows = lock(tx, {integer(row["id"]), house_id})
    amount = available(tx, integer(row["id"]), integer(rows[integer(row["id"])]["balance"]))
    if amount <= 0:
        return 0
    move(tx, integer(row["id"]), -amount, "transfer", ref=name, note="bot_release")
    move(tx, house_id, amount, "transfer", ref=name, note="bot_release")
    return amount


def open_tables(tx: Tx) -> set[str]:
    """The tables neither over nor set aside (they resume at start)."""
    return {str(r[0]) for r in tx.rows("SELECT table_id FROM tables WHERE status = 'open'")}


def kept_rounds(tx: Tx, tables: set[str]) -> set[str]:
    """The unsettled rounds of these tables."""
    if not tables:
        return set()
    return {str(r[0]) for r in tx.rows("SELECT round_id, table_id FROM rounds WHERE state = 'open'")
            if r[1] in tables}


def refund_unsettled(tx: Tx, keep: set[str] | None = None) -> list[str]:
    """Void every unsettled round (start-up), oldest first; but those in ``keep`` (they resume)."""
    keep = keep or set()
    ids = [text(r[0]) for r in tx.rows("SELECT round_id FROM rounds WHERE state = 'open' ORDER BY opened, round_id")]
    ids = [round_id for round_id in ids if round_id not in keep]
    for round_id in ids:
        void_round(tx, round_id)
    return ids


def release_all_holds(tx: Tx, keep: set[str] | None = None) -> int:
    """Release every hold (start-up); but the holds of the rounds in ``keep`` (open offers that resume)."""
    keep = keep or set()
    holds = [h for h in tx.all("SELECT hold_id, account_id, amount, round_id FROM holds") if h["round_id"] not in keep]
    if holds:
        lock(tx, {integer(h["account_id"]) for h in holds})
    for h in holds:
        tx.execute("DELETE FROM holds WHERE hold_id = ?", (h["hold_id"],))
        tx.bump(held=-integer(h["amount"]))
        tx.credited.add(integer(h["account_id"]))
    return len(holds)


def release_table_bots(tx: Tx, table_id: str) -> int:
    """The chips of a table's bots (``table_bots(table_id)``) back to the house; how many bots."""
    prefix = table_bots(table_id)
    n = 0
    for row in tx.all("SELECT name FROM accounts WHERE live = 1 AND kind = 'bot' AND balance > 0"):
        if str(row["name"]).startswith(prefix):
            n += bool(release_bot(tx, ReleaseBot(str(row["name"])[len(BOT_PREFIX):])))
    return n


def set_aside(tx: Tx, table_id: str) -> list[str]:
    """A table that will not resume: its unsettled rounds voided (every chip movement undone, holds
    released) and its bots' chips sent home. The voided rounds, oldest first."""
    ids = [text(r[0]) for r in tx.rows(
        "SELECT round_id FROM rounds WHERE state = 'open' AND table_id = ? ORDER BY opened, round_id", (table_id,))]
    for round_id in ids:
        void_round(tx, round_id)
    release_table_bots(tx, table_id)
    return ids


def grant(tx: Tx, name: str, amount: int, reason: str) -> None:
    row = require(tx, name)
    lock(tx, [integer(row["id"])])
    move(tx, integer(row["id"]), amount, "grant", note=str(reason)[:200])


def run_one(tx: Tx, op: Op) -> OpResult:
    """One operation, by its kind (a table's log first: most of the writes)."""
    if isinstance(op, TableLog):
        return _tables.table_log(tx, op)
    if isinstance(op, OpenRound):
        return open_round(tx, op)
    if isinstance(op, SettleRound):
        return settle_round(tx, op)
    if isinstance(op, RefundRound):
        return refund_round(tx, op)
    if isinstance(op, Transfer):
        transfer(tx, op)
        return None
    if isinstance(op, Hold):
        hold(tx, op)
        return None
    if isinstance(op, ReleaseHold):
        return release_hold(tx, op)
    if isinstance(op, FundBot):
        return fund_bot(tx, op)
    if isinstance(op, ReleaseBot):
        return release_bot(tx, op)
    if isinstance(op, TableOpened):
        _tables.table_opened(tx, op)
        return None
    if isinstance(op, TableClosed):
        return _tables.table_closed(tx, op)
    if isinstance(op, Fence):
        return _tables.fence(tx, op)
    if isinstance(op, TournamentOpened):
        _tournaments.opened(tx, op)
        return None
    if isinstance(op, TournamentLog):
        return _tournaments.logged(tx, op)
    if isinstance(op, TournamentTable):
        _tournaments.linked(tx, op)
        return None
    return _tournaments.closed(tx, op)


def run(tx: Tx, ops: Sequence[Op]) -> list[OpResult]:
    """Every operation in order, in the caller's savepoint: all of them, or a raise."""
    out: list[OpResult] = []
    for op in ops:
        out.append(run_one(tx, op))
        if isinstance(op, TableClosed) and op.status == "aside" and out[-1]:
            voided = set_aside(tx, op.table_id)  # a table that will not resume gives its chips back
            if voided:
                log.warning("table %s set aside: round(s) %s voided", op.table_id, voided)
    return out
