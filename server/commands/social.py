"""Players and each other: tells, offline messages, profiles, friends, seeks, challenges, replays.

``who`` keeps a person's table to themselves when they hide it; ``leaderboard`` ranks by rating
(``by: "rating"``) and otherwise gives the points and chips boards of
:func:`server.commands.accounts.leaderboard`. Every text is cleaned like chat
(:func:`server.operations.limits.clean_text`). Tells and messages ask the lobby's moderation
(:class:`server.lobby.moderation.Silences`: mutes, ``ignore``) first.

* ``tell`` (``name``, ``text``): to anyone online, wherever they are; ``reply`` (``text``)
  answers the last person who told you something. ``message`` (``name``, ``text``) keeps
  it for an account's next login (told at once when they are online), at most
  ``mail_per_sender`` waiting from one sender and ``mail_per_recipient`` in all.
* ``finger`` (``name``): registration, last seen, online and where (unless hidden: ``hide``),
  per table the rounds, matches, titles and rating, and the free text ``bio`` (``text``; a muted
  player cannot set one, and theirs is shown to nobody else while the mute lasts).
* ``friend`` / ``unfriend`` (``name``), ``friends`` (``notify``: the notices when a friend
  logs in or sits down, on or off).
* ``seek`` and ``challenge`` (``name``) take ``create``'s arguments (+ ``fill``: a seek that
  lapses opens with bots in its empty seats); ``seeks`` lists what you may accept;
  ``accept_seek`` / ``decline_seek`` / ``cancel_seek`` (``seek``).
* ``replay`` (``round``; none: your last round): the round as a spectator saw it, then the
  hands; Président also the stored log and the round's seed (``server/community/replays.py``).
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import time
import unicodedata
from collections.abc import Mapping

from server.commands import Context, command
from server.commands import accounts as _accounts
from server.commands.fair import fingerprint
from server.community.replays import asked_round, replay_reply
from server.games import ADAPTERS, TableOptions, parse_options
from server.lobby.pace import spoke
from server.lobby.seeks import Seek
from server.operations.limits import Opener, clean_text, shown_text_problem
from server.people.players import Player
from server.protocol import Args, CommandError, JSONValue, Result, arg_bool, arg_int, arg_str
from server.storage.api import MailboxFull, NoSuchAccount, StorageError, TooManyFriends, is_match
from server.storage.api_social import Rating, TablePlayed
from server.storage.names import name_key
from server.storage.ratings import ordinal


def _iso(ts: float | None) -> str | None:
    return None if ts is None else _dt.datetime.fromtimestamp(ts, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _me(ctx: Context) -> Player:
    player = ctx.session.player
    assert player is not None
    return player


def _text(ctx: Context, args: Args, key: str = "text") -> str:
    raw = args.get(key)
    if not isinstance(raw, str):
        raise CommandError("bad_argument", arg="text")
    text = clean_text(raw, ctx.config.max_chat)
    if not text:
        raise CommandError("bad_argument", arg="text")
    return text


def _name(args: Args) -> str:
    name = arg_str(args, "name", limit=100).strip()
    if not name:
        raise CommandError("bad_argument", arg="name")
    return name


def _online(ctx: Context, name: str) -> Player | None:
    player = ctx.lobby.players.get(name_key(name))
    return player if player is not None and player.connected else None


def _may_speak(ctx: Context, sender: Player, recipient: str) -> None:
    moderation = ctx.lobby.moderation
    if moderation.muted(sender.name):
        raise CommandError("muted")
    if moderation.ignores(recipient, sender.name):
        raise CommandError("ignored", name=recipient)


# -- tells and messages ------------------------------------------------------------------------------


def _deliver(ctx: Context, sender: Player, to: Player, text: str, event: str = "tell") -> None:
    ctx.lobby.pace.tell(sender, to, time.monotonic())
    assert to.session is not None
    to.session.push_event({"event": event, "from": sender.name, "message": text})
    to.extra["reply_to"] = sender.name
    spoke(sender, to)


@command("tell")
async def tell(ctx: Context, args: Args) -> Result:
    """A private line to someone online, at whatever table (or none)."""
    me, name, text = _me(ctx), _name(args), _text(ctx, args)
    return _tell(ctx, me, name, text)


def _addressee(ctx: Context, me: Player, name: str) -> Player:
    """The person online ``me`` speaks to or challenges, when nothing (a mute, an ignore) stops it."""
    _may_speak(ctx, me, name)
    to = _online(ctx, name)
    if to is None:
        raise CommandError("not_online", name=name[:40])
    if to is me:
        raise CommandError("bad_argument", arg="name")
    _may_speak(ctx, me, to.name)
    return to


def _tell(ctx: Context, me: Player, name: str, text: str) -> Result:
    far = _far(ctx, me, name)
    if far is not None:  # online at another node of the cluster: the sender's budget here
        ctx.lobby.pace.message(me, time.monotonic())
        ctx.lobby.reach(name_key(far), {"event": "tell", "from": me.name, "message": text}, reply_to=me.name)
        return {"to": far, "message": text}
    to = _addressee(ctx, me, name)
    _deliver(ctx, me, to, text)
    return {"to": to.name, "message": text}


def _far(ctx: Context, me: Player, name: str) -> str | None:
    """The name of the person ``name`` when they are online at another node (and may be spoken to)."""
    if _online(ctx, name) is not None:
        return None
    entry = ctx.lobby.elsewhere(name)
    if entry is None:
        return None
    shown = str(entry["name"])
    _may_speak(ctx, me, name)
    _may_speak(ctx, me, shown)
    return shown


@command("reply")
async def reply(ctx: Context, args: Args) -> Result:
    """A tell to the last person who told you something."""
    me = _me(ctx)
    text = _text(ctx, args)
    name = me.extra.get("reply_to")
    if not isinstance(name, str):
        raise CommandError("no_reply")
    return _tell(ctx, me, name, text)


@command("message")
async def message(ctx: Context, args: Args) -> Result:
    """A message for an account: told now if they are online, else kept for their next login."""
    me, name, text = _me(ctx), _name(args), _text(ctx, args)
    if me.guest:
        raise CommandError("account_needed")
    _may_speak(ctx, me, name)
    account = await ctx.store.accounts.get(name)
    if account is None or account.guest or not await ctx.store.accounts.exists(name, fresh=True):
        raise CommandError("no_such_player", name=name[:40])
    to = _online(ctx, account.name)
    if to is not None and to is not me:
        _deliver(ctx, me, to, text, "message")
        return {"to": to.name, "message": text, "kept": False}
    if to is None and ctx.lobby.elsewhere(account.name) is not None:  # online at another node
        ctx.lobby.pace.message(me, time.monotonic())
        ctx.lobby.reach(name_key(account.name), {"event": "message", "from": me.name, "message": text}, reply_to=me.name)
        return {"to": account.name, "message": text, "kept": False}
    cfg = ctx.config
    ctx.lobby.pace.message(me, time.monotonic())
    try:
        await ctx.store.social.send_mail(me.name, account.name, text, per_sender=cfg.mail_per_sender,
                                         per_recipient=cfg.mail_per_recipient)
    except MailboxFull:
        raise CommandError("mailbox_full", name=account.name) from None
    return {"to": account.name, "message": text, "kept": True}


# -- profiles ----------------------------------------------------------------------------------------


def _where(player: Player | None, viewer: Player) -> tuple[str | None, int | None]:
    if player is None or player.room is None:
        return None, None
    if player.extra.get("hide_where") and player is not viewer:
        return None, None
    return player.room.id, player.seat


def _where_far(entry: Mapping[str, JSONValue] | None) -> tuple[str | None, int | None]:
    """Where someone online at another node sits, as that node lists them (hidden tables hidden)."""
    if entry is None:
        return None, None
    room, seat = entry.get("room"), entry.get("seat")
    return (room if isinstance(room, str) else None), (seat if isinstance(seat, int) else None)


@command("finger")
async def finger(ctx: Context, args: Args) -> Result:
    """Who someone is: registration, last seen, where they are, their tables and ratings, their bio."""
    me = _me(ctx)
    name = _name(args) if args.get("name") is not None else me.name
    online = _online(ctx, name)
    far = ctx.lobby.elsewhere(name) if online is None else None  # online at another node
    store = ctx.store
    profile = await store.social.profile(name)
    if profile is None:
        if online is None and far is None:
            raise CommandError("no_such_player", name=name[:40])
        room, seat = _where(online, me) if online is not None else _where_far(far)
        shown = online.name if online is not None else str(far["name"]) if far is not None else name
        return {"name": shown, "guest": True, "online": True, "room": room, "seat": seat}
    ratings = {(r.game, r.rules): r for r in await store.ratings.of(profile.name)}
    tables: list[Result] = []
    for t in await store.social.tables_played(profile.name):
        r = ratings.pop((t["game"], t["rules"]), None)
        tables.append({**_played(t), **_rating_fields(r)})
    for (game, rules), r in sorted(ratings.items()):
        tables.append({"game": game, "rules": rules, "rounds": 0, "matches": 0, "titles": 0, "won": 0,
                       **_rating_fields(r)})
    room, seat = _where(online, me) if online is not None else _where_far(far)
    friends = await store.social.friends(me.name) if not me.guest else []
    bio_text = profile.bio
    if bio_text and name_key(profile.name) != me.key and await ctx.lobby.conduct.is_muted(profile.name):
        bio_text = ""  # a muted player's bio reaches nobody while the mute lasts (it comes back after)
    events, best = await ctx.lobby.hall.entered(profile.name)  # the tournaments they entered
    return {"name": profile.name, "guest": False, "online": online is not None or far is not None,
            "room": room, "seat": seat, "tournaments": events, "tournament_best": best,
            "registered": _iso(profile.registered), "last_seen": _iso(profile.last_seen), "bio": bio_text,
            "hidden": profile.hide_where, "tables": tables,
            "friend": any(name_key(f) == name_key(profile.name) for f in friends)}


def _played(t: TablePlayed) -> Result:
    return {"game": t["game"], "rules": t["rules"], "rounds": t["rounds"], "matches": t["matches"],
            "titles": t["titles"], "won": t["won"]}


def _rating_fields(r: Rating | None) -> Result:
    if r is None:
        return {"rating": None, "rated_games": 0}
    return {"rating": round(ordinal(r.mu, r.sigma), 2), "mu": round(r.mu, 3), "sigma": round(r.sigma, 3),
            "rated_games": r.games}


def _account_only(ctx: Context) -> Player:
    me = _me(ctx)
    if me.guest:
        raise CommandError("account_needed")
    return me


@command("bio")
async def bio(ctx: Context, args: Args) -> Result:
    """The free text ``finger`` shows: ``text`` sets it ("" clears it); none: what it is."""
    me = _account_only(ctx)
    if args.get("text") is None:
        profile = await ctx.store.social.profile(me.name)
        return {"bio": profile.bio if profile is not None else ""}
    raw = args.get("text")
    if not isinstance(raw, str):
        raise CommandError("bad_argument", arg="text")
    problem = shown_text_problem(unicodedata.normalize("NFC", raw), ctx.config.max_bio)
    if problem is not None:  # (an escape sequence or a control character is simply dropped below)
        raise CommandError("bad_argument", arg="bio", max=ctx.config.max_bio)
    text = clean_text(raw, ctx.config.max_bio) if raw.strip() else ""
    if text:
        await ctx.lobby.conduct.check_muted(me)  # others read a bio: not from a muted player (clearing is fine)
    profile = await ctx.store.social.set_profile(me.name, bio=text)
    return {"bio": profile.bio, "set": True}


@command("hide")
async def hide(ctx: Context, args: Args) -> Result:
    """Keep your table to yourself in ``who``, ``finger``, ``friends`` and friends' notices."""
    me = _account_only(ctx)
    on = arg_bool(args, "on", default=not me.extra.get("hide_where", False))
    await ctx.store.social.set_profile(me.name, hide_where=on)
    me.extra["hide_where"] = on
    if me.room is not None:  # spectators of their table stop (or start) seeing their name
        await me.room.submit(me, "hide", {})
    return {"on": on}


