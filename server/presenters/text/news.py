"""News as lines for a person: one event as its reader sees it, score tables, any sentence fitted."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from server.messages.events import event_text
from server.messages.kit import reading as words_reading
from server.messages.kit import seat_name, seats_in, to_int
from server.messages.labels import punct
from server.messages.terminal import (
    BOLD,
    CYAN,
    YELLOW,
    TermStyle,
    display_width,
    finish,
    pad,
    paint,
    wrap_text,
)
from server.messages.translations import translation
from server.presenters.text.reader import score_lines
from server.protocol import JSONValue, Push, items_in


def fit_text(text: str, style: TermStyle) -> str:
    """Any text made fit for a terminal: long lines word-wrapped (never cut), ASCII and colour
    promises kept.

    The renderers here already fit; this is for sentences written elsewhere (server
    notices, error messages) before they reach a person's screen.
    """
    return finish(text.split("\n"), style)



def render_event(
    event: Push, lang: str, style: TermStyle, names: Sequence[str], you: int | None
) -> str | None:
    """One event as lines for the reader, or ``None`` when it needs no line of its own."""
    name = event.get("event")
    if name in ("state",):
        return None
    if name == "extended" and you is not None and event.get("seat") == you:
        return None  # the reply to the reader's own ``extend`` says it, with the time bank left
    if name == "room_closed" and event.get("reason") == "closed":
        return None  # the lobby's room-list news: a person hears of a room they sit at from the room itself
    text = event_text(lang, event, names, you, style)
    if name == "chat":
        who = _printable(str(event.get("name") or (seat_name(names, event["seat"], lang)
                                                   if event.get("seat") is not None else "")))  # (a hidden seat)
        body = _printable(str(event.get("text", "")))
        text = f"{paint(who, CYAN, style)}{punct(lang, ':')} {body}" if who else body
    elif name in ("round_over", "match_over"):
        lines = wrap_text(paint(text, BOLD, style), style.width)
        lines += score_lines(event, lang, names) if style.reader else _score_table(event, lang, style, names)
        return finish(lines, style)
    elif name in ("cut", "revolution"):
        text = paint(text, YELLOW, style)
    elif _about(event, you):
        text = paint(text, BOLD, style)
    return finish(wrap_text(text, style.width, indent="  "), style)


def _printable(text: str) -> str:
    """Someone else's words without control characters: a chat line cannot clear a screen,
    move the cursor or ring bells on the other players' terminals."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else " " for ch in text)


def reading(event: Push, you: int | None) -> Hashable:
    """What decides reader ``you``'s lines for ``event``, besides language and terminal: the reading
    of its words (:func:`server.messages.kit.reading`), and whether the line is about the reader
    (drawn bold). Readers with the same reading are shown the same lines."""
    if you is not None and _about(event, you):
        return you
    return words_reading(event, you)


def _about(event: Push, you: int | None) -> bool:
    if you is None:
        return False
    return any(event.get(k) == you for k in ("seat", "to", "from", "leader"))


def _score_table(event: Push, lang: str, style: TermStyle, names: Sequence[str]) -> list[str]:
    """One aligned line per player: this round's points (classic) or chips (tdc, T13), and totals."""
    t = translation(lang)
    totals = items_in(event.get("totals"))
    scores = items_in(event.get("scores"))
    chips = event.get("chips")
    changes = event.get("changes")
    if not totals and not chips:
        return []
    order = seats_in(event.get("ranking")) or list(range(len(totals)))
    if event.get("event") == "match_over":
        order = sorted(range(len(totals)), key=lambda s: -to_int(totals[s] or 0))

    def at(values: JSONValue, s: int) -> int | None:
        seq = items_in(values)
        return to_int(seq[s]) if seq and s < len(seq) and seq[s] is not None else None

    def width(values: JSONValue, sign: bool) -> int:
        return max((len(f"{v:+d}" if sign else str(v)) for s in order if (v := at(values, s)) is not None), default=1)

    round_points = event.get("event") == "round_over" and not chips and bool(scores)
    cw, pw, tw, gw = width(chips, True), width(scores, False), width(totals, False), width(changes, True)
    rows: list[list[str]] = []
    for s in order:
        row = [names[s] if s < len(names) else "?"]
        if chips:
            c = at(chips, s)
            row.append("" if c is None else t.ngettext("{n} chip", "{n} chips", abs(c)).format(n=f"{c:+d}".rjust(cw)))
        elif round_points:
            p = at(scores, s)
            row.append("" if p is None else t.ngettext("+{n} pt", "+{n} pts", p).format(n=str(p).rjust(pw)))
        total = at(totals, s)
        if changes and total is not None:
            row.append(
                t.ngettext("{n} chip", "{n} chips", total).format(n=str(total).rjust(tw))
                + f" ({(at(changes, s) or 0):+d})".rjust(gw + 3)
            )
        elif total is not None and not chips:
            row.append(t.ngettext("total {n} pt", "total {n} pts", total).format(n=str(total).rjust(tw)))
        rows.append(row)
    widths = [max(display_width(r[i]) for r in rows if i < len(r)) for i in range(max(len(r) for r in rows))]
    widths[0] = min(widths[0], 14)
    return [("  " + "  ".join(pad(cell, widths[i]) for i, cell in enumerate(row))).rstrip() for row in rows]
