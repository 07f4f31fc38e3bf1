"""Terminal facts and the small helpers every text renderer shares.

A :class:`TermStyle` says what a session's terminal can show: its width, whether it
can draw Unicode (suit symbols ♣♦♥♠, box characters) and whether it wants ANSI
colours. Everything here is pure string work, no I/O, no translation.

Widths are measured the way terminals draw: ANSI escape sequences take no
column, East Asian wide and full-width characters take two, combining marks
none (:func:`display_width`). Every line a renderer returns must satisfy
``display_width(line) <= style.width``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

MIN_WIDTH = 40
"""The narrowest table we lay out; on a narrower terminal lines are wrapped at its width."""

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
RED = "\x1b[31m"
GREEN = "\x1b[32m"
YELLOW = "\x1b[33m"
CYAN = "\x1b[36m"
REVERSE = "\x1b[7m"


@dataclass(frozen=True, slots=True)
class TermStyle:
    """What a terminal can show. ``width`` in columns (at least 20 is assumed)."""

    width: int = 80
    unicode: bool = True
    color: bool = False
    reader: bool = False
    """Screen-reader mode: cards and counts in words, one fact per line, no symbols, no colour."""
    browser: bool = False
    """Sentences for a person at the play page (``docs/web.md``): they click the page's controls and
    type no command, so no sentence tells them to type one."""

    @property
    def plain(self) -> TermStyle:
        """The same terminal without colours (for text inside an already highlighted line)."""
        return replace(self, color=False)


PLAIN = TermStyle(width=80, unicode=True, color=False)
"""The style of texts sent to machines (JSON ``text`` fields): Unicode, no colour."""

BROWSER = TermStyle(width=80, unicode=True, color=False, browser=True)
"""The style of the JSON ``text`` and ``message`` fields sent to the play page (the ``lang`` command's
``browser``)."""

ASCII = TermStyle(width=80, unicode=False, color=False)


def strip_ansi(text: str) -> str:
    return ANSI_RE.sub("", text)


def char_width(ch: str) -> int:
    if ch == "\t":
        return 1
    o = ord(ch)
    if o < 32 or 0x7F <= o < 0xA0:
        return 0
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    return 1


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal (ANSI escapes excluded)."""
    plain = strip_ansi(text)
    if plain.isascii():
        return sum(1 for ch in plain if ch >= " " and ch != "\x7f")
    return sum(char_width(ch) for ch in plain)


def paint(text: str, sgr: str, style: TermStyle) -> str:
    """``text`` wrapped in an SGR sequence when the style has colour."""
    if not style.color or not text:
        return text
    return f"{sgr}{text}{RESET}"


def ascii_fold(text: str) -> str:
    """A pure-ASCII rendering of ``text`` (accents dropped, a few symbols spelled)."""
    if text.isascii():
        return text
    out = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
            continue
        rep = _ASCII_REPLACEMENTS.get(ch)
        if rep is None:
            decomposed = unicodedata.normalize("NFKD", ch)
            rep = "".join(c for c in decomposed if c.isascii()) or "?"
        out.append(rep)
    return "".join(out)


_ASCII_REPLACEMENTS = {
    "♣": "c",
    "♦": "d",
    "♥": "h",
    "♠": "s",
    "…": "...",
    "—": "-",
    "–": "-",
    "·": "|",
    "▶": ">",
    "→": "->",
    "←": "<-",
    "«": '"',
    "»": '"',
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "\u00a0": " ",
    "\u202f": " ",
    "º": "o",
    "ª": "a",
    "°": "o",
    "œ": "oe",
    "Œ": "OE",
    "æ": "ae",
    "ß": "ss",
    "¡": "!",
    "¿": "?",
    "€": "EUR",
    "×": "x",
    "★": "*",
    "•": "*",
    "✓": "v",
    "⏱": "",
}


def fit(text: str, width: int, style: TermStyle | None = None) -> str:
    """Cut ``text`` to at most ``width`` columns, ending with an ellipsis when cut.

    ANSI sequences are kept (and a reset added when a coloured text is cut).
    """
    if width <= 0:
        return ""
    if display_width(text) <= width:
        return text
    ellipsis = "…" if style is None or style.unicode else "~"
    budget = width - 1
    out: list[str] = []
    used = 0
    pos = 0
    had_ansi = False
    while pos < len(text):
        m = ANSI_RE.match(text, pos)
        if m:
            out.append(m.group(0))
            had_ansi = True
            pos = m.end()
            continue
        ch = text[pos]
        w = char_width(ch)
        if used + w > budget:
            break
        out.append(ch)
        used += w
        pos += 1
    out.append(ellipsis)
    if had_ansi:
        out.append(RESET)
    return "".join(out)


