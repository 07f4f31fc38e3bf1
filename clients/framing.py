"""Sans-I/O byte handling of the JSON-mode clients: telnet commands out, lines, JSON objects.

Tested without a network (``tests/clients/test_framing.py``):
:class:`IacFilter` removes telnet command sequences (``IAC IAC`` is a literal
0xFF, ``IAC SB … IAC SE`` is skipped whole, split anywhere across reads),
:class:`LineSplitter` cuts the stream into lines (``\\n``, ``\\r\\n``, bare
``\\r``), keeping partial lines until their end arrives, and
:func:`parse_line` reads the JSON object of one line.
"""

from __future__ import annotations

import zlib

import orjson

from clients.jsontypes import JSONObject

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
TTYPE = 24
WONT_TTYPE = bytes((IAC, WONT, TTYPE))
"""Sent right after connecting: the telnet server starts the shell at once (TECH.md §1)."""
MCCP2 = 86
DO_MCCP2 = bytes((IAC, DO, MCCP2))
"""Sent with it by a client that wants the server's output compressed (``donne load --mccp``)."""
MCCP2_START = bytes((IAC, SB, MCCP2, IAC, SE))
"""After these bytes the server's stream is zlib-compressed (MCCP2)."""

MAX_LINE = 4 * 1024 * 1024
"""The longest line accepted from the server; a longer one closes the client."""

Message = JSONObject
"""A JSON object of one line (:func:`parse_line`)."""


class MccpFilter:
    """:class:`IacFilter` for a stream that MCCP2 compresses: once ``IAC SB MCCP2 IAC SE`` has come,
    the rest is inflated (zlib) before its telnet commands are removed."""

    __slots__ = ("_held", "_inflate", "iac")

    def __init__(self) -> None:
        self.iac = IacFilter()
        self._held = b""  # the end of a chunk that may be the start of MCCP2_START
        self._inflate: zlib._Decompress | None = None

    @property
    def commands(self) -> int:
        return self.iac.commands

    def feed(self, chunk: bytes) -> bytes:
        inflate = self._inflate
        if inflate is not None:
            return self.iac.feed(inflate.decompress(chunk))
        data = self._held + chunk if self._held else chunk
        self._held = b""
        i = data.find(MCCP2_START)
        if i >= 0:
            plain = self.iac.feed(data[:i])
            self._inflate = inflate = zlib.decompressobj()
            return plain + self.iac.feed(inflate.decompress(data[i + len(MCCP2_START):]))
        for cut in range(max(0, len(data) - len(MCCP2_START) + 1), len(data)):
            if data[cut] == IAC and MCCP2_START.startswith(data[cut:]):
                self._held, data = data[cut:], data[:cut]
                break
        return self.iac.feed(data)


class IacFilter:
    """Remove telnet command sequences from a byte stream, across chunk boundaries.

    ``feed(chunk)`` returns the data bytes of ``chunk``. Handled: ``IAC IAC``
    (a literal 0xFF), ``IAC WILL/WONT/DO/DONT opt``, ``IAC SB … IAC SE``
    (with ``IAC IAC`` inside), and the two-byte commands (``IAC GA``, ``IAC
    NOP``…). :attr:`commands` counts the sequences removed.
    """

    __slots__ = ("_state", "commands")

    _DATA, _IAC, _OPT, _SB, _SB_IAC = range(5)

    def __init__(self) -> None:
        self._state = self._DATA
        self.commands = 0

    def feed(self, chunk: bytes) -> bytes:
        if self._state == self._DATA and IAC not in chunk:
            return chunk  # the common case: no telnet command at all
        out = bytearray()
        state = self._state
        i, n = 0, len(chunk)
        while i < n:
            if state == self._DATA:
                j = chunk.find(IAC, i)
                if j < 0:
                    out += chunk[i:]
                    break
                out += chunk[i:j]
                i = j + 1
                state = self._IAC
                continue
            b = chunk[i]
            i += 1
            if state == self._IAC:
                if b == IAC:
                    out.append(IAC)
                    state = self._DATA
                elif b in (WILL, WONT, DO, DONT):
                    state = self._OPT
                elif b == SB:
                    state = self._SB
                else:  # NOP, GA, AYT, ... or a stray SE: two-byte command
                    self.commands += 1
                    state = self._DATA
            elif state == self._OPT:
                self.commands += 1
                state = self._DATA
            elif state == self._SB:
                if b == IAC:
                    state = self._SB_IAC
            else:  # _SB_IAC
                if b == SE:
                    self.commands += 1
                    state = self._DATA
                else:  # IAC IAC inside a subnegotiation, or a sloppy sender: stay inside
                    state = self._SB
        self._state = state
        return bytes(out)


class LineTooLong(ValueError):
    pass


class LineSplitter:
    """Cut a byte stream into lines; ``\\n``, ``\\r\\n`` and a bare ``\\r`` end a line.

    ``feed(chunk)`` returns the complete lines (without terminator) the chunk
    finishes; the rest waits for the next chunk. A ``\\n`` right after a
    ``\\r`` — even in the next chunk — does not make an extra empty line.
    """

    __slots__ = ("_after_cr", "_buf", "max_line")

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self._buf = bytearray()
        self._after_cr = False
        self.max_line = max_line

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        if self._after_cr:
            self._after_cr = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n")
            if chunk.endswith(b"\r"):
                self._after_cr = True
            chunk = chunk.replace(b"\r", b"\n")
        if b"\n" not in chunk:
            self._buf += chunk
            if len(self._buf) > self.max_line:
                raise LineTooLong(f"line longer than {self.max_line} bytes")
            return []
        parts = chunk.split(b"\n")
        if self._buf:
            self._buf += parts[0]
            parts[0] = bytes(self._buf)
            self._buf.clear()
        rest = parts.pop()
        if rest:
            self._buf += rest
            if len(self._buf) > self.max_line:
                raise LineTooLong(f"line longer than {self.max_line} bytes")
        return parts

    @property
    def pending(self) -> bytes:
        """The bytes of the unfinished line."""
        return bytes(self._buf)


def parse_line(line: bytes, lenient: bool = False) -> Message | None:
    """The JSON object on ``line``, or ``None`` for a blank or non-JSON line.

    ``lenient``: before JSON mode is known to be on, a text prompt may precede
    the first object on the same line (``"> {...}"``); look for the first ``{``.
    """
    text = line.strip()
    if not text:
        return None
    if not text.startswith(b"{"):
        if not lenient:
            return None
        k = text.find(b"{")
        if k < 0:
            return None
        text = text[k:]
    try:
        msg = orjson.loads(text)  # a third of json.loads's time: the load generator reads every push
    except ValueError:  # orjson.JSONDecodeError
        return None
    return msg if isinstance(msg, dict) else None
