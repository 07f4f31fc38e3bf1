"""``donne load --gmcp``: text players with GMCP (:mod:`clients.gmcpbot`) against one server.

The server is started as for ``donne load`` (:class:`~clients.serverproc.ServerProcess`)
or targeted with ``--port``/``--server-pid``; the tables are spread over ``--procs`` worker
processes (``python -m clients.gmcpbot``), each seating its tables' bots, then counting
their moves between ``go`` and ``stop``. The figures are those of ``donne load`` that apply:
actions, rounds and card moves in the window, and the server's CPU per action, per card move and
per round over the same window.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from clients.figures import proc_cpu_s
from clients.jsontypes import JSONObject, number_of
from clients.load import LoadOptions, split_tables
from clients.serverproc import ROOT, ServerProcess

SETUP_TIMEOUT = 600.0


async def _line(proc: asyncio.subprocess.Process, timeout: float) -> JSONObject:
    assert proc.stdout is not None
    raw = await asyncio.wait_for(proc.stdout.readline(), timeout)
    if not raw:
        raise RuntimeError("a GMCP load worker ended early")
    return dict(json.loads(raw))


async def run_gmcp_load(opts: LoadOptions, gmcp: bool = True) -> JSONObject:
    """One ``--gmcp`` run: the figures as one dict (see the module's text)."""
    seats = opts.clients // opts.tables
    server = None
    pid: int | None
    procs: list[asyncio.subprocess.Process] = []
    try:
        if opts.port is None:
            server = await ServerProcess(profile=opts.profile, server_keys=opts.server_keys).start()
            port, pid = server.telnet_port, server.pid
        else:
            port, pid = opts.port, opts.server_pid
        for group in split_tables(opts.tables, opts.procs):
            procs.append(await asyncio.create_subprocess_exec(
                sys.executable, "-m", "clients.gmcpbot", "--host", opts.host, "--port", str(port),
                "--tables", ",".join(map(str, group)), *([] if gmcp else ["--no-gmcp"]), cwd=ROOT,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE))
        ready = await asyncio.gather(*(_line(p, SETUP_TIMEOUT) for p in procs))
        await asyncio.gather(*(_line(p, 60) for p in procs))  # playing
        cpu0 = proc_cpu_s(pid) if pid is not None else None
        t0 = time.perf_counter()
        for p in procs:
            assert p.stdin is not None
            p.stdin.write(b"go\n")
        await asyncio.sleep(opts.duration)
        for p in procs:
            assert p.stdin is not None
            p.stdin.write(b"stop\n")
        elapsed = time.perf_counter() - t0
        cpu1 = proc_cpu_s(pid) if pid is not None else None
        results = await asyncio.gather(*(_line(p, 60) for p in procs))
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
            await p.wait()
        if server is not None:
            await server.stop()

    def total(key: str) -> float:
        return float(sum(number_of(r[key]) for r in results))

    actions, moves, rounds = total("actions"), total("card_moves"), total("rounds")
    cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0

    def per(n: float, scale: float = 1000.0) -> float | None:
        return None if cpu is None or not n else round(scale * cpu / n, 3)

    return {
        "mode": "text+gmcp" if gmcp else "text", "clients": int(sum(number_of(r["clients"]) for r in ready)),
        "connected_at_end": int(total("connected_at_end")), "tables": opts.tables, "seats": seats,
        "procs": opts.procs, "duration_s": round(elapsed, 2), "setup_s": max(number_of(r["setup_s"]) for r in ready),
        "actions": int(actions), "actions_per_s": round(actions / elapsed, 1), "rounds": round(rounds, 1),
        "card_moves": round(moves), "errors": int(total("errors")), "retries": int(total("retries")),
        "disconnects": int(total("disconnects")), "gmcp_packages": int(total("packages")),
        "bytes_in_per_s": round(total("bytes_in") / elapsed), "client_cpu_s": round(total("cpu_s"), 2),
        "workers_cpu_share": [r["cpu_share"] for r in results],
        "server_cpu_s": None if cpu is None else round(cpu, 2),
        "server_cpu_share": None if cpu is None else round(cpu / elapsed, 3),
        "server_cpu_ms_per_action": per(actions), "server_cpu_ms_per_card_move": per(moves),
        "server_cpu_ms_per_round": per(rounds),
    }
