"""Account commands: register, passwd, balance, addkey, keys, delkey, history, audit; the points
and chips boards of ``leaderboard``.

Loaded after ``server.commands.core`` (see :data:`server.commands.MODULES`);
``login`` and ``whoami`` stay core's, which already call the store.

* ``register`` creates an account and logs in with it. Before logging in it
  takes ``name`` and ``password``; a guest registers his own name (or another
  free one) and becomes that account in place — his guest chips are retired
  and the starting grant credited, in one transaction. In text mode a person
  who gives no password is asked for it twice, without echo.
* ``history`` and ``leaderboard`` give summaries only: never a deal seed or
  an action log (a Speculation seed would show the undealt cards, S12h).
  A history line is a round (or deal) or a whole match (``match: true``), with
  the figures the leaderboard adds up: points where the table ranks by points,
  else the chip change (never a balance).
* ``leaderboard`` without a game gives every table's board (``boards``), the
  default one (classic) also as the reply's own fields.
"""

from __future__ import annotations

import asyncio
import datetime as _dt

from server.commands import Context, command
from server.games import ADAPTERS, TABLES
from server.protocol import Args, CommandError, JSONValue, Result, arg_int, arg_str
from server.storage import passwords as _pw
from server.storage.api import (
    BadKey,
    BadName,
    BadPassword,
    NameTaken,
    NoSuchAccount,
    Played,
    StorageError,
    is_match,
)
from server.storage.names import MAX_LENGTH, clean_name, name_key

GAMES = TABLES
"""Each game's tables (the first is the default), in the order the boards are shown."""


def _scored_by(rules: str) -> str:
    """What a table's leaderboard adds up (classic: P14 points; tdc T13 and Speculation: chips won)."""
    table = ADAPTERS.get(rules)
    return table.scored_by if table is not None else "chips"


def _storage_error(exc: StorageError, name: str = "") -> CommandError:
    if isinstance(exc, NameTaken):
        return CommandError("name_taken", name=name) if name else CommandError("name_taken")
    if isinstance(exc, BadName):
        return CommandError("bad_name", max=MAX_LENGTH)
    if isinstance(exc, BadPassword):
        return CommandError("weak_password", min=_pw.MIN_PASSWORD)
    if isinstance(exc, BadKey):
        return CommandError("bad_argument", arg="key")
    if isinstance(exc, NoSuchAccount):
        return CommandError("account_needed")
    return CommandError(exc.code)


async def _secret(ctx: Context, prompt: str) -> str | None:
    """A person types a secret without echo after ``prompt``; ``None`` for a program (it gives
    secrets as arguments)."""
    line = await ctx.session.ask_secret(prompt)
    if line is not None and not line:
        raise CommandError("bad_argument", arg="password")
    return line


async def _password(ctx: Context, args: Args, key: str = "password") -> str:
    value = args.get(key)
    if value is None:
        _ = ctx.session.gettext
        first = await _secret(ctx, _("Password: "))
        if first is not None:
            second = await _secret(ctx, _("Again: "))  # asked twice: a typo would lock the person out
            if first != second:
                raise CommandError("bad_argument", arg=key)
            value = first
    if not isinstance(value, str) or not value:
        raise CommandError("bad_argument", arg=key)
    if len(value) < _pw.MIN_PASSWORD:
        raise CommandError("weak_password", min=_pw.MIN_PASSWORD)
    try:
        _pw.check_new_password(value)
    except BadPassword:
        raise CommandError("bad_argument", arg=key) from None
    return value


@command("register", login=False)
async def register(ctx: Context, args: Args) -> Result:
    session = ctx.session
    store = ctx.store
    if getattr(session.conn, "insecure", False):
        raise CommandError("insecure_transport")
    if session.logged_in and not session.guest:
        raise CommandError("not_allowed")
    player = session.player
    if player is not None:
        ctx.lobby.check_become(player)  # at a table: only where no guest chip of theirs is in play
    raw = args.get("name", session.name if session.logged_in else None)
    if not isinstance(raw, str) or not raw.strip():
        raise CommandError("bad_argument", arg="name")
    try:
        name = clean_name(raw)
    except BadName:
        raise CommandError("bad_name", max=MAX_LENGTH) from None
    password = await _password(ctx, args)
    guest = session.name if session.logged_in and session.guest else None
    lobby = ctx.lobby
    if guest is None:
        try:
            account = await store.accounts.register(name, password, address=session.conn.peer)
        except StorageError as exc:
            raise _storage_error(exc, name) from None
        await lobby.login(session, account.name, verified=True)
        return {"name": account.name, "guest": False, "chips": account.chips}
    # A guest becomes an account: same session, same Player, new identity (under the
    # lobby's login lock, so no login of the same name can slip in between); a seat goes on as
    # the account's (the lobby's become: checked above, where no chip of the guest's is in play).
    async with getattr(lobby, "login_lock", None) or asyncio.Lock():
        other = lobby.players.get(name_key(name))
        if other is not None and other is not player:
            raise CommandError("name_taken", name=name)
        try:
            account = await store.accounts.register(name, password, replacing_guest=guest,
                                                    address=session.conn.peer)
        except StorageError as exc:
            raise _storage_error(exc, name) from None
        assert player is not None
        await lobby.become(player, account.name)
    return {"name": account.name, "guest": False, "chips": account.chips}


