"""The operators' metrics endpoint, end to end: a real server with ``[metrics] port`` on, a whole
match played by two clients (and two bots), then a scrape over HTTP.

Counts and presence only, never speeds: the command counters and the latency histogram's count grow
by the moves played (a classic table has no stakes: the ledger's figures are only there), the live gauges say two
JSON connections over telnet, two sessions logged in and one classic Président room.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.config import ConfigError, load_config
from server.operations import metrics
from server.protocol import PLAY_COMMANDS
from tests.kits.servers import FREE_PORT, connect, play_simply, start_server

pytestmark = pytest.mark.e2e


async def _get(port: int, path: str = "/metrics") -> tuple[str, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = raw.decode().partition("\r\n\r\n")
    return head, body


def _samples(text: str) -> dict[str, float]:
    """``name{labels}`` → value, from the exposition text."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def _moves(samples: dict[str, float]) -> float:
    return samples.get('donne_commands_total{kind="action"}', 0.0)


async def test_a_match_moves_the_scraped_figures(tmp_path: Any) -> None:
    running = await start_server(tmp_path, metrics_port=FREE_PORT)
    try:
        assert running.metrics_port
        before = _samples(metrics.scrape().decode())
        alice = await connect(running, "alice")
        bob = await connect(running, "bob")
        sent: list[str] = []
        for c in (alice, bob):
            request_raw = c.request_raw

            async def counting(cmd: str, *a: Any, _orig: Any = request_raw, **kw: Any) -> Any:
                sent.append(cmd)
                return await _orig(cmd, *a, **kw)

            c.request_raw = counting  # type: ignore[method-assign]
        room = (await alice.request("create", game="president", rules="classic", seats=4, bots=2,
                                    bot_level="easy", rounds=1))["room"]
        await bob.request("join", room=room)
        await asyncio.wait_for(asyncio.gather(play_simply(alice, timeout=30), play_simply(bob, timeout=30)), 90)

        head, body = await _get(running.metrics_port)
        assert head.startswith("HTTP/1.0 200") and "text/plain" in head
        after = _samples(body)
        moves = sum(1 for cmd in sent if cmd in PLAY_COMMANDS)
        assert moves > 0
        assert _moves(after) - _moves(before) == moves
        assert after["donne_actions_total"] - before.get("donne_actions_total", 0.0) == moves
        # every move's latency observed: its last line was written (the histogram's count and top bucket)
        for key in ('donne_command_seconds_count{kind="action"}', 'donne_command_seconds_bucket{kind="action",le="+Inf"}'):
            assert after[key] - before.get(key, 0.0) == moves, key
        assert after['donne_command_seconds_count{kind="other"}'] > before.get('donne_command_seconds_count{kind="other"}', 0)
        assert after["donne_loop_lag_seconds_count"] > 0
        assert after['donne_connections{mode="json",transport="telnet"}'] == 2
        assert after["donne_sessions_logged_in"] == 2
        assert after['donne_rooms{game="president",rules="classic",status="over"}'] == 1
        for name in ("donne_ledger_commit_seconds_count", "donne_rate_limited_total", "donne_outbound_dropped_total", "donne_db_errors_total",
                     'donne_slow_disconnects_total{reason="queue_full"}'):
            assert name in after, name
        assert (await _get(running.metrics_port, "/nothing"))[0].startswith("HTTP/1.0 404")
        for c in (alice, bob):
            await c.close()
    finally:
        await asyncio.wait_for(running.stop(), 20)
    with pytest.raises(OSError):  # closed with the server
        await _get(running.metrics_port)


async def test_off_by_default_and_its_keys_in_the_metrics_section(tmp_path: Any) -> None:
    running = await start_server(tmp_path)
    try:
        assert running.metrics_port == 0 and running._metrics is None
    finally:
        await asyncio.wait_for(running.stop(), 20)
    conf = tmp_path / "donne.toml"
    conf.write_text('[server]\nhost = "0.0.0.0"\n[metrics]\nhost = "127.0.0.2"\nport = 9464\n')
    cfg = load_config(conf)
    assert (cfg.host, cfg.metrics_host, cfg.metrics_port) == ("0.0.0.0", "127.0.0.2", 9464)
    conf.write_text("[metrics]\nport = 70000\n")
    with pytest.raises(ConfigError):
        load_config(conf)


async def test_only_metrics_is_answered_and_an_over_long_header_is_refused_quietly(caplog: Any) -> None:
    """``GET /metrics`` only (``/`` is a 404, as docs/server.md says); a header line past the reader's
    limit is answered 431, with nothing logged (it once raised out of the connection handler)."""
    server = await metrics.serve("127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        head, body = await _get(port, "/")
        assert head.startswith("HTTP/1.0 404")
        head, body = await _get(port)
        assert head.startswith("HTTP/1.0 200") and "donne_rooms" in body
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /metrics HTTP/1.1\r\nX-Long: " + b"a" * 100_000 + b"\r\n\r\n")
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), 10)
        writer.close()
        assert raw.startswith(b"HTTP/1.0 431")
        await asyncio.sleep(0.05)
    finally:
        server.close()
        await server.wait_closed()
    assert not [r for r in caplog.records if r.levelno >= 30], [r.getMessage() for r in caplog.records]


async def test_silent_connections_beyond_a_few_are_closed_at_once() -> None:
    """Connections that say nothing are held at most 5 s each, and only :data:`metrics.MAX_SCRAPES`
    at once: beyond, a new one is closed unanswered (a flood of them cannot take the server's file
    descriptors); once they are gone, a scrape is answered again."""
    server = await metrics.serve("127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    silent = []
    try:
        for _ in range(metrics.MAX_SCRAPES):
            silent.append(await asyncio.open_connection("127.0.0.1", port))
        await asyncio.sleep(0.1)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await asyncio.wait_for(reader.read(), 2) == b""  # closed at once, not held 5 s
        writer.close()
        for _, w in silent:
            w.close()
        await asyncio.sleep(0.1)
        head, _ = await _get(port)
        assert head.startswith("HTTP/1.0 200")
    finally:
        for _, w in silent:
            w.close()
        server.close()
        await server.wait_closed()
