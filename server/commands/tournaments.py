"""Tournaments: open an event, list them, join, leave, standings, watch a table, stop.

``tournament_create`` takes the table options of ``create`` (``game``, ``rules``, ``seats``,
``stake``, ``ante``, ``turn_seconds``, ``rounds``: the table's rounds or deals, ``bot_level``) and
the event's: ``kind`` (``arena``/``swiss``), ``start`` (seconds from now), ``length`` (an arena's
seconds), ``event_rounds`` (a Swiss event's), ``min_seats``, ``scoring`` (``place``/``chips``;
by default the table kind's own), ``streak``, ``bots``, ``late`` (``half``/``zero``), ``rated``,
``max_entrants``, and the waits ``round_pause``, ``bot_wait``, ``rematch_wait`` (seconds).
Who may open one is the setting ``[tournaments] create`` (``staff`` or ``accounts``; never a
guest). A refused option is ``bad_option`` naming it and changes nothing; the event's refusals
are ``tournament_not_open``, ``tournament_already_entered``, ``tournament_not_entered``,
``tournament_full``. docs/tournaments.md.

An event runs on one node of a cluster (the one it was opened on, or the one that took it over):
the commands of a person on another node are forwarded to it and answered from there
(:mod:`server.lobby.tournaments.acts` runs them on the owner, for a person of any node).
"""

from __future__ import annotations

import dataclasses

from server.commands import Context, command
from server.games import TableOptions, adapter, parse_options
from server.games.base import Settings
from server.lobby.tournaments.acts import act
from server.protocol import Args, CommandError, JSONValue, Result, arg_bool, arg_int, arg_number
from server.storage.api import ROLES, role_rank
from server.tournaments import ArenaConfig, EventConfig, Scoring, SwissConfig, TournamentError

TABLE_OPTIONS = ("game", "rules", "seats", "stake", "ante", "turn_seconds", "rounds", "bot_level")
"""The ``create`` options an event's tables take."""

ONLY = {"arena": ("length", "bot_wait", "rematch_wait"), "swiss": ("event_rounds", "round_pause", "late", "min_seats")}
"""The options of one kind of event only."""

DEFAULT_START = 60.0
DEFAULT_LENGTH = 3600.0
DEFAULT_ROUNDS = 5
MAX_WAIT = 7 * 24 * 3600.0  # a week: the furthest start, the longest arena


async def _is_staff(ctx: Context) -> bool:
    if ctx.session.guest:
        return False
    role = await ctx.store.moderation.role(ctx.account)
    return role_rank(role) >= role_rank(ROLES[1])


class Options:
    """The event's own options of ``args``, each read as the protocol reads numbers and switches; a
    refused one is ``bad_option`` naming it (they are never ``create``'s ``bad_argument``)."""

    def __init__(self, args: Args) -> None:
        self.args = args

    def number(self, key: str, default: float, lo: float, hi: float) -> float:
        try:
            return arg_number(self.args, key, default=default, lo=lo, hi=hi)
        except CommandError:
            raise CommandError("bad_option", name=key) from None

    def whole(self, key: str, default: int | None, lo: int, hi: int) -> int:
        try:
            return arg_int(self.args, key, default=default, lo=lo, hi=hi)
        except CommandError:
            raise CommandError("bad_option", name=key) from None

    def switch(self, key: str, default: bool) -> bool:
        try:
            return arg_bool(self.args, key, default=default)
        except CommandError:
            raise CommandError("bad_option", name=key) from None

    def choice(self, key: str, default: str, allowed: tuple[str, ...]) -> str:
        value = self.args.get(key, default)
        if not isinstance(value, str) or value.strip().lower() not in allowed:
            raise CommandError("bad_option", name=key)
        return value.strip().lower()


def table_options(args: Args, settings: Settings) -> TableOptions:
    """The tables' options, checked by the table kind's adapter as ``create``'s are (a refused one is
    ``bad_option`` naming it)."""
    table_args: dict[str, JSONValue] = {k: args[k] for k in TABLE_OPTIONS if k in args}
    table_args["bots"] = 0
    try:
        return parse_options(table_args, settings)
    except CommandError as exc:
        if exc.code == "bad_argument":
            raise CommandError("bad_option", name=str(exc.params.get("arg", "?"))) from None
        raise