@command("who")
async def who(ctx: Context, args: Args) -> Result:
    return {"players": sorted(ctx.lobby.who(_me(ctx)), key=lambda p: str(p["name"]).casefold())}


# -- friends -----------------------------------------------------------------------------------------


@command("friend")
async def friend(ctx: Context, args: Args) -> Result:
    me, name = _account_only(ctx), _name(args)
    if name_key(name) == me.key:
        raise CommandError("bad_argument", arg="name")
    try:
        added = await ctx.store.social.add_friend(me.name, name, limit=ctx.config.max_friends)
    except NoSuchAccount:
        other = await ctx.store.accounts.get(name)
        if other is not None and other.guest:  # there, but a guest: a friend is an account
            raise CommandError("not_allowed", reason="friend_guest", name=other.name) from None
        raise CommandError("no_such_player", name=name[:40]) from None
    except TooManyFriends:
        raise CommandError("too_many_friends", max=ctx.config.max_friends) from None
    return {"name": added, **await _friends(ctx, me)}


@command("unfriend")
async def unfriend(ctx: Context, args: Args) -> Result:
    me, name = _account_only(ctx), _name(args)
    if not await ctx.store.social.remove_friend(me.name, name):
        raise CommandError("no_such_player", name=name[:40])
    return {"name": name, **await _friends(ctx, me)}


