"""The engine match a table plays and its log: the actions applied, and what a durable table writes.

The engine is deterministic, so a match is its configuration and the actions applied to it
(invariant 3): :class:`MatchLog` applies each action and keeps it; undoing the last one (the
ledger refused the chips it moved) rebuilds the match from the log without it. A durable table
(:mod:`server.table.durable`) also keeps, from :meth:`MatchLog.keep_journal` on, the entries
its log needs: a match made, an action applied, an action undone.
"""

from __future__ import annotations

from engine.api import Action, Event, Match
from server.games.base import GameAdapter
from server.protocol import JSONObject


class MatchLog:
    """The match being played (None: none yet) and the actions applied to it, in order."""

    __slots__ = ("_adapter", "journal", "log", "match")

    def __init__(self, adapter: GameAdapter) -> None:
        self._adapter = adapter
        self.match: Match | None = None
        self.log: list[JSONObject] = []  # each action's to_dict()
        # a durable table: the entries its log needs, not taken yet (None: the table is not durable)
        self.journal: list[JSONObject] | None = None

    @property
    def current(self) -> Match:
        """The match being played (a step that needs one: there is one)."""
        match = self.match
        if match is None:
            raise RuntimeError("no match at this table")
        return match

    def keep_journal(self) -> None:
        """From now on, keep the entries a durable table's log needs."""
        if self.journal is None:
            self.journal = []

    def start(self, match: Match) -> None:
        """A new match (the first, or a rematch): the log starts again from its configuration."""
        self.match = match
        self.log = []
        if self.journal is not None:
            self.journal.append({"k": "m", "config": match.config})

    def clear(self) -> None:
        """No match (a finished table waiting for its rematch's players)."""
        self.match = None
        self.log = []

    def restore(self, match: Match, log: list[JSONObject]) -> None:
        """The match and its log as a stored table's log rebuilt them (nothing to journal: it is written)."""
        self.match = match
        self.log = log

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Apply one action to the match (raises ``Refusal``, changing nothing); its events."""
        assert self.match is not None, "no match to apply an action to"
        events = tuple(self.match.apply(action))
        entry = action.to_dict()
        self.log.append(entry)
        if self.journal is not None:
            self.journal.append({"k": "a", "a": entry})
        return events

    def revert_last(self) -> None:
        """Undo the last action: the match rebuilt from its log without it (invariant 3)."""
        assert self.match is not None
        self.log.pop()
        self.match = self._adapter.replay(self.match.config, self.log)
        if self.journal is not None:
            self.journal.append({"k": "u"})
