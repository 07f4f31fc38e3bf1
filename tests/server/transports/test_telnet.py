"""JSON mode over telnet: plain input lines skip telnetlib3's byte-by-byte parsing, and nothing else does.

``TelnetConn.take_plain`` hands a chunk without IAC or SLC bytes straight to the line assembler
when telnetlib3 is in no telnet command; everything else still goes through telnetlib3. These
tests send lines split and joined every way across packets, with telnet commands inside and
between them, to a real server over a raw socket, and count the chunks telnetlib3 parsed.
"""

from __future__ import annotations

import asyncio
import datetime
import json
from collections.abc import Iterator
from typing import Any

import pytest
import telnetlib3.server

from server.sessions import session as session_module
from server.sessions.session import Session
from server.transports.telnet import PLAIN_BACKLOG, TelnetConn
from tests.e2e.wire.test_json import IAC, RawJson
from tests.kits.servers import start_server

pytestmark = pytest.mark.e2e

SB, SE, WILL, NAWS, ECHO = 250, 240, 251, 31, 1


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """Every chunk telnetlib3's own ``data_received`` parsed."""
    seen: list[bytes] = []
    real = telnetlib3.server.TelnetServer.data_received

    def counting(self: Any, data: bytes) -> None:
        seen.append(bytes(data))
        real(self, data)

    monkeypatch.setattr(telnetlib3.server.TelnetServer, "data_received", counting)
    yield seen


async def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    async def go() -> None:
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(go(), timeout)


async def logged_in(server: Any, name: str) -> tuple[RawJson, Session]:
    c = await RawJson.open(server.telnet_port)
    r = await c.ask({"cmd": "login", "name": name, "id": 0})
    assert r["type"] == "ok", r
    session = next(s for s in server.sessions if s.name == name)
    assert isinstance(session.conn, TelnetConn)
    return c, session


async def send_part(c: RawJson, session: Session, part: bytes) -> None:
    """One packet, taken by the server before the next is sent (so the two are never one read)."""
    protocol = session.conn.writer.protocol
    rx = protocol.rx_bytes
    c.writer.write(part)
    await c.writer.drain()
    await wait_for(lambda: protocol.rx_bytes >= rx + len(part))


async def test_a_plain_line_is_telnetlib3s_last_input_too(server, parsed):
    """telnetlib3's ``_last_received`` (its ``idle``) moves with a line that skipped its parsing, and
    what telnetlib3 itself sets is what it reads back."""
    c, session = await logged_in(server, "idler")
    try:
        protocol = session.conn.writer.protocol
        protocol._last_received = set_at = datetime.datetime(2000, 1, 1)
        assert protocol._last_received == set_at and protocol.idle > 3600
        parsed.clear()
        assert (await c.ask({"cmd": "ping", "id": 1}))["id"] == 1
        assert parsed == []  # taken by take_plain
        assert protocol._last_received > set_at and 0 <= protocol.idle < 3600
    finally:
        c.close()


async def test_plain_lines_skip_telnetlib3_and_get_the_same_replies(server, parsed):
    c, _session = await logged_in(server, "plain")
    try:
        parsed.clear()
        assert await c.ask({"cmd": "ping", "id": 1}) == {"type": "ok", "id": 1, "pong": True}
        assert (await c.ask(b'{"cmd": "whoami", "id": 2}\r\n'))["name"] == "plain"  # CR LF in one packet
        c.writer.write(b'{"cmd": "ping", "id": 3}\n{"cmd": "ping", "id": 4}\n')  # two lines, one packet
        assert [(await c.reply())["id"], (await c.reply())["id"]] == [3, 4]
        assert parsed == []  # none of it went through telnetlib3's parsing
    finally:
        c.close()


