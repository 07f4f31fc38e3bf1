"""What a session's terminal can show: its size, colour, Unicode, and the screen-reader mode.

The facts come from the transport (terminal type, window size, a MUD client's MTTS bits) and change
when the window is resized or the person asks (``colour``, ``unicode``, ``width``, ``reader``). The
renderers read them as one :class:`~server.messages.terminal.TermStyle`, made once for each change
rather than at every line.
"""

from __future__ import annotations

from typing import Protocol

from server.messages.terminal import TermStyle


class Terminal(Protocol):
    """What a transport says of its terminal."""

    term: str | None  # terminal type, None without a terminal
    width: int
    height: int

    # optional: ``screen_reader`` (a MUD client's MTTS said so), ``reader_mode`` (set: the transport
    # draws nothing in place in that mode)


def term_caps(term: str | None) -> tuple[bool, bool]:
    """(colour, unicode) for a terminal type: dumb or unknown terminals get plain ASCII."""
    t = (term or "").lower()
    if not t or t in ("dumb", "unknown", "network", "vt52") or t.startswith("vt1"):
        return False, False
    color = any(k in t for k in ("xterm", "screen", "tmux", "rxvt", "linux", "color", "ansi", "putty",
                                  "konsole", "kitty", "alacritty", "iterm", "foot", "wezterm", "vt2",
                                  "st-", "gnome", "cygwin"))
    return color, color


class Screen:
    """A session's terminal facts, and the style they make."""

    __slots__ = ("_chosen_reader", "_color", "_height", "_styles", "_term", "_unicode", "_width")

    def __init__(self, term: Terminal) -> None:
        self._term = term
        self._width = term.width or 80
        self._height = term.height or 24
        self._color, self._unicode = term_caps(term.term)
        self._chosen_reader: bool | None = None  # screen-reader mode once chosen (``reader on``); else MTTS's
        self._styles: tuple[TermStyle, TermStyle] | None = None  # (plain, reader), made when first read

    def _changed(self) -> None:
        self._styles = None

    @property
    def width(self) -> int:
        return self._width

    @width.setter
    def width(self, width: int) -> None:
        self._width = width
        self._changed()

    @property
    def height(self) -> int:
        return self._height

    @height.setter
    def height(self, height: int) -> None:
        self._height = height

    @property
    def color(self) -> bool:
        return self._color

    @color.setter
    def color(self, on: bool) -> None:
        self._color = on
        self._changed()

    @property
    def unicode(self) -> bool:
        return self._unicode

    @unicode.setter
    def unicode(self, on: bool) -> None:
        self._unicode = on
        self._changed()

    @property
    def reader(self) -> bool:
        """Screen-reader mode (docs/playing.md): chosen with ``reader on|off``, else what the client's
        MTTS said (its screen-reader bit, which may come after the session began)."""
        chosen = self._chosen_reader
        if chosen is not None:
            return chosen
        return bool(getattr(self._term, "screen_reader", False))

    @reader.setter
    def reader(self, on: bool) -> None:
        self._chosen_reader = on
        if hasattr(self._term, "reader_mode"):
            self._term.reader_mode = on  # (telnet: nothing redrawn in place in that mode)

    def resized(self, width: int, height: int) -> None:
        """The window's new size (ignored unless both are positive)."""
        if width > 0 and height > 0:
            self._width, self._height = width, height
            self._changed()

    @property
    def style(self) -> TermStyle:
        """What the renderers draw for: without colour in screen-reader mode."""
        styles = self._styles
        if styles is None:
            styles = self._styles = (TermStyle(width=self._width, unicode=self._unicode, color=self._color),
                                     TermStyle(width=self._width, unicode=self._unicode, color=False, reader=True))
        return styles[1] if self.reader else styles[0]
