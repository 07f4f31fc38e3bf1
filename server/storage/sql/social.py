"""Profiles, friends and offline messages of registered accounts, on the shared SQL."""

from __future__ import annotations

import json

from server.storage import names as _names
from server.storage.api import (
    MATCH_SUFFIX,
    Letter,
    MailboxFull,
    NoSuchAccount,
    Profile,
    TablePlayed,
    TooManyFriends,
)
from server.storage.sql.accounts import find
from server.storage.sql.tx import Row, Runner, Tx
from server.storage.sql.values import integer, number, number_or_none, text


def _player(t: Tx, name: str) -> Row:
    row = find(t, name)
    if row is None or row["kind"] != "player":
        raise NoSuchAccount(f"no account {name!r}")
    return row


def _profile(t: Tx, account: Row) -> Profile:
    row = t.one("SELECT * FROM profiles WHERE key = ?", (account["key"],))
    if row is None:
        return Profile(text(account["name"]), float(number(account["created"])), None)
    return Profile(text(account["name"]), float(number(account["created"])),
                   None if row["last_seen"] is None else float(number(row["last_seen"])), text(row["bio"]),
                   bool(row["hide_where"]), bool(row["notify"]))


def _ensure(t: Tx, key: str) -> None:
    t.execute("INSERT INTO profiles (key) VALUES (?) ON CONFLICT (key) DO NOTHING", (key,))


