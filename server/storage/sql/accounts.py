"""Accounts: names, passwords, guests, SSH keys; the movement primitive of the ledger."""

from __future__ import annotations

import asyncio
import logging

from server.storage import names as _names
from server.storage import passwords as _pw
from server.storage.api import (
    Account,
    BadKey,
    GuestsForbidden,
    NameTaken,
    NoSuchAccount,
    RegistrationClosed,
    TooManyRegistrations,
    first_result,
)
from server.storage.sql.tx import Row, Runner, Tx
from server.storage.sql.values import integer, number_or_none, text, text_or_none

log = logging.getLogger("donne.storage")
auth_log = logging.getLogger("donne.storage.auth")

REGISTRATION_WINDOW = 3600.0  # registrations_per_hour counts the last hour


# --------------------------------------------------------------------------- rows (database thread)


def find(tx: Tx, name: str) -> Row | None:
    """The live account of that name (any kind), or None."""
    return tx.one("SELECT * FROM accounts WHERE key = ? AND live = 1", (_names.name_key(name),))


def require(tx: Tx, name: str) -> Row:
    row = find(tx, name)
    if row is None:
        raise NoSuchAccount(f"no account {name!r}")
    return row


def lock(tx: Tx, account_ids: list[int] | set[int]) -> dict[int, Row]:
    """Lock the accounts' rows (PostgreSQL ``FOR UPDATE``, in id order against deadlocks) and read them.

    Every change of an account's balance, holds or round receipts locks its row first,
    so what the transaction reads of them afterwards stays true until it commits."""
    out: dict[int, Row] = {}
    for account_id in sorted(set(account_ids)):
        row = tx.one("SELECT * FROM accounts WHERE id = ?" + tx.lock, (account_id,))
        if row is None:
            raise NoSuchAccount(f"no account #{account_id}")
        out[account_id] = row
    return out


def as_account(row: Row) -> Account:
    return Account(name=text(row["name"]), guest=row["kind"] == "guest", chips=integer(row["balance"]))


def move(
    tx: Tx,
    account_id: int,
    delta: int,
    kind: str,
    *,
    round_id: str | None = None,
    ref: str = "",
    note: str = "",
) -> int:
    """One ledger entry and the balance it changes (the caller holds the transaction); the entry's id."""
    entry = tx.one(
        "INSERT INTO entries (ts, account_id, delta, kind, round_id, ref, note) VALUES (?, ?, ?, ?, ?, ?, ?)"
        " RETURNING id",
        (tx.now(), account_id, delta, kind, round_id, ref, note),
    )
    tx.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (delta, account_id))
    tx.bump(balances=delta)
    if kind == "grant":
        tx.bump(granted=delta)
    elif kind == "retire":
        tx.bump(retired=-delta)
    if delta > 0:
        tx.credited.add(account_id)
    assert entry is not None
    return integer(entry[0])


def available(tx: Tx, account_id: int, balance: int | None = None) -> int:
    """Balance − holds − chips received in transfers of unsettled rounds beyond that round's holds.

    Chips a round-scoped transfer brought in go back if that round is voided, so
    until it settles they may be spent (or held) inside that round only. Keeping
    ``available >= 0`` for every account means any set of voided rounds can always
    be reversed without a balance going below zero or below its holds."""
    if balance is None:
        balance = tx.integer("SELECT balance FROM accounts WHERE id = ?", (account_id,))
    held: dict[str | None, int] = {
        text_or_none(r[0]): integer(r[1])
        for r in tx.rows("SELECT round_id, SUM(amount) FROM holds WHERE account_id = ? GROUP BY round_id", (account_id,))
    }
    pending = 0
    for r in tx.rows("SELECT round_id, net FROM round_flows WHERE account_id = ? AND net > 0", (account_id,)):
        pending += max(0, integer(r[1]) - held.get(text_or_none(r[0]), 0))
    return balance - sum(held.values()) - pending


def create(tx: Tx, name: str, kind: str, password: str | None = None) -> int:
    key = _names.name_key(name)
    skel = _names.skeleton(name)
    same = tx.one("SELECT name FROM accounts WHERE live = 1 AND (key = ? OR skeleton = ?)", (key, skel))
    if same is not None:
        raise NameTaken(f"{name!r} is taken" + ("" if same["name"] == name else f" (looks like {same['name']!r})"))
    row = tx.one(
        "INSERT INTO accounts (name, key, skeleton, kind, password, created) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        (name, key, skel, kind, password, tx.now()),
    )
    assert row is not None
    return integer(row[0])


