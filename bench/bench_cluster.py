"""``donne load`` against one node and against two nodes of a cluster, one sitting, same clients.

    python bench/bench_cluster.py [--clients 200] [--duration 20] [--rules classic] [--quick]

Starts a private PostgreSQL and redis-server (as the tests do: ``tests/server/pgserver.py``,
``tests/server/redisserver.py``), then, one after the other, with the same clients and tables:

* ``one_node``: one node (cluster mode, PostgreSQL and Redis) holds every table and connection;
* ``two_nodes_table``: two nodes, each table whole on one node (``donne load --spread table``:
  same-node players, nothing crosses Redis but the lobby);
* ``two_nodes_seat``: two nodes, the seats of each table on different nodes (``--spread seat``:
  the owner's states and the fronts' commands cross Redis).

For each run: throughput, latency p50/p99, the error replies by code, every node's CPU seconds
over the measured window alone (``/proc/PID/stat`` of each node process when the window starts
and when it ends: connecting and seating are not in it), Redis's and PostgreSQL's over the same
window, the server CPU per action (all nodes, ms) and the load average around the run. The load generator's own lag and CPU
are checked as in ``donne load`` (``flagged``). The machine has two cores shared by the nodes,
PostgreSQL, Redis and the load generator: the ratios between runs are what count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.server: PostgreSQL and Redis as the tests run them
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, today

from clients.load import LoadOptions, run_load
from clients.serverproc import LOAD_LIMITS, ServerProcess
from tests.server.pgserver import PgServer, find_bindir
from tests.server.redisserver import RedisServer, find_redis


def node_limits(pg_url: str, redis_url: str, node: str) -> str:
    return (LOAD_LIMITS + f"\n[storage]\nurl = {json.dumps(pg_url)}\n"
            f"\n[cluster]\nredis_url = {json.dumps(redis_url)}\nnode = {json.dumps(node)}\n")


async def one_run(label: str, nodes: int, spread: str, pg: PgServer, redis: RedisServer,
                  args: argparse.Namespace) -> dict[str, Any]:
    from server.storage.postgres import migrate, pg_connect

    database = pg.new_database()
    conn = pg_connect(database)
    try:
        migrate(conn)
    finally:
        conn.close()
    redis.command("FLUSHALL")
    servers = [ServerProcess(node_limits(database, redis.url, f"b{i}"),
                             profile=f"{args.profile}.{label}.{i}" if args.profile else None) for i in range(nodes)]
    try:
        for server in servers:
            await server.start()
        await asyncio.sleep(2.5)  # every node has read the others' keep-alives
        services = [redis.proc.pid] if redis.proc is not None else []
        services += pg_processes(pg)
        load0 = loadavg()
        opts = LoadOptions(clients=args.clients, tables=args.clients // args.seats, game=args.game,
                           rules=args.rules, duration=args.duration, procs=args.procs, think=args.think,
                           ports=[s.telnet_port for s in servers], spread=spread,
                           window_pids=tuple([s.pid for s in servers] + services))
        run = await run_load(opts)
        load1 = loadavg()
    finally:
        said = [said_by(server) for server in servers]
        for server in servers:
            await server.stop()
    window = [c or 0.0 for c in run["window_cpu_s"]]
    cpu = window[:nodes]  # the measured window only (from each node's /proc/PID/stat at its start and end)
    keep = ("clients", "tables", "think_s", "duration_s", "actions", "actions_per_s", "p50_ms", "p95_ms",
            "p99_ms", "max_ms", "suspect_latency", "errors", "refused", "disconnects", "codes", "flagged",
            "client_cpu_s")
    out = {"run": label, "nodes": nodes, "spread": spread, **{k: run.get(k) for k in keep}}
    out["node_cpu_s"] = cpu
    out["redis_cpu_s"] = round(window[nodes], 2) if len(window) > nodes else None
    out["postgres_cpu_s"] = round(sum(window[nodes + 1:]), 2)
    out["server_cpu_ms_per_action"] = round(1000 * sum(cpu) / run["actions"], 3) if run["actions"] else None
    out["loadavg"] = [load0, load1]
    out["node_warnings"] = said  # what each node logged at WARNING and above (the first lines)
    return out


def said_by(server: ServerProcess, keep: int = 60) -> list[str]:
    try:
        lines = (server.log_path.read_text(errors="replace").splitlines() if server.log_path else [])
    except OSError:
        return []
    return [line[:200] for line in lines if " WARNING " in line or " ERROR " in line][:keep]


def loadavg() -> float | None:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def pg_processes(pg: PgServer) -> list[int]:
    """The postmaster and the processes it started (backends, writers) at this moment."""
    try:
        master = int((pg.data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    out = [master]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == master:
                out.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return out


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=200)
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--duration", type=float, default=20.0)
    p.add_argument("--game", default="president")
    p.add_argument("--rules", default="classic")
    p.add_argument("--procs", type=int, default=1, help="worker processes of the load generator")
    p.add_argument("--think", type=float, default=0.0, help="seconds each player thinks before acting")
    p.add_argument("--quick", action="store_true", help="40 clients, 5 s")
    p.add_argument("--runs", default="one_node,two_nodes_table,two_nodes_seat", help="which runs, in order")
    p.add_argument("--profile", help="cProfile each node into PROFILE.RUN.NODE (figures then not comparable)")
    args = p.parse_args(argv)
    if args.quick:
        args.clients, args.duration = 40, 5.0
    out: dict[str, Any] = {"bench": "cluster", "date": today(), "machine": machine(), "runs": []}
    bindir, redis_binary = find_bindir(), find_redis()
    if bindir is None or redis_binary is None:
        out["skipped"] = "PostgreSQL or redis-server missing (`make tools` installs them)"
        return out
    pg, redis = PgServer(bindir), RedisServer(redis_binary)
    try:
        pg.start()
        redis.start()
        kinds = {"one_node": (1, "table"), "two_nodes_table": (2, "table"), "two_nodes_seat": (2, "seat")}
        for label in args.runs.split(","):
            nodes, spread = kinds[label]
            run = await one_run(label, nodes, spread, pg, redis, args)
            out["runs"].append(run)
            print(json.dumps(run), file=sys.stderr)
    finally:
        redis.stop()
        pg.stop()
    base = out["runs"][0]
    for run in out["runs"][1:] if base["run"] == "one_node" else ():
        run["throughput_vs_one_node"] = round(run["actions_per_s"] / base["actions_per_s"], 2) \
            if base["actions_per_s"] else None
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:]))))
