"""Session and lobby commands: login, quit, lang, whoami, rooms, create, join, watch, leave, say, state."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from server.commands import COMMANDS, Context, command
from server.config import PACED
from server.games import adapter, parse_options
from server.lobby.directory import Summary, masked
from server.messages.translations import LANGS, pick_lang
from server.operations.limits import clean_text
from server.people.players import Player
from server.protocol import Args, CommandError, JSONValue, Result, arg_bool, arg_int, arg_str


@command("login", login=False)
async def login(ctx: Context, args: Args) -> Result:
    name = arg_str(args, "name", limit=200)
    password = args.get("password")
    if password is not None and not isinstance(password, str):
        raise CommandError("bad_argument", arg="password")
    code = args.get("resume")  # a guest's resume code, to take back a name in use (server/people/resume.py)
    if code is not None and not isinstance(code, str):
        raise CommandError("bad_argument", arg="resume")
    session = ctx.session
    if session.logged_in and session.guest and await ctx.store.accounts.exists(name.strip()):
        # a guest logs in to an account, keeping the seat where it may (another guest name: already_logged_in)
        if not password:
            password = await session.ask_secret(session.gettext("Password: "))  # a person; a program gives it
        player = await ctx.lobby.switch_to_account(session, name, password or None)
    else:
        player = await ctx.lobby.login(session, name, password=password or None, resume=code or None)
    chips = await ctx.store.ledger.balance(player.name)
    return {"name": player.name, "guest": player.guest, "lang": ctx.session.lang, "chips": chips,
            "room": player.room.id if player.room else None, "seat": player.seat, **_resume_field(player)}


def _resume_field(player: Player | None) -> Result:
    """A guest's resume code, for their own replies only (``login``, ``whoami``)."""
    code = getattr(player, "code", None) if player is not None and player.guest else None
    return {"resume": code} if code else {}


@command("quit", login=False, rate=False)
async def quit_(ctx: Context, args: Args) -> Result:
    """Machine mode: the ``ok`` reply, then the server closes the connection. (A person's ``quit``
    never gets here: the text presenter says goodbye and closes.)"""
    # after the reply is queued (the dispatcher queues it as soon as this returns); the session
    # flushes what is queued before it closes
    asyncio.get_running_loop().call_soon(ctx.session.close, "quit")
    return {}


@command("whoami")
async def whoami(ctx: Context, args: Args) -> Result:
    """Who I am, my balance, and where I sit. Seated: ``at_stake``, my chips in the round being
    played (tdc stakes, Speculation antes), as my last state said; they are not in ``chips``."""
    session = ctx.session
    assert session.name is not None
    player = session.player
    chips = await ctx.store.ledger.balance(session.name)
    role = "player" if session.guest else await ctx.store.moderation.role(session.name)
    out: dict[str, JSONValue] = {"name": session.name, "guest": session.guest, "chips": chips, "lang": session.lang,
                           "role": role,
                           "room": player.room.id if player and player.room else None,
                           "seat": player.seat if player else None, **_resume_field(player)}
    if player is not None and player.room is not None and player.seat is not None:
        where = getattr(session, "where", None)  # the session's last state at its table
        state = where()[0] if callable(where) else None
        at_stake = state.get("at_stake") if isinstance(state, Mapping) else None
        out["at_stake"] = at_stake if isinstance(at_stake, int) and not isinstance(at_stake, bool) else 0
    return out


@command("lang", login=False)
async def lang(ctx: Context, args: Args) -> Result:
    if arg_bool(args, "browser", default=False):  # the play page: sentences without typing instructions
        for_browser = getattr(getattr(ctx.session, "presenter", None), "for_browser", None)
        if callable(for_browser):
            for_browser()
    if args.get("lang") is None:
        return {"lang": ctx.session.lang, "langs": list(LANGS)}
    value = pick_lang(str(args.get("lang", "")))
    if value is None:
        raise CommandError("bad_argument", arg="lang")
    ctx.session.lang = value
    player = ctx.session.player
    if player is not None and player.room is not None:
        player.room.refresh(player)  # texts of later pushes in the new language
    return {"lang": value}


ROOMS_PAGE = 50
"""Rooms in one ``rooms`` reply unless ``limit`` says otherwise (at most :data:`ROOMS_PAGE_MAX`)."""
ROOMS_PAGE_MAX = 100
ROOM_STATUSES = ("waiting", "playing", "over")