@command("friends")
async def friends(ctx: Context, args: Args) -> Result:
    """Your friends, who is online and where; ``notify`` switches the notices on or off."""
    me = _account_only(ctx)
    if args.get("notify") is not None:
        await ctx.store.social.set_profile(me.name, notify=arg_bool(args, "notify"))
    return await _friends(ctx, me)


async def _friends(ctx: Context, me: Player) -> Result:
    names = await ctx.store.social.friends(me.name)
    profile = await ctx.store.social.profile(me.name)
    out: list[JSONValue] = []
    for name in names:
        other = _online(ctx, name)
        far = ctx.lobby.elsewhere(name) if other is None else None  # online at another node
        room, seat = _where(other, me) if other is not None else _where_far(far)
        out.append({"name": name, "online": other is not None or far is not None, "room": room, "seat": seat})
    reply: dict[str, JSONValue] = {"friends": out, "notify": profile.notify if profile is not None else True}
    if not out and (example := _someone_to_befriend(ctx, me)) is not None:
        reply["suggest"] = example  # the empty list's hint names someone else, never the reader
    return reply


def _someone_to_befriend(ctx: Context, me: Player) -> str | None:
    """A registered person at the reader's table (seen there anyway), for the empty list's example."""
    if me.room is None:
        return None
    names = sorted(p.name for p in ctx.lobby.players.values()
                   if p.room is me.room and p.connected and not p.guest and p.key != me.key)
    return names[0] if names else None


