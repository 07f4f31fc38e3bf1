"""Running a community: the staff's commands, and everyone's ``ignore`` and ``motd``.

Moderators: ``kick``, ``mute``, ``unmute``. Admins, also: ``ban``, ``unban``, ``bans``,
``announce``, ``motd`` (setting it), ``shutdown``, ``grant`` / ``revoke`` (roles), ``resetpw``,
``rename``, ``lock`` / ``unlock``, ``chips`` (grant or retire, with a reason), ``modlog``,
``standing``. Everyone: ``motd`` (reading it), ``ignore`` / ``unignore``.

Who may run what is decided in one place: :func:`staff` registers a command behind
:data:`server.commands.roles.ROLE_NEEDED`, reading the caller's role from the store at every
call (a role granted by ``donne admin`` counts at once); whom it may act on is :func:`target`
(only on lower roles, never on oneself). A refusal (``forbidden``, ``no_such_player``…) changes
nothing and writes nothing; every action done writes its line of the moderation log (``modlog``),
in the same transaction when the store changes. Reasons and announcements are cleaned like chat.
No reply carries a password hash or another player's cards; ``resetpw``'s code goes to the admin
who asked, once, and is stored hashed.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from server.commands import Context, command
from server.commands.roles import (
    PLAYER,
    ROLE_NEEDED,
    allowed,
    may_act_on,
    parse_duration,
    target_kind,
)
from server.lobby.moderation import IGNORES
from server.messages.moderation import when
from server.operations.limits import clean_text
from server.people.players import Player
from server.protocol import Args, CommandError, JSONValue, Result, arg_int, arg_str
from server.storage.api import (
    ROLES,
    BadAmount,
    BadName,
    Forbidden,
    InsufficientChips,
    NameTaken,
    NoSuchAccount,
    NoSuchBan,
    StorageError,
)
from server.storage.moderation import in_network, network
from server.storage.names import MAX_LENGTH, name_key

log = logging.getLogger(__name__)

REASON_MAX = 200
ANNOUNCE_MAX = 500


@dataclass(frozen=True, slots=True)
class Actor:
    name: str
    role: str


@dataclass(frozen=True, slots=True)
class Target:
    name: str  # as the account (or the guest) spells it
    role: str
    guest: bool
    registered: bool
    player: Player | None  # connected, or holding a seat

    @property
    def online(self) -> bool:
        return self.player is not None and self.player.connected


StaffHandler = Callable[[Context, Args, Actor], Awaitable[Result | None]]


async def actor_of(ctx: Context) -> Actor:
    session = ctx.session
    assert session.name is not None
    role = PLAYER if session.guest else await ctx.store.moderation.role(session.name)
    return Actor(session.name, role)


def check(action: str, actor: Actor) -> None:
    """The one role check: ``forbidden`` (with the role needed) unless ``actor`` may run ``action``."""
    if not allowed(action, actor.role):
        log.info("%s (%s) may not %s", actor.name, actor.role, action)
        raise CommandError("forbidden", need=ROLE_NEEDED[action])


def staff(name: str) -> Callable[[StaffHandler], StaffHandler]:
    """Register ``name`` as a command that only :data:`ROLE_NEEDED`\\ [name] and above may run."""

    def register(handler: StaffHandler) -> StaffHandler:
        @functools.wraps(handler)
        async def guarded(ctx: Context, args: Args) -> Result | None:
            actor = await actor_of(ctx)
            check(name, actor)
            return await handler(ctx, args, actor)

        command(name)(guarded)
        return handler

    return register


def reason_of(args: Args, *, required: bool = False) -> str:
    raw = args.get("reason")
    if raw is None:
        raw = ""
    if not isinstance(raw, str):
        raise CommandError("bad_argument", arg="reason")
    reason = clean_text(raw, REASON_MAX)
    if required and not reason:
        raise CommandError("bad_argument", arg="reason")
    return reason


def name_of(args: Args, key: str = "name") -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > 100:
        raise CommandError("bad_argument", arg=key)
    return clean_text(value, 100)


async def target(ctx: Context, actor: Actor, raw: str, *, online: bool = False, account: bool = False) -> Target:
    """Whom an action is for: connected (``online``), or a registered account (``account``), or either;
    refused unless the actor's role is above the target's, and never oneself."""
    player = ctx.lobby.player(raw)
    standing = await ctx.store.moderation.standing(raw)
    if online and (player is None or not player.connected):
        raise CommandError("no_such_player", name=raw)
    if standing is None and player is None:
        raise CommandError("no_such_account" if account else "no_such_player", name=raw)
    name = standing.name if standing is not None else player.name if player is not None else raw
    guest = standing.guest if standing is not None else bool(player and player.guest)
    role = standing.role if standing is not None and not guest else PLAYER
    if not may_act_on(actor.role, role, self_=name_key(name) == name_key(actor.name)):
        if name_key(name) == name_key(actor.name):
            raise CommandError("forbidden", yourself=True)
        raise CommandError("forbidden", name=name)
    if account and (standing is None or guest):
        raise CommandError("no_such_account", name=name)
    return Target(name, role, guest, standing is not None and not guest, player)


def _storage(exc: StorageError, name: str = "") -> CommandError:
    if isinstance(exc, NoSuchAccount):
        return CommandError("no_such_account", name=name) if name else CommandError("no_such_account")
    if isinstance(exc, NoSuchBan):
        return CommandError("no_such_ban")
    if isinstance(exc, NameTaken):
        return CommandError("name_taken", name=name) if name else CommandError("name_taken")
    if isinstance(exc, BadName):
        return CommandError("bad_name", max=MAX_LENGTH)
    if isinstance(exc, InsufficientChips):
        return CommandError("insufficient_chips")
    if isinstance(exc, Forbidden):
        return CommandError("forbidden", name=name) if name else CommandError("forbidden")
    if isinstance(exc, BadAmount):
        return CommandError("bad_argument")
    return CommandError(exc.code)


def duration_of(args: Args, *, forever: bool) -> float | None:
    try:
        return parse_duration(args.get("duration"), forever=forever)
    except ValueError:
        raise CommandError("bad_argument", arg="duration") from None


def _tell(player: Player | None, event: Result) -> None:
    if player is not None and player.session is not None and player.connected:
        player.session.push_event(event)


# --------------------------------------------------------------------------- moderators


@staff("kick")
async def kick(ctx: Context, args: Args, actor: Actor) -> Result:
    """Disconnect someone now (their seat waits for them as after a lost connection)."""
    who = await target(ctx, actor, name_of(args), online=True)
    reason = reason_of(args)
    await ctx.store.moderation.record(actor.name, "kick", who.name, reason)
    assert who.player is not None and who.player.session is not None
    ctx.lobby.conduct.disconnect(who.player.session, {"event": "kicked", "reason": reason}, "kicked")
    return {"name": who.name, "reason": reason}


@staff("mute")
async def mute(ctx: Context, args: Args, actor: Actor) -> Result:
    """No lobby or room chat (nor tells) from them for ``duration``; they are told until when."""
    who = await target(ctx, actor, name_of(args))
    seconds = duration_of(args, forever=False)
    assert seconds is not None
    reason = reason_of(args)
    try:
        done = await ctx.store.moderation.mute(who.name, time.time() + seconds, reason=reason, actor=actor.name)
    except StorageError as exc:
        raise _storage(exc, who.name) from None
    ctx.lobby.conduct.noted_mute(who.name, done.until)  # tells and messages refused from now on
    await _drop_seed(who.player)
    until = when(done.until)
    _tell(who.player, {"event": "muted", "until": until, "reason": reason})
    ctx.lobby.shared_mute(who.name, done.until, {"event": "muted", "until": until, "reason": reason})
    return {"name": who.name, "until": until, "reason": reason}


async def _drop_seed(player: Player | None) -> None:
    """A muted player's standing ``seed`` text goes: every deal's record would publish it."""
    if player is None or player.extra.pop("seed", None) is None or player.room is None:
        return
    with contextlib.suppress(CommandError):  # no seat any more: nothing of it is left at the table
        await player.room.submit(player, "seed", {"text": None})


@staff("unmute")
async def unmute(ctx: Context, args: Args, actor: Actor) -> Result:
    who = await target(ctx, actor, name_of(args))
    try:
        await ctx.store.moderation.unmute(who.name, actor=actor.name, reason=reason_of(args))
    except StorageError as exc:
        raise _storage(exc, who.name) from None
    ctx.lobby.conduct.noted_mute(who.name, None)
    _tell(who.player, {"event": "unmuted"})
    ctx.lobby.shared_mute(who.name, None, {"event": "unmuted"})
    return {"name": who.name}


# --------------------------------------------------------------------------- bans


def _own_address(ctx: Context) -> str:
    return str(getattr(ctx.session.conn, "peer", ""))


@staff("ban")
async def ban(ctx: Context, args: Args, actor: Actor) -> Result:
    """Ban an account (``name``), an address or a CIDR network (``address``), or an SSH public key
    (``key``) for ``duration`` (or ``forever``); whoever it concerns is disconnected and refused at
    the door. A guest's name bans the address the guest is connected from."""
    try:
        kind, value = target_kind(args)
    except ValueError as exc:
        raise CommandError("bad_argument", arg=str(exc)) from None
    seconds = duration_of(args, forever=True)
    reason = reason_of(args)
    until = None if seconds is None else time.time() + seconds
    lobby = ctx.lobby
    who: Target | None = None
    if kind == "account":
        who = await target(ctx, actor, value)
        if who.guest:  # a guest has no account: its address is what comes back
            if not who.online:
                raise CommandError("no_such_account", name=who.name)
            assert who.player is not None and who.player.session is not None
            kind, value = "address", str(who.player.session.conn.peer)
    if kind == "address":
        try:
            net = network(value)
        except ValueError:
            raise CommandError("bad_argument", arg="address") from None
        if in_network(_own_address(ctx), net):
            raise CommandError("forbidden", yourself=True)
        for session in lobby.conduct.sessions_from(net):  # nobody of a role not below the actor's is shut out
            other = session.player
            if other is not None and not other.guest:
                role = await ctx.store.moderation.role(other.name)
                if not may_act_on(actor.role, role, self_=False):
                    raise CommandError("forbidden", name=other.name)
        value = net
    if kind == "key" and getattr(ctx.session.conn, "key", None) == " ".join(value.split()[:2]):
        raise CommandError("forbidden", yourself=True)
    try:
        done = await ctx.store.moderation.ban(kind, who.name if who and kind == "account" else value, until=until,
                                              reason=reason, actor=actor.name)
    except StorageError as exc:
        raise _storage(exc, value if kind == "account" else "") from None
    if kind == "account":
        player = lobby.player(done.target)
        sessions = [player.session] if player is not None and player.session is not None else []
    elif kind == "address":
        sessions = lobby.conduct.sessions_from(done.target)
    else:
        sessions = lobby.conduct.sessions_with_key(done.target)
    notice = {"event": "banned", "kind": kind, "until": when(done.until), "reason": reason}
    for session in sessions:
        lobby.conduct.disconnect(session, notice, "banned")
    return {"ban": done.id, "kind": kind, "target": done.target if kind != "key" else _fingerprint(done.target),
            "until": when(done.until), "reason": reason, "disconnected": len(sessions)}