@command("passwd")
async def passwd(ctx: Context, args: Args) -> Result:
    """Change one's password: ``old`` (checked, with the usual back-off) and ``new``."""
    session = ctx.session
    if session.guest:
        raise CommandError("account_needed")
    if getattr(session.conn, "insecure", False):
        raise CommandError("insecure_transport")
    old = args.get("old")
    if old is None:
        old = await _secret(ctx, session.gettext("Password: "))
    if not isinstance(old, str) or not old:
        raise CommandError("bad_argument", arg="old")
    if await ctx.store.accounts.verify_password(ctx.account, old, session.conn.peer) is None:
        raise CommandError("bad_password")
    new = await _password(ctx, args, "new")
    await ctx.store.accounts.set_password(ctx.account, new)
    return {"name": ctx.account}


@command("balance")
async def balance(ctx: Context, args: Args) -> Result:
    """Chips on one's balance (fr ``solde``, es ``saldo``), and the latest movements."""
    session = ctx.session
    limit = arg_int(args, "limit", default=5, lo=0, hi=50)
    ledger = ctx.store.ledger
    chips = await ledger.balance(ctx.account)
    entries = await ledger.statement(ctx.account, limit) if limit else []
    return {
        "name": ctx.account,
        "guest": session.guest,
        "chips": chips,
        "entries": [
            {"delta": e.delta, "kind": e.kind, "round": e.round_id, "ref": e.ref, "at": _iso(e.ts)} for e in entries
        ],
    }


@command("addkey")
async def addkey(ctx: Context, args: Args) -> Result:
    """Add an SSH public key (one ``authorized_keys`` line) to one's account."""
    session = ctx.session
    if session.guest:
        raise CommandError("account_needed")
    key = arg_str(args, "key", limit=16384)
    try:
        await ctx.store.accounts.add_key(ctx.account, key)
    except StorageError as exc:
        raise _storage_error(exc) from None
    keys = await ctx.store.accounts.keys(ctx.account)
    return {"keys": len(keys)}


@command("keys")
async def keys(ctx: Context, args: Args) -> Result:
    session = ctx.session
    if session.guest:
        raise CommandError("account_needed")
    return {"keys": await ctx.store.accounts.keys(ctx.account)}


@command("delkey")
async def delkey(ctx: Context, args: Args) -> Result:
    session = ctx.session
    if session.guest:
        raise CommandError("account_needed")
    key = arg_str(args, "key", limit=16384)
    try:
        removed = await ctx.store.accounts.remove_key(ctx.account, key)
    except StorageError as exc:
        raise _storage_error(exc) from None
    if not removed:
        raise CommandError("bad_argument", arg="key")
    return {"keys": len(await ctx.store.accounts.keys(ctx.account))}


