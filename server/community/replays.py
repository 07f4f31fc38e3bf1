"""A stored round played again: what a spectator saw, step by step, then the revealed hands.

:func:`public_replay` replays a history record's log through the engine (its table's
adapter, ``server.games``) and keeps, for each action of the round, the events in the
form a spectator received them (``event.for_seat(None)``), in order: exactly what the
table sent its spectators during the round, never a card hidden at that point. After
the round, what was hidden is shown: the full form of the events spectators saw
censored (Président: every hand as dealt, the exchanged cards). A Speculation deal
hides nothing in its events (its face-down cards are shown by its own ``revealed``
event, S12h) and its seed, which would show the undealt cards, is never published.

:func:`export_record` is the self-contained record of ``donne export`` (an operator's
tool): configuration, seed, actions, results and the events the engine's replay
gives, which :func:`verify_record` checks byte for byte (docs/protocol.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from server.games.base import GameAdapter
from server.protocol import Args, CommandError, JSONValue, arg_str
from server.storage.api import History, RoundRecord, is_match

EXPORT_FORMAT = "donne-round/1"


def _canonical(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class RoundExport(TypedDict):
    """``donne export``'s document of one round (``EXPORT_FORMAT``)."""

    format: str
    round: str
    game: str
    rules: str
    seats: list[str]
    finished_at: float
    options: dict[str, JSONValue]  # the table's options
    config: dict[str, JSONValue]  # the match's engine configuration
    seed: JSONValue
    commitment: JSONValue
    start: int  # the index of the round's deal in ``log``
    log: list[dict[str, JSONValue]]  # the match's actions from its start
    result: dict[str, JSONValue]
    events: list[dict[str, JSONValue]]  # the round's events, full form
    events_sha256: str


@dataclass(frozen=True, slots=True)
class Replay:
    round_id: str
    game: str
    rules: str
    seats: tuple[str, ...]
    steps: tuple[tuple[Mapping[str, JSONValue], ...], ...]  # per action of the round: its public events
    revealed: tuple[Mapping[str, JSONValue], ...]  # the full form of the events spectators saw censored
    result: Mapping[str, JSONValue]
    seed: str | None  # this round's deal seed (hex), when the game publishes it (Président)

    def to_dict(self) -> dict[str, JSONValue]:
        return {"round": self.round_id, "game": self.game, "rules": self.rules, "seats": list(self.seats),
                "steps": [list(step) for step in self.steps], "revealed": list(self.revealed),
                "result": dict(self.result)}


def round_start(log: Sequence[Mapping[str, JSONValue]]) -> int:
    """The index of the round's own first action: its deal (the log runs from the match's start)."""
    deals = [i for i, entry in enumerate(log) if entry.get("cmd") == "deal"]
    return deals[-1] if deals else 0


def public_replay(record: RoundRecord, adapter: GameAdapter) -> Replay:
    """The round of ``record`` as a spectator saw it (raises ValueError for a match's record or a
    log the engine refuses)."""
    if is_match(record.round_id):
        raise ValueError("a match's record: replay one of its rounds")
    config = record.match
    try:
        played = adapter.replay_steps(config, record.log)
    except Exception as exc:
        raise ValueError(f"the log of {record.round_id} does not replay: {exc}") from None
    start = round_start(record.log)
    steps: list[tuple[Mapping[str, JSONValue], ...]] = []
    revealed: list[Mapping[str, JSONValue]] = []
    fair = record.extra.get("fairness")  # published with the round's end (server.table.fair)
    for _entry, events in played[start:]:
        seen: list[Mapping[str, JSONValue]] = []
        for ev in events:
            public = ev.for_seat(None)
            if public is not None:
                seen.append(public.to_dict() if fair is None or ev.name != adapter.round_end
                            else {**public.to_dict(), "fairness": fair})
            full = ev.to_dict()
            if public is None or public.to_dict() != full:
                revealed.append(full)
        steps.append(tuple(seen))
    seed = record.log[start].get("seed") if adapter.seed_published and record.log else None
    return Replay(record.round_id, record.game, record.rules, tuple(record.seats), tuple(steps), tuple(revealed),
                  dict(record.result), seed if isinstance(seed, str) else None)


def replay_reply(record: RoundRecord, adapter: GameAdapter) -> dict[str, JSONValue]:
    """The JSON ``replay`` reply: the public steps and, when the game publishes its seeds (Président),
    the stored log with the round's seed, so a client can run it again through the engine."""
    replay = public_replay(record, adapter)
    out = replay.to_dict()
    if replay.seed is not None:
        out.update(config=dict(record.config), log=[dict(a) for a in record.log], seed=replay.seed,
                   start=round_start(record.log), commitment=record.commitment)
    return out


def export_record(record: RoundRecord, adapter: GameAdapter) -> RoundExport:
    """``donne export``: everything needed to play the round again and check it (see the module)."""
    config = record.match
    played = adapter.replay_steps(config, record.log)
    start = round_start(record.log)
    events = [ev.to_dict() for _, evs in played[start:] for ev in evs]
    deal = record.log[start] if record.log else {}
    return {
        "format": EXPORT_FORMAT,
        "round": record.round_id,
        "game": record.game,
        "rules": record.rules,
        "seats": list(record.seats),
        "finished_at": record.finished_at,
        "options": {k: v for k, v in record.config.items() if k != "match"},
        "config": dict(config),
        "seed": deal.get("seed"),
        "commitment": record.commitment or deal.get("commitment"),
        "start": start,
        "log": [dict(a) for a in record.log],
        "result": dict(record.result),
        "events": events,
        "events_sha256": hashlib.sha256(_canonical(events).encode()).hexdigest(),
    }


def verify_record(export: RoundExport, adapter: GameAdapter) -> bool:
    """The engine's replay of an exported record gives its events and its result, byte for byte."""
    played = adapter.replay_steps(export["config"], export["log"])
    events = [ev.to_dict() for _, evs in played[export["start"]:] for ev in evs]
    ends = [ev for ev in events if ev.get("event") == export["result"].get("event")]
    return (_canonical(events) == _canonical(export["events"])
            and hashlib.sha256(_canonical(events).encode()).hexdigest() == export["events_sha256"]
            and bool(ends) and _canonical(ends[-1]) == _canonical(export["result"]))


async def last_round_id(history: History, name: str) -> str | None:
    """The round (not a match) ``name`` played last, from ``history``; None when none is kept."""
    mine = [p for p in await history.played(name, 20) if not is_match(p.record.round_id)]
    return mine[0].record.round_id if mine else None


async def asked_round(history: History, name: str, args: Args) -> RoundRecord:
    """The stored round a command names (``round``; none: ``name``'s last round); ``no_such_round``
    when there is none. It may be a match's record (``is_match``): the command decides."""
    if args.get("round") is None:
        last = await last_round_id(history, name)
        if last is None:
            raise CommandError("no_such_round")
        round_id = last
    else:
        round_id = arg_str(args, "round", limit=200).strip()
    record: RoundRecord | None = await history.get(round_id)
    if record is None:
        raise CommandError("no_such_round", round=round_id[:60])
    return record