def _fingerprint(key: str) -> str:
    from server.storage.sql.moderation import key_fingerprint

    return key_fingerprint(key)


@staff("unban")
async def unban(ctx: Context, args: Args, actor: Actor) -> Result:
    """Lift a ban: by ``name``, ``address``, ``key`` or its number (``ban``)."""
    if args.get("ban") is not None:
        kind, value = "id", str(arg_int(args, "ban", lo=1, hi=2**62))
    else:
        try:
            kind, value = target_kind(args)
        except ValueError as exc:
            raise CommandError("bad_argument", arg=str(exc)) from None
    try:
        lifted = await ctx.store.moderation.unban(kind, value, actor=actor.name, reason=reason_of(args))
    except StorageError as exc:
        raise _storage(exc) from None
    return {"ban": lifted.id, "kind": lifted.kind,
            "target": lifted.target if lifted.kind != "key" else _fingerprint(lifted.target)}


@staff("bans")
async def bans(ctx: Context, args: Args, actor: Actor) -> Result:
    """The bans and mutes in force."""
    mod = ctx.store.moderation
    return {
        "bans": [{"ban": b.id, "kind": b.kind, "target": b.target if b.kind != "key" else _fingerprint(b.target),
                  "reason": b.reason, "by": b.actor, "since": when(b.created), "until": when(b.until)}
                 for b in await mod.bans()],
        "mutes": [{"name": m.name, "reason": m.reason, "by": m.actor, "since": when(m.created),
                   "until": when(m.until)} for m in await mod.mutes()],
    }