def _iso(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def summarize(played: Played) -> Result:
    """One finished round, deal or match seen from one player's seat: no seed, no log.

    ``points`` where the table ranks by points, else ``chips``: the change at that seat
    (a match: over the match, when the engine counts it). ``place``: the rank out
    (a match: by its changes, else its totals; ties share the place); ``won``: Président,
    the deal's pool, or among the match's winners.
    """
    record, seat = played.record, played.seat
    result = record.result
    by = _scored_by(record.rules)
    out: dict[str, JSONValue] = {
        "round": record.round_id,
        "game": record.game,
        "rules": record.rules,
        "ended": _iso(record.finished_at),
        "players": list(record.seats),
        "seat": seat,
        "match": is_match(record.round_id),
    }
    tournament = record.config.get("tournament")
    if isinstance(tournament, str):  # a tournament's table: its event, and the event's name of the table
        out["tournament"] = tournament
        out["table"] = record.config.get("table")
    if out["match"]:
        # placed by what the match did: its changes when it counts chips (a seat's totals then
        # include what it sat down with), else its totals of points
        totals = result.get("changes", result.get("totals"))
        if isinstance(totals, list) and seat < len(totals):
            out["place"] = 1 + sum(1 for t in totals if t > totals[seat])
        winners = result.get("winners")
        out["won"] = isinstance(winners, list) and seat in winners
        if by == "points":
            out["points"] = played.points
        elif isinstance(result.get("changes"), list):
            out["chips"] = played.chips
        return out
    ranking = result.get("ranking")
    if isinstance(ranking, list) and seat in ranking:
        out["place"] = ranking.index(seat) + 1
    titles = result.get("titles")
    if isinstance(titles, list) and seat < len(titles) and titles[seat]:
        out["title"] = titles[seat]
    out[by] = played.points if by == "points" else played.chips
    out["won"] = played.president
    return out


@command("history")
async def history(ctx: Context, args: Args) -> Result:
    """One's latest finished rounds and matches (or another player's: ``name``).

    ``yours`` says whether they are the asker's own (the text reads "your last games"
    or "NAME's last games")."""
    limit = arg_int(args, "limit", default=10, lo=1, hi=50)
    me = ctx.session.name
    name = args.get("name", me)
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise CommandError("bad_argument", arg="name")
    name = name.strip()
    yours = me is not None and name_key(name) == name_key(me)
    account = await ctx.store.accounts.get(name)
    if account is not None:
        name = account.name  # the account's own spelling
    played = await ctx.store.history.played(name, limit)
    who = None if yours else ctx.lobby.player(name)
    if who is not None and who.extra.get("hide_where") and who.room is not None:
        # someone who hides where they sit (``hide``): the rounds of the table they sit at now
        # would say where (a round's id begins with its room's)
        at = f"{who.room.id}-"
        played = [p for p in played if not p.record.round_id.startswith(at)]
    return {"name": name, "yours": yours, "history": [summarize(p) for p in played]}


async def _board(ctx: Context, game: str, rules: str, limit: int) -> Result:
    by = _scored_by(rules)
    rows = await ctx.store.history.standings(game, rules, limit, by=by)
    out: dict[str, JSONValue] = {"game": game, "rules": rules, "by": by,
                           "leaderboard": [{**row, "score": row[by]} for row in rows]}
    me = ctx.session.name
    if me and not any(name_key(str(row["name"])) == name_key(me) for row in rows):
        # Where the asker stands when the board does not list them: a newcomer sees their own
        # figures, marked provisional when they play as a guest (guests are not ranked).
        mine = await ctx.store.history.standings(game, rules, 1, include_guests=True, by=by, name=me)
        if mine and mine[0]["rounds"]:
            row = {k: v for k, v in mine[0].items() if k != "rank"}
            out["you"] = {**row, "score": row[by], "provisional": bool(ctx.session.guest)}
    return out


async def leaderboard(ctx: Context, args: Args) -> Result:
    """Registered players ranked: classic by points (P14), tdc and speculation by chips won (the
    ``leaderboard`` command's boards but the rating's, :mod:`server.commands.social`).

    Without ``game`` (nor ``rules``): every table's board in ``boards``, and the default
    one (classic) as the reply's own fields."""
    limit = arg_int(args, "limit", default=10, lo=1, hi=50)
    if args.get("game") is None and args.get("rules") is None:
        boards = [await _board(ctx, game, rules, limit) for game, tables in GAMES.items() for rules in tables]
        return {**boards[0], "boards": boards}
    rules = args.get("rules")
    game = args.get("game", next((g for g, tables in GAMES.items() if rules in tables), "president"))
    if not isinstance(game, str) or game not in GAMES:
        raise CommandError("bad_argument", arg="game")
    rules = GAMES[game][0] if rules is None else rules
    if not isinstance(rules, str) or rules not in GAMES[game]:
        raise CommandError("bad_argument", arg="rules")
    return await _board(ctx, game, rules, limit)


@command("audit")
async def audit(ctx: Context, args: Args) -> Result:
    """Invariant 4 on the live ledger, from its maintained totals: balances + escrow = granted − retired.

    Cheap for everyone (O(1)); the full audit, which reads every entry, is the operator's
    (``donne audit``)."""
    result = await ctx.store.ledger.audit_summary()
    return {
        "ok": result.ok,
        "balances": result.balances,
        "escrow": result.escrow,
        "held": result.held,
        "granted": result.granted,
        "retired": result.retired,
        "problems": list(result.problems),
    }
