"""The client's byte handling without a network: telnet command removal, line cutting, routing."""

from __future__ import annotations

import asyncio
import json

import pytest

from clients.client import Client, ClientClosed, ClientError
from clients.framing import IAC, IacFilter, LineSplitter, LineTooLong, parse_line

DO_TTYPE = bytes((255, 253, 24))
WILL_ECHO = bytes((255, 251, 1))
SB_NAWS = bytes((255, 250, 31, 0, 80, 0, 24, 255, 240))


def feed_all(f: IacFilter, chunks: list[bytes]) -> bytes:
    return b"".join(f.feed(c) for c in chunks)


def test_iac_negotiations_are_removed() -> None:
    data = DO_TTYPE + b'{"a":1}\r\n' + WILL_ECHO + b"x" + SB_NAWS + b"y\n"
    f = IacFilter()
    assert f.feed(data) == b'{"a":1}\r\nxy\n'
    assert f.commands == 3


def test_iac_iac_is_a_literal_ff() -> None:
    assert IacFilter().feed(b"a\xff\xffb") == b"a\xffb"


def test_iac_subnegotiation_with_escaped_iac_inside() -> None:
    data = bytes((IAC, 250, 24, 0)) + b"xt\xff\xffrm" + bytes((IAC, 240)) + b"after"
    assert IacFilter().feed(data) == b"after"


def test_iac_two_byte_commands() -> None:
    # IAC NOP, IAC GA
    assert IacFilter().feed(b"a\xff\xf1b\xff\xf9c") == b"abc"


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_iac_split_anywhere_across_reads(size: int) -> None:
    data = DO_TTYPE + b"he" + SB_NAWS + b"l\xff\xfflo" + WILL_ECHO + b"\n" + bytes((IAC, 241))
    chunks = [data[i : i + size] for i in range(0, len(data), size)]
    f = IacFilter()
    assert feed_all(f, chunks) == b"hel\xfflo\n"
    assert f.commands == 4


def test_iac_every_split_point() -> None:
    data = b"ab" + SB_NAWS + b"cd" + DO_TTYPE + b"\xff\xffe"
    for k in range(len(data) + 1):
        f = IacFilter()
        assert f.feed(data[:k]) + f.feed(data[k:]) == b"abcd\xffe", k


def test_plain_data_passes_untouched() -> None:
    chunk = '{"text":"Zoé ♥"}\n'.encode()
    assert IacFilter().feed(chunk) is chunk


def test_lines_partial_and_mixed_ends() -> None:
    s = LineSplitter()
    assert s.feed(b'{"a":') == []
    assert s.pending == b'{"a":'
    assert s.feed(b'1}\r\n{"b"') == [b'{"a":1}']
    assert s.feed(b":2}\n\n") == [b'{"b":2}', b""]
    assert s.feed(b"x\ry\n") == [b"x", b"y"]


def test_crlf_split_across_reads_makes_one_line_end() -> None:
    s = LineSplitter()
    assert s.feed(b"abc\r") == [b"abc"]
    assert s.feed(b"\ndef\n") == [b"def"]
    assert s.feed(b"\r") == [b""]
    assert s.feed(b"\r\n") == [b""]


def test_bytes_one_at_a_time() -> None:
    data = b'{"type":"ok","id":1}\r\n{"type":"state"}\n'
    s = LineSplitter()
    lines = [line for i in range(len(data)) for line in s.feed(data[i : i + 1])]
    assert lines == [b'{"type":"ok","id":1}', b'{"type":"state"}']


def test_multibyte_utf8_split_inside_a_character() -> None:
    data = '{"text":"é♥"}\n'.encode()
    s = LineSplitter()
    lines = s.feed(data[:10]) + s.feed(data[10:])
    assert [json.loads(x) for x in lines] == [{"text": "é♥"}]


def test_line_too_long_raises() -> None:
    s = LineSplitter(max_line=10)
    s.feed(b"12345")
    with pytest.raises(LineTooLong):
        s.feed(b"678901")


def test_parse_line() -> None:
    assert parse_line(b'{"a": 1}') == {"a": 1}
    assert parse_line(b"Welcome to donne") is None
    assert parse_line(b"[1,2]") is None
    assert parse_line(b"{broken") is None
    assert parse_line(b'> {"a": 1}') is None
    assert parse_line(b'> {"a": 1}', lenient=True) == {"a": 1}