# --------------------------------------------------------------------------- announcements


@staff("announce")
async def announce(ctx: Context, args: Args, actor: Actor) -> Result:
    """A message to everyone connected, at the tables and in the lobby."""
    raw = args.get("text")
    if not isinstance(raw, str):
        raise CommandError("bad_argument", arg="text")
    text = clean_text(raw, ANNOUNCE_MAX)
    if not text:
        raise CommandError("bad_argument", arg="text")
    await ctx.store.moderation.record(actor.name, "announce", "", "", {"text": text})
    sent = ctx.lobby.conduct.announce_all({"event": "announcement", "name": actor.name, "message": text})
    return {"sent": sent}


@command("motd")
async def motd(ctx: Context, args: Args) -> Result:
    """The message of the day; with ``text`` an admin sets it, with ``clear`` back to the configuration's."""
    clear = args.get("clear") is True
    if args.get("text") is not None or clear:
        actor = await actor_of(ctx)
        check("motd set", actor)
        text: str | None = None
        if not clear:
            raw = args.get("text")
            if not isinstance(raw, str) or not clean_text(raw):
                raise CommandError("bad_argument", arg="text")
            text = clean_text(raw, 1000)
        await ctx.store.moderation.set_motd(text, actor=actor.name)
    return {"motd": await ctx.lobby.conduct.motd()}


