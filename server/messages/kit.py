"""What every event's sentence is made with: the registry, seat names, cards of an event."""

from __future__ import annotations

import gettext
from collections.abc import Callable, Hashable, Iterable, Sequence

from server.messages.labels import cards_param
from server.messages.terminal import TermStyle
from server.messages.translations import translation
from server.protocol import JSONValue, Push

T = gettext.NullTranslations
EventFn = Callable[[gettext.NullTranslations, str, Push, Sequence[str], "int | None", TermStyle],
                   "str | None"]
EVENTS: dict[object, EventFn] = {}  # (looked up with whatever an event's "event" holds)
"""Event name -> the function wording it (registered with :func:`event`)."""


# -- who reads words of their own -------------------------------------------------------------------
#
# An event many readers receive (a table's ``played``, ``passed``...) is worded once per *reading*:
# readers with the same reading of an event (and the same language and terminal) are shown the same
# words, so their presenter words it once and shares the text (``server.protocol.Shared.cache``).
# Each wording declares, where it is registered, which readers' seats change its words: the seats
# the event names ("You play 7♣" for the seat that played, "Alice plays 7♣" for everyone else),
# every seat (``round_over`` says ``chips[you]``), or nobody. Undeclared: every seat is its own
# reading (nothing shared between seats). ``tests/server/messages/test_shared_words.py`` checks
# every declaration against the words made alone, over random games.

SPECTATOR: None = None
"""The reading of a spectator (``you`` is ``None``): never shared with a seat, unless the event
reads the same for everyone."""
OTHER_SEAT = "seat"
"""The reading of a seat the event does not name: shared by all those seats (never a spectator)."""
ANY_READER = "any"
"""The reading of everyone, for an event whose words do not depend on the reader at all."""


class Readers:
    """Which readers of an event read words of their own (the default: every seat); ``said``: the
    declaration in words."""

    __slots__ = ("said",)

    def __init__(self, said: str = "every seat") -> None:
        self.said = said

    def reading(self, e: Push, you: int | None) -> Hashable:
        """What decides ``you``'s words for ``e``, besides language and terminal."""
        return you


class _Anyone(Readers):
    __slots__ = ()

    def reading(self, e: Push, you: int | None) -> Hashable:
        return ANY_READER


EVERY_SEAT = Readers()
"""Every seat reads its own words (``round_over``: ``chips[you]``); the default."""
ANYONE = _Anyone("nobody (the same words for every reader, spectators included)")
"""The words never depend on the reader: one sentence for everyone."""


class named(Readers):
    """The seats in the event's fields ``keys`` read their own words; every other seat shares one."""

    __slots__ = ("keys",)

    def __init__(self, *keys: str) -> None:
        super().__init__("the seats in " + ", ".join(f"{k!r}" for k in keys))
        self.keys = keys

    def reading(self, e: Push, you: int | None) -> Hashable:
        if you is None:
            return SPECTATOR
        for k in self.keys:
            if e.get(k) == you:
                return you
        return OTHER_SEAT


class named_by(Readers):
    """``seats(e)`` read their own words (``None``: every seat); every other seat shares one."""

    __slots__ = ("seats",)

    def __init__(self, seats: Callable[[Push], Iterable[JSONValue] | None], said: str) -> None:
        super().__init__(said)
        self.seats = seats

    def reading(self, e: Push, you: int | None) -> Hashable:
        if you is None:
            return SPECTATOR
        seats = self.seats(e)
        if seats is None:
            return you
        for s in seats:
            if s == you:
                return you
        return OTHER_SEAT


READERS: dict[object, Readers] = {}  # (looked up with whatever an event's "event" holds)
"""Event name -> which readers read words of their own (declared with :func:`event`)."""


def event(*names: str, seats: Readers = EVERY_SEAT) -> Callable[[EventFn], EventFn]:
    """Register the decorated function as the wording of the events ``names``; ``seats``: which
    readers' seats change its words (see :class:`Readers`)."""

    def register(fn: EventFn) -> EventFn:
        for n in names:
            EVENTS[n] = fn
            READERS[n] = seats
        return fn

    return register


def reading(e: Push, you: int | None) -> Hashable:
    """What decides reader ``you``'s words for event ``e``, besides language and terminal: two readers
    with the same reading are shown the same sentence (see :class:`Readers`)."""
    readers = READERS.get(e.get("event"))
    if readers is None:
        return you
    try:
        return readers.reading(e, you)
    except Exception:  # an odd event: nothing shared
        return you


def seat_name(names: Sequence[str], seat: JSONValue, lang: str) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    if isinstance(seat, int):
        return translation(lang).gettext("seat {seat}").format(seat=seat)
    return str(seat) if seat is not None else "?"


def seat_of(e: Push, *keys: str) -> JSONValue:
    """The first of ``keys`` the event has (a seat number), or None."""
    for k in keys:
        if k in e and e[k] is not None:
            return e[k]
    return None


def to_int(value: JSONValue) -> int:
    """``int(value)`` of a number an event carries (a TypeError for anything else, as ``int`` gives)."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"not a number: {value!r}")


def to_float(value: JSONValue) -> float:
    """``float(value)`` of a number an event carries (a TypeError for anything else)."""
    if isinstance(value, int | float | str):
        return float(value)
    raise TypeError(f"not a number: {value!r}")


def seats_in(value: JSONValue) -> list[int]:
    """The seat numbers an event lists (winners, a ranking), in order."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [s for s in value if isinstance(s, int)]
    return []


def text_of(value: JSONValue) -> str | None:
    """A word an event carries (a game's name, a code), or None."""
    return value if isinstance(value, str) else None


def cards_of(e: Push, lang: str, style: TermStyle, key: str = "cards") -> str:
    return cards_param(e.get(key) or [], lang, style)
