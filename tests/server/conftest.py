"""Fixtures for server tests: a real server (telnet + SSH on port 0, SQLite in a tmp dir).

``server`` is function-scoped, like pytest-asyncio's default loops here
(pyproject: function scope for fixtures and tests), so every test talks to a
server running on its own loop (TECH.md §3).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio

from server.app import Running, start
from server.config import load_config

FAST = {
    "host": "127.0.0.1",
    "ssh_port": 0,
    "telnet_port": 0,
    "turn_seconds": 30.0,
    "auction_seconds": 30.0,
    "flip_seconds": 30.0,
    "grace_seconds": 30.0,
    "round_pause": 0.0,
    "bot_delay": 0.0,
    "login_timeout": 30.0,
    "telnet_connect_maxwait": 0.3,
    "ssh_keepalive": 0.0,
    "commands_per_second": 200.0,
    "command_burst": 400,
}
"""Test settings: long decision timers (tests drive every move, or set short timers themselves)."""


def test_config(tmp_path: Any, **overrides: Any) -> Any:
    return load_config(data_dir=tmp_path / "data", **{**FAST, **overrides})


async def start_server(tmp_path: Any, **overrides: Any) -> Running:
    return await asyncio.wait_for(start(test_config(tmp_path, **overrides)), 20)


@pytest_asyncio.fixture
async def server(tmp_path: Any) -> AsyncIterator[Running]:
    running = await start_server(tmp_path)
    try:
        yield running
    finally:
        await asyncio.wait_for(running.stop(), 20)
