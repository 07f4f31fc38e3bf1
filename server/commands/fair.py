"""Fair deals, for players (docs/fairness.md): contributions and ``verify``.

* ``entropy`` (``text``): this deal's contribution, during the window after the ``commitment``
  event only, from a seated player; forwarded to the table (``server.table.fair``). Contribution
  texts are published in the deal's record: a muted player may give none (``entropy``, ``seed``),
  and a mute takes their standing ``seed`` away (``server.commands.moderation``).
* ``seed`` (``text``: set; ``clear``: true to remove; neither: show): a standing contribution kept
  by the session and given at every deal until changed; at a table it takes effect at once (and
  counts for an open window where the seat gave nothing yet).
* ``verify`` (``round``; none: your last round): the stored record of a finished round checked by
  ``engine.fairness.verify`` with what the asker's seat saw (the announced commitment, its
  contribution, the events its seat received, recomputed from the stored log). The reply holds
  every step (``code``, ``result``, ``values``) and the record itself, for a check that does not
  trust the server (``docs/verify_deal.py``). Recomputing a deal costs milliseconds of CPU: each
  ``verify`` spends the player's budget and its address's (``verify_per_minute``:
  ``server/lobby/pace.py``), one is computed at a time, and the recent replies are kept (``Pace.verified``).
  ``checker``: where the operator offers that checker (``verify_url``), when set.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Mapping

from engine import fairness
from engine.errors import BadArgument
from server.commands import Context, command
from server.community.replays import asked_round, round_start
from server.games import ADAPTERS
from server.games.base import GameAdapter
from server.people.players import Player
from server.protocol import Args, CommandError, JSONValue, Result
from server.storage.api import RoundRecord, is_match
from server.storage.names import name_key


def _player(ctx: Context) -> Player:
    player = ctx.session.player
    assert player is not None
    return player


def normalized(text: object) -> str:
    """A contribution as the table records it, or the refusal ``bad_entropy`` (``reason``: the engine's)."""
    try:
        return fairness.normalize_contribution(text)
    except BadArgument as exc:
        raise CommandError("bad_entropy", **exc.params) from None


@command("entropy")
async def entropy(ctx: Context, args: Args) -> Result | None:
    """This deal's contribution (``text``), during the window after the ``commitment`` event."""
    player = _player(ctx)
    normalized(args.get("text"))  # a malformed text is refused here, before any table sees it
    if player.room is None:
        raise CommandError("not_in_room")
    await ctx.lobby.conduct.check_muted(player)  # the text is published in the deal's record
    result: Result | None = await player.room.submit(player, "entropy", {"text": args.get("text")})
    return result


@command("seed")
async def seed(ctx: Context, args: Args) -> Result:
    """A standing contribution to every deal: ``text`` sets it, ``clear: true`` removes it, neither shows it."""
    player = _player(ctx)
    clear = args.get("clear")
    if clear is not None and not isinstance(clear, bool):
        raise CommandError("bad_argument", arg="clear")
    if "text" not in args and not clear:
        return {"seed": player.extra.get("seed"), "set": False}
    text = None if clear else normalized(args.get("text"))
    if text is not None:
        await ctx.lobby.conduct.check_muted(player)  # published in every deal's record: not while muted
    if text is None:
        player.extra.pop("seed", None)
    else:
        player.extra["seed"] = text
    out: dict[str, JSONValue] = {"seed": text, "set": True}
    if player.room is not None:
        result = await player.room.submit(player, "seed", {"text": text})
        if isinstance(result, Mapping) and "round" in result:
            out["round"] = result["round"]  # it counted for the window open now
    return out


@command("verify")
async def verify(ctx: Context, args: Args) -> Result:
    """A finished round's deal checked step by step (``round``; none: your last round)."""
    me = _player(ctx)
    pace = ctx.lobby.pace
    pace.verify(me, time.monotonic())  # milliseconds of CPU each: a budget per player and per address
    record = await asked_round(ctx.store.history, me.name, args)
    round_id = record.round_id
    if record.rules not in ADAPTERS or is_match(round_id):
        raise CommandError("no_such_round", round=round_id[:60])
    fair = record.extra.get("fairness")
    if not isinstance(fair, Mapping):
        raise CommandError("not_verifiable", round=round_id[:60])
    key = (round_id, seat_of(record, me.name), fingerprint(record))
    reply = pace.verified.get(key)
    if reply is None:
        async with pace.verifying:  # one at a time: a crowd of them queues instead of taking the cores
            reply = pace.verified.get(key)
            if reply is None:
                fresh = await asyncio.to_thread(verify_reply, record, ADAPTERS[record.rules], me.name)
                pace.verified.put(key, reply := fresh)
    reply = dict(reply)
    if ctx.config.verify_url:
        reply["checker"] = ctx.config.verify_url
    return reply


def fingerprint(record: RoundRecord) -> str:
    """What a ``verify`` reply is computed from, in short: a record changed (or forged) in the
    store is checked anew, never answered from :attr:`Pace.verified`."""
    what = [record.extra.get("fairness"), record.log, record.seats, record.commitment, record.config]
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()


def seat_of(record: RoundRecord, name: str | None) -> int | None:
    """The seat ``name`` held in the round (None: they did not play in it)."""
    key = name_key(name) if name else None
    return next((i for i, n in enumerate(record.seats) if n and key is not None and name_key(n) == key), None)


def verify_reply(record: RoundRecord, adapter: GameAdapter, name: str | None) -> dict[str, JSONValue]:
    """The ``verify`` reply of a stored round for the player ``name`` (their seat's view, if they sat)."""
    fair = record.extra["fairness"]
    assert isinstance(fair, Mapping)  # asked only of a round with its fairness record
    seat = seat_of(record, name)
    seen = seen_by(record, adapter, seat)
    report = fairness.verify(fair, seen)
    return {
        "round": record.round_id,
        "game": record.game,
        "rules": record.rules,
        "seat": seat,
        "names": list(record.seats),
        "ok": report.ok,
        "steps": [{"code": s.code, "result": s.result, "values": dict(s.values)} for s in report.steps],
        "record": fair,
    }


def seen_by(record: RoundRecord, adapter: GameAdapter, seat: int | None) -> Result:
    """What ``seat`` (None: a spectator) was shown of the round: the commitment announced before the
    window, its contribution, and the round's events in its seat's form (from the stored log)."""
    seen: dict[str, JSONValue] = {"commitment": record.commitment}
    fair = record.extra.get("fairness")
    try:
        played = adapter.replay_steps(record.match, record.log)
    except Exception:  # a log the engine refuses: the record is checked alone
        return seen
    events: list[Mapping[str, JSONValue]] = []
    for _, evs in played[round_start(record.log):]:
        for ev in evs:
            form = ev.for_seat(seat)
            if form is not None:
                events.append(form.to_dict())
    seen["events"] = events
    if seat is not None:
        seen["seat"] = seat
        contributions = fair.get("contributions") if isinstance(fair, Mapping) else None
        if isinstance(contributions, list) and seat < len(contributions):
            seen["contribution"] = contributions[seat]
        dealt = next((e for e in events if e.get("event") == "dealt"), None)
        if dealt is not None and isinstance(dealt.get("hands"), list):
            seen["hands"] = dealt["hands"]
    return seen