async def test_a_line_across_packets_and_a_crlf_split_between_two(server, parsed):
    c, session = await logged_in(server, "split")
    try:
        parsed.clear()
        await send_part(c, session, b'{"cmd": "pi')
        await send_part(c, session, b'ng", "id"')
        c.writer.write(b': 5}\n')
        assert await c.reply() == {"type": "ok", "id": 5, "pong": True}
        await send_part(c, session, b'{"cmd": "ping", "id": 6}\r')  # the CR ends the line ...
        c.writer.write(b'\n{"cmd": "ping", "id": 7}\n')  # ... and this LF is its end, not an empty line
        assert [await c.line(), await c.line()] == [{"type": "ok", "id": 6, "pong": True},
                                                    {"type": "ok", "id": 7, "pong": True}]
        assert parsed == []
    finally:
        c.close()


async def test_a_character_cut_in_two_across_packets(server, parsed):
    c = await RawJson.open(server.telnet_port)
    try:
        session = next(s for s in server.sessions if s.mode == "json" and not s.logged_in)
        parsed.clear()
        await send_part(c, session, b'{"cmd": "login", "name": "Zo\xc3')  # é's first byte ...
        c.writer.write(b'\xa9", "id": 8}\n')  # ... and its second
        r = await c.reply()
        assert (r["type"], r["id"], r["name"]) == ("ok", 8, "Zoé"), r
        assert parsed == []
    finally:
        c.close()


async def test_telnet_commands_inside_and_between_lines_still_go_through_telnetlib3(server, parsed):
    c, session = await logged_in(server, "iac")
    protocol = session.conn.writer.protocol
    try:
        parsed.clear()
        c.writer.write(b'{"cmd":"ping",' + bytes([IAC, WILL, ECHO]) + b'"id":1}\n')  # an IAC inside a line
        assert await c.reply() == {"type": "ok", "id": 1, "pong": True}
        assert len(parsed) == 1
        # a subnegotiation cut across packets: the middle packet has no IAC but is telnet, not text
        await send_part(c, session, b'{"cmd":"ping",' + bytes([IAC, SB, NAWS, 0]))
        await send_part(c, session, bytes([100, 0]))
        await send_part(c, session, bytes([30, IAC, SE]) + b'"id":2}')
        c.writer.write(b"\n")
        assert await c.line() == {"type": "ok", "id": 2, "pong": True}  # nothing of it in the line
        assert (session.width, session.height) == (100, 30)  # and telnetlib3 read the NAWS report
        assert len(parsed) == 4  # the four with telnet in them (the IAC one above too); the line end is plain
        assert bytes([100, 0]) in parsed
        parsed.clear()
        c.writer.write(b'{"cmd": "ping", "id": 3}\n')  # plain again
        assert await c.reply() == {"type": "ok", "id": 3, "pong": True}
        assert parsed == []
        assert protocol.plain_in is session.conn
    finally:
        c.close()


async def test_an_slc_character_in_a_line_goes_through_telnetlib3(server, parsed):
    c, _session = await logged_in(server, "slc")
    try:
        parsed.clear()
        c.writer.write(b'{"cmd": "pingx\x7f", "id": 1}\n')  # DEL: the line assembler's backspace
        assert await c.reply() == {"type": "ok", "id": 1, "pong": True}
        assert parsed == [b'{"cmd": "pingx\x7f", "id": 1}\n']
        assert IAC not in c.after_json
    finally:
        c.close()


async def test_before_json_mode_everything_goes_through_telnetlib3(server, parsed):
    c = await RawJson.open(server.telnet_port)
    try:
        assert parsed and parsed[0].startswith(b"json")  # the door's own line
    finally:
        c.close()


