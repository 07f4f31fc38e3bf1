"""A sans-I/O line assembler for telnet and raw TCP input.

telnetlib3's ``readline()`` splits a CR LF that straddles two reads into two
lines and does not cap line length (TECH.md §1), so the telnet transport reads
chunks with ``reader.read(4096)`` and feeds them here.

* CR, LF, CR LF and CR NUL each end one line; an LF or NUL right after a CR is
  swallowed even when it arrives in the next chunk.
* Backspace (BS or DEL) removes the last character (echoed as ``"\\b \\b"``).
* Escape sequences (arrow keys...) and other control characters are dropped
  (Tab becomes a space).
* A line longer than ``max_line`` is discarded and reported as ``TOO_LONG``
  once its end arrives; memory stays bounded whatever the client sends.
* ``echo`` is what the server should send back in character mode (telnet
  clients in "kludge" mode echo nothing themselves); ``secret`` input echoes
  nothing but the line end.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_SPECIAL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class TooLong:
    __slots__ = ()

    def __repr__(self) -> str:
        return "TOO_LONG"


TOO_LONG = TooLong()
"""Marker in :attr:`Fed.lines` for a line that passed ``max_line`` (its text is dropped)."""


INPUT_FLOOD = "input_flood"
"""Why a transport cuts a client: more raw input than ``input_burst`` / ``input_bytes_per_second``."""

CUT_GRACE = 5.0
"""Seconds a cut connection stays open for the session to say why; then the transport closes it."""

_CUT_TEXT = {
    INPUT_FLOOD: (
        "Too much input at once: disconnected. / Trop de données d'un coup : déconnexion."
        " / Demasiados datos de golpe: desconexión."
    ),
}


def cut_notice(reason: str, *, machine: bool, crlf: bool = False) -> str:
    """What a transport says by itself when it cuts a client no session listens for.

    Machine mode gets one JSON error line (PROTOCOL.md: ``code`` and a
    ``message``); people get one line in the three languages, since the
    transport does not know the session's. A session that sets the
    transport's ``on_cut`` hook says it instead, in its own language.
    """
    text = _CUT_TEXT.get(reason, reason)
    if machine:
        return json.dumps({"type": "error", "id": None, "code": reason, "message": text},
                          ensure_ascii=False) + "\n"
    return "\r\n" + text + "\r\n" if crlf else "\n" + text + "\n"


@dataclass(slots=True)
class Fed:
    lines: list[str | TooLong] = field(default_factory=list)
    echo: str = ""


class LineAssembler:
    def __init__(self, max_line: int = 1024) -> None:
        self.max_line = max_line
        self.secret = False
        self._buf: list[str] = []  # runs of text of the current line
        self._size = 0
        self._overflow = False
        self._after_cr = False
        self._esc = 0  # 0: text, 1: after ESC, 2: inside CSI, 3: after ESC O (SS3)

    shortcut = True
    """Take a chunk that is one whole ordinary line at once (tests compare without it)."""

    def feed(self, data: str) -> Fed:
        line = self._whole_line(data)
        if line is not None:
            return Fed([line], "\r\n" if self.secret else line + "\r\n")
        return self._feed(data)

    def lines(self, data: str) -> list[str | TooLong]:
        """``feed(data).lines``, for a reader that echoes nothing (JSON mode)."""
        line = self._whole_line(data)
        return [line] if line is not None else self._feed(data).lines

    def _whole_line(self, data: str) -> str | None:
        """The usual chunk, one whole line of ordinary characters and its LF or CR LF, arriving
        between lines: that line (None for anything else)."""
        if self.shortcut and not self._buf and not self._after_cr and not self._esc and not self._overflow:
            m = _SPECIAL.search(data)
            if m is not None:
                stop = m.start()
                end = len(data) - 1
                if stop <= self.max_line and ((stop == end and data[stop] == "\n")
                                              or (stop == end - 1 and data[stop] == "\r" and data[end] == "\n")):
                    return data[:stop]
        return None

    def _feed(self, data: str) -> Fed:
        out = Fed()
        echo: list[str] = []
        pos = 0
        end = len(data)
        while pos < end:
            if not self._esc and not self._after_cr:
                # fast path: a run of ordinary characters
                m = _SPECIAL.search(data, pos)
                stop = m.start() if m else end
                if stop > pos:
                    self._text(data[pos:stop], echo)
                    pos = stop
                    continue
            self._char(data[pos], out, echo)
            pos += 1
        out.echo = "".join(echo)
        return out

    def _text(self, run: str, echo: list[str]) -> None:
        if self._overflow:
            return
        room = self.max_line - self._size
        if len(run) > room:
            self._overflow = True
            self._buf.clear()
            self._size = 0
            return
        self._buf.append(run)
        self._size += len(run)
        if not self.secret:
            echo.append(run)

    def _char(self, ch: str, out: Fed, echo: list[str]) -> None:
        if self._esc:
            # terminal keys (arrows, F-keys) arrive as escape sequences: swallow them
            if self._esc == 1:
                self._esc = 2 if ch == "[" else 3 if ch == "O" else 0
            elif self._esc == 2:
                if "@" <= ch <= "~":
                    self._esc = 0
            else:
                self._esc = 0
            if ch not in "\r\n":
                return
            self._esc = 0
        if self._after_cr:
            self._after_cr = False
            if ch in "\n\x00":
                return
        if ch == "\x1b":
            self._esc = 1
        elif ch in "\r\n":
            self._after_cr = ch == "\r"
            out.lines.append(TOO_LONG if self._overflow else "".join(self._buf))
            self._buf.clear()
            self._size = 0
            self._overflow = False
            echo.append("\r\n")
        elif ch in "\x08\x7f":
            if self._buf and not self._overflow:
                last = self._buf.pop()
                if len(last) > 1:
                    self._buf.append(last[:-1])
                self._size -= 1
                if not self.secret:
                    echo.append("\b \b")
        elif ch == "\t":
            self._text(" ", echo)
        elif ch >= " " and not ("\x80" <= ch < "\xa0"):
            self._text(ch, echo)
        # any other control character (NUL, C1...) is dropped

    @property
    def pending(self) -> str:
        """The partial line typed so far (for redrawing a prompt)."""
        return "" if self._overflow else "".join(self._buf)

    @property
    def buffered(self) -> int:
        """Characters held for the current line (never more than ``max_line``)."""
        return self._size
