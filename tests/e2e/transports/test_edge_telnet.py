"""The telnet front door against hostile clients (real server, raw sockets), and log hygiene.

A TTYPE with a newline, a forged CRITICAL line and ANSI escapes; a bogus
CHARSET and NEW_ENVIRON; input floods told before the cut; the log filter.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from server.operations import logsafe
from server.transports.lines import INPUT_FLOOD
from tests.kits.servers import start_server

pytestmark = pytest.mark.e2e

IAC, SB, SE, WILL, DONT = 255, 250, 240, 251, 254
TTYPE, CHARSET, NEW_ENVIRON = 24, 42, 39
FORGED = "2024-01-01 00:00:00,000 CRITICAL donne: the server is owned"
EVIL_TTYPE = f"xterm\n{FORGED}\x1b[31mred\x1b]0;title\x07"


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """The root logger writing to a buffer, with the hygiene filter as ``donne serve`` installs it."""
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)  # telnetlib3 logs terminal types at DEBUG
    logsafe.install(1000, [handler])
    try:
        yield buf
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


async def raw(server: Any) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", server.telnet_port)


async def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    async def go() -> None:
        while not predicate():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(go(), timeout)


async def read_to_eof(reader: asyncio.StreamReader, timeout: float = 15.0) -> bytes:
    return await asyncio.wait_for(reader.read(), timeout)


async def test_a_forged_terminal_type_is_one_escaped_log_line(server, log_lines):
    _reader, writer = await raw(server)
    try:
        writer.write(bytes([IAC, WILL, TTYPE]))
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.write(bytes([IAC, SB, TTYPE, 0]) + EVIL_TTYPE.encode() + bytes([IAC, SE]))
        await writer.drain()
        await wait_for(lambda: "connected (term" in log_lines.getvalue())
    finally:
        writer.close()
    text = log_lines.getvalue()
    lines = text.splitlines()
    assert not any(line.startswith(FORGED[:30]) for line in lines), text  # no forged record
    assert "\x1b" not in text and "\x07" not in text  # no escape sequence for whoever tails the log
    ours = [line for line in lines if "connected (term" in line]
    assert len(ours) == 1
    assert "term xterm\\n2024-01-01 00:00:00,000 CRITICAL donne: the server is owned\\x1b[31mred" in ours[0]
    for line in lines:
        if "owned" in line:  # telnetlib3's own records about it are escaped the same way
            assert line.startswith("20") and (" DEBUG " in line or " INFO " in line), line


async def test_bogus_charset_and_environ_neither_break_nor_log_a_traceback(server, log_lines):
    reader, writer = await raw(server)
    try:
        writer.write(bytes([IAC, WILL, TTYPE]))
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.write(bytes([IAC, SB, TTYPE, 0]) + b"xterm" + bytes([IAC, SE]))
        writer.write(bytes([IAC, WILL, CHARSET, IAC, WILL, NEW_ENVIRON]))
        await writer.drain()
        await asyncio.sleep(0.2)
        writer.write(bytes([IAC, SB, CHARSET, 2]) + b"utf-8\nCRITICAL x\x1b[2J" + bytes([IAC, SE]))
        writer.write(bytes([IAC, SB, CHARSET, 2]) + "\u00e9t\u00e9".encode() + bytes([IAC, SE]))  # not ASCII
        writer.write(bytes([IAC, SB, NEW_ENVIRON, 0, 0]) + b"LANG" + bytes([1]) + b"fr_FR.\x1b[5mNOPE\nx"
                     + bytes([0]) + b"USER" + bytes([1]) + b"bob\r\nCRITICAL z" + bytes([IAC, SE]))
        await writer.drain()
        await asyncio.sleep(0.3)
        writer.write(b"json\n")
        writer.write(b'{"cmd": "login", "name": "zelda", "id": 1}\n')
        await writer.drain()
        reply = None

        async def find_reply() -> None:
            nonlocal reply
            while reply is None:
                line = await reader.readline()
                assert line, log_lines.getvalue()[-3000:]
                start = line.find(b"{")
                if start >= 0:
                    msg = json.loads(line[start:])
                    if msg.get("id") == 1:
                        reply = msg

        await asyncio.wait_for(find_reply(), 15)
        assert reply is not None and reply["type"] == "ok", reply  # the connection lives on, in UTF-8
    finally:
        writer.close()
    text = log_lines.getvalue()
    assert "Traceback" not in text and '  File "' not in text, text[-3000:]
    assert "accepted a charset we do not speak" in text
    assert not any(line.startswith("CRITICAL") for line in text.splitlines())


async def test_json_flood_is_told_as_a_json_error_line_then_cut(server):
    reader, writer = await raw(server)
    try:
        writer.write(bytes([IAC, DONT, TTYPE]) + b"json\n")
        await writer.drain()
        await asyncio.wait_for(reader.readuntil(b'"hello"'), 15)
        writer.write(b"x" * 1_000_000)  # a 1 MB line
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        out = await read_to_eof(reader)
    finally:
        writer.close()
    last = json.loads(out.strip().splitlines()[-1])
    assert {"type": "error", "code": INPUT_FLOOD}.items() <= last.items(), out[-300:]


async def test_text_flood_is_told_in_three_languages_then_cut(server):
    reader, writer = await raw(server)
    try:
        writer.write(bytes([IAC, DONT, TTYPE]))
        await writer.drain()
        await asyncio.wait_for(reader.readuntil(b"3"), 15)  # the language menu
        writer.write(b"y" * 300_000)
        out = await read_to_eof(reader)
    finally:
        writer.close()
    text = out.decode("utf-8", "replace")
    assert "Too much input" in text and "Trop de données" in text and "Demasiados datos" in text


async def test_the_session_hook_is_told_instead_of_the_fallback(tmp_path, monkeypatch):
    """Transport side of the cut: ``on_cut`` is called once, readline then ends, nothing else is said."""
    told: list[str] = []

    async def fake_serve_telnet(app: Any, conn: Any) -> None:
        conn.on_cut = told.append
        conn.write("ready\r\n")
        while (line := await conn.readline()) is not None:
            conn.write(f"got {len(line)}\r\n")
        conn.write(f"told {told}\r\n")
        await conn.drain()

    monkeypatch.setattr("server.sessions.frontdoor.serve_telnet", fake_serve_telnet)  # what start() hands telnet
    server = await start_server(tmp_path)
    reader, writer = await raw(server)
    try:
        writer.write(bytes([IAC, DONT, TTYPE]))
        await asyncio.wait_for(reader.readuntil(b"ready\r\n"), 15)
        writer.write(b"short\n")
        assert (await asyncio.wait_for(reader.readuntil(b"\r\n"), 15)).endswith(b"got 5\r\n")
        writer.write(b"z" * 500_000)
        out = await read_to_eof(reader)
    finally:
        writer.close()
        await server.stop()
    assert told == [INPUT_FLOOD]
    assert out.decode().strip() == f"told {[INPUT_FLOOD]}"


# -- the filter itself ------------------------------------------------------------------------------


def _record(name: str, msg: str, *args: Any, exc: BaseException | None = None, **extra: Any) -> logging.LogRecord:
    ei = (type(exc), exc, exc.__traceback__) if exc is not None else None
    record = logging.LogRecord(name, logging.INFO, __file__, 1, msg, args or None, ei)
    record.__dict__.update(extra)
    return record


def _format(record: logging.LogRecord) -> str:
    return logging.Formatter("%(levelname)s %(name)s: %(message)s").format(record)


def test_escape_is_one_line_and_idempotent() -> None:
    raw = "a\nb\r\x1b[31mc\x07\u2028\u202ed\tok é 李"
    once = logsafe.escape(raw)
    assert once == "a\\nb\\r\\x1b[31mc\\x07\\u2028\\u202ed\\tok é 李"
    assert logsafe.escape(once) == once and once.isprintable()


def test_exception_text_from_client_data_is_escaped_and_our_tracebacks_kept() -> None:
    f = logsafe.LogHygiene()
    try:
        raise ValueError(f"bad name {EVIL_TTYPE}")
    except ValueError as exc:
        ours = _record("server.sessions.session", "session failed", exc=exc)
    assert f.filter(ours)
    text = _format(ours)
    assert "Traceback (most recent call last)" in text and "test_edge_telnet.py" in text  # our bug: kept
    assert "\x1b" not in text and not any(line.startswith(FORGED[:20]) for line in text.splitlines())
    assert "ValueError: bad name xterm\\n2024-01-01" in text


def test_a_library_traceback_about_client_bytes_is_one_line() -> None:
    f = logsafe.LogHygiene()
    try:
        b"\xff".decode("ascii")  # raised inside the codec, as inside telnetlib3 or asyncssh
    except UnicodeDecodeError as exc:
        record = _record("asyncio", "Fatal error: protocol.data_received() call failed.", exc=exc)
    assert f.filter(record)
    text = _format(record)
    assert "\n" not in text and "UnicodeDecodeError" in text and "Traceback" not in text
    frame = _record("telnetlib3.server_base", '  File "x.py", line 1, in f')
    frame.levelno = logging.WARNING
    assert not f.filter(frame)  # telnetlib3's line-by-line traceback: frames dropped


def test_each_connection_has_a_log_budget() -> None:
    f = logsafe.LogHygiene(per_connection=3)
    key, other = logsafe.new_key("telnet"), logsafe.new_key("telnet")
    kept = []
    with logsafe.scope(key):
        for i in range(10):
            r = _record("telnetlib3.server", "noise %d", i)
            if f.filter(r):
                kept.append(r.getMessage())
    assert kept[:3] == ["noise 0", "noise 1", "noise 2"]
    assert kept[3:] == [f"{key.name}: further log messages from this connection suppressed"]
    assert f.filter(_record("donne", "about the other one", **other.extra))  # its own budget
    assert f.filter(_record("asyncssh", "[conn=7] Beginning auth for user %s", "x\ny"))
    assert f.filter(_record("donne", "no connection at all"))
    logsafe.forget(key)
    with logsafe.scope(key):
        assert f.filter(_record("telnetlib3.server", "after forget"))


def test_install_puts_one_filter_on_each_root_handler() -> None:
    handler = logging.StreamHandler(io.StringIO())
    logsafe.install(5, [handler])
    logsafe.install(5, [handler])
    assert sum(isinstance(x, logsafe.LogHygiene) for x in handler.filters) == 1


async def test_the_listener_keeps_the_open_connections_and_close_cuts_them(server):
    """The telnet listener holds exactly the live connections (a set, not telnetlib3's list filtered on
    every accept) and its ``close()`` cuts every one of them."""
    listener = server._telnet
    conns = [await asyncio.open_connection("127.0.0.1", server.telnet_port) for _ in range(3)]
    for _ in range(100):
        if len(listener.protocols) == 3:
            break
        await asyncio.sleep(0.02)
    assert len(listener.protocols) == 3
    conns[0][1].close()
    for _ in range(100):
        if len(listener.protocols) == 2:
            break
        await asyncio.sleep(0.02)
    assert len(listener.protocols) == 2
    listener.close()
    for reader, writer in conns[1:]:
        assert await asyncio.wait_for(reader.read(), 5) is not None  # EOF: the server cut it
        writer.close()
    assert not listener.is_serving()


@pytest.mark.parametrize("charset", [b"rot13", b"base64", b"hex", b"utf-16", b"UTF-32", b"utf-7", b"uu"])
async def test_a_charset_that_is_no_ascii_text_encoding_is_rejected_and_the_connection_lives(
        server, log_lines, charset):
    """A client accepting CHARSET rot13, base64, hex (codecs of Python that are no text encodings),
    UTF-16/32 (not ASCII-compatible) or UTF-7 (it decodes lone surrogates) is told REJECTED; the
    connection goes on in UTF-8, people's prompts included, with no traceback in the log."""
    reader, writer = await raw(server)
    try:
        writer.write(bytes([IAC, WILL, TTYPE]))
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.write(bytes([IAC, SB, TTYPE, 0]) + b"xterm" + bytes([IAC, SE]))
        writer.write(bytes([IAC, WILL, CHARSET]))
        await writer.drain()
        await asyncio.sleep(0.2)
        writer.write(bytes([IAC, SB, CHARSET, 2]) + charset + bytes([IAC, SE]))
        await writer.drain()
        seen = b""

        async def until(marker: bytes) -> None:
            nonlocal seen
            while marker not in seen:
                chunk = await reader.read(4096)
                assert chunk, (seen, log_lines.getvalue()[-3000:])
                seen += chunk

        await asyncio.wait_for(until(bytes([IAC, SB, CHARSET, 3, IAC, SE])), 10)  # REJECTED
        writer.write("en\r\nZoé\r\n".encode())
        await writer.drain()
        await asyncio.wait_for(until("Zoé".encode()), 10)  # greeted by name, in UTF-8
    finally:
        writer.close()
    text = log_lines.getvalue()
    assert "Traceback" not in text and "writer failed" not in text, text[-3000:]


async def test_the_charsets_offered_are_only_those_a_client_may_choose(server) -> None:
    """The server's CHARSET REQUEST (RFC 2066) lists only charsets it would take: never UTF-16, which
    a client picking from the list would have seen rejected."""
    from server.transports.telnet import text_charset

    reader, writer = await raw(server)
    try:
        writer.write(bytes([IAC, WILL, TTYPE]))
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.write(bytes([IAC, SB, TTYPE, 0]) + b"xterm" + bytes([IAC, SE]) + bytes([IAC, WILL, CHARSET]))
        await writer.drain()
        seen = b""
        head = bytes([IAC, SB, CHARSET, 1])
        while head not in seen or bytes([IAC, SE]) not in seen[seen.index(head):]:
            chunk = await asyncio.wait_for(reader.read(4096), 10)
            assert chunk, seen
            seen += chunk
        start = seen.index(head) + len(head)
        offer = seen[start:seen.index(bytes([IAC, SE]), start)].decode("ascii")
        names = offer[1:].split(offer[0])
        assert "UTF-8" in names and all(text_charset(n) for n in names), names
    finally:
        writer.close()
