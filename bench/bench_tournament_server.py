"""An arena through the server's event shell and the real store: a table's end to its players seated again.

    python bench/bench_tournament_server.py [--entrants N] [--results N] [--out FILE]
    python bench/bench_tournament_server.py --rooms 99 [--seconds 20]   # with rooms, over the wire

An arena of ``--entrants`` (1,000) at tables of four (250 under way) runs in its asyncio shell
(``server/lobby/tournaments/shell.py``): every call of the director in a worker thread, its journal
written to a real SQLite store (``store.apply``, durable) before its effects are performed. Results
arrive one by one (``--results``, 2,000), each as a table's report would (``TableOver`` queued to
the shell). Measured (one JSON object on stdout, nothing asserted):

* ``seat_again_ms``: from a table's result queued to the shell to its players' new table being
  performed (``OpenTable`` handed to the host: where the server opens the room and seats them),
  the journal written first — p50 / p99 / max;
* ``standings_query_ms``: the ``tournament_standings`` reply built on the event loop (the first 50
  lines and the asker's), asked every millisecond by another task while results arrive — p50 / p99;
* ``loop_lag_ms``: how late a 1 ms timer of the event loop fires meanwhile (the director runs off
  the loop; its thread still shares the GIL) — p50 / p99 / max;
* ``write_ms``: one journal write (``TournamentLog``) — p50 / p99.

No room is opened (a table "ends" when the driver says so): this is the event's own path.

``--rooms N`` runs the whole path instead, at a smaller scale: a real ``donne serve`` (its own
process) and ``N`` JSON clients over loopback (this process) in a classic arena at tables of three,
one round a table game, for ``--seconds``. Each client plays every table it is seated at (the
weakest single when leading, else pass). Measured on the clients' side: ``seat_again_ms``, from the
state that shows a client its table's match over to the ``tournament_seated`` of its next table
(the room's end, the report, the journal, the new room, every join); ``standings_rtt_ms``, a
``tournament_standings`` request's round trip, asked every 100 ms by one more client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import machine, today
from server.lobby.tournaments.hall import Hall
from server.lobby.tournaments.shell import EventShell
from server.storage import open_store
from server.storage.api import Op, OpResult, Store
from server.storage.api_tournaments import TournamentOpened
from server.tournaments import ArenaConfig, ArenaDirector, Effect, Join, OpenTable, TableOver
from server.tournaments.scoring import places_from_totals
from tests.kits.tournamentkit import play_table


def quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


def ms(x: float) -> float:
    return round(x * 1000, 2)


def spread(xs: list[float]) -> dict[str, float]:
    return {"p50": ms(quantile(xs, .5)), "p99": ms(quantile(xs, .99)), "max": ms(max(xs, default=0.0))}


class Host:
    """The hall's side, reduced to the store's writes and a note of each table opened."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.under_way: dict[str, OpenTable] = {}
        self.ended_at: dict[str, float] = {}  # a person -> when the table they left reported
        self.seat_again: list[float] = []
        self.writes: list[float] = []

    async def write(self, tid: str, ops: Sequence[Op]) -> list[OpResult]:
        t0 = time.perf_counter()
        out = await self.store.apply(list(ops))
        self.writes.append(time.perf_counter() - t0)
        return out

    async def perform(self, shell: EventShell, effect: Effect) -> None:
        if isinstance(effect, OpenTable):
            now = time.perf_counter()
            self.under_way[effect.table] = effect
            for name in effect.people:
                ended = self.ended_at.pop(name, None)
                if ended is not None:
                    self.seat_again.append(now - ended)

    def finished(self, shell: EventShell) -> None:
        pass