@staff("shutdown")
async def shutdown(ctx: Context, args: Args, actor: Actor) -> Result:
    """``delay`` (``5m``, or seconds; ``now``) and a ``reason``: everyone is warned at the announced
    moments, then the server stops cleanly. ``cancel``: the planned shutdown is called off."""
    running = ctx.app
    if args.get("cancel") is True:
        if not running.cancel_shutdown():
            raise CommandError("not_allowed", reason="no_shutdown")
        await ctx.store.moderation.record(actor.name, "shutdown", "", "", {"cancel": True})
        return {"cancelled": True}
    try:
        delay = parse_duration(args.get("delay"), forever=False, now=True)
    except ValueError:
        raise CommandError("bad_argument", arg="delay") from None
    assert delay is not None
    reason = reason_of(args)
    await ctx.store.moderation.record(actor.name, "shutdown", "", reason, {"in": delay})
    running.schedule_shutdown(delay, reason)
    return {"in": int(delay), "at": when(time.time() + delay), "reason": reason}


# --------------------------------------------------------------------------- accounts


def _role_of(args: Args) -> str:
    role = args.get("role")
    if not isinstance(role, str) or role not in ROLES:
        raise CommandError("bad_argument", arg="role")
    return role


async def _set_role(ctx: Context, actor: Actor, name: str, role: str, reason: str) -> Result:
    who = await target(ctx, actor, name, account=True)
    try:
        was = await ctx.store.moderation.set_role(who.name, role, actor=actor.name, reason=reason)
    except StorageError as exc:
        raise _storage(exc, who.name) from None
    _tell(who.player, {"event": "role", "role": role})
    return {"name": who.name, "role": role, "was": was}


