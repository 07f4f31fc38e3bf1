"""server/start/app.py: start on port 0, host key, data folder, clean and idempotent shutdown, `donne serve`."""

import asyncio
import os
import re
import signal
import stat
import sys
from pathlib import Path

import pytest

from clients.client import Client
from tests.kits.servers import start_server

ROOT = Path(__file__).resolve().parents[3]


async def test_start_creates_data_dir_key_and_database_and_stop_is_idempotent(tmp_path):
    running = await start_server(tmp_path)
    try:
        data = tmp_path / "data"
        key = data / "ssh_host_ed25519_key"
        assert key.exists() and (data / "donne.sqlite3").exists()
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        assert running.telnet_port > 0 and running.ssh_port > 0
        assert running.telnet_port != running.ssh_port
        first_key = key.read_bytes()
    finally:
        await asyncio.gather(running.stop(), running.stop())
    await running.stop()
    # a second start reuses the same host key
    again = await start_server(tmp_path)
    try:
        assert key.read_bytes() == first_key
    finally:
        await again.stop()


async def test_shutdown_tells_connected_clients_and_closes_them(tmp_path):
    running = await start_server(tmp_path)
    client = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=5)
    try:
        await client.login("alice")
        await client.request("lang", lang="fr")
        waiter = asyncio.ensure_future(client.next_event("shutdown", timeout=10))
        await asyncio.sleep(0)
        await running.stop()
        event = await waiter
        assert event["text"] and "shutdown" not in event["text"]  # a sentence, in French
        await asyncio.wait_for(client.closed.wait(), 10)
    finally:
        await client.close()


async def test_new_connections_are_refused_after_stop(tmp_path):
    running = await start_server(tmp_path)
    port = running.telnet_port
    await running.stop()
    with pytest.raises(OSError):
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        data = await asyncio.wait_for(reader.read(100), 5)
        writer.close()
        if not data:
            raise ConnectionResetError("closed at once")


async def test_donne_serve_command_logs_ports_and_stops_on_sigterm(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.start.cli", "serve", "--ssh-port", "0", "--telnet-port", "0", "--web-port", "0",
        "--data-dir", str(tmp_path / "d"), cwd=str(tmp_path), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    try:
        telnet_port = None
        while telnet_port is None:
            line = await asyncio.wait_for(proc.stdout.readline(), 30)
            assert line, "the server ended before listening"
            m = re.search(rb"telnet [\d.]+:(\d+), ssh [\d.]+:(\d+)", line)
            if m:
                telnet_port = int(m.group(1))
        client = await Client.connect_tcp("127.0.0.1", telnet_port, timeout=10)
        reply = await client.login("bob")
        assert reply["name"] == "bob"
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(client.closed.wait(), 20)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        assert (tmp_path / "d" / "ssh_host_ed25519_key").exists()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_bad_config_file_is_reported(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[server]\nnope = 1\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.start.cli", "serve", "--config", str(bad), cwd=str(tmp_path), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2 and b"nope" in out
