"""Running a community: roles, bans, mutes, locks, password resets, renames, admins' chips, ignore
lists, the message of the day, and the moderation log (the :class:`~server.storage.api.Moderation`
Protocol).

Every action that changes something writes its line of the moderation log (``modlog``) in the same
transaction, so the log never says something happened that did not, nor misses something that did.
Admins' chips are ledger entries like any other (``grant``, ``retire``, note ``admin``), each with a
row of ``admin_chips`` saying who made it and why: :func:`server.storage.sql.audit.audit` counts them
and refuses any other retirement from a registered account.

The door's question (:meth:`SQLModeration.door`) is read from the database at every connection, so a
ban or a lock made by ``donne admin`` beside a running server holds at the next connection.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping

from server.protocol import JSONValue
from server.storage import names as _names
from server.storage import passwords as _pw
from server.storage.api import (
    BAN_KINDS,
    ROLES,
    BadAmount,
    BadKey,
    Ban,
    Forbidden,
    InsufficientChips,
    ModEntry,
    Mute,
    NameTaken,
    NoSuchBan,
    Refusal,
    Standing,
)
from server.storage.moderation import in_network
from server.storage.moderation import network as _network
from server.storage.sql.accounts import SQLAccounts, available, find, lock, move, parse_public_key, require
from server.storage.sql.tx import Row, Runner, Tx
from server.storage.sql.values import integer, number, text, text_or_none

log = logging.getLogger("donne.storage.moderation")

REASON_MAX = 200
MOTD_MAX = 2000
MAX_IGNORES = 200
MAX_CHIPS = 10**9  # one grant or retirement


def _reason(text: str) -> str:
    return str(text or "")[:REASON_MAX]


def network(text: str) -> str:
    try:
        return _network(text)
    except ValueError as exc:
        raise BadAmount(str(exc)) from None


def key_target(text: str) -> str:
    try:
        key, _ = parse_public_key(text)
    except BadKey:
        raise BadAmount("not an SSH public key: TYPE BASE64 [COMMENT]") from None
    return key


def key_fingerprint(key: str) -> str:
    """``SHA256:…`` of a stored key ("type base64"), as ``ssh-keygen -l`` shows it."""
    import asyncssh

    try:
        return str(asyncssh.import_public_key(key).get_fingerprint("sha256"))
    except (asyncssh.KeyImportError, ValueError):
        return key[:40]


# --------------------------------------------------------------------------- rows (database thread)


def write_log(tx: Tx, actor: str, action: str, target: str = "", reason: str = "",
              detail: Mapping[str, JSONValue] | None = None) -> None:
    tx.execute(
        "INSERT INTO modlog (ts, actor, action, target, reason, detail) VALUES (?, ?, ?, ?, ?, ?)",
        (tx.now(), str(actor)[:100], action, str(target)[:300], _reason(reason),
         json.dumps(dict(detail or {}), sort_keys=True, default=str)),
    )


def _player(tx: Tx, name: str) -> Row:
    """The live registered account of that name (a guest has no account to act on)."""
    row = require(tx, name)
    if row["kind"] != "player":
        raise Forbidden(f"{text(row['name'])} is not a registered account")
    return row


def _live(tx: Tx, name: str) -> Row:
    """The live account of a person (registered or guest)."""
    row = require(tx, name)
    if row["kind"] not in ("player", "guest"):
        raise Forbidden(f"{text(row['name'])} is not a person's account")
    return row


def _active(now: float) -> tuple[str, tuple[float]]:
    return "lifted IS NULL AND (until IS NULL OR until > ?)", (now,)


def _ban(row: Row) -> Ban:
    until = row["until"]
    return Ban(id=integer(row["id"]), kind=text(row["kind"]), target=text(row["target"]), reason=text(row["reason"]),
               actor=text(row["actor"]), created=float(number(row["created"])), until=None if until is None else float(until))


def active_bans(tx: Tx) -> list[Row]:
    where, params = _active(tx.now())
    return tx.all(f"SELECT * FROM bans WHERE {where} ORDER BY id DESC", params)


def _longest(rows: list[Row]) -> Row:
    """Of several bans that apply, the one that ends last (for good first)."""
    return max(rows, key=lambda r: (r["until"] is None, float(r["until"] or 0), integer(r["id"])))


def door(tx: Tx, name: str | None, address: str | None, key: str | None) -> Refusal | None:
    bans = active_bans(tx)
    hits: list[Row] = []
    if address:
        hits = [r for r in bans if r["kind"] == "address" and in_network(address, text(r["target"]))]
    if not hits and key:
        hits = [r for r in bans if r["kind"] == "key" and r["target"] == key]
    account = find(tx, name) if name else None
    if not hits and account is not None and account["kind"] == "player":
        hits = [r for r in bans if r["kind"] == "account" and int(r["account_id"] or 0) == integer(account["id"])]
    if hits:
        row = _longest(hits)
        until = row["until"]
        return Refusal("banned", text(row["kind"]), text(row["reason"]), None if until is None else float(until))
    if account is not None and account["kind"] == "player" and account["locked"] is not None:
        return Refusal("locked", "lock", text(account["locked"]))
    return None


def _mute_row(tx: Tx, account_id: int) -> Row | None:
    where, params = _active(tx.now())
    return tx.one(f"SELECT * FROM mutes WHERE account_id = ? AND {where} ORDER BY until DESC LIMIT 1",
                  (account_id, *params))


def _mute(row: Row, name: str) -> Mute:
    return Mute(name=name, reason=text(row["reason"]), actor=text(row["actor"]), created=float(number(row["created"])),
                until=float(number(row["until"])))


# --------------------------------------------------------------------------- the Moderation protocol


class SQLModeration:
    """The :class:`~server.storage.api.Moderation` of a SQL store."""

    def __init__(self, store: Runner, accounts: SQLAccounts) -> None:
        self._store = store
        self._accounts = accounts  # its cache of registered names follows renames

    # -- roles
    async def role(self, name: str) -> str:
        def q(tx: Tx) -> str:
            row = find(tx, name)
            if row is None or row["kind"] != "player":
                return "player"
            return str(row["role"])

        return await self._store.run_read(q)

    async def set_role(self, name: str, role: str, *, actor: str, reason: str = "") -> str:
        if role not in ROLES:
            raise BadAmount(f"a role is one of {', '.join(ROLES)}, not {role!r}")

        def tx(t: Tx) -> str:
            row = _player(t, name)
            old = str(row["role"])
            t.execute("UPDATE accounts SET role = ? WHERE id = ?", (role, row["id"]))
            write_log(t, actor, "role", text(row["name"]), reason, {"from": old, "to": role})
            return old

        old = await self._store.run_write(tx)
        log.warning("%s: %s is %s now (was %s)", actor, name, role, old)
        return old

    # -- the door
    async def door(self, *, name: str | None = None, address: str | None = None,
                   key: str | None = None) -> Refusal | None:
        return await self._store.run_read(lambda tx: door(tx, name, address, key))

    # -- bans
    async def ban(self, kind: str, target: str, *, until: float | None, reason: str, actor: str) -> Ban:
        if kind not in BAN_KINDS:
            raise BadAmount(f"a ban is of one of {', '.join(BAN_KINDS)}, not {kind!r}")
        stored = network(target) if kind == "address" else key_target(target) if kind == "key" else ""

        def tx(t: Tx) -> Ban:
            account_id = None
            shown = stored
            if kind == "account":
                player = _player(t, target)
                account_id, shown = integer(player["id"]), text(player["name"])
                same = "kind = 'account' AND account_id = ?"
                params: tuple[object, ...] = (account_id,)
            else:
                same = "kind = ? AND target = ?"
                params = (kind, shown)
            now = t.now()
            if until is not None and until <= now:
                raise BadAmount("a ban ends in the future")
            where, active = _active(now)
            t.execute(f"UPDATE bans SET lifted = ?, lifted_by = ? WHERE {same} AND {where}",
                      (now, str(actor)[:100], *params, *active))
            row = t.one(
                """INSERT INTO bans (kind, account_id, target, reason, actor, created, until)
                   VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *""",
                (kind, account_id, shown, _reason(reason), str(actor)[:100], now, until),
            )
            assert row is not None
            detail: dict[str, JSONValue] = {"until": until, "ban": integer(row["id"])}
            if kind == "key":
                detail["fingerprint"] = key_fingerprint(shown)
            write_log(t, actor, "ban", shown if kind != "key" else key_fingerprint(shown), reason, detail)
            return _ban(row)

        ban = await self._store.run_write(tx)
        log.warning("%s banned %s %s until %s", actor, kind, ban.target, until or "for good")
        return ban

    async def unban(self, kind: str, target: str, *, actor: str, reason: str = "") -> Ban:
        def tx(t: Tx) -> Ban:
            rows = active_bans(t)
            if kind == "id":
                try:
                    number = int(str(target).lstrip("#"))
                except ValueError:
                    raise BadAmount(f"{target!r} is not a ban's number") from None
                hits = [r for r in rows if integer(r["id"]) == number]
            elif kind == "account":
                row = find(t, target)
                hits = [r for r in rows if r["kind"] == "account" and row is not None
                        and int(r["account_id"] or 0) == integer(row["id"])]
            elif kind == "address":
                net = network(target)
                hits = [r for r in rows if r["kind"] == "address" and r["target"] == net]
            elif kind == "key":
                key = key_target(target)
                hits = [r for r in rows if r["kind"] == "key" and r["target"] == key]
            else:
                raise BadAmount(f"a ban is of one of {', '.join(BAN_KINDS)}, not {kind!r}")
            if not hits:
                raise NoSuchBan(f"no active ban of {target}")
            row = _longest(hits)
            t.execute("UPDATE bans SET lifted = ?, lifted_by = ? WHERE id = ?", (t.now(), str(actor)[:100], row["id"]))
            shown = text(row["target"]) if row["kind"] != "key" else key_fingerprint(text(row["target"]))
            write_log(t, actor, "unban", shown, reason, {"ban": integer(row["id"]), "kind": text(row["kind"])})
            return _ban(row)

        return await self._store.run_write(tx)

    async def bans(self) -> list[Ban]:
        return await self._store.run_read(lambda tx: [_ban(r) for r in active_bans(tx)])

    # -- mutes
    async def mute(self, name: str, until: float, *, reason: str, actor: str) -> Mute:
        def tx(t: Tx) -> Mute:
            row = _live(t, name)
            now = t.now()
            if until <= now:
                raise BadAmount("a mute ends in the future")
            where, active = _active(now)
            t.execute(f"UPDATE mutes SET lifted = ?, lifted_by = ? WHERE account_id = ? AND {where}",
                      (now, str(actor)[:100], row["id"], *active))
            t.execute("INSERT INTO mutes (account_id, reason, actor, created, until) VALUES (?, ?, ?, ?, ?)",
                      (row["id"], _reason(reason), str(actor)[:100], now, until))
            write_log(t, actor, "mute", text(row["name"]), reason, {"until": until, "guest": row["kind"] == "guest"})
            return Mute(name=text(row["name"]), reason=_reason(reason), actor=actor, created=now, until=until)

        return await self._store.run_write(tx)

    async def unmute(self, name: str, *, actor: str, reason: str = "") -> Mute:
        def tx(t: Tx) -> Mute:
            row = _live(t, name)
            mute = _mute_row(t, integer(row["id"]))
            if mute is None:
                raise NoSuchBan(f"{text(row['name'])} is not muted")
            where, active = _active(t.now())
            t.execute(f"UPDATE mutes SET lifted = ?, lifted_by = ? WHERE account_id = ? AND {where}",
                      (t.now(), str(actor)[:100], row["id"], *active))
            write_log(t, actor, "unmute", text(row["name"]), reason)
            return _mute(mute, text(row["name"]))

        return await self._store.run_write(tx)

    async def muted(self, name: str) -> Mute | None:
        def q(tx: Tx) -> Mute | None:
            row = find(tx, name)
            if row is None:
                return None
            mute = _mute_row(tx, integer(row["id"]))
            return None if mute is None else _mute(mute, text(row["name"]))

        return await self._store.run_read(q)

    async def mutes(self) -> list[Mute]:
        def q(tx: Tx) -> list[Mute]:
            rows = tx.all("""SELECT m.*, a.name AS name FROM mutes m JOIN accounts a ON a.id = m.account_id
                             WHERE a.live = 1 AND m.lifted IS NULL AND m.until > ? ORDER BY m.id DESC""",
                          (tx.now(),))
            return [_mute(r, text(r["name"])) for r in rows]

        return await self._store.run_read(q)

    # -- accounts
    async def lock(self, name: str, *, reason: str, actor: str) -> None:
        def tx(t: Tx) -> None:
            row = _player(t, name)
            t.execute("UPDATE accounts SET locked = ? WHERE id = ?", (_reason(reason), row["id"]))
            write_log(t, actor, "lock", text(row["name"]), reason)

        await self._store.run_write(tx)

    async def unlock(self, name: str, *, actor: str, reason: str = "") -> None:
        def tx(t: Tx) -> None:
            row = _player(t, name)
            if row["locked"] is None:
                raise NoSuchBan(f"{text(row['name'])} is not locked")
            t.execute("UPDATE accounts SET locked = NULL WHERE id = ?", (row["id"],))
            write_log(t, actor, "unlock", text(row["name"]), reason)

        await self._store.run_write(tx)

    async def reset_password(self, name: str, *, actor: str) -> tuple[str, float]:
        code = _pw.new_reset_code()
        settings = self._store.settings
        loop = asyncio.get_running_loop()
        hashed = await loop.run_in_executor(None, _pw.hash_password, _pw.normalize_code(code), settings.scrypt_n)

        def tx(t: Tx) -> float:
            row = _player(t, name)
            until = t.now() + settings.reset_code_seconds
            t.execute("UPDATE accounts SET reset_hash = ?, reset_until = ? WHERE id = ?", (hashed, until, row["id"]))
            write_log(t, actor, "resetpw", text(row["name"]), "", {"until": until})  # never the code
            return until

        until = await self._store.run_write(tx)
        return code, until

    async def rename(self, name: str, new: str, *, actor: str, reason: str = "") -> str:
        clean = _names.clean_name(new)

        def tx(t: Tx) -> tuple[str, str]:
            row = _player(t, name)
            key, skel = _names.name_key(clean), _names.skeleton(clean)
            same = t.one("SELECT name FROM accounts WHERE live = 1 AND id != ? AND (key = ? OR skeleton = ?)",
                         (row["id"], key, skel))
            if same is not None:
                raise NameTaken(f"{clean!r} is taken (looks like {same['name']!r})")
            busy = t.one("""SELECT 1 FROM stakes s JOIN rounds r ON r.round_id = s.round_id
                            WHERE s.account_id = ? AND r.state = 'open'
                            UNION SELECT 1 FROM holds WHERE account_id = ?""", (row["id"], row["id"]))
            if busy is not None:
                raise Forbidden(f"{text(row['name'])} has chips in a round being played")
            old_key = row["key"]
            t.execute("UPDATE accounts SET name = ?, key = ?, skeleton = ? WHERE id = ?", (clean, key, skel, row["id"]))
            t.execute("UPDATE history_seats SET name = ?, key = ? WHERE key = ? AND registered = 1",
                      (clean, key, old_key))
            # who ignored the old name ignores the new one (once)
            t.execute("""UPDATE ignores SET other_key = ?, other_name = ? WHERE other_key = ?
                         AND account_id NOT IN (SELECT account_id FROM ignores WHERE other_key = ? AND ? != ?)""",
                      (key, clean, old_key, key, key, old_key))
            if key != old_key:
                t.execute("DELETE FROM ignores WHERE other_key = ?", (old_key,))
            write_log(t, actor, "rename", text(row["name"]), reason, {"to": clean})
            return text(row["name"]), clean

        old, clean = await self._store.run_write(tx)
        self._accounts.forget(old)
        self._accounts.remember(clean)
        log.warning("%s renamed %s to %s", actor, old, clean)
        return clean

    # -- admins' chips
    async def grant_chips(self, name: str, amount: int, *, reason: str, actor: str) -> int:
        return await self._chips(name, _amount(amount), reason, actor)

    async def retire_chips(self, name: str, amount: int, *, reason: str, actor: str) -> int:
        return await self._chips(name, -_amount(amount), reason, actor)

    async def _chips(self, name: str, delta: int, reason: str, actor: str) -> int:

        def tx(t: Tx) -> int:
            row = _player(t, name)
            row = lock(t, [integer(row["id"])])[integer(row["id"])]
            if delta < 0:
                free = available(t, integer(row["id"]), integer(row["balance"]))
                if free < -delta:
                    raise InsufficientChips(f"{text(row['name'])} has {free} chips available, not {-delta}",
                                            account=text(row["name"]))
            kind = "grant" if delta > 0 else "retire"
            entry = move(t, integer(row["id"]), delta, kind, ref=str(actor)[:100], note="admin")
            t.execute("INSERT INTO admin_chips (entry_id, actor, reason) VALUES (?, ?, ?)",
                      (entry, str(actor)[:100], _reason(reason)))
            write_log(t, actor, kind, text(row["name"]), reason, {"chips": abs(delta), "entry": entry})
            return integer(row["balance"]) + delta

        balance = await self._store.run_write(tx)
        log.warning("%s: %+d chips for %s (%s)", actor, delta, name, reason)
        return balance

    # -- the log
    async def record(self, actor: str, action: str, target: str = "", reason: str = "",
                     detail: Mapping[str, JSONValue] | None = None) -> None:
        await self._store.run_write(lambda tx: write_log(tx, actor, action, target, reason, detail))

    async def log(self, limit: int = 50, name: str | None = None) -> list[ModEntry]:
        limit = max(1, min(int(limit), 500))

        def q(tx: Tx) -> list[ModEntry]:
            if name:
                rows = tx.all("SELECT * FROM modlog WHERE actor = ? OR target = ? ORDER BY id DESC LIMIT ?",
                              (name, name, limit))
            else:
                rows = tx.all("SELECT * FROM modlog ORDER BY id DESC LIMIT ?", (limit,))
            out = []
            for r in rows:
                try:
                    detail = json.loads(text(r["detail"] or "{}"))
                except ValueError:
                    detail = {}
                out.append(ModEntry(id=integer(r["id"]), ts=float(number(r["ts"])), actor=text(r["actor"]), action=text(r["action"]),
                                    target=text(r["target"]), reason=text(r["reason"]), detail=detail))
            return out

        return await self._store.run_read(q)

    # -- ignore lists
    async def ignores(self, name: str) -> list[str]:
        def q(tx: Tx) -> list[str]:
            row = find(tx, name)
            if row is None or row["kind"] != "player":
                return []
            return [text(r[0]) for r in tx.rows("SELECT other_name FROM ignores WHERE account_id = ? ORDER BY added",
                                          (row["id"],))]

        return await self._store.run_read(q)

    async def ignore_lists(self) -> dict[str, list[str]]:
        def q(tx: Tx) -> dict[str, list[str]]:
            out: dict[str, list[str]] = {}
            for r in tx.rows("""SELECT a.name, i.other_name FROM ignores i JOIN accounts a ON a.id = i.account_id
                               WHERE a.live = 1 AND a.kind = 'player' ORDER BY a.id, i.added, i.other_key"""):
                out.setdefault(text(r[0]), []).append(text(r[1]))
            return out

        return await self._store.run_read(q)

    async def ignore(self, name: str, other: str) -> None:
        key = _names.name_key(other)

        def tx(t: Tx) -> None:
            row = _player(t, name)
            if key == row["key"]:
                raise Forbidden("one does not ignore oneself")
            count = t.integer("SELECT COUNT(*) FROM ignores WHERE account_id = ?", (row["id"],))
            if count >= MAX_IGNORES:
                raise BadAmount(f"at most {MAX_IGNORES} names ignored")
            t.execute("""INSERT INTO ignores (account_id, other_key, other_name, added) VALUES (?, ?, ?, ?)
                         ON CONFLICT DO NOTHING""", (row["id"], key, str(other)[:100], t.now()))

        await self._store.run_write(tx)

    async def unignore(self, name: str, other: str) -> bool:
        key = _names.name_key(other)

        def tx(t: Tx) -> bool:
            row = _player(t, name)
            cur = t.execute("DELETE FROM ignores WHERE account_id = ? AND other_key = ?", (row["id"], key))
            return bool(cur.rowcount > 0)

        return await self._store.run_write(tx)

    # -- notes
    async def motd(self) -> str | None:
        def q(tx: Tx) -> str | None:
            value = tx.scalar("SELECT value FROM notes WHERE name = 'motd'")
            return None if value is None else str(value)

        return await self._store.run_read(q)

    async def set_motd(self, text: str | None, *, actor: str) -> None:
        def tx(t: Tx) -> None:
            if text is None:
                t.execute("DELETE FROM notes WHERE name = 'motd'")
            else:
                t.execute("""INSERT INTO notes (name, value) VALUES ('motd', ?)
                             ON CONFLICT (name) DO UPDATE SET value = excluded.value""", (str(text)[:MOTD_MAX],))
            write_log(t, actor, "motd", "", "", {"text": None if text is None else str(text)[:MOTD_MAX]})

        await self._store.run_write(tx)

    async def standing(self, name: str) -> Standing | None:
        def q(tx: Tx) -> Standing | None:
            row = find(tx, name)
            if row is None or row["kind"] not in ("player", "guest"):
                return None
            mute = _mute_row(tx, integer(row["id"]))
            refusal = door(tx, text(row["name"]), None, None) if row["kind"] == "player" else None
            banned = refusal is not None and refusal.code == "banned"
            return Standing(
                name=text(row["name"]), guest=row["kind"] == "guest",
                role=str(row["role"]) if row["kind"] == "player" else "player",
                chips=integer(row["balance"]), created=float(number(row["created"])), locked=text_or_none(row["locked"]),
                muted_until=None if mute is None else float(number(mute["until"])),
                banned_until=(float("inf") if refusal.until is None else refusal.until)
                if banned and refusal is not None else None,
                ban_reason=refusal.reason if banned and refusal is not None else "",
            )

        return await self._store.run_read(q)


def _amount(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_CHIPS:
        raise BadAmount(f"an admin grants or retires 1 to {MAX_CHIPS} chips at once, not {value!r}")
    return value


__all__ = ["SQLModeration", "door", "key_fingerprint", "network", "write_log"]


def _conforms(m: SQLModeration) -> None:
    """mypy proves here that :class:`SQLModeration` implements the Protocol."""
    from server.storage.api import Moderation

    x: Moderation = m
    del x