async def arena(entrants: int, results: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        store = await open_store(Path(folder))
        try:
            return await _arena(store, entrants, results)
        finally:
            await store.close()


async def _arena(store: Store, entrants: int, results: int) -> dict[str, Any]:
    host = Host(store)
    rng = random.Random(1)
    start = time.time() + 1.0
    config = ArenaConfig(id="e1", seats=4, starts_at=start, length=1e9, seed="bench")
    await store.apply([TournamentOpened("e1", config.to_dict(), "bench")])
    shell = EventShell(ArenaDirector(config), host, time.time)
    hall = Hall(cast(Any, None))  # (its standings reply only)
    shell.start()
    for i in range(entrants):
        await shell.ask(Join(f"p{i}", rating=rng.random() * 30))
    while len(host.under_way) < entrants // 4:
        await asyncio.sleep(0.05)
    queries: list[float] = []
    lags: list[float] = []
    running = True

    async def ask_standings() -> None:
        k = 0
        while running:
            t0 = time.perf_counter()
            hall.standings(shell, f"p{k % entrants}")
            queries.append(time.perf_counter() - t0)
            k += 1
            t1 = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(max(0.0, time.perf_counter() - t1 - 0.001))

    asker = asyncio.get_running_loop().create_task(ask_standings())
    host.writes.clear()
    t_start = time.perf_counter()
    for _ in range(results):
        table = rng.choice(sorted(host.under_way))
        effect = host.under_way.pop(table)
        places = tuple(places_from_totals([rng.randrange(10) for _ in effect.seats]))
        now = time.perf_counter()
        for name in effect.people:
            host.ended_at[name] = now
        await shell.ask(TableOver(table, places, (0,) * len(places)))
    elapsed = time.perf_counter() - t_start
    running = False
    await asker
    await shell.stop()
    return {"entrants": entrants, "seats": 4, "results": results, "tables_under_way": len(host.under_way),
            "results_per_s": round(results / elapsed, 1),
            "seat_again_ms": spread(host.seat_again), "standings_query_ms": spread(queries),
            "loop_lag_ms": spread(lags), "write_ms": spread(host.writes),
            "journal_entries": shell.seq}


async def rooms(players: int, seconds: float) -> dict[str, Any]:
    from clients.client import Client
    from clients.serverproc import LOAD_LIMITS, ServerProcess

    limits = LOAD_LIMITS.replace("[limits]\n", "[limits]\nregistrations_per_hour = 0\n") + \
        '[tournaments]\ncreate = "accounts"\n'
    server = await ServerProcess(limits).start()
    clients: list[Client] = []
    try:
        for i in range(players + 1):
            client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=60)
            await client.register(f"p{i}", "bench-password-1")
            clients.append(client)
        asker, people = clients[0], clients[1:]
        tid = (await asker.request("tournament_create", kind="arena", game="president", rules="classic", seats=3,
                                   rounds=1, start=1.0 + players * 0.02, length=seconds, rematch_wait=0))["tournament"]
        for c in people:
            await c.request("tournament_join", tournament=tid)
        waits: list[float] = []
        tables = [0]

        async def play(client: Client) -> None:
            seated: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            over_at: list[float] = []

            def heard(msg: dict[str, Any]) -> None:
                if msg.get("event") in ("tournament_seated", "tournament_ended"):
                    seated.put_nowait(msg)
                elif msg.get("type") == "state" and msg.get("status") == "over" and not over_at:
                    over_at.append(time.perf_counter())

            client.on_push = heard
            while True:
                ev = await asyncio.wait_for(seated.get(), seconds + 60)
                if ev["event"] == "tournament_ended":
                    return
                if over_at:
                    waits.append(time.perf_counter() - over_at[0])
                over_at.clear()
                tables[0] += 1
                await play_table(client, ev["room"], timeout=60)

        rtts: list[float] = []
        done = False

        async def ask() -> None:
            while not done:
                t0 = time.perf_counter()
                await asker.request("tournament_standings", tournament=tid)
                rtts.append(time.perf_counter() - t0)
                await asyncio.sleep(0.1)

        asking = asyncio.get_running_loop().create_task(ask())
        await asyncio.gather(*(play(c) for c in people))
        done = True
        await asking
        decided = _decided(server.data_dir, tid)
        return {"players": players, "seats": 3, "seconds": seconds, "tables_played": tables[0] // 3,
                "seat_again_ms": spread(waits), "match_stored_to_next_table_ms": spread(decided),
                "standings_rtt_ms": spread(rtts), "server_cpu_s": server.cpu_s()}
    except BaseException:
        print(server.log_tail(6000), file=sys.stderr)
        raise
    finally:
        for c in clients:
            await c.close()
        await server.stop()


def _decided(data: Path, tid: str) -> list[float]:
    """The server's side, from its store: for each person of each table, from its match's record
    (stored when the match ended) to the journal's next table for them (the event's decision, made
    once the people left the finished table; the room and its joins come after)."""
    from server.start.export import read_only
    from server.storage.sql.tournaments import journal, rounds

    where = str(data / "donne.sqlite3")
    records = [r for r in read_only(where, lambda tx: rounds(tx, tid)) if r.round_id.endswith("-match")]
    opens = [e for e in read_only(where, lambda tx: journal(tx, tid)) if e.get("k") == "open"]
    out = []
    for record in records:
        for name in record.seats:
            after = [float(str(e["at"])) for e in opens
                     if float(str(e["at"])) >= record.finished_at and name in (e.get("seats") or [])]
            if after:
                out.append(min(after) - record.finished_at)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--results", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="200 entrants, 300 results")
    parser.add_argument("--rooms", type=int, default=0, help="players of an arena with rooms, over the wire")
    parser.add_argument("--seconds", type=float, default=20.0, help="with --rooms: the arena's length")
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    entrants, results = (200, 300) if args.quick else (args.entrants, args.results)
    out: dict[str, Any] = {"bench": "tournament_server", "when": today(), "machine": machine()}
    if args.rooms:
        out["rooms"] = asyncio.run(rooms(args.rooms, args.seconds))
    else:
        out["arena"] = asyncio.run(arena(entrants, results))
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
