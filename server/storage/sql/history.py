"""History: finished rounds and deals, enough to replay them; standings."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import AsyncIterator, Mapping

from server.protocol import JSONValue
from server.storage import names as _names
from server.storage.api import MATCH_SUFFIX, Fence, Played, RatedRound, RoundRecord, is_match
from server.storage.sql import ratings as _ratings
from server.storage.sql import tables as _tables
from server.storage.sql.accounts import find
from server.storage.sql.tx import Row, Runner, Tx
from server.storage.sql.values import integer, number, text

log = logging.getLogger("donne.storage")


def _per_seat(value: JSONValue, seats: int) -> list[int]:
    if isinstance(value, Mapping):
        out = [0] * seats
        for k, v in value.items():
            try:
                i = int(k)
            except (TypeError, ValueError):
                continue
            if 0 <= i < seats and isinstance(v, int):
                out[i] = v
        return out
    if isinstance(value, list | tuple):
        return [int(v) if isinstance(v, int) and not isinstance(v, bool) else 0 for v in value][:seats] + [0] * max(
            0, seats - len(value)
        )
    return [0] * seats


TOP_TITLE = "president"
"""The title of the first out (RULES P12): the rounds a player won."""


def _presidents(result: Mapping[str, JSONValue], seats: int) -> list[int]:
    titles = result.get("titles")
    if isinstance(titles, list | tuple):
        return [1 if i < len(titles) and titles[i] == TOP_TITLE else 0 for i in range(seats)]
    winner = result.get("winner")  # a Speculation deal (S10): its winner counts like a Président
    if isinstance(winner, int) and not isinstance(winner, bool):
        return [1 if i == winner else 0 for i in range(seats)]
    return [0] * seats


def _chip_changes(record: RoundRecord) -> JSONValue:
    """The per-seat chip changes the record gives, or None (then the ledger tells).

    ``extra["chips"]``, else the result's ``chips`` — except a Speculation deal's
    (``deal_over``), which are the chips each seat holds after the deal, not what it
    won or lost. A match gives its ``changes`` (Speculation S11), else none (zeros).
    """
    if "chips" in record.extra:
        return record.extra["chips"]
    if is_match(record.round_id):
        return record.result.get("changes") or []
    if record.result.get("event") == "deal_over":
        return None
    return record.result.get("chips")


_NOT_MATCH = f"h.round_id NOT LIKE '%{MATCH_SUFFIX}'"


def _canonical(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _log_hashes(actions: list[str], prefix: int) -> tuple[str, str]:
    """SHA-256 of the first ``prefix`` canonical actions, and of all of them."""
    h = hashlib.sha256()
    head = h.hexdigest() if prefix == 0 else ""
    for i, action in enumerate(actions, start=1):
        h.update(action.encode())
        h.update(b"\n")
        if i == prefix:
            head = h.hexdigest()
    return head, h.hexdigest()


def _full_log(tx: Tx, round_id: str) -> list[Mapping[str, JSONValue]]:
    """A record's log: its own actions after those of its chain of bases."""
    rows = tx.all(
        """WITH RECURSIVE chain(rid, base, start, log, depth) AS (
               SELECT round_id, log_base, log_start, log, 0 FROM history WHERE round_id = ?
               UNION ALL
               SELECT h.round_id, h.log_base, h.log_start, h.log, c.depth + 1
               FROM history h JOIN chain c ON h.round_id = c.base
           )
           SELECT start, log FROM chain ORDER BY depth DESC""",
        (round_id,),
    )
    actions: list[Mapping[str, JSONValue]] = []
    for start, log in rows:
        del actions[integer(start):]  # a base is only ever extended; never trust more than 'start' of it
        actions.extend(json.loads(text(log)))
    return actions


def _record_from_row(tx: Tx, row: Row, with_log: bool = True) -> RoundRecord:
    if not with_log:
        actions: list[Mapping[str, JSONValue]] = []
    elif row["log_base"] is None:
        actions = json.loads(text(row["log"]))
    else:
        actions = _full_log(tx, text(row["round_id"]))
    return RoundRecord(
        round_id=text(row["round_id"]),
        game=text(row["game"]),
        rules=text(row["rules"]),
        seats=json.loads(text(row["seats"])),
        config=json.loads(text(row["config"])),
        log=actions,
        result=json.loads(text(row["result"])),
        commitment=text(row["commitment"]),
        finished_at=number(row["finished_at"]),
        extra=json.loads(text(row["extra"])),
    )


