"""What commands read of the events: the list's summaries, the standings (live, or as stored once
over), and the events a player entered (``finger``). Read on the event loop from what an event's
shell lets others see (:meth:`~server.lobby.tournaments.shell.EventShell.seen`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict

from server.lobby.tournaments.shell import EventShell
from server.protocol import CommandError, JSONValue
from server.storage.api import Store
from server.storage.api_tournaments import StoredTournament
from server.storage.names import name_key
from server.tournaments import (
    EventConfig,
    EventRecord,
    ReplayError,
    Standings,
    SwissConfig,
    TournamentError,
    replay,
)

STANDINGS_LINES = 50
"""Lines of standings a reply carries (and the asker's own line when below)."""


def summary(shell: EventShell, asker: str | None) -> dict[str, JSONValue]:
    """The event as ``tournaments`` lists it (docs/tournaments.md, "Commands")."""
    seen = shell.seen()
    return _summary(shell.id, shell.organiser, shell.director.config, seen.summary, seen.standings,
                    shell.over or shell.jammed, asker)


def stored_summary(stored: StoredTournament, asker: str | None) -> dict[str, JSONValue] | None:
    """An open event as its journal leaves it (its node did not answer in time), marked
    ``as_stored``; None when its record does not replay."""
    try:
        record = EventRecord.from_dict({"config": stored.config, "entries": list(stored.entries)})
        director = replay(record)
    except (ReplayError, TournamentError, ValueError, KeyError):
        return None
    out = _summary(stored.tournament_id, stored.organiser, director.config, director.summary(), director.standings(),
                   stored.status != "open", asker)
    out["as_stored"] = True
    return out


def _summary(tid: str, organiser: str, config: EventConfig, raw: Mapping[str, object], standings: Standings,
             over: bool, asker: str | None) -> dict[str, JSONValue]:
    s = {k: _plain(v) for k, v in raw.items()}
    phase = "over" if over else "waiting" if s.get("phase") == "registering" else "running"
    mine = name_key(asker) if asker is not None else None
    out: dict[str, JSONValue] = {
        "id": tid, "kind": config.kind, "game": config.options.get("game"),
        "rules": config.options.get("rules"), "seats": config.seats, "phase": phase,
        "entrants": s.get("entrants"), "playing": s.get("playing"), "tables": s.get("tables"),
        "starts_at": config.starts_at, "organiser": organiser,
        "scoring": {"mode": config.scoring.mode, "streak": config.scoring.streak}, "bots": config.bots,
        "joined": any(name_key(line.name) == mine and line.status == "active" for line in standings.lines),
    }
    if isinstance(config, SwissConfig):
        out["round"] = s.get("round")
        out["rounds"] = config.rounds
    else:
        out["ends_at"] = config.ends_at
    return out

def standings(shell: EventShell, asker: str | None) -> dict[str, JSONValue]:
    """The ``tournament_standings`` reply: the first lines, and the asker's own when below."""
    standings = shell.seen().standings
    lines = list(standings.lines[:STANDINGS_LINES])
    mine = name_key(asker) if asker is not None else None
    own = next((line for line in standings.lines if name_key(line.name) == mine), None)
    if own is not None and own not in lines:
        lines.append(own)
    return {"tournament": shell.id, "kind": standings.kind, "round": standings.round, "final": standings.final,
            "lines": [_line({k: _plain(v) for k, v in asdict(line).items()}) for line in lines]}


async def final_standings(store: Store, key: str, asked: str, asker: str | None) -> dict[str, JSONValue]:
    """The standings of an event this process does not hold (over before its start, or long
    ago): its final standings as stored; ``no_such_tournament`` when there are none."""
    stored = await store.tournaments.get(key)
    raw = stored.standings if stored is not None else None
    if stored is None or not isinstance(raw, dict) or not isinstance(raw.get("lines"), list):
        raise CommandError("no_such_tournament", tournament=asked[:20])
    lines = [line for line in raw["lines"] if isinstance(line, Mapping)]
    shown = lines[:STANDINGS_LINES]
    own = next((line for line in lines if asker is not None and isinstance(line.get("name"), str)
                and name_key(str(line["name"])) == name_key(asker)), None)
    if own is not None and own not in shown:
        shown.append(own)
    return {"tournament": key, "kind": raw.get("kind"), "round": raw.get("round"), "final": True,
            "lines": [_line(line) for line in shown]}


async def entered(store: Store, events: Mapping[str, EventShell], name: str, limit: int = 5) -> tuple[list[JSONValue], int | None]:
    """The events ``name`` entered, newest first (``limit`` of them: id, kind, game, rules, their
    rank, how many entered, whether it is over), and their best final rank (None: none yet)."""
    key = name_key(name)
    found: dict[str, tuple[float, dict[str, JSONValue]]] = {}
    best: int | None = None
    for event in await store.tournaments.events("over"):
        lines = event.standings.get("lines") if isinstance(event.standings, Mapping) else None
        if not isinstance(lines, list):
            continue
        mine = next((line for line in lines if isinstance(line, Mapping) and isinstance(line.get("name"), str)
                     and name_key(str(line["name"])) == key), None)
        rank = mine.get("rank") if mine is not None else None
        if not isinstance(rank, int):
            continue
        best = rank if best is None else min(best, rank)
        found[event.tournament_id] = (event.created_at, _entry(event.tournament_id, event.config, rank,
                                                               len(lines), True))
    for tid, shell in events.items():
        if tid in found or shell.over:
            continue
        standings = shell.seen().standings
        line = next((ln for ln in standings.lines if name_key(ln.name) == key), None)
        if line is not None:
            config = shell.director.config
            found[tid] = (config.starts_at, _entry(tid, config.to_dict(), line.rank, len(standings.lines), False))
    newest = sorted(found.values(), key=lambda pair: -pair[0])
    return [entry for _, entry in newest[:limit]], best


def _entry(tid: str, config: Mapping[str, JSONValue], rank: int, entrants: int, final: bool) -> dict[str, JSONValue]:
    """One event ``finger`` lists."""
    options = config.get("options")
    game, rules = (options.get("game"), options.get("rules")) if isinstance(options, Mapping) else (None, None)
    return {"tournament": tid, "kind": config.get("kind"), "game": game, "rules": rules, "rank": rank,
            "entrants": entrants, "final": final}


def _plain(value: object) -> JSONValue:
    """A scalar of the core's summaries and lines as JSON (they hold nothing else)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _line(line: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """A line of standings as the ``tournament_standings`` reply gives it (from a ``Standing``'s fields)."""
    return {"rank": line.get("rank"), "name": line.get("name"), "points": line.get("points"),
            "opponents": line.get("opponents"), "games": line.get("games"), "wins": line.get("wins"),
            "byes": line.get("byes"), "fire": line.get("on_fire"), "provisional": line.get("provisional"),
            "status": line.get("status")}
