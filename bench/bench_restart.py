"""What durable tables cost, and how long a restart takes to bring 1,000 tables back (docs/restart.md).

    python bench/bench_restart.py [--clients 1000] [--duration 20] [--resume 1000] [--quick]

1. ``durable``: the same ``donne load`` run (classic Président, 4 people a table, wire bots
   answering at once) against a server with ``durable_tables = false`` (today's server:
   nothing of a table is written) and one with ``durable_tables = true`` (every step's log
   entries written before its messages leave, in the same transaction as its chips), one
   after the other in the same sitting. Figures: the server's CPU per action
   (``server_cpu_s / actions``), the latency from an action to the next state (p50, p99),
   actions per second.
2. ``resume``: ``--resume`` tables (half tdc with a stake, a third classic, the rest
   Speculation; one person and bots each, stopped on the person's decision) are played to
   that point in a server in this process, which is then stopped cleanly; a new server on
   the same data folder starts: the time ``start()`` takes (store, recovery, every table
   replayed, checked and rebuilt, before it listens) and the part the tables take.

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import logging
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, today

from clients import load as load_module
from clients.load import LoadOptions, run_load
from clients.serverproc import LOAD_LIMITS, ServerProcess


async def load_run(durable: bool, clients: int, duration: float, procs: int) -> dict[str, Any]:
    extra = f"\n[restart]\ndurable_tables = {'true' if durable else 'false'}\n"
    original = load_module.ServerProcess
    load_module.ServerProcess = functools.partial(ServerProcess, LOAD_LIMITS + extra)  # type: ignore[misc]
    try:
        out = await run_load(LoadOptions(clients=clients, tables=clients // 4, duration=duration, procs=procs))
    finally:
        load_module.ServerProcess = original  # type: ignore[misc]
    cpu, actions = out.get("server_cpu_s"), out.get("actions") or 0
    figures = out.get("suspect_latency") or out
    return {
        "durable_tables": durable,
        "actions": actions,
        "actions_per_s": out.get("actions_per_s"),
        "server_cpu_ms_per_action": round(1000 * cpu / actions, 3) if cpu and actions else None,
        "server_cpu_share": out.get("server_cpu_share"),
        "p50_ms": figures.get("p50_ms"),
        "p99_ms": figures.get("p99_ms"),
        "latency_flagged": out.get("flagged"),
        "errors": out.get("errors"),
        "clients": out.get("clients"),
    }


def _name(i: int) -> str:
    """A guest name per table, unlike any other (digits and some letters look alike to the store)."""
    letters = "abdefghjkpqstxyz"
    out = ""
    while True:
        i, d = divmod(i, len(letters))
        out += letters[d]
        if not i:
            return "pl" + out


async def resume_run(tables: int) -> dict[str, Any]:
    from server.config import load_config
    from server.games import parse_options
    from server.people.players import Player
    from server.start.app import start

    tmp = Path(tempfile.mkdtemp(prefix="donne-resume-"))
    settings = dict(host="127.0.0.1", ssh_port=0, telnet_port=0, web_port=0, data_dir=tmp / "data", log_level="WARNING",
                    bot_delay=0.0, round_pause=0.0, turn_seconds=600.0, auction_seconds=600.0,
                    flip_seconds=600.0, max_rooms=tables + 10, resume_window=60.0)
    config = load_config(None, **settings)
    running = await start(config)
    kinds = [("tdc", {"game": "president", "rules": "tdc", "seats": 4, "bots": 3, "stake": 2})] * (tables // 2)
    kinds += [("classic", {"game": "president", "rules": "classic", "seats": 4, "bots": 3})] * (tables // 3)
    kinds += [("speculation", {"game": "speculation", "seats": 4, "bots": 3, "ante": 1})] * (
        tables - len(kinds))
    t0 = time.perf_counter()
    lobby = running.lobby
    rooms = []
    for i, (_, args) in enumerate(kinds):
        account = await running.store.accounts.login_guest(_name(i))
        player = Player(name=account.name, guest=True)
        lobby.players[player.key] = player
        room = await lobby.open_room(parse_options(args, config), owner=player.name)
        await room.submit(player, "join", {})
        rooms.append(room)
    last, still = -1, 0.0
    while still < 1.0 and time.perf_counter() - t0 < 600:  # every table waits for its person now
        await asyncio.sleep(0.2)
        seq = sum(r.journal.seq for r in rooms if r.journal is not None)
        still = still + 0.2 if seq == last else 0.0
        last = seq
    setup_s = time.perf_counter() - t0
    entries = sum(r.journal.seq for r in rooms if r.journal is not None)
    await running.stop()
    captured: list[str] = []

    class Grab(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            captured.append(record.getMessage())

    handler = Grab(logging.INFO)
    logging.getLogger("donne").addHandler(handler)
    logging.getLogger("donne").setLevel(logging.INFO)
    t1 = time.perf_counter()
    again = await start(config)
    start_s = time.perf_counter() - t1
    logging.getLogger("donne").removeHandler(handler)
    resumed = len(again.lobby.rooms)
    audit = await again.store.ledger.audit()
    await again.stop()
    line = next((m for m in captured if "unfinished table(s) resumed" in m), "")
    m = re.search(r"resumed in ([\d.]+) s", line)
    return {"tables": tables, "kinds": {k: sum(1 for x, _ in kinds if x == k) for k in ("tdc", "classic",
                                                                                       "speculation")},
            "log_entries": entries, "setup_s": round(setup_s, 2), "restart_start_s": round(start_s, 3),
            "tables_part_s": float(m.group(1)) if m else None, "resumed": resumed,
            "audit_ok": audit.ok, "aside": len(audit.tables_aside)}


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--duration", type=float, default=20.0)
    p.add_argument("--procs", type=int, default=1)
    p.add_argument("--resume", type=int, default=1000, help="tables to bring back after a restart (0: skip)")
    p.add_argument("--quick", action="store_true", help="100 clients, 5 s, 100 tables")
    args = p.parse_args(argv)
    if args.quick:
        args.clients, args.duration, args.resume = 100, 5.0, 100
    n = args.clients - args.clients % 4
    result: dict[str, Any] = {"bench": "restart", "date": today(), "machine": machine(), "clients": n}
    off = await load_run(False, n, args.duration, args.procs)
    on = await load_run(True, n, args.duration, args.procs)
    result["load"] = {"today": off, "durable": on}
    if off["server_cpu_ms_per_action"] and on["server_cpu_ms_per_action"]:
        result["cpu_per_action_ratio"] = round(on["server_cpu_ms_per_action"] / off["server_cpu_ms_per_action"], 3)
    if args.resume:
        result["resume"] = await resume_run(args.resume)
    return result


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:]))))
