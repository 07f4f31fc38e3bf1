"""What every drawing of a table shares: hands in order, seat lines, headers, seconds, card text."""

from __future__ import annotations

import gettext
from collections.abc import Callable, Iterable, Mapping, Sequence

from server.games.states import State
from server.messages.kit import T, text_of, to_int
from server.messages.labels import (
    card_label,
    game_name,
    rules_name,
)
from server.messages.terminal import (
    BOLD,
    YELLOW,
    TermStyle,
    display_width,
    pad,
    paint,
)
from server.messages.translations import translation
from server.presenters.text.words import verb
from server.protocol import JSONValue

RANKS = "3456789TJQKA2"
SUITS = "cdhs"


def sort_hand(cards: Sequence[str], order: str = "normal") -> list[str]:
    """Cards weakest first in the order in force (RULES P2, T2); suits c < d < h < s."""

    def key(c: str) -> tuple[int, int]:
        r = RANKS.find(c[0].upper())
        return (12 - r if order == "reversed" else r, SUITS.find(c[1:2].lower()))

    return sorted(cards, key=key)


def sep(style: TermStyle) -> str:
    return " · " if style.unicode else " | "


def seconds_of(value: object) -> int | None:
    if not isinstance(value, int | float | str):
        return None
    try:
        return max(0, round(float(value)))
    except (TypeError, ValueError):
        return None


def seconds_text(t: T, n: int) -> str:
    """``(12 s)``, kept on one line when wrapped."""
    return str(t.gettext("({n} s)").format(n=n)).replace(" ", "\u00a0")


def glue_seconds(text: str, *numbers: int) -> str:
    """``text`` with each ``N s`` of ``numbers`` joined by a no-break space: a wrapped line never ends
    with the number and starts the next with its ``s``."""
    for n in numbers:
        text = text.replace(f"{n} s", f"{n}\u00a0s")
    return text


def seat_names(state: State, lang: str) -> list[str]:
    t = translation(lang)
    out = []
    for s in state.get("seats") or []:
        name = s.get("name")
        if s.get("hidden"):  # someone who hides where they sit, to a spectator
            out.append(t.gettext("seat {seat}").format(seat=s.get("seat")))
        else:
            out.append(str(name) if name else t.gettext("(free seat)"))
    return out


def header(state: State, lang: str, style: TermStyle, *, deals: bool = False) -> str:
    """The table's first line: game and table, round (``deals``: deal) n/total, room, stake."""
    t = translation(lang)
    parts = [paint(game_name(lang, text_of(state.get("game"))), BOLD, style)]
    table = rules_name(lang, text_of(state.get("rules")))  # "" for a game with one table
    if table:
        parts.append(table)
    rnd = state.get("round")
    if rnd:
        rounds = state.get("rounds") or state.get("deals")
        if deals:
            parts.append(
                t.gettext("deal {n}/{total}").format(n=rnd, total=rounds)
                if rounds
                else t.gettext("deal {n}").format(n=rnd)
            )
        else:
            parts.append(
                t.gettext("round {n}/{total}").format(n=rnd, total=rounds)
                if rounds
                else t.gettext("round {n}").format(n=rnd)
            )
    if state.get("room") is not None:
        parts.append(t.gettext("room {room}").format(room=state["room"]))
    if state.get("stake"):
        n = to_int(state["stake"])
        parts.append(t.ngettext("stake {n} chip", "stake {n} chips", n).format(n=n))
    return sep(style).join(str(p) for p in parts)


def seat_marker(state: State, seat: int, style: TermStyle) -> str:
    if state.get("turn") == seat:
        return paint("▶", YELLOW, style) if style.unicode else ">"
    return " "


def seat_lines(
    state: State, lang: str, style: TermStyle, columns: list[list[str]], flags: list[str]
) -> list[str]:
    """Lay out one line per seat: marker, name, then ``columns`` aligned, then ``flags`` free text."""
    names = seat_names(state, lang)
    width = style.width
    you = state.get("you")
    name_w = min(max((display_width(n) for n in names), default=4), 14 if width >= 60 else 10)
    col_w = [max((display_width(c[i]) for c in columns), default=0) for i in range(len(columns[0]))] if columns else []
    lines = []
    for seat, name in enumerate(names):
        shown = pad(name, name_w)
        if seat == you:
            shown = paint(shown, BOLD, style)
        parts = [seat_marker(state, seat, style), shown]
        for i, cell in enumerate(columns[seat] if columns else []):
            if col_w[i]:
                parts.append(pad(cell, col_w[i]))
        line = " ".join(parts).rstrip()
        if flags[seat]:
            line += "  " + flags[seat]
        lines.append(line)
    return lines



def digits(values: Iterable[JSONValue]) -> int:
    """The widest number among ``values`` (``None`` skipped), for right-aligned columns."""
    return max((len(str(to_int(v))) for v in values if v is not None), default=1)


def verb_word(lang: str, cmd: str) -> str:

    return verb(lang, cmd)


_SHORT_TITLES: dict[str, Callable[[gettext.NullTranslations], str]] = {
    "president": lambda t: t.pgettext("short title", "Pres"),
    "vice_president": lambda t: t.pgettext("short title", "VP"),
    "vice_last": lambda t: t.pgettext("short title", "V-Scum"),
    "last": lambda t: t.pgettext("short title", "Scum"),
}


def short_title(lang: str, title: str | None) -> str:
    word = _SHORT_TITLES.get(title or "")
    if word is not None:
        return word(translation(lang))
    return ""


def cards_text(cards: Sequence[str], lang: str, style: TermStyle) -> str:
    return (", " if style.reader else " ").join(card_label(c, lang, style) for c in cards)


def deadline_text(state: State, lang: str) -> str:
    secs = seconds_of(state.get("deadline"))
    if secs is None:
        return ""
    return " " + seconds_text(translation(lang), secs)


def window_line(state: State, lang: str, style: TermStyle) -> str | None:
    """People's window, if one is open: a cut may follow (T9), or time to trade (S9)."""
    text = window_text(state, lang)
    return None if text is None else paint(text, YELLOW, style)


def window_text(state: Mapping[str, object], lang: str) -> str | None:
    """The words of :func:`window_line`, not painted."""
    window = state.get("window")
    if not isinstance(window, Mapping):
        return None
    t = translation(lang)
    n = seconds_of(window.get("left")) or 0
    if window.get("kind") == "cut":
        text = t.ngettext("A cut may follow: {n} second before the game goes on.",
                          "A cut may follow: {n} seconds before the game goes on.", n).format(n=n)
    elif window.get("kind") == "trade":
        # "before play goes on", not "before the next card turns": a person's own card turns for them
        # only when their clock (the prompt's) runs out, later than this window
        text = t.ngettext("Time to trade: {n} second before play goes on ({turn} to go on now).",
                          "Time to trade: {n} seconds before play goes on ({turn} to go on now).",
                          n).format(n=n, turn=verb(lang, "turn"))
    else:
        return None
    return text
