"""The cheaper load generator: same bot, fewer tasks, events counted by name.

A wire bot is driven by callbacks (a push schedules the next batch, the think
is one timer, the reply a future's callback); these check that it still ends
as the loop it replaced did (``stopped``, ``idle``, ``closed``, ``over``),
still decides again when the table moved on during its think, and that the
client's new paths (events queued by name, :meth:`Client.start_request`, the
TCP protocol reading a real socket) route what the server sends as before.
No assertion here is on time: the short waits only end the plays.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from clients.client import Client, ClientClosed, ClientTimeout
from clients.common import Deadline
from clients.load import LoadOptions, check_options
from clients.loadworker import loop_factory
from clients.transports import TcpPushTransport
from clients.wirebot import WireBot
from tests.clients.test_wirebot import OVER, ScriptedServer, leading_state


def scripted(script: list[tuple[list[dict[str, Any]], dict[str, Any]]] | None = None,
             **bot: Any) -> tuple[Client, ScriptedServer, WireBot]:
    client = Client(timeout=5)
    server = ScriptedServer(client, script or [])
    client._transport = server
    wire = WireBot(client, "random", b"loadcpu", **bot)
    wire.room = "r1"
    return client, server, wire


# ---------------------------------------------------------------------------
# how a play ends


async def test_a_play_waiting_for_pushes_ends_at_its_stop_time() -> None:
    _, _, bot = scripted()
    assert await asyncio.wait_for(bot.play(time.perf_counter() + 0.05), 5) == "stopped"
    assert bot.stats.errors == 0


async def test_a_deadline_is_read_at_each_batch() -> None:
    """``donne load`` sets the window's end after the bots began: the next batch reads it."""
    client, server, bot = scripted()
    deadline = Deadline()
    task = asyncio.ensure_future(bot.play(deadline))
    await asyncio.sleep(0.01)
    deadline.at = time.perf_counter() - 1  # over already: the next batch ends the play, unread
    client.dispatch(leading_state())
    assert await asyncio.wait_for(task, 5) == "stopped"
    assert server.sent == []


async def test_a_play_that_hears_nothing_ends_idle_and_counts_an_error() -> None:
    _, _, bot = scripted(idle_timeout=0.05)
    assert await asyncio.wait_for(bot.play(), 5) == "idle"
    assert (bot.stats.errors, dict(bot.stats.codes)) == (1, {"idle": 1})


async def test_a_play_ends_closed_when_the_connection_ends_while_it_waits() -> None:
    client, _, bot = scripted()
    asyncio.get_running_loop().call_later(0.02, client._fail_all, "closed by server")
    assert await asyncio.wait_for(bot.play(), 5) == "closed"


async def test_a_play_reads_what_was_queued_before_it_began() -> None:
    client, server, bot = scripted()
    client.dispatch(leading_state())
    client.dispatch(OVER)  # the match ended before the bot read anything: it does not act
    assert await asyncio.wait_for(bot.play(), 5) == "over"
    assert server.sent == [] and bot.stats.matches == 1 and bot.last_over == OVER


async def test_an_exception_in_a_step_ends_the_play_with_it() -> None:
    client, _, bot = scripted()

    def broken(state: dict[str, Any], view: Any) -> list[Any]:
        raise ZeroDivisionError

    client.dispatch(leading_state())
    bot._ensure_bot(leading_state())
    bot.adapter.legal = broken
    with pytest.raises(ZeroDivisionError):
        await asyncio.wait_for(bot.play(), 5)


async def test_a_cancelled_play_forgets_its_request_and_timers() -> None:
    client, server, bot = scripted(think=0.01)
    server.write = lambda data: None  # type: ignore[method-assign]  # a server that never answers
    client.dispatch(leading_state())
    task = asyncio.ensure_future(bot.play())
    while not client._pending:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(3):
        await asyncio.sleep(0)
    assert client._pending == {} and bot._timer is None and bot._think_timer is None
    assert bot._playing is None and not bot._waiting


# ---------------------------------------------------------------------------
# the think


async def test_a_state_that_comes_during_the_think_is_decided_on_instead() -> None:
    """The first choice is dropped (never sent): one action, chosen from the newer state."""
    client, server, bot = scripted([([OVER], {"type": "ok"})], think=0.05)
    first = leading_state()
    client.dispatch(first)
    last = first["hand"][-1]
    newer = {**first, "hand": [last], "deadline": 29}  # one card left: one play, which the first was not
    asyncio.get_running_loop().call_later(0.01, client.dispatch, newer)
    assert await asyncio.wait_for(bot.play(), 5) == "over"
    assert [(m["cmd"], m["cards"]) for m in server.sent] == [("play", [last])]
    assert bot.stats.actions == 1 and len(bot.stats.latencies) == 0  # no state after the action


async def test_the_think_draws_once_per_action_from_the_bots_own_random() -> None:
    """The timing model is unchanged: one draw of the seeded generator per think."""
    import random

    client, _, bot = scripted([([OVER], {"type": "ok"})], think=0.01)
    client.dispatch(leading_state())
    assert await asyncio.wait_for(bot.play(), 5) == "over"
    assert bot._rng.getstate() != random.Random(b"loadcpu").getstate()
    twin = random.Random(b"loadcpu")
    twin.random()
    assert bot._rng.getstate() == twin.getstate()


# ---------------------------------------------------------------------------
# the client: events by name, callback requests, the TCP protocol