# -- seeks and challenges ------------------------------------------------------------------------------


def _in_lobby(player: Player) -> None:
    if player.room is not None:
        raise CommandError("already_in_room", room=player.room.id)


def _seek_options(ctx: Context, args: Args, people: int | None) -> tuple[dict[str, JSONValue], TableOptions]:
    table_args: dict[str, JSONValue] = {k: v for k, v in args.items() if k not in ("name", "fill", "seek")}
    table_args.setdefault("game", "president")
    if people is not None:  # a challenge: two people, the other seats bots
        seats = arg_int(table_args, "seats", default=4, lo=2, hi=10)
        table_args["seats"] = seats
        table_args["bots"] = max(0, seats - people)
    opts = parse_options(table_args, ctx.config)
    if opts.seats - opts.bots < 2:
        raise CommandError("bad_argument", arg="bots")
    return table_args, opts


async def _check_chips(ctx: Context, player: Player, opts: TableOptions) -> None:
    need = ADAPTERS[opts.rules].chips_to_sit(opts)
    if need > 0:
        chips = await ctx.store.ledger.balance(player.name)
        if chips < need:
            raise CommandError("insufficient_chips", need=need, chips=chips)


def _new_seek(ctx: Context, me: Player) -> Opener:
    """Who would open the seek's table: refused now when a room of theirs would be (the room limits
    count the tables of the open seeks and challenges as rooms, ``RoomSlots.refusal``)."""
    _in_lobby(me)
    lobby = ctx.lobby
    if lobby.seeks.owned_by(me.key) is not None:
        raise CommandError("already_seeking")
    opener = lobby.opener(me)
    refused = lobby.slots.refusal(opener, lobby.seeks.openers())
    if refused is not None:
        raise CommandError("not_allowed", reason=refused[0], max=refused[1])
    return opener


