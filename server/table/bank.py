"""A person's time bank: seconds they may add to their clocks during one match.

Like a chess clock's reserve or a card site's extra time: each person at a table
has ``time_bank`` seconds per match; ``extend`` takes ``time_bank_step`` seconds of it
(or what is left) and adds them to every clock that waits for that person — their own
decision, an offer put to them, and the time everyone at the table is given when they
play in the round (an auction, people's window). The bank is counted by person (a
person who leaves and sits down again in the same match finds it as they left it)
and starts full with every match. It is the table's state: everyone sees each
person's reserve (``seats[].bank``).
"""

from __future__ import annotations


class TimeBank:
    """The seconds each person has used of their bank in this match."""

    __slots__ = ("_used", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = max(0.0, seconds)
        self._used: dict[str, float] = {}  # person's key -> seconds used in this match

    def reset(self) -> None:
        """A new match: every bank full again."""
        self._used.clear()

    def left(self, person: str) -> float:
        return max(0.0, self.seconds - self._used.get(person, 0.0))

    def take(self, person: str, want: float) -> float:
        """Up to ``want`` seconds out of ``person``'s bank: what they got (0: nothing left)."""
        got = max(0.0, min(want, self.left(person)))
        if got > 0:
            self._used[person] = self._used.get(person, 0.0) + got
        return got
