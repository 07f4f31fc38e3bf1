"""The refusals of a tournament: a typed error carrying a stable code, never prose.

A refused input changes nothing; the caller words the code in the reader's
language (``server/messages``), as it does a table's refusals.
"""

from __future__ import annotations

CODES = frozenset({
    "not_open",        # the event no longer takes entries (over, or too late for a Swiss round)
    "already_entered",  # join: already an active entrant
    "not_entered",     # leave: not an entrant (or already gone)
    "full",            # join: the event has its maximum of entrants
    "unknown_table",   # a result for a table this event did not open, or already reported
    "bad_result",      # a result whose seats or places do not fit its table
    "bad_config",      # an event's configuration that cannot run
})


class TournamentError(ValueError):
    """An input or a configuration refused: ``code`` (one of :data:`CODES`) and its facts."""

    def __init__(self, code: str, **facts: object) -> None:
        if code not in CODES:
            raise ValueError(f"unknown tournament error code {code!r}")
        super().__init__(code if not facts else f"{code}: {facts}")
        self.code = code
        self.facts = facts
