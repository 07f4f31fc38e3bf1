"""JSON mode over a raw TCP socket, exactly as PROTOCOL.md says; bad input never hurts the server."""

import asyncio
import contextlib
import json
import os

from clients.client import Client
from tests.kits.servers import start_server

IAC = 0xFF


class RawJson:
    """A plain socket that never answers telnet negotiation (PROTOCOL.md: must work)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.after_json = b""  # every byte received once JSON mode started

    @classmethod
    async def open(cls, port: int) -> "RawJson":
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        self = cls(reader, writer)
        writer.write(b"json\r\n")
        # skip the telnet negotiation and the human prompt until the first JSON line (the hello event)
        while True:
            line = await asyncio.wait_for(reader.readline(), 10)
            assert line, "closed before JSON mode"
            start = line.find(b"{")
            if start >= 0:
                hello = json.loads(line[start:])
                assert hello["type"] == "event" and hello["event"] == "hello"
                return self

    async def line(self) -> dict:
        raw = await asyncio.wait_for(self.reader.readline(), 10)
        assert raw.endswith(b"\n"), raw
        self.after_json += raw
        assert IAC not in raw, "a telnet byte inside a JSON line"
        return json.loads(raw)

    async def reply(self) -> dict:
        while True:
            msg = await self.line()
            if msg["type"] in ("ok", "error"):
                return msg

    async def ask(self, obj: dict | bytes) -> dict:
        self.writer.write(obj if isinstance(obj, bytes) else json.dumps(obj).encode() + b"\n")
        return await self.reply()

    def close(self) -> None:
        self.writer.close()


async def test_raw_socket_json_session_every_request_one_reply(server):
    c = await RawJson.open(server.telnet_port)
    try:
        r = await c.ask({"cmd": "whoami", "id": "a"})
        assert r == {"type": "error", "id": "a", "code": "not_logged_in", "message": r["message"]}
        assert r["message"]
        r = await c.ask({"cmd": "login", "name": "Zoé", "id": 1})
        assert r["type"] == "ok" and r["id"] == 1 and r["name"] == "Zoé" and r["guest"] is True
        r = await c.ask({"cmd": "whoami", "id": 2})
        assert (r["name"], r["guest"], r["lang"]) == ("Zoé", True, "en") and r["chips"] > 0
        r = await c.ask({"cmd": "lang", "lang": "es", "id": 3})
        assert r == {"type": "ok", "id": 3, "lang": "es"}
        r = await c.ask(b'{"cmd": "rooms"}\r\n')  # no id: echoed as null; CRLF accepted
        assert r == {"type": "ok", "id": None, "rooms": [], "total": 0, "page": 1, "pages": 1, "limit": 50}
        r = await c.ask({"cmd": "nope", "id": 4})
        assert (r["type"], r["code"], r["id"]) == ("error", "unknown_command", 4)
        r = await c.ask({"cmd": "join", "room": "r99", "id": 5})
        assert (r["code"], r["id"]) == ("no_such_room", 5)
        r = await c.ask({"cmd": "create", "game": "chess", "id": 6})
        assert r["code"] == "bad_argument"
        r = await c.ask({"cmd": "create", "game": "president", "rules": "classic", "seats": 12, "id": 7})
        assert r["code"] == "bad_argument"
        r = await c.ask({"cmd": "play", "cards": ["7c"], "id": 8})
        assert r["code"] == "not_in_room"
        r = await c.ask({"cmd": "say", "text": "\x1b[2Jhola\x07", "id": 9})
        assert r["type"] == "ok"
        r = await c.ask({"cmd": "who", "id": 10})
        assert r["players"] == [{"name": "Zoé", "guest": True, "room": None, "seat": None}]
    finally:
        c.close()


async def test_bad_json_lines_get_bad_json_and_change_nothing(server):
    c = await RawJson.open(server.telnet_port)
    try:
        for bad in (b"not json\n", b"[1, 2]\n", b'{"cmd": 5}\n', b'{"id": 3}\n', b'{"cmd": "who"\n',
                    b"\xff\xfe\xfd garbage\n", b'"just a string"\n', b"[" * 1000 + b"\n"):
            r = await c.ask(bad)
            assert r["type"] == "error" and r["code"] in ("bad_json", "not_logged_in"), (bad, r)
        r = await c.ask({"cmd": "login", "name": "ok_after_garbage", "id": 1})
        assert r["type"] == "ok"
    finally:
        c.close()


async def test_a_lone_surrogate_is_bad_json_for_every_command_and_logs_nothing(server, caplog):
    """``"\\ud800"`` is valid JSON to the standard library but no text: refused at decode, before any
    command (finger, history... once failed encoding it deep inside, as an internal error)."""
    c = await RawJson.open(server.telnet_port)
    try:
        r = await c.ask({"cmd": "login", "name": "surro", "id": 1})
        assert r["type"] == "ok"
        for cmd, arg in (("finger", "name"), ("history", "name"), ("replay", "round"), ("verify", "round"),
                         ("ignore", "name"), ("say", "text"), ("tell", "name"), ("login", "password")):
            line = '{"cmd":"' + cmd + '","' + arg + '":"a\\ud800","id":7}\n'
            r = await c.ask(line.encode())
            assert r["type"] == "error" and r["code"] == "bad_json", (cmd, r)
        r = await c.ask({"cmd": "ping", "id": 2})
        assert r == {"type": "ok", "id": 2, "pong": True}
    finally:
        c.close()
    assert not [rec for rec in caplog.records if rec.levelname in ("ERROR", "CRITICAL")]


async def test_huge_line_is_refused_and_the_session_goes_on(server):
    c = await RawJson.open(server.telnet_port)
    try:
        c.writer.write(b'{"cmd": "say", "text": "' + b"x" * 20_000 + b'"}\n')
        r = await c.reply()
        assert r["code"] == "line_too_long"
        r = await c.ask({"cmd": "ping", "id": 1})
        assert r == {"type": "ok", "id": 1, "pong": True}
    finally:
        c.close()


async def test_a_client_streaming_megabytes_is_cut_off(server):
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", server.telnet_port), 5)
    writer.write(b"\xff\xfc\x18json\n")
    with contextlib.suppress(ConnectionError):
        for _ in range(100):
            writer.write(b"x" * 65536)
            await asyncio.wait_for(writer.drain(), 10)
    # the server hangs up (EOF or a reset) instead of parsing megabytes; a time-out would fail here
    with contextlib.suppress(ConnectionError):
        while await asyncio.wait_for(reader.read(65536), 10):
            pass
    writer.close()
    async with await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=5) as client:
        await client.login("next")


async def test_random_bytes_never_crash_the_server(server):
    for i in range(5):
        _reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", server.telnet_port), 5)
        junk = os.urandom(20_000) + b"\r\n" + bytes(range(256)) * 10
        if i % 2:
            junk = b"json\n" + junk
        writer.write(junk)
        await writer.drain()
        writer.close()
    # the server still serves
    async with await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=5) as client:
        await client.login("survivor")
        assert (await client.request("whoami"))["name"] == "survivor"


async def test_guest_name_taken_is_refused_and_bad_names_too(server):
    async with await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=5) as a, \
            await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=5) as b:
        await a.login("alice")
        r = await b.request_raw("login", name="ALICE")
        assert r["type"] == "error" and r["code"] == "name_taken"
        for bad in ("", "a b", "\x1b[31m", "x" * 300, "~house", "bot:house", "root"):
            r = await b.request_raw("login", name=bad)
            assert r["type"] == "error" and r["code"] in ("bad_name", "bad_argument"), (bad, r)
        r = await b.request_raw("login", name=["list"])
        assert r["code"] == "bad_argument"
        # escape sequences and controls are stripped from names before anyone sees them
        assert (await b.login("\x1b[1mbob\x07"))["name"] == "bob"
        r = await b.request_raw("login", name="carol")
        assert r["code"] == "already_logged_in"


async def test_chat_in_the_lobby_is_cleaned(server):
    async with await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=5) as a, \
            await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=5) as b:
        await a.login("alice")
        await b.login("bob")
        waiter = asyncio.ensure_future(b.next_event("chat", timeout=5))
        await asyncio.sleep(0)
        await a.request("say", text="hi \x1b]0;owned\x07there\x1b[5m!")
        chat = await waiter
        assert chat["message"] == "hi there!" and chat["name"] == "alice"
        assert "\x1b" not in chat["text"] and "alice" in chat["text"]


async def test_flood_from_one_client_does_not_starve_another(tmp_path):
    running = await start_server(tmp_path, commands_per_second=5.0, command_burst=10, flood_disconnect=100)
    try:
        flooder = await RawJson.open(running.telnet_port)
        calm = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=10)
        await calm.login("calm")
        burst = b"".join(json.dumps({"cmd": "rooms", "id": i}).encode() + b"\n" for i in range(400))
        flooder.writer.write(burst)
        codes = []
        try:
            while True:
                codes.append((await flooder.reply()).get("code"))
        except (AssertionError, asyncio.IncompleteReadError, ConnectionError, json.JSONDecodeError):
            pass  # the server hung up on the flooder
        assert "rate_limited" in codes
        assert len(codes) < 400  # disconnected before answering everything
        # the calm client still gets its replies
        for _ in range(3):
            assert (await calm.request("whoami"))["name"] == "calm"
        await calm.close()
        flooder.close()
    finally:
        await running.stop()


async def test_connections_per_address_are_capped(tmp_path):
    running = await start_server(tmp_path, max_connections_per_address=2)
    try:
        a = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=5)
        b = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=5)
        await a.login("one")
        await b.login("two")
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", running.telnet_port), 5)
        writer.write(b"\xff\xfc\x18json\n")
        data = await asyncio.wait_for(reader.read(), 10)  # refused: a message, then EOF
        assert b"Too many connections" in data
        writer.close()
        await a.close()
        await b.close()
    finally:
        await running.stop()


async def test_no_telnet_byte_after_json_even_when_the_client_negotiates(server):
    c = await RawJson.open(server.telnet_port)
    try:
        # the client now sends negotiation: DO ECHO, WILL NAWS + a NAWS report, DO SGA, WILL TTYPE
        c.writer.write(b"\xff\xfd\x01\xff\xfb\x1f\xff\xfa\x1f\x00\x50\x00\x18\xff\xf0\xff\xfd\x03\xff\xfb\x18")
        r = await c.ask({"cmd": "login", "name": "quiet", "id": 1})
        assert r["type"] == "ok"
        c.writer.write(b'{"cmd":"ping",\xff\xfb\x01"id":2}\n')  # an IAC sequence inside a line is removed
        r = await c.reply()
        assert r == {"type": "ok", "id": 2, "pong": True}
        c.writer.write(b'{"cmd": "whoami", "id": 3}\n')
        assert (await c.reply())["name"] == "quiet"
        assert IAC not in c.after_json
    finally:
        c.close()


async def test_a_slow_password_check_does_not_hold_up_other_logins(server):
    await server.store.accounts.register("pat", "correct-horse-5")
    gate, entered = asyncio.Event(), asyncio.Event()
    real = server.store.accounts.verify_password

    async def held(name, password, address=""):
        entered.set()
        await gate.wait()  # as if the store were backing off after failures
        return await real(name, password, address)

    server.store.accounts.verify_password = held
    async with await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10) as attacker, \
            await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10) as guest:
        attempt = asyncio.ensure_future(attacker.request_raw("login", name="pat", password="guess"))
        await asyncio.wait_for(entered.wait(), 10)
        assert (await guest.login("quinn"))["name"] == "quinn"  # not queued behind the password check
        assert not attempt.done()
        gate.set()
        assert (await attempt)["code"] == "bad_password"