def pad(text: str, width: int) -> str:
    """``text`` right-padded with spaces to ``width`` columns; a wider text is kept whole (never cut:
    a name or an id is what people type back)."""
    return text + " " * max(0, width - display_width(text))


def break_word(text: str, first: int, width: int) -> list[str]:
    """``text`` in pieces: the first at most ``first`` columns, the others at most ``width``; nothing
    dropped. ANSI sequences stay with the character after them; a colour open at a break is closed
    at the end of the piece and opened again at the start of the next."""
    pieces: list[str] = []
    out: list[str] = []
    used, room, pos, sgr = 0, max(1, first), 0, ""
    while pos < len(text):
        m = ANSI_RE.match(text, pos)
        if m:
            seq = m.group(0)
            out.append(seq)
            if seq.endswith("m"):
                sgr = "" if seq == RESET else sgr + seq
            pos = m.end()
            continue
        w = char_width(text[pos])
        if used + w > room and used:
            pieces.append("".join(out) + (RESET if sgr else ""))
            out, used, room = [sgr] if sgr else [], 0, max(1, width)
        out.append(text[pos])
        used += w
        pos += 1
    pieces.append("".join(out))
    return pieces


def wrap_items(items: Sequence[str], width: int, indent: str = "", first: str = "") -> list[str]:
    """Lay out ``items`` separated by spaces on lines of at most ``width`` columns.

    ``first`` starts the first line, ``indent`` the following ones. An item wider than a line
    is broken across lines, never cut.
    """
    lines: list[str] = []
    line = first
    line_w = display_width(first)
    fresh = True
    for item in items:
        w = display_width(item)
        sep = 0 if fresh else 1
        if line_w + sep + w > width and not fresh:
            lines.append(line)
            line = indent
            line_w = display_width(indent)
            fresh = True
            sep = 0
        if fresh and line_w + w > width:
            *whole, item = break_word(item, width - line_w, width - display_width(indent))
            for piece in whole:
                lines.append(line + piece)
                line, line_w = indent, display_width(indent)
            w = display_width(item)
        line += (" " if sep else "") + item
        line_w += sep + w
        fresh = False
    if line.strip() or not lines:
        lines.append(line)
    return lines


_CLOSING = frozenset("»:;?!")
"""A word of these alone (French spacing: ``« graine »``, ``aléa :``) stays with the word before it."""


def glued(words: list[str]) -> list[str]:
    """``words`` with an opening ``«`` kept on the next word's line and closing marks on the previous one."""
    out: list[str] = []
    for word in words:
        if out and (out[-1] == "«" or (word[0] in _CLOSING and not any(c.isalnum() for c in word))):
            out[-1] += " " + word
        else:
            out.append(word)
    return out


def wrap_text(text: str, width: int, indent: str = "") -> list[str]:
    """Word-wrap a sentence to ``width`` columns (long words are broken across lines, never cut).

    A line never starts with ``»``, ``:``, ``;``, ``?`` or ``!`` standing alone, nor ends with ``«``.
    """
    lines: list[str] = []
    for para in text.split("\n"):
        words = glued([w for w in para.split(" ") if w != ""])
        lines.extend(wrap_items(words or [""], width, indent=indent))
    return lines


def fold_line(line: str, width: int) -> list[str]:
    """One line wider than ``width`` word-wrapped, the following lines indented two columns more than
    it (a hanging indent); nothing is cut, whatever the width (a round id, a name, a key stay whole
    where they fit on a line, and are broken across lines only where no line could hold them)."""
    plain = strip_ansi(line)
    lead = len(plain) - len(plain.lstrip(" "))
    indent = " " * min(lead + 2, max(0, width // 4))
    start = 0
    while start < len(line) and line[start] == " ":
        start += 1
    words = glued([w for w in line[start:].split(" ") if w != ""])
    return wrap_items(words or [""], width, indent=indent, first=line[:start][: max(0, width - 1)])


def finish(lines: Iterable[str], style: TermStyle) -> str:
    """Join lines, guaranteeing the width (a wider line is wrapped, never cut), the ASCII-only and the
    no-colour promises."""
    out = []
    width = max(1, style.width)
    for line in lines:
        if not style.unicode:
            line = ascii_fold(line)
        if not style.color:
            line = strip_ansi(line)
        if display_width(line) > width:
            out += [part.rstrip(" ") for part in fold_line(line, width)]
            continue
        out.append(line.rstrip(" "))
    return "\n".join(out)