class SQLHistory:
    def __init__(self, store: Runner) -> None:
        self._store = store

    async def record_round(self, record: RoundRecord, rated: RatedRound | None = None, *,
                           fence: Fence | None = None) -> None:
        """Store a finished round (a second record with the same round id is ignored); ``rated``: and
        update the ratings from it in the same transaction (:mod:`server.storage.sql.ratings`).

        Per-seat figures for the standings: ``result["scores"]`` (classic
        points, P14); chip changes from ``extra["chips"]`` or else
        ``result["chips"]`` (tdc T13), or else from the ledger (Speculation
        deals); Président from ``result["titles"]`` (Speculation: the deal's
        ``winner``). A match's record (:func:`~server.storage.api.is_match`)
        keeps its totals and changes; the standings count it as a match, not
        as a round.
        """
        seats = list(record.seats)
        n = len(seats)
        match = is_match(record.round_id)
        points = _per_seat(record.result.get("totals" if match else "scores"), n)
        given_chips = _chip_changes(record)
        chips = _per_seat(given_chips, n)
        presidents = [0] * n if match else _presidents(record.result, n)
        actions = [dict(a) for a in record.log]
        canonical = [_canonical(a) for a in actions]
        config_json = json.dumps(dict(record.config), ensure_ascii=False, default=str)
        match_key = hashlib.sha256(
            _canonical([record.game, record.rules, dict(record.config), record.extra.get("room")]).encode()
        ).hexdigest()

        def tx(t: Tx) -> None:
            if fence is not None:
                _tables.check(fence)
                _tables.fence(t, fence)  # a stale owner's record is refused (StaleOwner)
            if t.one("SELECT 1 FROM history WHERE round_id = ?", (record.round_id,)):
                log.warning("round %s was already recorded", record.round_id)
                return
            # The match's previous record, if this log extends its log: keep only the new actions.
            base = t.one(
                f"SELECT round_id, log_len, log_hash FROM history WHERE match_key = ? ORDER BY {t.rowid} DESC LIMIT 1",
                (match_key,),
            )
            start = 0
            base_len = 0 if base is None else integer(base["log_len"])
            if base is not None and 0 < base_len <= len(canonical):
                head, full = _log_hashes(canonical, base_len)
                if head == base["log_hash"]:
                    start = base_len
            else:
                _, full = _log_hashes(canonical, 0)
            if start == 0:
                base = None
            t.execute(
                """INSERT INTO history
                   (round_id, game, rules, seats, config, log, result, commitment, finished_at, extra,
                    log_base, log_start, log_len, log_hash, match_key)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    record.round_id,
                    record.game,
                    record.rules,
                    json.dumps(seats, ensure_ascii=False),
                    config_json,
                    json.dumps(actions[start:], ensure_ascii=False, default=str),
                    json.dumps(dict(record.result), ensure_ascii=False, default=str),
                    record.commitment,
                    record.finished_at or t.now(),
                    json.dumps(dict(record.extra), ensure_ascii=False, default=str),
                    None if base is None else base["round_id"],
                    start,
                    len(canonical),
                    full,
                    match_key,
                ),
            )
            registered_seats: list[bool] = []
            for seat, name in enumerate(seats):
                row = find(t, name) if name else None
                registered = 1 if row is not None and row["kind"] == "player" else 0
                registered_seats.append(bool(registered))
                if given_chips is None and row is not None:
                    # No per-seat figures given (Speculation deals): the ledger knows the
                    # seat's net change in this round: stakes, payouts, and transfers with
                    # this round as their reference (S3, S7, S9).
                    chips[seat] = t.integer(
                        """SELECT SUM(delta) FROM entries
                           WHERE account_id = ? AND kind != 'retire'
                             AND (round_id = ? OR (kind = 'transfer' AND ref = ?))""",
                        (row["id"], record.round_id, record.round_id),
                    )
                t.execute(
                    """INSERT INTO history_seats (round_id, seat, name, key, registered, points, chips, president)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                    (
                        record.round_id,
                        seat,
                        name or "",
                        _names.name_key(name or ""),
                        registered,
                        points[seat],
                        chips[seat],
                        presidents[seat],
                    ),
                )
            if rated is not None:
                _ratings.rate_in_tx(t, record, rated, registered_seats)

        await self._store.run_write(tx)

    async def each_record(self, batch: int = 200) -> AsyncIterator[tuple[RoundRecord, list[bool]]]:
        """Every record with its log, in the order recorded, and which seats were registered accounts
        then (what :func:`server.storage.ratings.recompute` replays)."""
        after: int | None = None
        while True:
            def q(t: Tx, after: int | None = after) -> list[tuple[int, RoundRecord, list[bool]]]:
                where = "" if after is None else f"WHERE {t.rowid} > ?"
                rows = t.all(f"SELECT h.*, h.{t.rowid} AS position FROM history h {where} "
                             f"ORDER BY h.{t.rowid} LIMIT ?", ((after,) if after is not None else ()) + (batch,))
                out = []
                for r in rows:
                    seats = t.all("SELECT seat, registered FROM history_seats WHERE round_id = ? ORDER BY seat",
                                  (r["round_id"],))
                    registered = [False] * len(json.loads(text(r["seats"])))
                    for s in seats:
                        if 0 <= integer(s["seat"]) < len(registered):
                            registered[integer(s["seat"])] = bool(s["registered"])
                    out.append((integer(r["position"]), _record_from_row(t, r), registered))
                return out

            chunk = await self._store.run_read(q)
            if not chunk:
                return
            for _, record, registered in chunk:
                yield record, registered
            after = chunk[-1][0]

    async def recent(self, name: str, limit: int = 10, *, with_log: bool = True) -> list[RoundRecord]:
        """The player's latest rounds, newest first (``with_log=False``: summaries, an empty log)."""

        def q(t: Tx) -> list[RoundRecord]:
            rows = t.all(
                f"""SELECT h.* FROM history h
                   WHERE h.round_id IN (SELECT round_id FROM history_seats WHERE key = ?)
                   ORDER BY h.finished_at DESC, h.{t.rowid} DESC LIMIT ?""",
                (_names.name_key(name), int(limit)),
            )
            return [_record_from_row(t, r, with_log) for r in rows]

        return await self._store.run_read(q)

    async def played(self, name: str, limit: int = 10) -> list[Played]:
        """The player's latest records (rounds, deals, matches), newest first, without their logs,
        each with the figures kept for the player's seat."""

        def q(t: Tx) -> list[Played]:
            rows = t.all(
                f"""SELECT h.*, s.seat AS seat_no, s.points AS seat_points, s.chips AS seat_chips,
                           s.president AS seat_president
                    FROM history_seats s JOIN history h ON h.round_id = s.round_id
                    WHERE s.key = ?
                    ORDER BY h.finished_at DESC, h.{t.rowid} DESC, s.seat ASC LIMIT ?""",
                (_names.name_key(name), int(limit)),
            )
            return [
                Played(_record_from_row(t, r, False), integer(r["seat_no"]), integer(r["seat_points"]),
                       integer(r["seat_chips"]), bool(r["seat_president"]))
                for r in rows
            ]

        return await self._store.run_read(q)

    async def get(self, round_id: str) -> RoundRecord | None:
        def q(t: Tx) -> RoundRecord | None:
            row = t.one("SELECT * FROM history WHERE round_id = ?", (round_id,))
            return None if row is None else _record_from_row(t, row)

        return await self._store.run_read(q)

    async def standings(
        self, game: str, rules: str, limit: int = 10, include_guests: bool = False, *, by: str = "chips",
        name: str | None = None,
    ) -> list[dict[str, JSONValue]]:
        """The leaderboard, ranked ``by`` ``"points"`` (classic, P14) or ``"chips"`` won (tdc, Speculation).

        Each row: ``rank, name, rounds, points, chips, president, matches`` (``president``:
        rounds as Président; ``matches``: finished matches). A match's own record counts as a
        match, never as a round, and adds nothing to the sums (its rounds did).
        Registered players only unless ``include_guests`` (guest names are reused by strangers).
        ``name``: that player's row alone (its ``rank`` is then 1: it is not a place on the board).
        """
        order = "points" if by == "points" else "chips"  # a column name: one of the two, never a raw argument
        one = "" if name is None else " AND s.key = ?"
        only: tuple[str, ...] = () if name is None else (_names.name_key(name),)

        def q(t: Tx) -> list[dict[str, JSONValue]]:
            rows = t.all(
                f"""SELECT s.key, MAX(s.name) AS name,
                           SUM(CASE WHEN {_NOT_MATCH} THEN 1 ELSE 0 END) AS rounds,
                           SUM(CASE WHEN {_NOT_MATCH} THEN s.points ELSE 0 END) AS points,
                           SUM(CASE WHEN {_NOT_MATCH} THEN s.chips ELSE 0 END) AS chips,
                           SUM(CASE WHEN {_NOT_MATCH} THEN s.president ELSE 0 END) AS president,
                           SUM(CASE WHEN {_NOT_MATCH} THEN 0 ELSE 1 END) AS matches
                    FROM history_seats s JOIN history h ON h.round_id = s.round_id
                    WHERE h.game = ? AND h.rules = ? AND (s.registered = 1 OR ? = 1){one}
                    GROUP BY s.key
                    ORDER BY {order} DESC, president DESC, rounds ASC, s.key ASC
                    LIMIT ?""",
                (game, rules, 1 if include_guests else 0, *only, int(limit)),
            )
            out: list[dict[str, JSONValue]] = []
            for r in rows:
                account = find(t, text(r["key"])) if r["key"] else None
                out.append(
                    {
                        "rank": len(out) + 1,
                        "name": account["name"] if account is not None else r["name"],
                        "rounds": integer(r["rounds"]),
                        "points": int(r["points"] or 0),
                        "chips": int(r["chips"] or 0),
                        "president": int(r["president"] or 0),
                        "matches": int(r["matches"] or 0),
                    }
                )
            return out

        return await self._store.run_read(q)


def read_record(tx: Tx, round_id: str) -> RoundRecord | None:
    """One record with its log, in a transaction of the caller's (``donne export``)."""
    row = tx.one("SELECT * FROM history WHERE round_id = ?", (round_id,))
    return None if row is None else _record_from_row(tx, row)


def read_recent(tx: Tx, name: str, limit: int) -> list[RoundRecord]:
    """A player's latest round records (not the matches'), newest first, with their logs."""
    rows = tx.all(
        f"""SELECT h.* FROM history h
           WHERE h.round_id IN (SELECT round_id FROM history_seats WHERE key = ?) AND {_NOT_MATCH}
           ORDER BY h.finished_at DESC, h.{tx.rowid} DESC LIMIT ?""",
        (_names.name_key(name), int(limit)),
    )
    return [_record_from_row(tx, r) for r in rows]