def retire_free(tx: Tx, row: Row, note: str = "guest left") -> int:
    """Retire what a guest may spend (chips of unsettled rounds stay until those rounds end)."""
    free = available(tx, integer(row["id"]), integer(row["balance"]))
    if free > 0:
        move(tx, integer(row["id"]), -free, "retire", note=note)
    return max(free, 0)


def retire_gone(tx: Tx) -> None:
    """Chips that reach a guest who already left are retired at once (end of every job)."""
    credited, tx.credited = tx.credited, set()
    for account_id in sorted(credited):
        row = tx.one("SELECT * FROM accounts WHERE id = ? AND kind = 'guest' AND live = 0", (account_id,))
        if row is not None:
            retire_free(tx, row)


def logout_guest(tx: Tx, row: Row) -> int:
    """Retire a guest's free chips, release his holds outside rounds, free the name."""
    lock(tx, [integer(row["id"])])
    for h in tx.all("SELECT hold_id, amount FROM holds WHERE account_id = ? AND round_id IS NULL", (row["id"],)):
        tx.execute("DELETE FROM holds WHERE hold_id = ?", (h["hold_id"],))
        tx.bump(held=-integer(h["amount"]))
    retired = retire_free(tx, row)
    tx.execute("UPDATE accounts SET live = 0, closed = ? WHERE id = ?", (tx.now(), row["id"]))
    return retired


# --------------------------------------------------------------------------- the Accounts protocol