class SQLSocial:
    def __init__(self, store: Runner) -> None:
        self._store = store

    async def profile(self, name: str) -> Profile | None:
        def q(t: Tx) -> Profile | None:
            row = find(t, name)
            if row is None or row["kind"] != "player":
                return None
            return _profile(t, row)

        return await self._store.run_read(q)

    async def set_profile(self, name: str, *, bio: str | None = None, hide_where: bool | None = None,
                          notify: bool | None = None) -> Profile:
        def tx(t: Tx) -> Profile:
            account = _player(t, name)
            _ensure(t, text(account["key"]))
            if bio is not None:
                t.execute("UPDATE profiles SET bio = ? WHERE key = ?", (bio, account["key"]))
            if hide_where is not None:
                t.execute("UPDATE profiles SET hide_where = ? WHERE key = ?", (int(hide_where), account["key"]))
            if notify is not None:
                t.execute("UPDATE profiles SET notify = ? WHERE key = ?", (int(notify), account["key"]))
            return _profile(t, account)

        return await self._store.run_write(tx)

    async def seen(self, name: str) -> None:
        def tx(t: Tx) -> None:
            account = find(t, name)
            if account is None or account["kind"] != "player":
                return
            _ensure(t, text(account["key"]))
            t.execute("UPDATE profiles SET last_seen = ? WHERE key = ?", (t.now(), account["key"]))

        await self._store.run_write(tx, relaxed=True)

    async def friends(self, name: str) -> list[str]:
        def q(t: Tx) -> list[str]:
            rows = t.all(
                """SELECT f.name AS fname, a.name AS aname FROM friends f
                   LEFT JOIN accounts a ON a.key = f.friend AND a.live = 1 AND a.kind = 'player'
                   WHERE f.key = ? ORDER BY f.added, f.friend""",
                (_names.name_key(name),),
            )
            return [text(r["aname"] or r["fname"]) for r in rows]

        return await self._store.run_read(q)

    async def add_friend(self, name: str, friend: str, *, limit: int) -> str:
        def tx(t: Tx) -> str:
            me = _player(t, name)
            other = _player(t, friend)
            if t.one("SELECT 1 FROM friends WHERE key = ? AND friend = ?", (me["key"], other["key"])):
                return str(other["name"])
            if t.integer("SELECT COUNT(*) FROM friends WHERE key = ?", (me["key"],)) >= limit:
                raise TooManyFriends(f"{name} has {limit} friends")
            t.execute("INSERT INTO friends (key, friend, name, added) VALUES (?, ?, ?, ?)",
                      (me["key"], other["key"], other["name"], t.now()))
            return str(other["name"])

        return await self._store.run_write(tx)

    async def remove_friend(self, name: str, friend: str) -> bool:
        def tx(t: Tx) -> bool:
            cur = t.execute("DELETE FROM friends WHERE key = ? AND friend = ?",
                            (_names.name_key(name), _names.name_key(friend)))
            return bool(cur.rowcount)

        return await self._store.run_write(tx)

    async def watchers(self, name: str) -> list[str]:
        def q(t: Tx) -> list[str]:
            rows = t.all(
                """SELECT f.key FROM friends f LEFT JOIN profiles p ON p.key = f.key
                   WHERE f.friend = ? AND COALESCE(p.notify, 1) = 1 ORDER BY f.key""",
                (_names.name_key(name),),
            )
            return [text(r["key"]) for r in rows]

        return await self._store.run_read(q)

    async def send_mail(self, sender: str, recipient: str, text: str, *, per_sender: int,
                        per_recipient: int) -> int:
        def tx(t: Tx) -> int:
            to = _player(t, recipient)
            sender_key = _names.name_key(sender)
            waiting = t.integer("SELECT COUNT(*) FROM mail WHERE recipient = ?", (to["key"],))
            mine = t.integer("SELECT COUNT(*) FROM mail WHERE recipient = ? AND sender_key = ?",
                             (to["key"], sender_key))
            if mine >= per_sender or waiting >= per_recipient:
                raise MailboxFull(f"{recipient}: {mine} from {sender}, {waiting} in all")
            row = t.one("INSERT INTO mail (recipient, sender, sender_key, text, sent) VALUES (?, ?, ?, ?, ?) "
                        "RETURNING id", (to["key"], sender, sender_key, text, t.now()))
            assert row is not None
            return integer(row[0])

        return await self._store.run_write(tx)

    async def take_mail(self, name: str) -> list[Letter]:
        def tx(t: Tx) -> list[Letter]:
            key = _names.name_key(name)
            rows = t.all("SELECT * FROM mail WHERE recipient = ? ORDER BY id", (key,))
            if rows:
                t.execute("DELETE FROM mail WHERE recipient = ?", (key,))
            return [Letter(integer(r["id"]), text(r["sender"]), text(r["text"]), float(number(r["sent"]))) for r in rows]

        return await self._store.run_write(tx)

    async def tables_played(self, name: str) -> list[TablePlayed]:
        match = f"h.round_id LIKE '%{MATCH_SUFFIX}'"

        def q(t: Tx) -> list[TablePlayed]:
            key = _names.name_key(name)
            rows = t.all(
                f"""SELECT h.game, h.rules,
                           SUM(CASE WHEN {match} THEN 0 ELSE 1 END) AS rounds,
                           SUM(CASE WHEN {match} THEN 0 ELSE s.president END) AS titles,
                           SUM(CASE WHEN {match} THEN 1 ELSE 0 END) AS matches
                    FROM history_seats s JOIN history h ON h.round_id = s.round_id
                    WHERE s.key = ? GROUP BY h.game, h.rules ORDER BY h.game, h.rules""",
                (key,),
            )
            out: dict[tuple[str, str], TablePlayed] = {
                (text(r["game"]), text(r["rules"])): {
                    "game": text(r["game"]), "rules": text(r["rules"]), "rounds": int(number_or_none(r["rounds"]) or 0),
                    "matches": int(number_or_none(r["matches"]) or 0), "titles": int(number_or_none(r["titles"]) or 0),
                    "won": 0} for r in rows}
            for r in t.rows(f"""SELECT h.game, h.rules, h.result, s.seat FROM history_seats s
                                JOIN history h ON h.round_id = s.round_id WHERE s.key = ? AND {match}""", (key,)):
                entry = out.get((text(r["game"]), text(r["rules"])))
                if entry is not None and _won(text(r["result"]), integer(r["seat"])):
                    entry["won"] += 1
            return list(out.values())

        return await self._store.run_read(q)


def _won(result_json: str, seat: int) -> bool:
    try:
        winners = json.loads(result_json).get("winners")
    except (ValueError, AttributeError):
        return False
    return isinstance(winners, list) and seat in winners