@command("rooms")
async def rooms(ctx: Context, args: Args) -> Result:
    """One page of the open rooms, those with a seat free to take first, then in the order they opened.

    ``page`` (from 1), ``limit`` (1 to 100, default 50); filters: ``game``, ``rules``,
    ``status`` (waiting, playing, over), ``free`` (true: only rooms with a seat one may take
    now). The reply says how many rooms match (``total``) and how many pages they fill.
    """
    page = arg_int(args, "page", default=1, lo=1, hi=1_000_000)
    limit = arg_int(args, "limit", default=ROOMS_PAGE, lo=1, hi=ROOMS_PAGE_MAX)
    game = _choice(args, "game", ("president", "speculation"))
    rules = _choice(args, "rules", ("classic", "tdc", "speculation"))
    status = _choice(args, "status", ROOM_STATUSES)
    only_free = arg_bool(args, "free", default=False)
    free_first: list[Summary] = []
    others: list[Summary] = []
    for summary, free in ctx.lobby.room_list():
        if (game and summary["game"] != game) or (rules and summary["rules"] != rules) or \
                (status and summary["status"] != status):
            continue
        if free:
            free_first.append(summary)
        elif not only_free:
            others.append(summary)
    matching = free_first + others
    total = len(matching)
    start = (page - 1) * limit
    hidden = ctx.lobby.hidden_names(ctx.session.player)  # who hides where they sit: counted, not named
    shown = [masked(summary, hidden) for summary in matching[start:start + limit]]
    return {"rooms": shown, "total": total, "page": page, "limit": limit,
            "pages": max(1, -(-total // limit))}


def _choice(args: Args, key: str, allowed: tuple[str, ...]) -> str | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or value.strip().lower() not in allowed:
        raise CommandError("bad_argument", arg=key)
    return value.strip().lower()


@command("create")
async def create(ctx: Context, args: Args) -> Result:
    """A new room with the creator on seat 0 and the bots on the last seats."""
    lobby = ctx.lobby
    player = ctx.session.player
    assert player is not None
    if player.room is not None:
        raise CommandError("already_in_room", room=player.room.id)
    opts = parse_options(args, ctx.config)
    opener = lobby.opener(player)
    refused = lobby.slots.refusal(opener)  # said before the chips are read; open_room checks again
    if refused is not None:
        raise CommandError("not_allowed", reason=refused[0], max=refused[1])
    need = adapter(opts.rules).chips_to_sit(opts)
    if need > 0:
        chips = await ctx.store.ledger.balance(player.name)
        if chips < need:
            raise CommandError("insufficient_chips", need=need, chips=chips)
    if player.room is not None:  # seated elsewhere while the chips were read
        raise CommandError("already_in_room", room=player.room.id)
    room = await lobby.open_room(opts, owner=player.name, opener=opener)
    try:
        await room.submit(player, "join", {"seat": 0})
    except BaseException:
        await room.stop(end=True)
        raise
    lobby.announce(room, player.name)
    return {"room": room.id, "seat": 0}


@command("join")
async def join(ctx: Context, args: Args) -> Result:
    room = await ctx.lobby.find_place(args.get("room"))
    player = ctx.session.player
    assert player is not None
    if player.room is not None and player.room is not room:
        raise CommandError("already_in_room", room=player.room.id)
    result = await room.submit(player, "join", args)
    return {"room": room.id, **(result or {})}


@command("watch")
async def watch(ctx: Context, args: Args) -> Result:
    room = await ctx.lobby.find_place(args.get("room"))
    player = ctx.session.player
    assert player is not None
    if player.room is not None and player.room is not room:
        raise CommandError("already_in_room", room=player.room.id)
    await room.submit(player, "watch", args)
    return {"room": room.id}


@command("leave")
async def leave(ctx: Context, args: Args) -> Result | None:
    player = ctx.session.player
    assert player is not None
    if player.room is None:
        raise CommandError("not_in_room")
    result: Result | None = await player.room.submit(player, "leave", args)
    return result


@command("rematch")
async def rematch(ctx: Context, args: Args) -> Result | None:
    """At a finished table: a new match with the same options, for the people still seated."""
    player = ctx.session.player
    assert player is not None
    if player.room is None:
        raise CommandError("not_in_room")
    result: Result | None = await player.room.submit(player, "rematch", args)
    return result


@command("say")
async def say(ctx: Context, args: Args) -> Result | None:
    text = args.get("text")
    if not isinstance(text, str):
        raise CommandError("bad_argument", arg="text")
    message = clean_text(text, ctx.config.max_chat)
    if not message:
        raise CommandError("bad_argument", arg="text")
    player = ctx.session.player
    assert player is not None
    await ctx.lobby.check_chat(player)  # muted, or talking too fast: the line reaches nobody
    if player.room is not None:
        result: Result | None = await player.room.submit(player, "say", {"text": message})
        return result
    ctx.lobby.broadcast({"event": "chat", "name": player.name, "room": None, "message": message})
    return None


@command("state")
async def state(ctx: Context, args: Args) -> Result | None:
    player = ctx.session.player
    assert player is not None
    if player.room is None:
        return {"room": None}  # in the lobby there is no table to show
    result: Result | None = await player.room.submit(player, "state", args)
    return result


async def _automatic(ctx: Context, args: Args, which: str) -> Result:
    player = ctx.session.player
    assert player is not None
    on = arg_bool(args, "on", default=not player.prefs.get(which, False))
    player.prefs[which] = on
    if player.room is not None:
        await player.room.submit(player, which, {"on": on})
    return {"on": on}


@command("autocut")
async def autocut(ctx: Context, args: Args) -> Result:
    """tdc: let the server cut for me as soon as a cut is possible (T9)."""
    return await _automatic(ctx, args, "autocut")


@command("autopass")
async def autopass(ctx: Context, args: Args) -> Result:
    """Let the server pass for me, after a short pause, when passing is all I can do."""
    return await _automatic(ctx, args, "autopass")


@command("colour", login=False)
async def colour(ctx: Context, args: Args) -> Result:
    """Text mode: ANSI colours on or off (default: from the terminal type)."""
    session = ctx.session
    session.color = arg_bool(args, "on", default=not session.color)
    _redraw(ctx)
    return {"on": session.color}


@command("unicode", login=False)
async def unicode(ctx: Context, args: Args) -> Result:
    """Text mode: suit symbols and box characters, or plain ASCII."""
    session = ctx.session
    session.unicode = arg_bool(args, "on", default=not session.unicode)
    _redraw(ctx)
    return {"on": session.unicode}


@command("reader", login=False)
async def reader(ctx: Context, args: Args) -> Result:
    """Text mode: the screen-reader mode (cards and counts in words, one fact per line) on or off."""
    session = ctx.session
    session.reader = arg_bool(args, "on", default=not session.reader)
    _redraw(ctx)
    return {"on": session.reader}


@command("width", login=False)
async def width(ctx: Context, args: Args) -> Result:
    """Text mode: the width tables are drawn for (the terminal's, when it tells us)."""
    if args.get("width") is not None:
        ctx.session.width = arg_int(args, "width", lo=20, hi=400)
        _redraw(ctx)
    return {"width": ctx.session.width}


def _redraw(ctx: Context) -> None:
    player = ctx.session.player
    if player is not None and player.room is not None:
        player.room.refresh(player)


@command("ping", login=False, rate=False)
async def ping(ctx: Context, args: Args) -> Result:
    return {"pong": True}


@command("help", login=False)
async def help_(ctx: Context, args: Args) -> Result:
    return {"commands": sorted(COMMANDS)}


@command("limits")
async def limits(ctx: Context, args: Args) -> Result:
    """The limits this server applies (so scripts can pace themselves)."""
    cfg = ctx.config
    return {"max_line": cfg.max_line, "commands_per_second": cfg.commands_per_second,
            "command_burst": cfg.command_burst, "max_chat": cfg.max_chat, "max_name": cfg.max_name,
            "idle_timeout": cfg.idle_timeout, "grace_seconds": cfg.grace_seconds,
            # what the operator sets for the community (docs/operators.md)
            "allow_guests": cfg.allow_guests, "allow_registration": cfg.allow_registration,
            "max_connections_per_address": cfg.max_connections_per_address,
            "rooms_per_account": cfg.rooms_per_account, "rooms_per_address": cfg.rooms_per_address,
            "chat_per_minute": cfg.chat_per_minute,
            "chat_burst": cfg.chat_burst, "registrations_per_hour": cfg.registrations_per_hour,
            **{f"{kind}_{what}": getattr(cfg, f"{kind}_{what}") for kind in PACED for what in ("per_minute", "burst")}}