class SQLAccounts:
    def __init__(self, store: Runner) -> None:
        self._store = store
        self._locks: dict[str, asyncio.Lock] = {}
        self._lock_users: dict[str, int] = {}  # attempts holding or waiting for each name's lock
        # Keys of the registered (live "player") accounts, kept in memory once loaded: every
        # connection asks ``exists`` (SSH ``begin_auth``, logins), and only ``register`` adds one.
        self._registered: set[str] | None = None

    async def load_registered(self) -> None:
        def q(tx: Tx) -> set[str]:
            return {text(r["key"]) for r in tx.rows("SELECT key FROM accounts WHERE live = 1 AND kind = 'player'")}

        self._registered = await self._store.run_read(q)

    def share(self) -> None:
        """Several servers use this database (a cluster): no cache of the registered names, since
        another server may register one at any time; :meth:`exists` asks the database."""
        self._registered = None

    def remember(self, name: str) -> None:
        """``name`` is a registered account now (a rename, or a change made by another process)."""
        if self._registered is not None:
            self._registered.add(_names.name_key(name))

    def forget(self, name: str) -> None:
        """``name`` is no registered account any more (a rename)."""
        if self._registered is not None:
            self._registered.discard(_names.name_key(name))

    async def exists(self, name: str, *, fresh: bool = False) -> bool:
        """True when ``name`` is a registered account (guests and system accounts are not).

        From memory once loaded; ``fresh``: a name memory does not know is asked of the database
        (and remembered when it is one), for an account made since by another process
        (``donne admin register`` beside the running server)."""
        registered = self._registered
        if registered is not None:
            key = _names.name_key(name)
            if key in registered or not fresh:
                return key in registered

        def q(tx: Tx) -> bool:
            row = find(tx, name)
            return row is not None and row["kind"] == "player"

        found = await self._store.run_read(q)
        if found and registered is not None:
            registered.add(_names.name_key(name))
        return found

    async def get(self, name: str) -> Account | None:
        def q(tx: Tx) -> Account | None:
            row = find(tx, name)
            return None if row is None else as_account(row)

        return await self._store.run_read(q)

    async def available(self, name: str) -> str:
        """The cleaned name when nobody holds it or a look-alike; raises BadName / NameTaken."""
        clean = _names.clean_name(name)

        def q(tx: Tx) -> str:
            same = tx.one(
                "SELECT name FROM accounts WHERE live = 1 AND (key = ? OR skeleton = ?)",
                (_names.name_key(clean), _names.skeleton(clean)),
            )
            if same is not None:
                raise NameTaken(f"{clean!r} is taken")
            return clean

        return await self._store.run_read(q)

    async def register(
        self, name: str, password: str, *, replacing_guest: str | None = None, address: str = ""
    ) -> Account:
        """A new account with the starting grant.

        ``replacing_guest``: the live guest this person was until now; in the
        same transaction his chips are retired and his name freed (so a guest
        can register the name he plays under). ``address``: at most
        ``registrations_per_hour`` new accounts per address per hour."""
        settings = self._store.settings
        if not settings.allow_registration:
            raise RegistrationClosed("this server takes no new accounts")
        clean = _names.clean_name(name)
        _pw.check_new_password(password)
        limit = settings.registrations_per_hour
        address = str(address or "")[:100]
        loop = asyncio.get_running_loop()
        hashed = await loop.run_in_executor(None, _pw.hash_password, password, settings.scrypt_n)
        grant = settings.starting_chips

        def tx(t: Tx) -> Account:
            if limit > 0 and address:
                since = t.now() - REGISTRATION_WINDOW
                t.execute("DELETE FROM registrations WHERE address = ? AND ts <= ?", (address, since))
                count = t.integer("SELECT COUNT(*) FROM registrations WHERE address = ?", (address,))
                if count >= limit:
                    raise TooManyRegistrations(f"at most {limit} new accounts per hour from one address")
            if replacing_guest is not None:
                row = find(t, replacing_guest)
                if row is not None and row["kind"] == "guest":
                    logout_guest(t, row)
            account_id = create(t, clean, "player", hashed)
            if grant > 0:
                move(t, account_id, grant, "grant", note="register")
            if address:
                t.execute("INSERT INTO registrations (address, ts) VALUES (?, ?)", (address, t.now()))
            return Account(name=clean, guest=False, chips=grant)

        # Known before the commit (while it is written, ``exists`` already asks for the password:
        # the safe side), forgotten again if the write fails.
        key = _names.name_key(clean)
        registered = self._registered
        new_key = registered is not None and key not in registered
        if registered is not None:
            registered.add(key)
        try:
            account = await self._store.run_write(tx)
        except BaseException:
            if new_key and registered is not None:
                registered.discard(key)
            raise
        log.info("account %s registered", clean)
        return account

    async def verify_password(self, name: str, password: str, address: str = "") -> Account | None:
        key = _names.name_key(name) if isinstance(name, str) else ""
        lock_ = self._locks.setdefault(key, asyncio.Lock())
        self._lock_users[key] = self._lock_users.get(key, 0) + 1
        try:
            # One attempt per name at a time: parallel guesses queue behind the back-off.
            async with lock_:
                return await self._verify(key, name, password, address)
        finally:
            self._lock_users[key] -= 1
            if not self._lock_users[key]:
                del self._lock_users[key], self._locks[key]

    async def _verify(self, key: str, name: str, password: str, address: str) -> Account | None:
        store = self._store

        def q(tx: Tx) -> Row | None:
            row = find(tx, name) if key else None
            return row if row is not None and row["kind"] == "player" else None

        row = await store.run_read(q)
        if row is None and key and self._registered is not None and key in self._registered:
            self._registered.discard(key)  # renamed by another process (``donne admin``): no account now
        stored = text(row["password"]) if row is not None else _pw.dummy_hash(store.settings.scrypt_n)
        loop = asyncio.get_running_loop()
        ok = isinstance(password, str) and await loop.run_in_executor(None, _pw.verify_password, password, stored)
        if ok and row is not None:
            store.backoff.succeed(key)
            if _pw.needs_rehash(stored, store.settings.scrypt_n):
                await self._rehash(integer(row["id"]), password)
            if row["reset_hash"] is not None:
                await self._clear_reset(integer(row["id"]))  # remembered after all: the code is no use now
            return as_account(row)
        if (not ok and row is not None and isinstance(password, str) and row["reset_hash"] is not None
                and float(number_or_none(row["reset_until"]) or 0) > store.clock()):
            code = _pw.normalize_code(password)
            if await loop.run_in_executor(None, _pw.verify_password, code, text(row["reset_hash"])):
                store.backoff.succeed(key)
                auth_log.warning("account %r logged in with its one-time reset code from %s", name,
                                 address or "unknown address")
                return as_account(row)
        failures, delay = store.backoff.fail(key, address)
        auth_log.warning(
            "wrong password for %r from %s: failure %d, answered after %.2f s",
            name,
            address or "unknown address",
            failures,
            delay,
        )
        await store.sleep(delay)
        return None

    async def _clear_reset(self, account_id: int) -> None:
        def tx(t: Tx) -> None:
            t.execute("UPDATE accounts SET reset_hash = NULL, reset_until = NULL WHERE id = ?", (account_id,))

        await self._store.run_write(tx)

    async def _rehash(self, account_id: int, password: str) -> None:
        loop = asyncio.get_running_loop()
        hashed = await loop.run_in_executor(None, _pw.hash_password, password, self._store.settings.scrypt_n)

        def tx(t: Tx) -> None:
            t.execute("UPDATE accounts SET password = ? WHERE id = ?", (hashed, account_id))

        await self._store.run_write(tx)

    async def set_password(self, name: str, password: str) -> None:
        """Change a registered account's password."""
        _pw.check_new_password(password)
        loop = asyncio.get_running_loop()
        hashed = await loop.run_in_executor(None, _pw.hash_password, password, self._store.settings.scrypt_n)

        def tx(t: Tx) -> None:
            row = require(t, name)
            if row["kind"] != "player":
                raise NoSuchAccount(f"{name!r} is not a registered account")
            # a reset code is used up by the new password
            t.execute("UPDATE accounts SET password = ?, reset_hash = NULL, reset_until = NULL WHERE id = ?",
                      (hashed, row["id"]))

        await self._store.run_write(tx)

    async def login_guest(self, name: str) -> Account:
        if not self._store.settings.allow_guests:
            raise GuestsForbidden("this server admits registered accounts only")
        clean = _names.clean_name(name)
        grant = self._store.settings.guest_chips

        def tx(t: Tx) -> Account:
            row = find(t, clean)
            if row is not None:
                if row["kind"] == "guest":
                    return as_account(row)  # the same guest again: no second grant
                if row["kind"] == "player":
                    self.remember(clean)  # registered by another process: ask for its password next time
                raise NameTaken(f"{clean!r} is a registered name")
            account_id = create(t, clean, "guest")
            if grant > 0:
                move(t, account_id, grant, "grant", note="guest")
            return Account(name=clean, guest=True, chips=grant)

        return await self._store.run_write(tx, relaxed=True)

    async def logout_guest(self, name: str) -> None:
        def tx(t: Tx) -> int | None:
            row = find(t, name)
            if row is None or row["kind"] != "guest":
                return None
            return logout_guest(t, row)

        retired = await self._store.run_write(tx, relaxed=True)
        if retired is not None:
            log.info("guest %s left; %d chips retired", name, retired)

    async def add_key(self, name: str, public_key: str) -> None:
        key, comment = parse_public_key(public_key)
        max_keys = self._store.settings.max_keys

        def tx(t: Tx) -> None:
            row = require(t, name)
            if row["kind"] != "player":
                raise NoSuchAccount(f"{name!r} is not a registered account")
            if t.integer("SELECT COUNT(*) FROM ssh_keys WHERE account_id = ?", (row["id"],)) >= max_keys:
                raise BadKey(f"at most {max_keys} keys per account")
            t.execute(
                "INSERT INTO ssh_keys (account_id, key, comment, added) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (row["id"], key, comment, t.now()),
            )

        await self._store.run_write(tx)

    async def remove_key(self, name: str, public_key: str) -> bool:
        key, _ = parse_public_key(public_key)

        def tx(t: Tx) -> bool:
            row = require(t, name)
            cur = t.execute("DELETE FROM ssh_keys WHERE account_id = ? AND key = ?", (row["id"], key))
            return bool(cur.rowcount > 0)

        return await self._store.run_write(tx)

    async def keys(self, name: str) -> list[str]:
        def q(t: Tx) -> list[str]:
            row = find(t, name)
            if row is None or row["kind"] != "player":
                return []
            rows = t.all("SELECT key, comment FROM ssh_keys WHERE account_id = ? ORDER BY added", (row["id"],))
            return [f"{text(r['key'])} {text(r['comment'])}".strip() for r in rows]

        return await self._store.run_read(q)

    async def fund_bot(self, display_name: str, chips: int) -> Account:
        """The bot's account topped up (or down) to ``chips`` from the house (an :class:`FundBot`)."""
        from server.storage.api import FundBot

        return first_result(await self._store.apply([FundBot(display_name, chips)]), Account)

    async def release_bot(self, display_name: str) -> int:
        from server.storage.api import ReleaseBot

        return first_result(await self._store.apply([ReleaseBot(display_name)]), int)


def parse_public_key(text: str) -> tuple[str, str]:
    """``"type base64 [comment]"`` checked with asyncssh; returns (``"type base64"``, comment)."""
    import asyncssh  # the SSH transport's library; imported here only

    if not isinstance(text, str) or len(text) > 16384:
        raise BadKey("not an SSH public key")
    line = text.strip()
    parts = line.split(None, 2)
    if len(parts) < 2 or "\n" in line:
        raise BadKey("an SSH public key is one line: TYPE BASE64 [COMMENT]")
    try:
        key = asyncssh.import_public_key(line)
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise BadKey(f"not an SSH public key: {exc}") from None
    exported = key.export_public_key("openssh").decode("ascii").split()
    comment = parts[2] if len(parts) > 2 else ""
    comment = "".join(ch for ch in comment if ch.isprintable())[:100]
    return f"{exported[0]} {exported[1]}", comment