@command("seek")
async def seek(ctx: Context, args: Args) -> Result:
    """A table for whoever accepts first: the lobby hears of it."""
    me = _me(ctx)
    _new_seek(ctx, me)
    table_args, opts = _seek_options(ctx, args, None)
    fill = arg_bool(args, "fill", default=False)
    await _check_chips(ctx, me, opts)
    opener = _new_seek(ctx, me)  # again: another seek or room of theirs may have come meanwhile
    lobby = ctx.lobby
    lobby.pace.seek(me, time.monotonic())
    found = lobby.seeks.add(me.name, me.key, table_args, opts,
                            asyncio.get_running_loop().time() + ctx.config.seek_seconds, fill=fill, opener=opener)
    lobby.arm_seeks()
    lobby.seek_news({"event": "seek", **found.summary()})
    return found.summary()


@command("challenge")
async def challenge(ctx: Context, args: Args) -> Result:
    """A table for you and one person; they accept or decline; it lapses after ``challenge_seconds``."""
    me, name = _me(ctx), _name(args)
    _new_seek(ctx, me)
    to = _addressee(ctx, me, name)
    table_args, opts = _seek_options(ctx, args, 2)
    await _check_chips(ctx, me, opts)
    opener = _new_seek(ctx, me)  # again: another seek or room of theirs may have come meanwhile
    to = _addressee(ctx, me, name)  # still there, still willing
    lobby = ctx.lobby
    lobby.pace.challenge(me, to, time.monotonic())
    found = lobby.seeks.add(me.name, me.key, table_args, opts,
                            asyncio.get_running_loop().time() + ctx.config.challenge_seconds,
                            to=to.key, to_name=to.name, opener=opener)
    lobby.arm_seeks()
    assert to.session is not None
    to.session.push_event({"event": "challenge", **found.summary()})
    return found.summary()


@command("seeks")
async def seeks(ctx: Context, args: Args) -> Result:
    me = _me(ctx)
    return {"seeks": [s.summary() for s in ctx.lobby.seeks.visible(me.key)]}


def _pick(ctx: Context, me: Player, args: Args, *, own: bool) -> Seek:
    registry = ctx.lobby.seeks
    if args.get("seek") is None:
        choices = [registry.owned_by(me.key)] if own else registry.offered_to(me.key)
        choices = [c for c in choices if c is not None]
        if len(choices) != 1:
            raise CommandError("no_such_seek") if not choices else CommandError("bad_argument", arg="seek")
        return choices[0]
    found = registry.get(arg_int(args, "seek", lo=1))
    if found is None or not found.visible_to(me.key) or (own and found.owner_key != me.key):
        raise CommandError("no_such_seek", seek=args.get("seek"))
    return found


@command("accept_seek")
async def accept_seek(ctx: Context, args: Args) -> Result:
    """Take a seat of a seek (or accept a challenge): its table opens when its seats are taken."""
    me = _me(ctx)
    _in_lobby(me)
    found = _pick(ctx, me, args, own=False)
    if found.owner_key == me.key:
        raise CommandError("not_allowed")
    _may_speak(ctx, me, found.owner)
    await _check_chips(ctx, me, found.opts)
    lobby = ctx.lobby
    if not lobby.seeks.accept(found, me.key, me.name):
        lobby.tell_keys([found.owner_key], {"event": "seek_accepted", "seek": found.id, "name": me.name,
                                            "missing": found.missing})
        return {**found.summary(), "room": None}
    room = await lobby.open_seek(found)
    if room is None:
        raise CommandError("no_such_seek", seek=found.id)
    return {**found.summary(), "room": room.id, "seat": me.seat}


