"""Fixtures for server tests: a real server (telnet + SSH on port 0, SQLite in a tmp dir).

``server`` is function-scoped, like pytest-asyncio's default loops here
(pyproject: function scope for fixtures and tests), so every test talks to a
server running on its own loop (TECH.md §3).
"""

from __future__ import annotations

import asyncio
import errno
from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio

from clients.serverproc import free_port
from server.config import PACED, load_config
from server.start.app import Running, start

FAST = {
    "host": "127.0.0.1",
    "ssh_port": 0,
    "telnet_port": 0,
    "web_port": 0,  # off; the web tests give it FREE_PORT (tests/kits/webkit.py)
    "turn_seconds": 30.0,
    "auction_seconds": 30.0,
    "flip_seconds": 30.0,
    "grace_seconds": 30.0,
    "round_pause": 0.0,
    "bot_delay": 0.0,
    "cut_window": 0.0,  # tests that need people's windows set them
    "trade_window": 0.0,
    "entropy_window": 0.0,  # the contribution window: tests that need it set it
    "login_timeout": 30.0,
    "telnet_connect_maxwait": 0.3,
    "ssh_keepalive": 0.0,
    "commands_per_second": 200.0,
    "command_burst": 400,
    "registrations_per_hour": 0,  # tests register many accounts from 127.0.0.1 (test_storage_commands sets one)
    "default_lang": "en",  # the tests read English; the embedded default is French (test_limits)
    "gc_freeze_seconds": 0.0,  # the test process's collector left alone (test_gcpolicy turns it on)
    # tests reach each other much faster than people do, all from 127.0.0.1 (test_pace sets its own)
    **{f"{kind}_per_minute": 60000.0 for kind in PACED},
    **{f"{kind}_burst": 1000 for kind in PACED},
}
"""Test settings: long decision timers (tests drive every move, or set short timers themselves)."""


def test_config(tmp_path: Any, **overrides: Any) -> Any:
    return load_config(data_dir=tmp_path / "data", **{**FAST, **overrides})


FREE_PORT = "free"
"""A port setting given as ``FREE_PORT`` (``start_server(tmp_path, web_port=FREE_PORT)``) gets a free
loopback port, chosen again if another program took it before the server could bind it."""


async def start_server(tmp_path: Any, **overrides: Any) -> Running:
    free = [key for key, value in overrides.items() if value is FREE_PORT]
    for attempt in range(5):
        chosen = {**overrides, **{key: free_port() for key in free}}
        try:
            return await asyncio.wait_for(start(test_config(tmp_path, **chosen)), 20)
        except OSError as e:
            if not free or e.errno != errno.EADDRINUSE or attempt == 4:
                raise
    raise AssertionError("unreachable")


@pytest_asyncio.fixture
async def server(tmp_path: Any) -> AsyncIterator[Running]:
    running = await start_server(tmp_path)
    try:
        yield running
    finally:
        await asyncio.wait_for(running.stop(), 20)


# -- scripted JSON players (clients/client.py) ------------------------------------------------

from clients.client import Client  # noqa: E402

GUEST_CODES: dict[str, str] = {}
"""The resume code each guest name was given last (server/people/resume.py), kept as a person keeps theirs:
logging in again under that name gives it (a name that holds nothing ignores it)."""


async def connect(running: Running, name: str, *, timeout: float = 10.0, resume: str | None = None) -> Client:
    """A JSON client logged in as ``name``; a guest gives the code it was given before (``resume``:
    another one, ``""``: none at all)."""
    client = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=timeout)
    code = GUEST_CODES.get(name) if resume is None else resume or None
    await client.login(name, resume=code)
    if client.resume is not None:
        GUEST_CODES[name] = client.resume
    return client


def assert_no_hand(seen: list[dict[str, Any]]) -> None:
    """What a spectator receives: no hand, no dealt cards, no exchanged cards (every message)."""
    assert seen, "the spectator saw nothing"
    for msg in seen:
        assert "hand" not in msg, msg
        if msg.get("event") == "dealt":
            assert all(h is None for h in msg["hands"])
        if msg.get("event") == "exchange":
            assert "cards" not in msg
        if msg.get("type") == "state":
            assert msg["you"] is None
            assert not [c for e in msg.get("exchange") or [] for c in e.get("cards", [])]


def strings_in(value: Any) -> list[str]:
    """Every string inside a message (keys aside), however deep: what a privacy scan reads."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings_in(v)]
    return []


def leading(state: dict[str, Any]) -> bool:
    """President: nothing to beat on the table (the player on turn must play, P5)."""
    return not any(item.get("cards") for item in state.get("trick") or [])


async def play_simply(client: Client, *, timeout: float = 20.0,
                      until: Any = None) -> dict[str, Any]:
    """Play President until the match ends (or ``until(state)``): lead the weakest single, else pass.

    Returns the last state. Acts only on a state it has not acted on yet, so a
    stale state never produces a second move.
    """
    acted_on: dict[str, Any] | None = None

    def ready(s: dict[str, Any]) -> bool:
        if s is acted_on:
            return False
        if s.get("status") in ("over",) or (until is not None and until(s)):
            return True
        return s.get("phase") == "play" and s.get("turn") is not None and s.get("turn") == s.get("you")

    while True:
        state = await client.next_state(ready, timeout=timeout, current=True)
        if state.get("status") == "over" or (until is not None and until(state)):
            return state
        acted_on = state
        if leading(state):
            reply = await client.request_raw("play", cards=[state["hand"][0]])
        else:
            reply = await client.request_raw("pass")
        # a state can go stale before the move reaches the table (a trick closed: now I lead)
        assert reply["type"] == "ok" or reply.get("code") in ("not_your_turn", "illegal_play"), reply


# -- storage on both back-ends (tests/kits/storefixtures.py) -------------------------------

from tests.kits.storefixtures import postgres, where  # noqa: E402, F401
