"""``donne serve --ready-file`` and ServerProcess: the real server in a subprocess, its ports learnt from a file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from clients.serverproc import LOAD_LIMITS, ServerFailed, ServerProcess, server_config

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def wait_for(path: Path, proc: subprocess.Popen[Any], limit: float = 30.0) -> dict[str, Any]:
    """The JSON of ``path`` once the server wrote it (bounded wait; fails if the server exits first)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if path.exists():
            data: dict[str, Any] = json.loads(path.read_text())
            return data
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"no ready file in {limit}s")


def test_the_generated_configuration_is_what_donne_serve_reads(tmp_path: Path) -> None:
    from server.config import load_config  # the test may read the server's side; the tool does not

    config = tmp_path / "serve.toml"
    data = tmp_path / 'odd "dir" \\ é'
    config.write_text(server_config(data))
    cfg = load_config(config)
    assert (cfg.ssh_port, cfg.telnet_port, cfg.host) == (0, 0, "127.0.0.1")
    assert cfg.data_dir == data
    assert cfg.max_connections_per_address == 100000 and cfg.round_pause == 0 and cfg.bot_delay == 0
    assert cfg.log_level == "WARNING"


def test_serve_writes_the_ready_file_once_listening_and_removes_it_at_stop(tmp_path: Path) -> None:
    config = tmp_path / "serve.toml"
    config.write_text(server_config(tmp_path / "data", LOAD_LIMITS))
    ready = tmp_path / "ready.json"
    proc = subprocess.Popen([sys.executable, "-m", "server.start.cli", "serve", "--config", str(config),
                             "--ready-file", str(ready)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        info = wait_for(ready, proc)
        assert set(info) == {"telnet_port", "ssh_port", "pid"}
        assert info["pid"] == proc.pid
        assert info["telnet_port"] > 0 and info["ssh_port"] > 0 and info["telnet_port"] != info["ssh_port"]
        assert not (tmp_path / "ready.json.tmp").exists()
        # listening for real: a raw TCP client gets a JSON reply on the telnet port
        out = subprocess.run([sys.executable, "-c", _WHOAMI, str(info["telnet_port"])], cwd=ROOT,
                             capture_output=True, text=True, timeout=30)
        assert json.loads(out.stdout)["name"] == "probe", out.stderr
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert not ready.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


_WHOAMI = """
import asyncio, json, sys
from clients.client import Client

async def main() -> None:
    client = await Client.connect_tcp("127.0.0.1", int(sys.argv[1]))
    await client.login("probe")
    print(json.dumps(await client.request("whoami")))
    await client.close()

asyncio.run(main())
"""


def test_serve_refuses_a_ready_file_it_cannot_write(tmp_path: Path) -> None:
    config = tmp_path / "serve.toml"
    config.write_text(server_config(tmp_path / "data"))
    ready = tmp_path / "no" / "such" / "folder" / "ready.json"
    proc = subprocess.run([sys.executable, "-m", "server.start.cli", "serve", "--config", str(config),
                           "--ready-file", str(ready)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "cannot write the ready file" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


async def test_server_process_learns_the_ports_and_stops_cleanly() -> None:
    srv = ServerProcess()
    await srv.start()
    try:
        tmp = srv.data_dir.parent if srv.data_dir else None
        assert srv.telnet_port > 0 and srv.ssh_port > 0
        assert srv.pid == srv.server_pid and srv.proc is not None and srv.pid == srv.proc.pid
        assert (srv.rss_mb() or 0) > 10 and srv.cpu_s() is not None
        client = await Client.connect_tcp("127.0.0.1", srv.telnet_port, timeout=20)
        try:
            await client.login("sp")
            assert (await client.request("whoami"))["name"] == "sp"
        finally:
            await client.close()
        ssh = await Client.connect_ssh("127.0.0.1", srv.ssh_port, "sp2", timeout=20)
        try:
            assert (await ssh.request("whoami"))["name"] == "sp2"
        finally:
            await ssh.close()
    finally:
        code = await srv.stop()
    assert code == 0  # SIGTERM: a clean shutdown, not a kill
    assert tmp is not None and not tmp.exists()
    assert await srv.stop() is None  # idempotent


async def test_a_server_that_cannot_start_is_a_clear_failure() -> None:
    srv = ServerProcess("[limits]\nno_such_key = 1\n")
    with pytest.raises(ServerFailed) as info:
        await srv.start()
    assert "unknown key limits.no_such_key" in str(info.value)
    assert srv.proc is None


def test_the_tools_import_nothing_else_of_server() -> None:
    code = ("import sys, clients.load, clients.wirebot, clients.loadworker; "
            "print(sorted(m for m in sys.modules if m.startswith('server.') and not m.startswith('clients')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
