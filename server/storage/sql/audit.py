"""The audit: RULES invariant 4 (chips are never created or lost), and everything that would hide a breach.

:func:`audit` reads everything (an operator's tool: ``donne audit``);
:func:`summary` reads the maintained totals only (O(1): what players may ask).
Both run in one read transaction (a consistent snapshot).
"""

from __future__ import annotations

from server.storage.api import Audit, AuditSummary
from server.storage.sql.tx import Tx
from server.storage.sql.values import integer, number, text


def _totals(tx: Tx) -> dict[str, int]:
    row = tx.one(
        """SELECT SUM(balances), SUM(escrow), SUM(held), SUM(granted), SUM(retired) FROM ledger_totals"""
    )
    keys = ("balances", "escrow", "held", "granted", "retired")
    return {k: int(row[i] or 0) if row is not None else 0 for i, k in enumerate(keys)}


def summary(tx: Tx) -> AuditSummary:
    t = _totals(tx)
    problems: list[str] = []
    if t["balances"] + t["escrow"] != t["granted"] - t["retired"]:
        problems.append(
            f"balances {t['balances']} + escrow {t['escrow']} = {t['balances'] + t['escrow']}, "
            f"but granted {t['granted']} - retired {t['retired']} = {t['granted'] - t['retired']}"
        )
    if t["held"] < 0 or t["held"] > t["balances"]:
        problems.append(f"holds {t['held']} are not within the balances {t['balances']}")
    return AuditSummary(ok=not problems, problems=tuple(problems), **t)


STUCK_AFTER = 3600.0
"""Seconds: ``donne audit`` reports an open round older than this (its escrow may be stuck)."""


