"""``donne admin``: the operator's command line, while the server is stopped or running.

The same account actions as the admins' commands, on the database itself (SQLite serialises the
writers; PostgreSQL's transactions do), each written to the moderation log with the actor
``console:USER``. Only here can an admin be made (the first one) or acted on::

    donne admin grant alice admin                 # roles: player, moderator, admin
    donne admin revoke alice
    donne admin register carol                    # a new account, with a one-time code to log in
    donne admin resetpw bob                       # a one-time code: log in with it, then passwd
    donne admin rename bob robert                 # only while the server is stopped
    donne admin lock bob --reason "compromised"   # and unlock
    donne admin chips bob +500 --reason "tournament prize"   # -200: retired (from available chips)
    donne admin ban bob --for 3d --reason cheating           # a name, an address or CIDR, a key
    donne admin ban 198.51.100.0/24 --reason botnet          # for good without --for
    donne admin unban bob                         # or: unban '#12'
    donne admin bans | modlog [--limit N] [--name NAME] | standing bob
    donne admin motd "Tournament on Sunday" | motd --clear | motd

``--data-dir DIR`` (default ``data``) or ``--url postgresql://…``. Each prints one JSON object and
exits 0 when done, 1 when refused (the reason in ``error``), 2 when there is no database. A ban or
a lock made beside a running server holds at the next connection (the door reads the database);
people already connected stay until they leave — the online commands disconnect them at once.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from server.commands.roles import is_address, is_key, parse_duration
from server.messages.moderation import when
from server.operations.limits import clean_text
from server.protocol import JSONValue
from server.storage.api import ROLES, StorageError

ACTIONS = ("grant", "revoke", "register", "resetpw", "rename", "lock", "unlock", "chips", "ban", "unban", "bans",
           "modlog", "standing", "motd")


def actor() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no user name in this environment
        user = "?"
    return "console:" + clean_text(user, 40)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--data-dir", default="data", help="the server's data folder, or the SQLite file (default: data)")
    where.add_argument("--url", help="a postgresql:// URL instead of a data folder")
    # the same options after the action too (donne admin grant alice admin --data-dir /srv/donne)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    common.add_argument("--url", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="action", required=True)
    add = sub.add_parser

    def sub_parser(name: str, **kw: Any) -> argparse.ArgumentParser:  # add_parser's own keywords
        return add(name, parents=[common], **kw)

    sub.add_parser = sub_parser  # type: ignore[method-assign]
    p = sub.add_parser("grant", help="give an account a role")
    p.add_argument("name")
    p.add_argument("role", choices=ROLES)
    p.add_argument("--reason", default="")
    p = sub.add_parser("revoke", help="back to player")
    p.add_argument("name")
    p.add_argument("--reason", default="")
    p = sub.add_parser("register", help="create an account (even with allow_registration = false)")
    p.add_argument("name")
    for action in ("resetpw", "standing", "unlock"):
        p = sub.add_parser(action)
        p.add_argument("name")
    p = sub.add_parser("rename", help="rename an account (the server must be stopped)")
    p.add_argument("name")
    p.add_argument("new")
    p.add_argument("--reason", default="")
    p = sub.add_parser("lock")
    p.add_argument("name")
    p.add_argument("--reason", default="")
    p = sub.add_parser("chips", help="+N grants new chips, -N retires chips, each with a reason")
    p.add_argument("name")
    p.add_argument("amount", type=int)
    p.add_argument("--reason", required=True)
    p = sub.add_parser("ban", help="ban an account, an address or CIDR network, or an SSH public key")
    p.add_argument("target", nargs="+", help="NAME, ADDRESS[/PREFIX], or TYPE BASE64 (a public key)")
    p.add_argument("--for", dest="duration", default="forever", help="10m, 2h, 3d, 1w... (default: forever)")
    p.add_argument("--reason", default="")
    p = sub.add_parser("unban")
    p.add_argument("target", nargs="+", help="NAME, ADDRESS[/PREFIX], a public key, or #NUMBER")
    sub.add_parser("bans")
    p = sub.add_parser("modlog")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--name")
    p = sub.add_parser("motd", help="show, set (TEXT) or --clear the message of the day")
    p.add_argument("text", nargs="?")
    p.add_argument("--clear", action="store_true")


def _target(words: Sequence[str]) -> tuple[str, str]:
    text = " ".join(words).strip()
    if text.startswith("#") and text[1:].isdigit():
        return "id", text[1:]
    if is_key(text.split()):
        return "key", text
    if is_address(text):
        return "address", text
    return "account", text


async def _in_use(where: str) -> bool:
    from server.storage import is_postgres_url

    if is_postgres_url(where):
        from server.storage.postgres import LOCK_KEY, pg_connect

        def probe() -> bool:
            conn = pg_connect(where)
            try:
                row = conn.execute("SELECT pg_try_advisory_lock(%s)", (LOCK_KEY,)).fetchone()
                return not (row and row[0])
            finally:
                conn.close()

        return await asyncio.to_thread(probe)
    from server.storage.sqlite import in_use

    return in_use(where)


async def perform(args: argparse.Namespace) -> dict[str, JSONValue]:
    """Run one action; its result as a JSON-able dict (raises StorageError or ValueError when refused)."""
    from server.storage import open_store
    from server.storage.sqlite import db_path

    where = args.url or args.data_dir
    if not args.url and not db_path(where).exists():
        raise FileNotFoundError(f"no database at {db_path(where)}")
    if args.action == "rename" and await _in_use(where):
        raise StorageError("the server is running: rename online (rename NAME NEW, the person logged out), "
                           "or stop the server first")
    store = await open_store(where, {"allow_registration": True}, recover=False, exclusive=False)
    who = actor()
    mod = store.moderation
    reason = clean_text(getattr(args, "reason", "") or "", 200)
    try:
        action = args.action
        if action == "grant":
            return {"name": args.name, "role": args.role,
                    "was": await mod.set_role(args.name, args.role, actor=who, reason=reason)}
        if action == "revoke":
            return {"name": args.name, "role": "player",
                    "was": await mod.set_role(args.name, "player", actor=who, reason=reason)}
        if action == "register":
            import secrets

            account = await store.accounts.register(args.name, secrets.token_urlsafe(24))
            await mod.record(who, "register", account.name)
            code, until = await mod.reset_password(account.name, actor=who)
            return {"name": account.name, "chips": account.chips, "code": code, "until": when(until)}
        if action == "resetpw":
            code, until = await mod.reset_password(args.name, actor=who)
            return {"name": args.name, "code": code, "until": when(until)}
        if action == "rename":
            return {"name": args.name, "new": await mod.rename(args.name, args.new, actor=who, reason=reason)}
        if action == "lock":
            await mod.lock(args.name, reason=reason, actor=who)
            return {"name": args.name, "locked": True}
        if action == "unlock":
            await mod.unlock(args.name, actor=who)
            return {"name": args.name, "locked": False}
        if action == "chips":
            if not reason:
                raise ValueError("a reason is required")
            if args.amount > 0:
                balance = await mod.grant_chips(args.name, args.amount, reason=reason, actor=who)
            else:
                balance = await mod.retire_chips(args.name, -args.amount, reason=reason, actor=who)
            audit = await store.ledger.audit()
            return {"name": args.name, "delta": args.amount, "chips": balance, "audit_ok": audit.ok}
        if action == "ban":
            kind, target = _target(args.target)
            if kind == "id":
                raise ValueError("a ban's number is for unban")
            seconds = parse_duration(args.duration)
            ban = await mod.ban(kind, target, until=None if seconds is None else time.time() + seconds,
                                reason=reason, actor=who)
            return {"ban": ban.id, "kind": ban.kind, "target": ban.target, "until": when(ban.until)}
        if action == "unban":
            kind, target = _target(args.target)
            lifted = await mod.unban(kind, target, actor=who)
            return {"ban": lifted.id, "kind": lifted.kind, "target": lifted.target}
        if action == "bans":
            return {"bans": [{**asdict(b), "created": when(b.created), "until": when(b.until)} for b in await mod.bans()],
                    "mutes": [{**asdict(m), "created": when(m.created), "until": when(m.until)}
                              for m in await mod.mutes()]}
        if action == "modlog":
            return {"log": [{**asdict(e), "ts": when(e.ts)} for e in await mod.log(args.limit, args.name)]}
        if action == "standing":
            standing = await mod.standing(args.name)
            if standing is None:
                raise ValueError(f"no account {args.name!r}")
            out = asdict(standing)
            out["banned_until"] = (None if standing.banned_until in (None, float("inf"))
                                   else when(standing.banned_until))
            out["banned"] = standing.banned_until is not None
            out["muted_until"] = when(standing.muted_until)
            out["created"] = when(standing.created)
            return out
        if action == "motd":
            if args.clear:
                await mod.set_motd(None, actor=who)
            elif args.text is not None:
                text = "\n".join(clean_text(line, 500) for line in args.text.splitlines()).strip()
                if not text:
                    raise ValueError("an empty message of the day: use --clear")
                await mod.set_motd(text, actor=who)
            return {"motd": await mod.motd()}
        raise ValueError(f"unknown action {action!r}")
    finally:
        await store.close()


def _errors() -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = (StorageError, ValueError)
    try:
        import psycopg

        errors += (psycopg.Error,)
    except ImportError:  # pragma: no cover - a dependency of the project
        pass
    return errors


def run(args: argparse.Namespace) -> int:
    quiet = logging.getLogger("donne")  # the JSON printed says what was done
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        result = asyncio.run(perform(args))
    except FileNotFoundError as exc:
        print(json.dumps({"ok": False, "error": str(exc)}), file=sys.stderr)
        return 2
    except _errors() as exc:
        print(json.dumps({"ok": False, "error": str(exc) or type(exc).__name__}), file=sys.stderr)
        return 1
    finally:
        quiet.setLevel(level)
    print(json.dumps({"ok": True, **result}, indent=2, ensure_ascii=False, default=str))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="donne admin", description=(__doc__ or "").splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