async def test_a_session_behind_gets_the_rest_through_telnetlib3_in_order(tmp_path, parsed, monkeypatch):
    """While the session is busy, plain lines wait for it up to PLAIN_BACKLOG; the rest goes into
    telnetlib3's reader (its flow control), and every line is still answered, in order."""
    running = await start_server(tmp_path, commands_per_second=1000.0, command_burst=1000)
    try:
        c, session = await logged_in(running, "busy")
        conn = session.conn
        gate = asyncio.Event()
        real = session_module.dispatch

        async def held(s: Any, cmd: str, *args: Any) -> None:
            if cmd == "whoami":
                await gate.wait()  # a slow command: the session reads nothing meanwhile
            await real(s, cmd, *args)

        monkeypatch.setattr(session_module, "dispatch", held)
        c.writer.write(b'{"cmd": "whoami", "id": 0}\n')
        await wait_for(lambda: not conn._ready and session._reader is None)  # taken, and held
        parsed.clear()
        total = PLAIN_BACKLOG + 30
        for i in range(1, total + 1):
            await send_part(c, session, json.dumps({"cmd": "ping", "id": i}).encode() + b"\n")
        assert len(conn._ready) == PLAIN_BACKLOG  # held past telnetlib3 ...
        assert len(parsed) == total - PLAIN_BACKLOG  # ... and the rest in its reader
        gate.set()
        assert (await c.reply())["id"] == 0
        assert [(await c.reply())["id"] for _ in range(total)] == list(range(1, total + 1))
        c.writer.write(b'{"cmd": "ping", "id": "after"}\n')
        assert (await c.reply())["id"] == "after"
        c.close()
    finally:
        await running.stop()


class _Transport:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def is_closing(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        self.sent.append(bytes(data))

    def get_write_buffer_size(self) -> int:
        return 0


class _Counted:
    _tx_bytes = 0


class _Writer:
    """What TelnetConn's direct output reads of telnetlib3's writer."""

    connection_closed = False
    encoding_errors = "replace"

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._transport = _Transport()
        self._protocol = _Counted()

    def fn_encoding(self, outgoing: bool = False, incoming: bool = False) -> str:
        return self.encoding

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1", "utf-16"])
def test_the_lines_of_a_write_are_the_bytes_of_their_joined_text(encoding):
    """JSON mode: ``write_lines`` (each line encoded apart over UTF-8) sends what ``write`` of the
    joined lines sends, a suit, a lone surrogate and an IAC-like byte included."""
    batches = [["{\"a\":1}\n"], ["{\"type\":\"state\"}\n", "{\"text\":\"Bob plays 7\u2660\"}\n", "{}\n"],
               ["caf\u00e9 \u00ff\n", "x\ud800y\n", "\udc00\n"], ["x\ud800\u2660\n"]]
    for lines in batches:
        joined, apart = TelnetConn(None, _Writer(encoding), "p", 1024), TelnetConn(None, _Writer(encoding), "p", 1024)
        joined._direct = joined._direct_output()
        apart._direct = apart._direct_output()
        assert joined._direct is not None and apart._direct is not None
        joined.write("".join(lines))
        apart.write_lines(lines)
        assert apart.writer._transport.sent == joined.writer._transport.sent, lines
        assert apart.writer._protocol._tx_bytes == joined.writer._protocol._tx_bytes > 0


async def test_a_json_client_that_reads_late_is_waited_for_and_gets_every_line_in_order(server):
    """The transport keeps what the client does not read yet (write_lines tells the session): a
    drain waits, what is queued meanwhile follows it, and every line arrives once, in order."""
    c, session = await logged_in(server, "late")
    try:
        pad = "x" * 1000
        sent = after = 0
        while after < 5:  # until the sockets hold all they can, the client reading nothing yet; then more
            if len(session.outbox.lines) < 500:
                for _ in range(50):
                    session.send_raw(f'{{"type":"event","event":"pad","n":{sent},"pad":"{pad} \u2660"}}\n')
                    sent += 1
                after += session.outbox.drainer is not None
            await asyncio.sleep(0)
        waited = session.outbox.drainer is not None
        assert waited and session.close_reason is None
        got = [(await c.line())["n"] for _ in range(sent)]
        assert got == list(range(sent))
    finally:
        c.close()
