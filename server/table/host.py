"""What a table's parts see of the whole: the table's facts, and what each part asks of another.

The table (:class:`server.table.core.Table`) owns its parts; the round cycle, the seating and the
fair deals are given the table itself, typed here as :class:`TableHost` so that no part needs the
table's own module. The other parts (clocks, chips, sender, match log) see even less of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from engine.api import Action, Event
from server.games.base import GameAdapter, TableOptions
from server.protocol import JSONObject
from server.table.chips import RoundChips
from server.table.clocks import Clocks
from server.table.io import Member
from server.table.matchlog import MatchLog
from server.table.seats import Seat
from server.table.sender import Sender
from server.table.steps import Step, TableSettings


class FairHost(Protocol):
    """What the other parts ask of the fair deals (:class:`server.table.fair.FairDeals`)."""

    commitment: str | None

    def open(self, not_before: float | None = None) -> None: ...
    def open_between_rounds(self) -> None: ...
    def is_open(self) -> bool: ...
    def final_contributions(self, present: list[int] | None) -> None: ...
    def deal_action(self, facts: Mapping[str, object]) -> Action: ...
    def dealt(self, events: tuple[Event, ...]) -> None: ...
    def round_record(self, events: tuple[Event, ...]) -> JSONObject | None: ...
    def forget_seed(self) -> None: ...


class SeatingHost(Protocol):
    """What the other parts ask of the seating (:class:`server.table.people.Seating`)."""

    def newcomers(self, present: Sequence[int] | None) -> list[int]: ...
    def vacate_leavers(self) -> Step[None]: ...
    def expire_graces(self, now: float) -> Step[bool]: ...


class CycleHost(Protocol):
    """What the other parts ask of the round cycle (:class:`server.table.rounds.RoundCycle`)."""

    def schedule_bots(self) -> None: ...
    def money(self, events: tuple[Event, ...], *, refuse: bool) -> Step[bool]: ...
    def close(self, reason: str) -> Step[None]: ...


class TableHost(Protocol):
    """The table as its round cycle, seating and fair deals see it."""

    id: str
    uid: str
    first_uid: str
    matches: int
    adapter: GameAdapter
    opts: TableOptions
    settings: TableSettings
    seats: list[Seat]
    spectators: dict[str, Member]
    status: str
    closed: str | None
    now: float
    arrivals: int
    dealt_arrivals: int | None
    bot_seed: bytes
    bot_options: dict[str, object]  # keywords of the engine's make_bot (a search bot's clock)
    game: MatchLog
    out: Sender
    clocks: Clocks
    chips: RoundChips

    @property
    def fair(self) -> FairHost: ...
    @property
    def seating(self) -> SeatingHost: ...
    @property
    def cycle(self) -> CycleHost: ...

    def seat_of(self, key: str) -> int | None: ...
    def can_answer(self, seat: int) -> bool: ...
    def in_round(self, seat: Seat) -> bool: ...
    def timer_seconds(self, kind: str) -> float: ...
    def back_if_all_here(self) -> None: ...
