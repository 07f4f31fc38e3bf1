"""``donne load`` against one node and against two nodes of a cluster, one sitting, same clients.

    python bench/bench_cluster.py [--clients 200] [--duration 20] [--rules classic] [--quick]

Starts a private PostgreSQL and redis-server (as the tests do: ``tests/kits/pgserver.py``,
``tests/kits/redisserver.py``), then, one after the other, with the same clients and tables:

* ``one_node``: one node (cluster mode, PostgreSQL and Redis) holds every table and connection;
* ``two_nodes_table``: two nodes, each table whole on one node (``donne load --spread table``:
  same-node players, nothing crosses Redis but the lobby);
* ``two_nodes_seat``: two nodes, the seats of each table on different nodes (``--spread seat``:
  the owner's states and the fronts' commands cross Redis).

For each run: throughput, latency p50/p99, the error replies by code, every node's CPU seconds
over the measured window alone (``/proc/PID/stat`` of each node process when the window starts
and when it ends: connecting and seating are not in it), Redis's and PostgreSQL's over the same
window, the server CPU per action (all nodes, ms) and the load average around the run. The load generator's own lag and CPU
are checked as in ``donne load`` (``flagged``).

At the same two moments the bench reads the whole machine (``/proc/stat`` and every process's
``/proc/PID/stat``): ``machine`` gives, over the window, the CPU seconds of the nodes, of the load
generator (its worker processes), of Redis and PostgreSQL, of everything else on the machine
(``others_s``: other people's work) and what stayed idle. From the CPU each action cost every
part, ``ceiling_actions_per_s`` is the most the run could do with the machine to itself: all
cores shared by nodes, services and load generator, and no node above one core (a node is one
Python thread). ``ceiling_vs_one_node`` compares those ceilings: how far a second node can take
the throughput on this machine, whatever the other work running at the time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.server: PostgreSQL and Redis as the tests run them
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, today

import clients.load as load_module
from clients.figures import proc_cpu_s
from clients.load import LoadOptions, run_load
from clients.serverproc import LOAD_LIMITS, ServerProcess
from tests.kits.pgserver import PgServer, find_bindir
from tests.kits.redisserver import RedisServer, find_redis


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
        machine_window = MachineWindow(servers[0].pid)
        opts = LoadOptions(clients=args.clients, tables=args.clients // args.seats, game=args.game,
                           rules=args.rules, duration=args.duration, procs=args.procs, think=args.think,
                           ports=[s.telnet_port for s in servers], spread=spread,
                           window_pids=tuple([s.pid for s in servers] + services))
        with machine_window.watching():
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
    out["machine"] = machine_window.figures(nodes=cpu, services=sum(window[nodes:]), ours=set(opts.window_pids),
                                            actions=run["actions"])
    out["node_warnings"] = said  # what each node logged at WARNING and above (the first lines)
    return out


def machine_jiffies() -> tuple[float, float]:
    """The whole machine's busy and idle CPU seconds since boot (``/proc/stat``, line ``cpu``)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal (guest is in user)
    return busy / CLK_TCK, idle / CLK_TCK


CLK_TCK = os.sysconf("SC_CLK_TCK")


def every_process() -> dict[int, tuple[int, float]]:
    """Every process now: pid -> (parent pid, user + system CPU seconds)."""
    out: dict[int, tuple[int, float]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            data = stat.read_text()
        except OSError:
            continue
        fields = data[data.rindex(")") + 2:].split()
        out[int(stat.parent.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return out


class MachineWindow:
    """The whole machine over ``donne load``'s measured window.

    ``run_load`` reads each watched process's CPU (``proc_cpu_s``) when the window opens and when it
    closes; while :meth:`watching`, the first of those reads (``first_pid``) also takes a snapshot
    of the machine: its busy and idle time and every process's CPU. The load generator is the
    bench's own children that are not nodes nor services (``donne load``'s worker processes)."""

    def __init__(self, first_pid: int) -> None:
        self.first_pid = first_pid
        self.marks: list[tuple[float, float, float, dict[int, tuple[int, float]]]] = []

    def _read(self, pid: int) -> float | None:
        if pid == self.first_pid:
            busy, idle = machine_jiffies()
            self.marks.append((time.monotonic(), busy, idle, every_process()))
        return proc_cpu_s(pid)

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        before = load_module.proc_cpu_s
        load_module.proc_cpu_s = self._read
        try:
            yield
        finally:
            load_module.proc_cpu_s = before

    def figures(self, *, nodes: list[float], services: float, ours: set[int], actions: int) -> dict[str, Any] | None:
        """``nodes``: each node's CPU seconds over the window; ``services``: Redis's and PostgreSQL's;
        ``ours``: the processes those are of (the rest of the bench's children are the generator)."""
        if len(self.marks) != 2:
            return None
        (t0, busy0, idle0, procs0), (t1, busy1, idle1, procs1) = self.marks
        me = os.getpid()
        generator = sum(procs1[pid][1] - cpu for pid, (parent, cpu) in procs0.items()
                        if parent == me and pid not in ours and pid in procs1)
        bench = procs1.get(me, (0, 0.0))[1] - procs0.get(me, (0, 0.0))[1]
        seconds, busy = t1 - t0, busy1 - busy0
        cores = os.cpu_count() or 1
        measured = sum(nodes) + services + generator + bench
        out: dict[str, Any] = {
            "cores": cores, "window_s": round(seconds, 2), "busy_s": round(busy, 2), "idle_s": round(idle1 - idle0, 2),
            "nodes_s": round(sum(nodes), 2), "generator_s": round(generator, 2), "services_s": round(services, 2),
            "bench_s": round(bench, 2), "others_s": round(max(0.0, busy - measured), 2),
        }
        if actions:
            per = {k: 1000 * v / actions for k, v in
                   (("nodes", sum(nodes)), ("generator", generator + bench), ("services", services))}
            out["cpu_ms_per_action"] = {k: round(v, 3) for k, v in per.items()}
            # with the machine to ourselves: every core for nodes + generator + services, and the
            # busiest node (the same share of the actions) at one core
            busiest = 1000 * max(nodes) / actions
            out["ceiling_actions_per_s"] = round(min(1000 * cores / sum(per.values()), 1000 / busiest), 1)
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
        ceilings = [(r.get("machine") or {}).get("ceiling_actions_per_s") for r in (base, run)]
        if all(ceilings):
            run["ceiling_vs_one_node"] = round(ceilings[1] / ceilings[0], 2)
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:]))))
