"""The table's own events, shape by shape (docs/protocol.md "Events"): what the table says of the
people at it, its fair deals and its end, beside the engine's events (each game's ``to_dict()``).

The table makes them (:meth:`server.table.sender.Sender.broadcast` adds the room to each); the
sessions carry them as any JSON object (``protocol.Push``) and the presenters word them.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict, cast

from server.protocol import Push


class Chat(TypedDict):
    event: Literal["chat"]
    room: str
    name: str
    message: str


class Joined(TypedDict):
    """A person or a bot sat down (``seat``), or a person came to watch (``seat`` None, ``watch``)."""

    event: Literal["joined"]
    room: str
    name: str | None
    seat: int | None
    bot: NotRequired[bool]
    watch: NotRequired[bool]


class Left(TypedDict):
    """A person left (``seat``: theirs, when their grace ran out)."""

    event: Literal["left"]
    room: str
    name: str | None
    seat: NotRequired[int]


class Renamed(TypedDict):
    """A guest seated here became an account."""

    event: Literal["renamed"]
    room: str
    name: str | None
    to: str
    seat: int


class Replaced(TypedDict):
    """A bot plays for a person who left: for good (P16), or to the end of the round (``until``)."""

    event: Literal["replaced"]
    room: str
    name: str | None
    seat: int
    until: NotRequired[str]
    game: NotRequired[str]


class Disconnected(TypedDict):
    """A seated person's connection dropped: their seat is kept ``grace`` seconds."""

    event: Literal["disconnected"]
    room: str
    name: str
    seat: int
    grace: float


class Reconnected(TypedDict):
    event: Literal["reconnected"]
    room: str
    name: str
    seat: int


class MatchStarted(TypedDict):
    event: Literal["match_started"]
    room: str


class Rematch(TypedDict):
    """A player asks for a new match at the table."""

    event: Literal["rematch"]
    room: str
    name: str


class Extended(TypedDict):
    """A person took ``seconds`` from their time bank (``bank``: what is left of it)."""

    event: Literal["extended"]
    seat: int
    seconds: float
    bank: float


class Notice(TypedDict):
    event: Literal["notice"]
    code: str


class RoomClosed(TypedDict):
    event: Literal["room_closed"]
    room: str
    reason: str


class Commitment(TypedDict):
    """The next deal's commitment and its contribution window (docs/fairness.md); ``given``: the
    seats whose standing seed contributed already."""

    event: Literal["commitment"]
    round: int
    commitment: str
    window: float
    given: list[int]
    game: str


class Contributed(TypedDict):
    """A seat contributed to the next deal (never the text)."""

    event: Literal["contributed"]
    round: int
    seat: int


class RoundResult(TypedDict):
    """To a person who left during a round: how it ended for them (their chips' change)."""

    event: Literal["round_result"]
    room: str
    round: int
    seat: int
    chips: int
    game: str


TableEvent = (Chat | Joined | Left | Renamed | Replaced | Disconnected | Reconnected | MatchStarted | Rematch
              | Extended | Notice | RoomClosed | Commitment | Contributed)
"""What :meth:`server.table.sender.Sender.broadcast` sends to everyone in the room."""


def pushed(event: TableEvent | RoundResult) -> Push:
    """The event as the sessions carry it: a JSON object (every value of these events is JSON, which
    mypy does not see of a TypedDict: it reads one as a ``Mapping[str, object]``)."""
    return cast(Push, event)
