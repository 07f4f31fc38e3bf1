"""Each game's drawing of its table, found by the game's name (the one place the text presenter
tells games apart)."""

from __future__ import annotations

from collections.abc import Callable

from server.games.states import State, as_state
from server.messages.terminal import TermStyle, finish
from server.presenters.text import president, reader, reader_speculation, speculation
from server.protocol import Push

TableLines = Callable[[State, str, TermStyle, bool], list[str]]

TABLES: dict[str, TableLines] = {
    "president": president.table_lines,
    "speculation": speculation.table_lines,
}
"""Game -> the lines of its table."""


def render_state(pushed: Push, lang: str, style: TermStyle, *, status: bool = True) -> str:
    """The table as a compact block fitting ``style.width`` (40 columns and more).

    ``status=False`` leaves out the last line (whose turn it is), for when an alert follows.
    """
    state = as_state(pushed)  # (a state the table built, carried by the session as JSON)
    if style.reader and state.get("game") in (None, "president"):  # a screen reader: one fact per line
        return finish(reader.president_lines(state, lang, style, status), style)
    if style.reader and state.get("game") == "speculation":
        return finish(reader_speculation.speculation_lines(state, lang, style, status), style)
    lines = TABLES.get(str(state.get("game")), president.table_lines)(state, lang, style, status)
    return finish(lines, style)
