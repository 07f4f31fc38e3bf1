"""What every part of a table speaks: a step of its logic, the settings it reads, its log."""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any, Protocol, TypeAlias, TypeVar

from server.games.base import Settings
from server.table.io import Effect

log = logging.getLogger("server.table")

_R = TypeVar("_R")

Step: TypeAlias = Generator[Effect, Any, _R]
"""A step of the table's logic that returns an ``_R``: yields the effects it waits for, receives their
results (each effect's own: a claim's table id, a balance, the store's answer, a bot's action... which
the step that yielded it reads as that: no one type says them all)."""


class TableSettings(Settings, Protocol):
    """The server settings a table reads (a subset of :class:`server.config.Config`): its game
    adapter's, and the table's own."""

    @property
    def grace_seconds(self) -> float: ...
    @property
    def round_pause(self) -> float: ...
    @property
    def bot_delay(self) -> float: ...
    @property
    def close_after_over(self) -> float: ...
    @property
    def bot_chips(self) -> int: ...
    @property
    def autopass_delay(self) -> float: ...
    @property
    def entropy_window(self) -> float: ...
    @property
    def offer_seconds(self) -> float: ...
    @property
    def time_bank(self) -> float: ...
    @property
    def time_bank_step(self) -> float: ...