async def test_light_events_are_queued_by_name_and_match_over_whole() -> None:
    client = Client()
    client.light_events("match_over")
    lines = [b'{"type":"ok","id":1}',  # JSON seen: light events start
             b'{"type":"event","event":"played","seat":2,"cards":["3c"],"text":"x"}',
             b'{"type":"event","event":"match_over","room":"r1","winners":[0]}',
             b'{"type":"event","room":"r1","event":"room_created"}',  # not the server's usual head: parsed
             b'{"type":"state","turn":1}']
    for line in lines:
        client._dispatch_line(line)
    assert list(client._pushes) == [{"type": "event", "event": "played"},
                                    {"type": "event", "event": "match_over", "room": "r1", "winners": [0]},
                                    {"type": "event", "room": "r1", "event": "room_created"},
                                    {"type": "state", "turn": 1}]
    assert (client.light, client.received) == (1, 5)


async def test_events_are_parsed_whole_while_someone_waits_for_one_and_after_full_events() -> None:
    client = Client()
    client.light_events()
    client._dispatch_line(b'{"type":"ok","id":1}')
    waiter = asyncio.ensure_future(client.next_event("played", predicate=lambda m: m.get("seat") == 2))
    await asyncio.sleep(0)
    client._dispatch_line(b'{"type":"event","event":"played","seat":2}')
    assert (await asyncio.wait_for(waiter, 5))["seat"] == 2
    client.full_events()
    client._dispatch_line(b'{"type":"event","event":"passed","seat":3}')
    assert list(client._pushes)[-1] == {"type": "event", "event": "passed", "seat": 3}
    assert client.light == 0


async def test_a_wire_bot_whose_strategy_observes_nothing_asks_for_light_events() -> None:
    client, _, bot = scripted()
    bot.strategy = "greedy"  # observes no event (the random Président bot takes them)
    bot._ensure_bot(leading_state())
    assert client._light == frozenset({b"match_over"})
    client2, _, searcher = scripted()
    searcher.strategy = "search"
    searcher._ensure_bot(leading_state())
    assert client2._light is None  # it observes: every event parsed


async def test_start_request_times_out_closes_and_calls_back_once() -> None:
    client = Client()
    sent: list[bytes] = []

    class Quiet(ScriptedServer):
        def write(self, data: bytes) -> None:
            sent.append(data)

    client._transport = Quiet(client, [])
    done: list[asyncio.Future[Any]] = []
    fut = client.start_request("state", timeout=0.01, on_done=done.append)
    with pytest.raises(ClientTimeout):
        await fut
    await asyncio.sleep(0)
    assert done == [fut] and client._pending == {}
    assert json.loads(sent[0]) == {"cmd": "state", "id": 1}
    fut2 = client.start_request("whoami", on_done=done.append)
    client._fail_all("closed by server")
    with pytest.raises(ClientClosed):
        await fut2
    await asyncio.sleep(0)
    assert done == [fut, fut2]
    await client.close()
    with pytest.raises(ClientClosed):
        client.start_request("whoami")


async def test_a_tcp_client_reads_lines_cut_anywhere_and_sees_the_end() -> None:
    """The protocol transport against a real socket: lines in pieces, telnet noise, then the end."""
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()  # the client's "json"
        for piece in (b'{"type":"state","tu', b'rn":0}\r\n\xff\xfb\x01{"type":"event","event":"x"}', b"\n"):
            writer.write(piece)
            await writer.drain()
            await asyncio.sleep(0.01)
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        client = await Client.connect_tcp("127.0.0.1", port, pushed=True)
        assert isinstance(client._transport, TcpPushTransport)
        got = [m async for m in client.pushes(timeout=5)]
        assert [m.get("event") or m["type"] for m in got] == ["state", "x"]
        assert client.close_reason == "closed by server"
        with pytest.raises(ClientClosed):
            await client.request("whoami")
        await client.close()


# ---------------------------------------------------------------------------
# --worker-loop


def test_the_worker_loop_is_one_of_three_and_uvloop_must_be_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SystemExit, match="unknown worker loop"):
        check_options(LoadOptions(worker_loop="trio"))
    monkeypatch.setattr("clients.load.uvloop_installed", lambda: False)
    with pytest.raises(SystemExit, match="uvloop is not installed"):
        check_options(LoadOptions(worker_loop="uvloop"))
    check_options(LoadOptions(worker_loop="auto"))  # auto: the standard loop then
    monkeypatch.setattr("clients.loadworker.uvloop_installed", lambda: False)
    assert loop_factory("asyncio") is None and loop_factory("auto") is None


@pytest.mark.e2e
def test_donne_load_plays_with_its_workers_on_uvloop_when_installed() -> None:
    """The workers' TCP protocol and timers under uvloop (its transports are no asyncio.Transport)."""
    pytest.importorskip("uvloop")
    import subprocess
    import sys
    from pathlib import Path

    proc = subprocess.run(
        [sys.executable, "-m", "server.start.cli", "load", "--clients", "8", "--tables", "2", "--duration", "2",
         "--think", "0.05", "--worker-loop", "uvloop"],
        capture_output=True, text=True, timeout=180, cwd=Path(__file__).resolve().parents[3],
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["worker_loop"] == "uvloop" and result["errors"] == 0 and result["actions"] > 0
    assert result["card_moves"] >= result["actions"] * 0.9  # every seat saw the moves: events counted
