"""What every event's sentence is made with: the registry, seat names, cards of an event."""

from __future__ import annotations

import gettext
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.messages.labels import cards_param
from server.messages.translations import translation
from server.terminal import TermStyle

T = gettext.NullTranslations
EventFn = Callable[[gettext.NullTranslations, str, Mapping[str, Any], Sequence[str], "int | None", TermStyle],
                   "str | None"]
EVENTS: dict[str, EventFn] = {}
"""Event name -> the function wording it (registered with :func:`event`)."""


def event(*names: str) -> Callable[[EventFn], EventFn]:
    """Register the decorated function as the wording of the events ``names``."""

    def register(fn: EventFn) -> EventFn:
        for n in names:
            EVENTS[n] = fn
        return fn

    return register


def seat_name(names: Sequence[str], seat: Any, lang: str) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    if isinstance(seat, int):
        return translation(lang).gettext("seat {seat}").format(seat=seat)
    return str(seat) if seat is not None else "?"


def seat_of(e: Mapping[str, Any], *keys: str) -> Any:
    """The first of ``keys`` the event has (a seat number), or None."""
    for k in keys:
        if k in e and e[k] is not None:
            return e[k]
    return None


def cards_of(e: Mapping[str, Any], lang: str, style: TermStyle, key: str = "cards") -> str:
    return cards_param(e.get(key) or [], lang, style)