@command("decline_seek")
async def decline_seek(ctx: Context, args: Args) -> Result:
    """Decline a challenge (its owner hears it), or give back a seat of a seek you accepted."""
    me = _me(ctx)
    lobby = ctx.lobby
    if args.get("seek") is None:
        choices = [s for s in lobby.seeks.visible(me.key)
                   if s.owner_key != me.key and (s.challenge or me.key in s.accepted)]
        if len(choices) != 1:
            raise CommandError("no_such_seek") if not choices else CommandError("bad_argument", arg="seek")
        found = choices[0]
    else:
        found = _pick(ctx, me, args, own=False)
    if found.challenge:
        lobby.seeks.remove(found)
        lobby.arm_seeks()
        lobby.tell_keys([found.owner_key], {"event": "seek_over", "seek": found.id, "reason": "declined",
                                            "name": me.name, "challenge": True})
    elif me.key in found.accepted:
        found.accepted.remove(me.key)
    else:
        raise CommandError("no_such_seek", seek=found.id)
    return {"seek": found.id}


@command("cancel_seek")
async def cancel_seek(ctx: Context, args: Args) -> Result:
    me = _me(ctx)
    found = _pick(ctx, me, args, own=True)
    lobby = ctx.lobby
    lobby.seeks.remove(found)
    lobby.arm_seeks()
    keys = [*([found.to] if found.to else []), *found.accepted]
    lobby.tell_keys(keys, {"event": "seek_over", "seek": found.id, "reason": "cancelled", "name": me.name,
                           "challenge": found.challenge})
    return {"seek": found.id}


# -- replays and ratings ----------------------------------------------------------------------------


@command("replay")
async def replay(ctx: Context, args: Args) -> Result:
    """A finished round again, as a spectator saw it, then its hands (``server/community/replays.py``)."""
    me = _me(ctx)
    pace = ctx.lobby.pace
    pace.replay(me, time.monotonic())  # a round recomputed (milliseconds of CPU): budgets as verify's
    record = await asked_round(ctx.store.history, me.name, args)
    round_id = record.round_id
    if record.rules not in ADAPTERS:
        raise CommandError("no_such_round", round=round_id[:60])
    if is_match(record.round_id):
        raise CommandError("bad_argument", arg="round")
    key = (round_id, fingerprint(record))
    reply = pace.replayed.get(key)
    if reply is None:
        async with pace.verifying:  # one round recomputed at a time, verify's and replay's
            reply = pace.replayed.get(key)
            if reply is None:
                try:
                    fresh = await asyncio.to_thread(replay_reply, record, ADAPTERS[record.rules])
                except ValueError:
                    raise CommandError("no_such_round", round=round_id[:60]) from None
                pace.replayed.put(key, reply := fresh)
    return dict(reply)


@command("leaderboard")
async def leaderboard(ctx: Context, args: Args) -> Result | None:
    """``by: "rating"``: registered players by their OpenSkill rating at one table kind (at least
    ``min_games`` rated games, default ``rating_min_games``); else the points and chips boards."""
    if args.get("by") != "rating":
        return await _accounts.leaderboard(ctx, {k: v for k, v in args.items() if k != "by"})
    limit = arg_int(args, "limit", default=10, lo=1, hi=50)
    min_games = arg_int(args, "min_games", default=ctx.config.rating_min_games, lo=0, hi=100_000)
    rules = args.get("rules")
    game = args.get("game")
    if rules is None:
        game = game if game is not None else "president"
        rules = next((a.name for a in ADAPTERS.values() if a.game == game), None)
    adapter = ADAPTERS.get(rules) if isinstance(rules, str) else None
    if adapter is None or (game is not None and game != adapter.game):
        raise CommandError("bad_argument", arg="rules")
    try:
        rows = await ctx.store.ratings.board(adapter.game, adapter.name, limit, min_games=min_games)
        # Provisional: rated players with fewer than min_games games, listed apart, so a newcomer
        # sees where they stand before the board ranks them.
        early = [] if min_games == 0 else [
            r for r in await ctx.store.ratings.board(adapter.game, adapter.name, limit + len(rows), min_games=0)
            if r.games < min_games][:limit]
    except StorageError as exc:
        raise CommandError(exc.code) from None

    def row(r: Rating, **more: JSONValue) -> Result:
        return {"name": r.name, "rating": round(r.rating, 2), "score": round(r.rating, 2),
                "mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "games": r.games, **more}

    return {"game": adapter.game, "rules": adapter.name, "by": "rating", "min_games": min_games,
            "leaderboard": [row(r, rank=i) for i, r in enumerate(rows, 1)],
            "provisional": [row(r, provisional=True) for r in early]}
