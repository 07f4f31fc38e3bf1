"""A scripted MUD client over a raw asyncio socket: what Mudlet or TinTin++ say, byte by byte.

It answers the server's telnet offers from its own lists (``will``: options it does itself, such
as TTYPE and NAWS; ``do``: options it wants the server to do, such as GMCP, MSSP, MCCP2), cycles
its terminal types (``ttypes``: the MTTS rounds), inflates the stream once MCCP2 starts (zlib, as
the MCCP2 specification says), and keeps every subnegotiation it received, per option, and the
text, with the telnet commands taken out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import zlib
from typing import Any

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
ECHO, SGA, TTYPE, NAWS, NEW_ENVIRON, CHARSET, BINARY = 1, 3, 24, 31, 39, 42, 0
MSSP, MCCP2, MCCP3, GMCP = 70, 86, 87, 201
MSSP_VAR, MSSP_VAL = 1, 2


class MudClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 do: tuple[int, ...] = (GMCP, MSSP, MCCP2), will: tuple[int, ...] = (TTYPE, NAWS),
                 ttypes: tuple[str, ...] = ("MUDLET", "XTERM-256COLOR", "MTTS 2825")) -> None:
        self.reader, self.writer = reader, writer
        self.do, self.will, self.ttypes = set(do), set(will), ttypes
        self.ttype_round = 0
        self.offers: list[tuple[int, int]] = []  # (WILL/DO/WONT/DONT, option) the server sent
        self.subs: list[tuple[int, bytes]] = []  # (option, payload) the server sent
        self._gmcp: list[tuple[str, Any]] = []  # the GMCP ones among them, parsed: subs[:_parsed]
        self._parsed = 0
        self.text = bytearray()
        self.raw = bytearray()  # every byte received, compressed as it came
        self._inflate: Any = None  # zlib decompressor once MCCP2 started
        self._pending = bytearray()  # plain (inflated) bytes not parsed yet
        self._task = asyncio.get_running_loop().create_task(self._pump())
        self._changed = asyncio.Event()
        self.compressed_bytes = 0  # bytes received compressed
        self.inflated_bytes = 0  # and what they inflated to

    @classmethod
    async def connect(cls, port: int, **kw: Any) -> MudClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer, **kw)

    # -- receiving --------------------------------------------------------------------------------

    async def _pump(self) -> None:
        while True:
            data = await self.reader.read(65536)
            if not data:
                self._changed.set()
                return
            self.raw += data
            if self._inflate is not None:
                self.compressed_bytes += len(data)
                data = self._inflate.decompress(data)
                self.inflated_bytes += len(data)
            self._pending += data
            self._parse()
            self._changed.set()

    def _parse(self) -> None:
        buf = self._pending
        i = 0
        while i < len(buf):
            b = buf[i]
            if b != IAC:
                self.text.append(b)
                i += 1
                continue
            if i + 1 >= len(buf):
                break
            cmd = buf[i + 1]
            if cmd == IAC:
                self.text.append(IAC)
                i += 2
            elif cmd in (DO, DONT, WILL, WONT):
                if i + 2 >= len(buf):
                    break
                self._negotiate(cmd, buf[i + 2])
                i += 3
            elif cmd == SB:
                end = buf.find(bytes([IAC, SE]), i + 2)
                while end != -1 and buf[end - 1] == IAC and buf[end - 2] != IAC:
                    end = buf.find(bytes([IAC, SE]), end + 1)
                if end == -1:
                    break
                opt, payload = buf[i + 2], bytes(buf[i + 3:end]).replace(bytes([IAC, IAC]), bytes([IAC]))
                self.subs.append((opt, payload))
                i = end + 2
                self._sub(opt, payload)
                if opt == MCCP2:  # everything after this SE is compressed
                    rest = bytes(buf[i:])
                    self._pending = bytearray()
                    self._inflate = zlib.decompressobj()
                    self.compressed_bytes += len(rest)
                    plain = self._inflate.decompress(rest)
                    self.inflated_bytes += len(plain)
                    self._pending += plain
                    self._parse()
                    return
            else:
                i += 2
        del buf[:i]

    def _negotiate(self, cmd: int, opt: int) -> None:
        self.offers.append((cmd, opt))
        if cmd == WILL:
            self.send(bytes([IAC, DO if opt in self.do else DONT, opt]))
        elif cmd == DO:
            self.send(bytes([IAC, WILL if opt in self.will else WONT, opt]))
            if opt == NAWS and opt in self.will:
                self.send(bytes([IAC, SB, NAWS, 0, 100, 0, 40, IAC, SE]))

    def _sub(self, opt: int, payload: bytes) -> None:
        if opt == TTYPE and payload[:1] == b"\x01":  # SEND
            name = self.ttypes[min(self.ttype_round, len(self.ttypes) - 1)]
            self.ttype_round += 1
            self.send(bytes([IAC, SB, TTYPE, 0]) + name.encode() + bytes([IAC, SE]))

    # -- sending ------------------------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        self.writer.write(data)

    def line(self, text: str) -> None:
        self.send(text.encode().replace(b"\xff", b"\xff\xff") + b"\r\n")

    def gmcp(self, package: str, data: Any = None) -> None:
        body = package if data is None else f"{package} {json.dumps(data)}"
        self.send(bytes([IAC, SB, GMCP]) + body.encode() + bytes([IAC, SE]))

    # -- reading ------------------------------------------------------------------------------------

    def screen(self) -> str:
        return self.text.decode("utf-8", "replace")

    def gmcp_messages(self) -> list[tuple[str, Any]]:
        """Every GMCP message so far, (package, data); each parsed once (a match polls this often)."""
        for opt, payload in self.subs[self._parsed:]:
            if opt == GMCP:
                package, _, body = payload.decode("utf-8").partition(" ")
                self._gmcp.append((package, json.loads(body) if body else None))
        self._parsed = len(self.subs)
        return list(self._gmcp)

    def mssp(self) -> dict[str, list[str]] | None:
        for opt, payload in self.subs:
            if opt == MSSP:
                table: dict[str, list[str]] = {}
                name = ""
                for part in payload.split(bytes([MSSP_VAR]))[1:]:
                    name, *values = part.split(bytes([MSSP_VAL]))
                    table[name.decode()] = [v.decode() for v in values]
                return table
        return None

    async def until(self, predicate: Any, timeout: float = 10.0) -> None:
        async def go() -> None:
            while not predicate():
                if self._task.done():
                    raise ConnectionError(f"closed; screen: {self.screen()[-500:]!r}")
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(go(), timeout)

    async def expect(self, text: str, timeout: float = 10.0) -> None:
        start = len(self.screen())
        try:
            await self.until(lambda: text in self.screen(), timeout)
        except TimeoutError:
            raise AssertionError(f"{text!r} not seen; screen since: {self.screen()[start - 200:]!r}") from None

    async def close(self) -> None:
        self.writer.close()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await self._task
