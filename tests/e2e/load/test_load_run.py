"""``donne load``: worker processes, figures that are all there, and a busy load generator flagged."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from clients.load import (
    LoadOptions,
    add_arguments,
    check_options,
    flag_workers,
    latency_figures,
    options,
    run_load,
    split_tables,
)
from clients.loadworker import LoadWorker, WorkerSpec
from clients.loadworker import main as worker_main

ROOT = Path(__file__).resolve().parents[3]
LATENCY = ("p50_ms", "p95_ms", "p99_ms", "max_ms")
KEYS = {"clients", "connected_at_end", "tables", "seats", "game", "rules", "transport", "strategy", "think_s",
        "procs", "duration_s", "connect_s", "setup_s", "actions", "actions_per_s", *LATENCY, "suspect_latency",
        "matches", "lines_in_per_s", "lines_out_per_s", "errors", "refused", "disconnects", "codes",
        "client_cpu_s", "client_cpu_ms_per_action", "worker_loop", "server_rss_mb", "server_rss_start_mb", "server_rss_connected_mb", "server_cpu_s",
        "server_cpu_share", "window_cpu_s", "workers", "thresholds", "flagged"}
WORKER_KEYS = {"worker", "clients", "tables", "elapsed_s", "actions", "matches", "received", "sent", "errors",
               "refused", "disconnects", "connected_at_end", "codes", "cpu_s", "cpu_share", "lag_p99_ms",
               "lag_max_ms", "lag_samples", *LATENCY}


def worker(index: int, lag: float = 1.0, lag_max: float = 2.0, cpu: float = 0.3) -> dict[str, Any]:
    return {"worker": index, "lag_p99_ms": lag, "lag_max_ms": lag_max, "cpu_share": cpu}


# -- the pure parts ----------------------------------------------------------------------


def test_tables_are_split_whole_and_evenly() -> None:
    assert split_tables(10, 2) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert split_tables(5, 3) == [[0, 1], [2, 3], [4]]
    assert split_tables(3, 1) == [[0, 1, 2]]
    groups = split_tables(250, 7)
    assert sorted(t for g in groups for t in g) == list(range(250))
    assert max(map(len, groups)) - min(map(len, groups)) <= 1


def test_a_lagging_or_busy_worker_is_flagged() -> None:
    assert flag_workers([worker(0), worker(1)], 20, 0.85) == []
    assert flag_workers([worker(0, lag=20.0), worker(1, cpu=0.85)], 20, 0.85) == []  # at the threshold: fine
    reasons = flag_workers([worker(0), worker(1, lag=48.5, lag_max=90.0)], 20, 0.85)
    assert reasons == ["worker 1: event-loop lag p99 48.5 ms > 20 ms (max 90 ms)"]
    reasons = flag_workers([worker(0, cpu=0.93), worker(1)], 20, 0.85)
    assert reasons == ["worker 0: 93% of its core busy > 85%"]
    assert len(flag_workers([worker(0, lag=30.0, cpu=0.9)], 20, 0.85)) == 2


def test_flagged_latencies_are_reported_as_suspect_not_as_the_servers() -> None:
    clean = latency_figures([0.001, 0.002, 0.003], [])
    assert clean == {"p50_ms": 2.0, "p95_ms": 3.0, "p99_ms": 3.0, "max_ms": 3.0, "suspect_latency": None}
    suspect = latency_figures([0.001, 0.002, 0.003], ["worker 0: event-loop lag p99 30 ms > 20 ms"])
    assert all(suspect[k] is None for k in LATENCY)
    assert suspect["suspect_latency"] == {"p50_ms": 2.0, "p95_ms": 3.0, "p99_ms": 3.0, "max_ms": 3.0}


@pytest.mark.parametrize(("changes", "says"), [
    ({"host": "10.0.0.1", "port": 2323}, "only target this machine"),
    ({"clients": 8, "tables": 4}, "3 at least"),
    ({"clients": 1, "tables": 2}, "one client per table"),
    ({"procs": 0}, "at least 1"),
    ({"clients": 12, "tables": 3, "procs": 4}, "at least 4 tables"),
    ({"duration": 0}, "positive"),
    ({"profile": "x.prof", "port": 2323}, "not with --port"),
    ({"server_pid": 1}, "the server at --port"),
    ({"transport": "udp"}, "unknown transport"),
    ({"game": "poker"}, "unknown game"),
    ({"strategy": "nosuch"}, "no strategy 'nosuch' for president"),
])
def test_options_that_cannot_make_a_run_are_refused(changes: dict[str, Any], says: str) -> None:
    with pytest.raises(SystemExit) as info:
        check_options(LoadOptions(**changes))
    assert says in str(info.value)
    with pytest.raises(SystemExit):  # and run_load refuses them before starting anything
        asyncio.run(run_load(LoadOptions(**changes)))


def test_the_command_line_reaches_the_options_the_started_server_is_given() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    opts = options(parser.parse_args(["--clients", "8", "--server-key", "gc_young = 5000",
                                      "--server-key", "gc_freeze_seconds = 1"]))
    assert opts.clients == 8 and opts.server_keys == ("gc_young = 5000", "gc_freeze_seconds = 1")
    assert options(parser.parse_args([])).server_keys == ()


def test_check_options_gives_the_seats_per_table() -> None:
    assert check_options(LoadOptions(clients=40, tables=10, procs=2)) == 4
    assert check_options(LoadOptions(clients=9, tables=3, game="speculation", strategy="easy")) == 3


def test_a_worker_refuses_a_bad_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert worker_main([]) == 2
    assert worker_main(['{"index": 0, "bogus": 1}']) == 2
    assert "bad spec" in capsys.readouterr().err
    spec = WorkerSpec(index=3, port=1, tables=[4, 5], seats=4, think=0.5)
    assert WorkerSpec.from_json(spec.to_json()) == spec


def test_a_worker_whose_parent_is_gone_ends_by_itself() -> None:
    with socket.socket() as s:  # a port nobody listens on: every connection is refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    spec = WorkerSpec(index=0, port=port, tables=[0], seats=3)
    proc = subprocess.Popen([sys.executable, "-m", "clients.loadworker", spec.to_json()], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        connected = json.loads(proc.stdout.readline())
        assert connected["phase"] == "connected"
        assert connected["clients"] == 0 and connected["connect_failures"] == 3
        proc.stdin.close()  # no "seat" will ever come
        assert proc.wait(timeout=30) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


# -- real runs (small: the machine is shared) -------------------------------------------------


def check_figures(result: dict[str, Any], clients: int, tables: int, procs: int) -> None:
    assert set(result) >= KEYS
    assert result["clients"] == clients and result["tables"] == tables and result["procs"] == procs
    workers = result["workers"]
    assert [w["worker"] for w in workers] == list(range(procs))
    for w in workers:
        assert set(w) >= WORKER_KEYS
        assert w["lag_samples"] > 0 and w["lag_max_ms"] >= w["lag_p99_ms"] >= 0
        assert w["cpu_s"] > 0 and 0 < w["cpu_share"] <= 1.5
        assert w["actions"] > 0
    assert sum(w["clients"] for w in workers) == clients
    assert sum(w["tables"] for w in workers) == tables
    assert sum(w["actions"] for w in workers) == result["actions"] > 0
    assert result["actions_per_s"] > 0 and result["errors"] == 0 and result["disconnects"] == 0
    assert isinstance(result["flagged"], list)
    if result["flagged"]:
        figures = result["suspect_latency"]
        assert all(result[k] is None for k in LATENCY)
    else:
        figures = {k: result[k] for k in LATENCY}
        assert result["suspect_latency"] is None
    assert 0 < figures["p50_ms"] <= figures["p95_ms"] <= figures["p99_ms"] <= figures["max_ms"]


@pytest.mark.e2e
def test_donne_load_spreads_40_clients_over_2_workers_and_prints_every_figure() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "server.start.cli", "load", "--clients", "40", "--tables", "10", "--procs", "2",
         "--duration", "3"],
        capture_output=True, text=True, timeout=180, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    check_figures(result, clients=40, tables=10, procs=2)
    assert [w["tables"] for w in result["workers"]] == [5, 5]
    assert result["server_rss_mb"] > 0 and result["server_cpu_s"] > 0
    # every seat sees each move (the server's forced passes too, P9): at least one move per action
    assert result["card_moves"] >= result["actions"] * 0.9 > 0 and result["server_cpu_ms_per_card_move"] > 0
    assert result["thresholds"] == {"lag_p99_ms": 20.0, "worker_cpu_share": 0.85}
    # the load generator's own cost (it must not be what is measured)
    per_action = 1000 * result["client_cpu_s"] / result["actions"]  # client_cpu_s is rounded to 0.01
    assert result["client_cpu_ms_per_action"] == pytest.approx(per_action, abs=5 / result["actions"] + 1e-3)
    assert result["client_cpu_ms_per_action"] > 0
    assert result["worker_loop"] == "auto"  # the default: uvloop when installed


@pytest.mark.e2e
async def test_a_deliberately_busy_worker_is_flagged_and_its_latencies_are_suspect() -> None:
    # worker 0 blocks its own loop 60 ms out of every 100 ms: every tick due in a burn runs
    # at least 50 ms late, about one tick in five, far above the 20 ms threshold of the p99
    result = await run_load(LoadOptions(clients=8, tables=2, procs=2, duration=2, test_burn_ms=60))
    check_figures(result, clients=8, tables=2, procs=2)
    assert any(r.startswith("worker 0: event-loop lag p99") for r in result["flagged"]), result["flagged"]
    assert result["workers"][0]["lag_p99_ms"] >= 50
    assert result["p99_ms"] is None and result["suspect_latency"]["p99_ms"] > 0


@pytest.mark.e2e
async def test_a_bot_that_crashes_is_an_error_not_silence(server: Any) -> None:
    # a worker in this process against the test's server; a strategy the engine does not know
    # (donne load refuses it up front) makes every bot fail on its first state
    spec = WorkerSpec(index=0, port=server.telnet_port, tables=[0], seats=3, strategy="nosuch", duration=0.5)
    worker = LoadWorker(spec)
    try:
        assert (await worker.connect())["clients"] == 3
        assert (await worker.seat())["seated"] == 3
        result = await worker.measure()
    finally:
        await worker.close()
    assert result["actions"] == 0
    assert result["errors"] == 3 and result["codes"] == {"crash:KeyError": 3}


@pytest.mark.e2e
async def test_load_against_a_running_server_over_ssh(server: Any) -> None:
    result = await run_load(LoadOptions(clients=3, tables=1, duration=1.5, port=server.ssh_port, transport="ssh"))
    assert result["clients"] == 3 and result["actions"] > 0 and result["errors"] == 0
    assert result["server_rss_mb"] is None  # not our process: nothing read from /proc
    assert len(result["workers"]) == 1


@pytest.mark.e2e
async def test_load_against_a_running_server_reads_the_process_it_is_told(server: Any) -> None:
    # the test's server runs in this process; its limit is 200 commands a second a session, which
    # bots that never think pass on uvloop: a hundredth of a second keeps them under it
    result = await run_load(LoadOptions(clients=3, tables=1, duration=1.5, think=0.01, port=server.telnet_port,
                                        server_pid=os.getpid()))
    assert result["actions"] > 0 and result["errors"] == 0, result.get("codes")
    assert result["server_rss_mb"] > 0 and result["server_cpu_s"] > 0 and result["server_cpu_ms_per_action"] > 0


@pytest.mark.e2e
async def test_window_cpu_is_the_cpu_of_the_measured_window_alone(server: Any) -> None:
    # a process that burns a second of CPU at once, then sleeps: its CPU over the window (after
    # the clients connected and sat down) is nothing, though it spent a second before
    burner = subprocess.Popen([sys.executable, "-c",
                               "import time\nend = time.process_time() + 1\nwhile time.process_time() < end: pass\n"
                               "print('burnt', flush=True)\ntime.sleep(60)"], stdout=subprocess.PIPE)
    try:
        assert burner.stdout is not None and burner.stdout.readline().strip() == b"burnt"
        result = await run_load(LoadOptions(clients=3, tables=1, duration=1.5, think=0.01, port=server.telnet_port,
                                            window_pids=(burner.pid, os.getpid())))
    finally:
        burner.kill()
        burner.wait()
    idle, busy = result["window_cpu_s"]
    assert idle is not None and idle < 0.2
    assert busy is not None and busy > 0  # this process holds the server the clients played on