@staff("grant")
async def grant(ctx: Context, args: Args, actor: Actor) -> Result:
    """Give a registered account a role (``player``, ``moderator``, ``admin``)."""
    return await _set_role(ctx, actor, name_of(args), _role_of(args), reason_of(args))


@staff("revoke")
async def revoke(ctx: Context, args: Args, actor: Actor) -> Result:
    """Back to player."""
    return await _set_role(ctx, actor, name_of(args), PLAYER, reason_of(args))


@staff("resetpw")
async def resetpw(ctx: Context, args: Args, actor: Actor) -> Result:
    """A one-time code for the person who forgot their password: it logs them in, and ``passwd``
    takes it in place of the old password. Given once, here; stored hashed; never logged."""
    who = await target(ctx, actor, name_of(args), account=True)
    try:
        code, until = await ctx.store.moderation.reset_password(who.name, actor=actor.name)
    except StorageError as exc:
        raise _storage(exc, who.name) from None
    return {"name": who.name, "code": code, "until": when(until)}


@staff("rename")
async def rename(ctx: Context, args: Args, actor: Actor) -> Result:
    """Rename an account that is not connected and holds no seat; its history follows."""
    who = await target(ctx, actor, name_of(args), account=True)
    new = name_of(args, "new")
    if who.player is not None:
        raise CommandError("not_allowed", reason="online", name=who.name)
    try:
        done = await ctx.store.moderation.rename(who.name, new, actor=actor.name, reason=reason_of(args))
    except StorageError as exc:
        raise _storage(exc, new) from None
    await ctx.lobby.conduct.reload()  # its ignore list, and the lists that name it, moved with it
    return {"name": who.name, "new": done}


@staff("lock")
async def lock(ctx: Context, args: Args, actor: Actor) -> Result:
    """Lock an account (refused at the door until unlocked); a connected one is disconnected."""
    who = await target(ctx, actor, name_of(args), account=True)
    reason = reason_of(args)
    try:
        await ctx.store.moderation.lock(who.name, reason=reason, actor=actor.name)
    except StorageError as exc:
        raise _storage(exc, who.name) from None
    if who.player is not None and who.player.session is not None:
        ctx.lobby.conduct.disconnect(who.player.session, {"event": "locked", "reason": reason}, "locked")
    return {"name": who.name, "reason": reason}


@staff("unlock")
async def unlock(ctx: Context, args: Args, actor: Actor) -> Result:
    who = await target(ctx, actor, name_of(args), account=True)
    try:
        await ctx.store.moderation.unlock(who.name, actor=actor.name, reason=reason_of(args))
    except StorageError as exc:
        raise _storage(exc, who.name) from None
    return {"name": who.name}


@staff("chips")
async def chips(ctx: Context, args: Args, actor: Actor) -> Result:
    """Grant (``amount`` > 0) or retire (``amount`` < 0) chips, with a ``reason``: a ledger entry of its
    own, so ``donne audit`` still proves every chip (nobody grants themselves: :func:`target`)."""
    who = await target(ctx, actor, name_of(args), account=True)
    amount = arg_int(args, "amount", lo=-10**9, hi=10**9)
    if amount == 0:
        raise CommandError("bad_argument", arg="amount")
    reason = reason_of(args, required=True)
    mod = ctx.store.moderation
    try:
        if amount > 0:
            balance = await mod.grant_chips(who.name, amount, reason=reason, actor=actor.name)
        else:
            balance = await mod.retire_chips(who.name, -amount, reason=reason, actor=actor.name)
    except StorageError as exc:
        raise _storage(exc, who.name) from None
    _tell(who.player, {"event": "chips", "delta": amount, "chips": balance, "reason": reason})
    return {"name": who.name, "delta": amount, "chips": balance, "reason": reason}