def audit(tx: Tx, stuck_after: float | None = None) -> Audit:
    """Invariant 4 on the ledger, checked every way a breach could hide.

    1. balances + open escrows == granted − retired;
    2. every balance equals the sum of its account's entries; none is negative;
    3. every open round's escrow equals its stakes and its stake entries; a settled
       round paid out exactly its escrow, a voided one refunded it; the entries of a
       finished round add up to zero, and for a voided round, per account (every
       round-scoped transfer reversed);
    4. (an account may be staked in several unsettled rounds: a seat its person left plays out);
    5. holds: within their accounts' balances, of open rounds, of live accounts; what
       unsettled rounds' transfers brought in is not spent elsewhere (available >= 0);
    6. the per-round receipts and the maintained totals agree with the entries;
    7. retire entries only negative, and only on guests or by an admin (``admin_chips``), whose
       grants and retirements are counted apart (``admin_granted``, ``admin_retired``).
    Tables set aside (with their reason) and unfinished tables are reported beside.
    ``stuck_after`` (seconds): an open round older than that is a problem too (its escrow stuck:
    a table that can no longer settle it), listed in ``rounds_stuck``.
    """
    problems: list[str] = []
    balances = tx.integer("SELECT SUM(balance) FROM accounts")
    escrow = tx.integer("SELECT SUM(escrow) FROM rounds WHERE state = 'open'")
    granted = tx.integer("SELECT SUM(delta) FROM entries WHERE kind = 'grant'")
    retired = -tx.integer("SELECT SUM(delta) FROM entries WHERE kind = 'retire'")
    held = tx.integer("SELECT SUM(amount) FROM holds")
    if balances + escrow != granted - retired:
        problems.append(
            f"balances {balances} + escrow {escrow} = {balances + escrow}, "
            f"but granted {granted} - retired {retired} = {granted - retired}"
        )
    for r in tx.rows(
        """SELECT a.name, a.balance, (SELECT SUM(e.delta) FROM entries e WHERE e.account_id = a.id) AS total
           FROM accounts a"""
    ):
        total = int(r["total"] or 0)
        if integer(r["balance"]) != total:
            problems.append(f"account {r['name']!s}: balance {r['balance']!s}, entries add up to {total!s}")
        if integer(r["balance"]) < 0:
            problems.append(f"account {r['name']!s}: negative balance {r['balance']!s}")
    for r in tx.rows(
        """SELECT r.round_id, r.escrow, r.state,
                  (SELECT SUM(amount) FROM stakes s WHERE s.round_id = r.round_id) AS staked,
                  (SELECT -SUM(delta) FROM entries e WHERE e.round_id = r.round_id AND e.kind = 'stake') AS debited,
                  (SELECT SUM(delta) FROM entries e WHERE e.round_id = r.round_id AND e.kind = 'payout') AS paid,
                  (SELECT SUM(delta) FROM entries e WHERE e.round_id = r.round_id AND e.kind = 'refund') AS refunded,
                  (SELECT SUM(delta) FROM entries e WHERE e.round_id = r.round_id AND e.kind != 'retire') AS net
           FROM rounds r"""
    ):
        rid, state = text(r["round_id"]), text(r["state"])
        esc, staked, debited = integer(r["escrow"]), int(r["staked"] or 0), int(r["debited"] or 0)
        paid, refunded, net = int(r["paid"] or 0), int(r["refunded"] or 0), int(r["net"] or 0)
        if esc != staked or staked != debited:
            problems.append(f"round {rid}: escrow {esc}, stakes {staked}, debited {debited}")
        if state == "settled" and (paid != esc or refunded):
            problems.append(f"round {rid} (settled): payouts {paid} and refunds {refunded}, its escrow was {esc}")
        if state == "refunded" and (refunded != esc or paid):
            problems.append(f"round {rid} (voided): refunds {refunded} and payouts {paid}, its escrow was {esc}")
        if state == "open" and (paid or refunded):
            problems.append(f"round {rid} (open): already paid {paid} and refunded {refunded}")
        if state != "open" and net != 0:
            problems.append(f"round {rid} ({state}): its entries add up to {net}, not 0")
    for r in tx.rows(
        """SELECT e.round_id, a.name, SUM(e.delta) AS net
           FROM entries e JOIN rounds r ON r.round_id = e.round_id JOIN accounts a ON a.id = e.account_id
           WHERE r.state = 'refunded' AND e.kind != 'retire'
           GROUP BY e.round_id, a.id, a.name"""
    ):
        if integer(r["net"]):
            problems.append(
                f"round {r['round_id']!s} was voided but {r['name']!s} is {integer(r['net']):+d} by it "
                "(a transfer of the round not reversed)"
            )
    _holds(tx, problems)
    _receipts(tx, problems)
    t = _totals(tx)
    actual = {"balances": balances, "escrow": escrow, "held": held, "granted": granted, "retired": retired}
    for key, value in actual.items():
        if t[key] != value:
            problems.append(f"maintained total {key} is {t[key]}, the ledger says {value}")
    retire_bad = tx.integer(
        """SELECT COUNT(*) FROM entries e JOIN accounts a ON a.id = e.account_id
           LEFT JOIN admin_chips c ON c.entry_id = e.id
           WHERE e.kind = 'retire' AND (e.delta > 0 OR (a.kind != 'guest' AND c.entry_id IS NULL))"""
    )
    if retire_bad:
        problems.append(f"{retire_bad} retire entries on non-guest accounts (and not by an admin) or with "
                        "positive amounts")
    admin_granted, admin_retired = _admin_chips(tx, problems)
    aside = tuple(
        (text(r[0]), text(r[1])) for r in tx.rows("SELECT table_id, reason FROM tables WHERE status = 'aside' ORDER BY table_id")
    )
    unfinished = tuple(text(r[0]) for r in tx.rows("SELECT table_id FROM tables WHERE status = 'open' ORDER BY table_id"))
    stuck: tuple[tuple[str, int], ...] = ()
    if stuck_after is not None:
        now = tx.now()
        stuck = tuple((str(r[0]), int(now - float(number(r[1])))) for r in tx.rows(
            "SELECT round_id, opened FROM rounds WHERE state = 'open' AND opened < ? ORDER BY opened, round_id",
            (now - stuck_after,)))
        problems += [f"round {rid} has been open for {age} s (more than {stuck_after:g} s): its escrow may be stuck"
                     for rid, age in stuck]
    return Audit(
        ok=not problems,
        balances=balances,
        escrow=escrow,
        granted=granted,
        retired=retired,
        problems=tuple(problems),
        held=held,
        tables_aside=aside,
        tables_unfinished=unfinished,
        admin_granted=admin_granted,
        admin_retired=admin_retired,
        rounds_stuck=stuck,
    )