def event_config(tid: str, seed: str, now: float, args: Args, settings: Settings) -> EventConfig:
    """The event ``args`` describe, checked (``bad_option`` naming the first bad one)."""
    read = Options(args)
    kind = read.choice("kind", "", ("arena", "swiss"))
    for other in ONLY[("swiss" if kind == "arena" else "arena")]:
        if args.get(other) is not None:  # an option of the other kind of event: said, not ignored
            raise CommandError("bad_option", name=other)
    opts = table_options(args, settings)
    chosen = adapter(opts.rules)
    start = read.number("start", DEFAULT_START, 0, MAX_WAIT)
    rated = read.switch("rated", True)
    mode = read.choice("scoring", "place" if chosen.scored_by == "points" else "chips", ("place", "chips"))
    scoring = Scoring(mode="place" if mode == "place" else "chips", streak=read.switch("streak", False))
    bots = read.switch("bots", False)
    max_entrants = None if args.get("max_entrants") is None else read.whole("max_entrants", None, 1, 100_000)
    min_seats = read.whole("min_seats", 0, 0, opts.seats)
    if min_seats and min_seats < chosen.min_seats:
        raise CommandError("bad_option", name="min_seats")
    # the tables' options as given (checked above; each table checks them again as ``create`` would)
    options: dict[str, JSONValue] = {"game": opts.game, "rules": opts.rules,
                                     **{k: args[k] for k in TABLE_OPTIONS[3:] if k in args}, "rated": rated}
    try:
        if kind == "arena":
            return ArenaConfig(
                id=tid, seats=opts.seats, starts_at=now + start, seed=seed, options=options, scoring=scoring,
                length=read.number("length", DEFAULT_LENGTH, 1, MAX_WAIT), bots=bots,
                bot_wait=read.number("bot_wait", 20.0, 0, 3600),
                rematch_wait=read.number("rematch_wait", 10.0, 0, 3600), max_entrants=max_entrants)
        late = read.choice("late", "half", ("half", "zero"))
        return SwissConfig(
            id=tid, seats=opts.seats, rounds=read.whole("event_rounds", DEFAULT_ROUNDS, 1, 99),
            starts_at=now + start, seed=seed, min_seats=min_seats, options=options, scoring=scoring, bots=bots,
            round_pause=read.number("round_pause", 30.0, 0, 3600),
            late_points="zero" if late == "zero" else "half", max_entrants=max_entrants)
    except TournamentError as exc:
        raise CommandError("bad_option", name=str(exc.facts.get("field", "?"))) from None


@command("tournament_create")
async def tournament_create(ctx: Context, args: Args) -> Result:
    if ctx.session.guest:
        raise CommandError("not_allowed", reason="guest")
    if ctx.config.tournament_create == "staff" and not await _is_staff(ctx):
        raise CommandError("not_allowed", reason="staff_only")
    hall = ctx.lobby.hall
    config = event_config("e0", hall.seed(), hall.clock(), args, ctx.config)  # checked before an id is taken
    tid = await hall.new_id()
    config = dataclasses.replace(config, id=tid)
    await hall.open(config, ctx.account)
    return {"tournament": tid}


@command("tournaments")
async def tournaments(ctx: Context, args: Args) -> Result:
    hall = ctx.lobby.hall
    here = await act(hall, "tournaments", {}, ctx.account, False)
    listed = here["tournaments"]
    assert isinstance(listed, list)
    found = listed + await hall.cluster.listing(ctx.account)  # (a cluster: the other nodes' events)
    found.sort(key=lambda s: _number(s.get("id") if isinstance(s, dict) else None))
    return {"tournaments": found}


def _number(tid: object) -> int:
    text = str(tid)[1:]
    return int(text) if text.isdigit() else 0


async def _where(ctx: Context, args: Args) -> str | None:
    """Where the event ``args`` names runs: None here, else the node that runs it
    (``no_such_tournament`` when none does)."""
    hall = ctx.lobby.hall
    tid = args.get("tournament")
    key = hall.key(tid)
    if key in hall.events:
        return None
    node = await hall.cluster.owner(key)
    if node is None:
        raise CommandError("no_such_tournament", tournament=str(tid)[:20])
    return node


async def _run(ctx: Context, node: str | None, cmd: str, args: Args, *, staff: bool = False) -> dict[str, JSONValue]:
    """``cmd`` run by the event's owner: this node's hall, or forwarded to ``node``."""
    if node is None:
        return await act(ctx.lobby.hall, cmd, args, ctx.account, staff)
    return await ctx.lobby.hall.cluster.forward(node, cmd, args, ctx.account, staff)


@command("tournament_join")
async def tournament_join(ctx: Context, args: Args) -> Result:
    node = await _where(ctx, args)
    if ctx.session.guest:
        raise CommandError("not_allowed", reason="guest")
    return await _run(ctx, node, "tournament_join", args)


@command("tournament_leave")
async def tournament_leave(ctx: Context, args: Args) -> Result:
    return await _run(ctx, await _where(ctx, args), "tournament_leave", args)


@command("tournament_standings")
async def tournament_standings(ctx: Context, args: Args) -> Result:
    hall = ctx.lobby.hall
    tid = args.get("tournament")
    key = hall.key(tid)
    node = None if key in hall.events else await hall.cluster.owner(key)
    if key not in hall.events and node is None:  # over before this start, or long ago: as stored
        return await hall.final_standings(tid, ctx.account)
    return await _run(ctx, node, "tournament_standings", args)


@command("tournament_watch")
async def tournament_watch(ctx: Context, args: Args) -> Result:
    """Watch a table of the event; a spectator of another room (finished or not, here or at another
    node) moves from it. Someone seated elsewhere is refused (``already_in_room``)."""
    answer = await _run(ctx, await _where(ctx, args), "tournament_watch", args)
    room = await ctx.lobby.find_place(answer.get("room"))  # (a room of another node: watched through it)
    player = ctx.session.player
    assert player is not None
    here = player.room
    if here is not None and here is not room:
        if player.seat is not None:
            raise CommandError("already_in_room", room=here.id)
        await here.step_out(player)
    await room.submit(player, "watch", {})
    return {"room": room.id}


@command("tournament_stop")
async def tournament_stop(ctx: Context, args: Args) -> Result:
    node = await _where(ctx, args)
    return await _run(ctx, node, "tournament_stop", args, staff=await _is_staff(ctx))