async def test_routing_replies_pushes_and_waiters() -> None:
    client = Client(timeout=2)
    fut: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
    client._pending[7] = fut
    waiter = asyncio.ensure_future(client.next_state(lambda s: s.get("turn") == 2))
    await asyncio.sleep(0)
    client.dispatch({"type": "state", "turn": 1})
    client.dispatch({"type": "ok", "id": 7, "room": "r1"})
    client.dispatch({"type": "event", "event": "played", "seat": 1})
    client.dispatch({"type": "state", "turn": 2})
    client.dispatch({"type": "error", "code": "bad_json", "message": "?"})
    assert fut.result() == {"type": "ok", "id": 7, "room": "r1"}
    assert (await asyncio.wait_for(waiter, 1))["turn"] == 2
    assert client.state == {"type": "state", "turn": 2}
    assert client.orphans == [{"type": "error", "code": "bad_json", "message": "?"}]
    got = []
    while (msg := client.next_push_nowait()) is not None:
        got.append(msg.get("event") or msg.get("turn"))
    assert got == [1, "played", 2]


async def test_split_stream_through_the_dispatcher() -> None:
    client = Client()
    stream = DO_TTYPE + b'Welcome!\r\n> {"type":"state","turn":0}\r\n' + WILL_ECHO + b'{"type":"event","event":"x"}\n'
    f = IacFilter()
    for i in range(len(stream)):
        for line in client._splitter.feed(f.feed(stream[i : i + 1])):
            client._dispatch_line(line)
    assert client.noise == 1
    assert [m["type"] for m in client._pushes] == ["state", "event"]


async def test_skipped_events_are_counted_never_parsed_nor_queued() -> None:
    client = Client()
    client.skip_events("room_created", "room_closed")
    lines = [b'{"type":"ok","id":1}',  # JSON seen: skipping starts
             b'{"type":"event","event":"room_created","room":"r1"}',
             b'{"type":"event","event":"chat","message":"\\"event\\":\\"room_closed\\""}',  # only in a string
             b'{"type":"event","event":"room_closed","room":"r1"}',
             b'{"type":"state","turn":1}']
    for line in lines:
        client._dispatch_line(line)
    assert client.skipped == 2 and client.received == 5
    assert [m.get("event") or m["type"] for m in client._pushes] == ["chat", "state"]


async def test_closing_fails_pending_requests_and_waiters() -> None:
    client = Client()
    fut: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
    client._pending[1] = fut
    waiter = asyncio.ensure_future(client.next_event("played", timeout=5))
    await asyncio.sleep(0)
    await client.close()
    with pytest.raises(ClientClosed):
        fut.result()
    with pytest.raises(ClientClosed):
        await waiter
    with pytest.raises(ClientClosed):
        await client.request("whoami")
    assert [m async for m in client.pushes()] == []
    assert issubclass(ClientClosed, ClientError)


async def test_client_over_a_plain_socket_server() -> None:
    """A tiny line server that answers in pieces and sends telnet noise: request/reply by id."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(DO_TTYPE + b"donne\r\n")
        first = await reader.readline()
        assert first.endswith(b"json\r\n")
        while line := await reader.readline():
            req = json.loads(line)
            if req["cmd"] == "boom":
                out = {"type": "error", "id": req["id"], "code": "unknown_command", "message": "no"}
            else:
                out = {"type": "ok", "id": req["id"], "echo": req.get("x")}
            data = json.dumps(out).encode() + b"\r\n"
            push = b'{"type":"state","n":' + str(req["id"]).encode() + b"}\n"
            for piece in (data[:5], WILL_ECHO + data[5:], push):
                writer.write(piece)
                await writer.drain()
        writer.close()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    try:
        client = await Client.connect_tcp("127.0.0.1", port, timeout=5)
        assert (await client.request("echo", x="é"))["echo"] == "é"
        with pytest.raises(ClientError) as info:
            await client.request("boom")
        assert info.value.code == "unknown_command"
        state = await client.next_state(lambda s: s["n"] == 2, timeout=5, current=True)
        assert state["n"] == 2
        await client.close()
        await client.close()  # idempotent
    finally:
        srv.close()
        await srv.wait_closed()
