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

from dataclasses import dataclass, field


class _TooLong:
    __slots__ = ()

    def __repr__(self) -> str:
        return "TOO_LONG"


TOO_LONG = _TooLong()
"""Marker in :attr:`Fed.lines` for a line that passed ``max_line`` (its text is dropped)."""


@dataclass(slots=True)
class Fed:
    lines: list[str | _TooLong] = field(default_factory=list)
    echo: str = ""


class LineAssembler:
    def __init__(self, max_line: int = 1024) -> None:
        self.max_line = max_line
        self.secret = False
        self._buf: list[str] = []
        self._overflow = False
        self._after_cr = False
        self._esc = 0  # 0: text, 1: after ESC, 2: inside CSI, 3: after ESC O (SS3)

    def feed(self, data: str) -> Fed:
        out = Fed()
        echo: list[str] = []
        for ch in data:
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
                    continue
                self._esc = 0
            if ch == "\x1b":
                self._esc = 1
                continue
            if self._after_cr:
                self._after_cr = False
                if ch in "\n\x00":
                    continue
            if ch in "\r\n":
                self._after_cr = ch == "\r"
                out.lines.append(TOO_LONG if self._overflow else "".join(self._buf))
                self._buf.clear()
                self._overflow = False
                echo.append("\r\n")
            elif ch in "\x08\x7f":
                if self._buf and not self._overflow:
                    self._buf.pop()
                    if not self.secret:
                        echo.append("\b \b")
            elif ch == "\t" or (ch >= " " and not ("\x80" <= ch < "\xa0")):
                if self._overflow:
                    continue
                if len(self._buf) >= self.max_line:
                    self._overflow = True
                    self._buf.clear()
                    continue
                ch = " " if ch == "\t" else ch
                self._buf.append(ch)
                if not self.secret:
                    echo.append(ch)
            # any other control character (NUL, ESC, C1...) is dropped
        out.echo = "".join(echo)
        return out

    @property
    def pending(self) -> str:
        """The partial line typed so far (for redrawing a prompt)."""
        return "" if self._overflow else "".join(self._buf)