def _admin_chips(tx: Tx, problems: list[str]) -> tuple[int, int]:
    """Admins' grants and retirements: each a grant (> 0) or retire (< 0) entry of a registered account,
    noted ``admin``. Returns what they granted and retired (parts of ``granted`` and ``retired``)."""
    bad = tx.integer(
        """SELECT COUNT(*) FROM admin_chips c LEFT JOIN entries e ON e.id = c.entry_id
           LEFT JOIN accounts a ON a.id = e.account_id
           WHERE e.id IS NULL OR e.note != 'admin' OR a.kind != 'player'
              OR NOT ((e.kind = 'grant' AND e.delta > 0) OR (e.kind = 'retire' AND e.delta < 0))"""
    )
    if bad:
        problems.append(f"{bad} admin chip records without their grant or retire entry on a registered account")
    granted = tx.integer(
        "SELECT SUM(e.delta) FROM admin_chips c JOIN entries e ON e.id = c.entry_id WHERE e.kind = 'grant'"
    )
    retired = -tx.integer(
        "SELECT SUM(e.delta) FROM admin_chips c JOIN entries e ON e.id = c.entry_id WHERE e.kind = 'retire'"
    )
    return granted, retired


def _holds(tx: Tx, problems: list[str]) -> None:
    for r in tx.rows(
        """SELECT a.name, a.balance, SUM(h.amount) AS held FROM holds h JOIN accounts a ON a.id = h.account_id
           GROUP BY a.id, a.name, a.balance"""
    ):
        if integer(r["held"]) > integer(r["balance"]):
            problems.append(f"account {r['name']!s}: holds {integer(r['held'])} above its balance {r['balance']!s}")
    for r in tx.rows(
        """SELECT h.hold_id, h.round_id, r.state, a.live, a.name FROM holds h
           LEFT JOIN rounds r ON r.round_id = h.round_id
           LEFT JOIN accounts a ON a.id = h.account_id"""
    ):
        if r["name"] is None:
            problems.append(f"hold {r['hold_id']!s}: no such account (orphaned)")
        elif r["round_id"] is not None and r["state"] != "open":
            state = r["state"] or "unknown"
            problems.append(f"hold {r['hold_id']!s} of {r['name']!s}: its round {r['round_id']!s} is {state!s} (orphaned)")
        elif r["round_id"] is None and not r["live"]:
            problems.append(f"hold {r['hold_id']!s}: its account {r['name']!s} is gone (orphaned)")


def _receipts(tx: Tx, problems: list[str]) -> None:
    from server.storage.sql.accounts import available

    flows: dict[tuple[str, int], int] = {
        (text(r[0]), integer(r[1])): integer(r[2]) for r in tx.rows("SELECT round_id, account_id, net FROM round_flows") if integer(r[2])
    }
    entries: dict[tuple[str, int], int] = {
        (text(r[0]), integer(r[1])): integer(r[2])
        for r in tx.rows(
            """SELECT e.round_id, e.account_id, SUM(e.delta) FROM entries e
               JOIN rounds r ON r.round_id = e.round_id AND r.state = 'open'
               WHERE e.kind IN ('transfer', 'reverse') GROUP BY e.round_id, e.account_id"""
        )
        if integer(r[2])
    }
    if flows != entries:
        for key in sorted(set(flows) | set(entries)):
            if flows.get(key, 0) != entries.get(key, 0):
                problems.append(
                    f"round {key[0]}, account #{key[1]}: receipts recorded {flows.get(key, 0)}, "
                    f"its transfers add up to {entries.get(key, 0)}"
                )
    for account_id in sorted({k[1] for k in flows} | {integer(r[0]) for r in tx.rows("SELECT DISTINCT account_id FROM holds")}):
        free = available(tx, account_id)
        if free < 0:
            name = tx.scalar("SELECT name FROM accounts WHERE id = ?", (account_id,))
            problems.append(
                f"account {name!s}: {-free} chips more are held or owed to unsettled rounds than it has"
            )