@staff("modlog")
async def modlog(ctx: Context, args: Args, actor: Actor) -> Result:
    """The moderation log, newest first (``name``: what that name did or underwent)."""
    limit = arg_int(args, "limit", default=20, lo=1, hi=200)
    name = args.get("name")
    if name is not None and (not isinstance(name, str) or len(name) > 100):
        raise CommandError("bad_argument", arg="name")
    entries = await ctx.store.moderation.log(limit, name.strip() if isinstance(name, str) else None)
    return {"log": [{"id": e.id, "at": when(e.ts), "by": e.actor, "action": e.action, "target": e.target,
                     "reason": e.reason, "detail": dict(e.detail)} for e in entries]}


@staff("standing")
async def standing(ctx: Context, args: Args, actor: Actor) -> Result:
    """An account's standing (role, chips, lock, mute, ban) and, when connected, where and from where."""
    raw = name_of(args)
    standing = await ctx.store.moderation.standing(raw)
    player = ctx.lobby.player(raw)
    if standing is None and player is None:
        raise CommandError("no_such_account", name=raw)
    out: dict[str, JSONValue] = {"name": standing.name if standing else raw, "online": bool(player and player.connected)}
    if standing is not None:
        banned = standing.banned_until
        out.update({"guest": standing.guest, "role": standing.role, "chips": standing.chips,
                    "since": when(standing.created), "locked": standing.locked,
                    "muted_until": when(standing.muted_until),
                    "banned": banned is not None,
                    "banned_until": None if banned is None or banned == float("inf") else when(banned)})
    if player is not None:
        out["room"] = player.room.id if player.room else None
        out["seat"] = player.seat
        session = player.session
        if session is not None and player.connected:
            out["address"] = str(session.conn.peer)
            out["via"] = str(session.conn.kind)
    return out


# --------------------------------------------------------------------------- everyone


def _ignored_names(player: Player) -> list[str]:
    ignores = player.extra.get(IGNORES) or {}
    return sorted(ignores.values(), key=str.casefold)


@command("ignore")
async def ignore(ctx: Context, args: Args) -> Result:
    """Not to see someone's chat or tells any more (kept with one's account); without a name, the list."""
    player = ctx.session.player
    assert player is not None
    ignores = ctx.lobby.conduct.list_of(player)  # the list tells, messages and chat obey
    if args.get("name") is None:
        return {"ignored": _ignored_names(player)}
    name = arg_str(args, "name", limit=100)
    other = ctx.lobby.player(name)
    standing = await ctx.store.moderation.standing(name)
    shown = other.name if other is not None else standing.name if standing is not None else clean_text(name, 40)
    key = name_key(shown)
    if not shown or key == player.key:
        raise CommandError("bad_argument", arg="name")
    if not player.guest:
        try:
            await ctx.store.moderation.ignore(player.name, shown)
        except StorageError as exc:
            raise _storage(exc) from None
    ignores[key] = shown
    if other is not None:
        ctx.lobby.conduct.mark(player, other)  # a guest: its other guest names too (same address or key)
    elif standing is None or standing.guest:
        ctx.lobby.conduct.mark_departed(player, key)  # a guest who just left: the same
    ctx.lobby.shared_ignores(player)
    return {"name": shown, "ignored": _ignored_names(player)}


@command("unignore")
async def unignore(ctx: Context, args: Args) -> Result:
    player = ctx.session.player
    assert player is not None
    ignores = ctx.lobby.conduct.list_of(player)
    name = arg_str(args, "name", limit=100)
    key = name_key(name)
    if key not in ignores:
        raise CommandError("bad_argument", arg="name")
    if not player.guest:
        await ctx.store.moderation.unignore(player.name, name)
    shown = ignores.pop(key)
    ctx.lobby.conduct.unmark(player, key)
    ctx.lobby.shared_ignores(player)
    return {"name": shown, "ignored": _ignored_names(player)}


__all__ = ["Actor", "Target", "actor_of", "check", "staff", "target"]
