"""``donne load --idle``: connections that log in, stay in the lobby, never play, and are only counted."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from clients.client import Client, ClientError
from clients.framing import WONT_TTYPE
from clients.idle import IdleConnection, IdleCounter
from clients.load import LoadOptions, check_options, run_load, split_count
from clients.loadworker import LoadWorker, WorkerSpec
from tests.e2e.load.test_load_run import check_figures
from tests.kits.servers import connect, start_server

IDLE_KEYS = {"idle", "idle_clients", "idle_connect_s", "idle_connected_at_end", "idle_disconnects", "idle_errors",
             "idle_codes", "idle_silent", "idle_lines", "idle_bytes", "idle_lines_per_s", "idle_bytes_per_s",
             "idle_lines_setup", "idle_bytes_setup", "server_sessions_logged_in", "server_sessions_logged_in_end"}


def line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


REPLY = line({"type": "ok", "id": 1, "name": "Iabcd-a", "guest": True})
NEWS = line({"type": "event", "event": "room_created", "room": "r1", "text": "a table opened"})
ERROR = line({"type": "error", "id": 7, "code": "bad_json", "message": "not JSON"})


# -- the counter (sans-I/O) --------------------------------------------------------------------------


def test_nothing_is_counted_until_the_reply_to_the_login() -> None:
    counter = IdleCounter()
    # the telnet server's negotiation, a text prompt before JSON mode, a push: read, not counted
    assert counter.feed(bytes((255, 251, 1)) + b"login: ") is None
    assert counter.feed(NEWS) is None
    assert (counter.lines, counter.bytes, counter.reply) == (0, 0, None)
    assert counter.feed(line({"type": "ok", "id": 2})) is None  # the reply to another request
    reply = counter.feed(REPLY)
    assert reply is not None and reply["name"] == "Iabcd-a" and counter.reply is reply
    assert (counter.lines, counter.bytes) == (0, 0)


def test_the_reply_split_across_chunks_and_what_follows_it_in_the_same_chunk() -> None:
    counter = IdleCounter()
    data = REPLY + NEWS + NEWS[:10]
    assert counter.feed(data[:5]) is None
    reply = counter.feed(data[5:])
    assert reply is not None and reply["id"] == 1
    # the news after the reply (one whole line, the start of another) is counted
    assert counter.lines == 1 and counter.bytes == len(NEWS) + 10
    assert counter.feed(NEWS[10:]) is None
    assert counter.lines == 2 and counter.bytes == 2 * len(NEWS)


def test_a_refused_login_is_the_reply_too() -> None:
    counter = IdleCounter()
    reply = counter.feed(b"> " + line({"type": "error", "id": 1, "code": "bad_name", "message": "too long"}))
    assert reply is not None and reply["code"] == "bad_name"
    assert counter.errors == 0  # the login's refusal is the connection's failure, not a later error


def test_after_the_login_lines_bytes_and_error_replies_are_counted_not_parsed() -> None:
    counter = IdleCounter()
    counter.feed(REPLY)
    chunk = NEWS * 3 + b"not json at all\n" + ERROR
    assert counter.feed(chunk) is None
    assert (counter.lines, counter.bytes, counter.errors) == (5, len(chunk), 1)
    # the mark of an error reply cut by the chunks, anywhere, is counted once
    for cut in range(1, len(ERROR)):
        c = IdleCounter()
        c.feed(REPLY)
        c.feed(NEWS + ERROR[:cut])
        c.feed(ERROR[cut:] + NEWS)
        assert (c.errors, c.lines) == (1, 3), cut
    # and in three chunks, the middle one shorter than the mark
    c = IdleCounter()
    c.feed(REPLY)
    for part in (NEWS + ERROR[:5], ERROR[5:9], ERROR[9:]):
        c.feed(part)
    assert c.errors == 1
    # a chat text quoting the mark is escaped by JSON: not an error
    c.feed(line({"type": "event", "event": "chat", "message": '"type":"error"'}))
    assert c.errors == 1


async def test_a_workers_idle_figures_split_the_window_from_the_setup() -> None:
    worker = LoadWorker(WorkerSpec(index=0, port=1, tables=[], seats=3, idle=4))
    heard, quiet, dropped = IdleConnection(), IdleConnection(), IdleConnection()
    for c in (heard, quiet, dropped):
        c.data(REPLY)
    worker.idle = [heard, quiet, dropped]
    worker.idle_failures["login:bad_name"] += 1  # the fourth never logged in
    heard.data(NEWS * 2)  # before the window: the seating's news
    lines0, bytes0 = worker._idle_received()
    heard.data(NEWS + ERROR)
    dropped.data(NEWS)
    dropped.lost()  # the server ended it
    quiet.close()  # the end of the run would
    figures = worker._idle_figures(lines0, bytes0, *worker._idle_received())
    assert figures == {
        "idle_clients": 3, "idle_lines": 3, "idle_bytes": 2 * len(NEWS) + len(ERROR),
        "idle_lines_setup": 2, "idle_bytes_setup": 2 * len(NEWS), "idle_silent": 1,
        "idle_errors": 2, "idle_codes": {"login:bad_name": 1, "error_reply": 1},
        "idle_disconnects": 1, "idle_connected_at_end": 1,
    }


# -- splitting and options -----------------------------------------------------------------------------


def test_idle_connections_are_split_evenly_over_the_workers() -> None:
    assert split_count(5, 2) == [(0, 3), (3, 2)]
    assert split_count(0, 3) == [(0, 0), (0, 0), (0, 0)]
    assert split_count(10_000, 1) == [(0, 10_000)]
    runs = split_count(5001, 4)
    assert [first for first, _ in runs] == [0, 1251, 2501, 3751] and sum(n for _, n in runs) == 5001


def test_a_negative_idle_count_is_refused() -> None:
    with pytest.raises(SystemExit, match="--idle is a number of connections"):
        check_options(LoadOptions(idle=-1))
    assert check_options(LoadOptions(idle=0)) == 4


# -- against a real server -----------------------------------------------------------------------------


async def until(what: Callable[[], bool], limit: float = 20.0) -> None:
    """Wait (bounded) for ``what()``: the test asserts what happened, never how long it took."""
    end = time.monotonic() + limit
    while not what():
        assert time.monotonic() < end, "not in time"
        await asyncio.sleep(0.02)


@pytest.mark.e2e
@pytest.mark.parametrize("transport", ["tcp", "ssh"])
async def test_an_idle_connection_is_a_person_in_the_lobby_who_hears_its_news(server: Any, transport: str) -> None:
    if transport == "ssh":
        idle = await IdleConnection.connect_ssh("127.0.0.1", server.ssh_port, "Idler", timeout=20)
    else:
        idle = await IdleConnection.connect_tcp("127.0.0.1", server.telnet_port, "Idler", timeout=20)
    alice = await connect(server, "alice")
    try:
        who = (await alice.request("who"))["players"]
        assert {"name": "Idler", "room": None} in [{k: p[k] for k in ("name", "room")} for p in who]
        assert idle.counter.lines == 0
        await alice.request("create", game="president", rules="classic", seats=4)
        await until(lambda: idle.counter.lines > 0)  # the lobby's news of the room alice opened
        assert idle.counter.errors == 0 and not idle.closed
    finally:
        idle.close()
        await alice.close()
    assert idle.closed and not idle.dropped


@pytest.mark.e2e
async def test_a_refused_login_and_a_connection_the_server_ends(tmp_path: Any) -> None:
    running = await start_server(tmp_path, idle_timeout=0.5)
    try:
        with pytest.raises(ClientError) as info:
            await IdleConnection.connect_tcp("127.0.0.1", running.telnet_port, "x" * 40, timeout=20)
        assert info.value.code == "bad_name"
        idle = await IdleConnection.connect_tcp("127.0.0.1", running.telnet_port, "Idler", timeout=20)
        await until(lambda: idle.closed)  # the server's idle_timeout: a person who never types is sent away
        assert idle.dropped
    finally:
        await asyncio.wait_for(running.stop(), 20)


@pytest.mark.e2e
async def test_the_idle_connection_opens_as_the_bots_do(server: Any) -> None:
    # the same bytes as Client.connect_tcp + login: the telnet opening, "json", the login line
    got: list[bytes] = []

    async def record(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got.append(await reader.readuntil(b"}\n"))
        writer.write(REPLY)
        await writer.drain()
        await reader.read()  # until the client goes
        writer.close()

    fake = await asyncio.start_server(record, "127.0.0.1", 0)
    port = fake.sockets[0].getsockname()[1]
    try:
        idle = await IdleConnection.connect_tcp("127.0.0.1", port, "Idler", timeout=20)
        idle.close()
        client = await Client.connect_tcp("127.0.0.1", port, timeout=20)
        await client.login("Idler")
        await client.close()
    finally:
        fake.close()
        await fake.wait_closed()
    assert got[0] == got[1] == WONT_TTYPE + b'json\r\n{"cmd":"login","name":"Idler","id":1}\n'


@pytest.mark.e2e
async def test_a_worker_keeps_its_idle_connections_in_the_lobby_and_counts_them_apart(server: Any) -> None:
    # the bots think 50 ms (at least 25) a move: a whole match (five rounds, well over 40 moves) cannot
    # end within the second measured, so the players are still seated when it ends (between two matches
    # they are in the lobby)
    spec = WorkerSpec(index=1, port=server.telnet_port, tables=[0], seats=3, idle=3, idle_first=4, duration=1.0,
                      token="abcd", think=0.05)
    worker = LoadWorker(spec)
    watcher = await connect(server, "watcher")
    try:
        connected = await worker.connect()
        assert connected["idle_clients"] == 3 and connected["idle_connect_failures"] == 0
        assert connected["clients"] == 3
        who = {p["name"]: p["room"] for p in (await watcher.request("who"))["players"]}
        idle_names = {"Iabcd-f", "Iabcd-g", "Iabcd-h"}  # run-wide indices 4, 5, 6 (loadworker.distinct)
        assert idle_names <= set(who) and all(who[n] is None for n in idle_names)
        assert (await worker.seat())["seated"] == 3
        result = await worker.measure()
        # the players sat down: the idle ones are still in the lobby
        who = {p["name"]: p["room"] for p in (await watcher.request("who"))["players"]}
        assert all(who[n] is None for n in idle_names)
        assert sum(1 for room in who.values() if room is not None) == 3
    finally:
        await worker.close()
        await watcher.close()
    assert result["actions"] > 0 and result["clients"] == 3 and result["errors"] == 0
    assert result["idle_clients"] == 3 and result["idle_connected_at_end"] == 3
    assert result["idle_errors"] == result["idle_disconnects"] == 0 and result["idle_codes"] == {}
    assert result["idle_silent"] == 0  # the table the seating opened was news for every one of them
    assert result["idle_lines_setup"] + result["idle_lines"] >= 3
    assert result["received"] > 0  # the players' lines are theirs: the idle lines are apart
    assert all(c.closed and not c.dropped for c in worker.idle)


@pytest.mark.e2e
async def test_donne_load_with_idle_connections_reports_them_and_the_players_as_before() -> None:
    result = await run_load(LoadOptions(clients=8, tables=2, procs=2, duration=2, idle=5))
    check_figures(result, clients=8, tables=2, procs=2)  # the players' figures, as without --idle
    assert set(result) >= IDLE_KEYS
    assert result["idle"] == result["idle_clients"] == result["idle_connected_at_end"] == 5
    assert result["idle_disconnects"] == result["idle_errors"] == 0 and result["idle_codes"] == {}
    assert [w["idle_clients"] for w in result["workers"]] == [3, 2]
    # the server saw players + idle sessions logged in, and the idle ones heard the lobby's news
    assert result["server_sessions_logged_in"] == result["server_sessions_logged_in_end"] == 13
    assert result["idle_silent"] == 0 and result["idle_bytes_setup"] + result["idle_bytes"] > 0
    assert result["idle_lines_per_s"] >= 0 and result["idle_bytes_per_s"] >= 0
