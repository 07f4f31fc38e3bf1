"""Answer clocks: a question put to a person waits for the answer on its own clock.

A question is something the game asks of one seat out of turn, which stays open
until that seat answers it (Speculation: an offer for the seller's face-down cards,
S9). The adapter says which are open (:meth:`~server.games.base.GameAdapter.questions`);
for each one put to a person, :class:`AnswerClocks` keeps when its time runs out.
Meanwhile that person's own decisions do not time out (their top card is not
turned for them, which would make the offer lapse, S12d): they read and decide.
When a clock runs out, the table answers for the person (the adapter's
:meth:`~server.games.base.GameAdapter.question_timeout`: the offer is declined).
Questions put to bots have no clock: bots answer after their usual pause; nor
have those put to a person whose connection is down (a run of offers to someone
away would otherwise hold the table up: their card is turned by its clock).

The clocks are the table's state, the same for everyone who can see the question.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping


class AnswerClocks:
    """When each open question put to a person must be answered (see the module's documentation)."""

    __slots__ = ("_due",)

    def __init__(self) -> None:
        self._due: dict[Hashable, tuple[int, float]] = {}  # question -> (the seat asked, when its time is up)

    def __bool__(self) -> bool:
        return bool(self._due)

    def refresh(self, open_now: Mapping[Hashable, int], person: Callable[[int], bool], now: float,
                seconds: float) -> bool:
        """The questions open now (question -> the seat asked): a clock starts for each new one put
        to a person (returns whether one did); those no longer open are forgotten."""
        due = self._due
        for key in [k for k in due if k not in open_now]:
            del due[key]
        started = False
        if seconds <= 0:
            return started
        for key, seat in open_now.items():
            if key not in due and person(seat):
                due[key] = (seat, now + seconds)
                started = True
        return started

    def clear(self) -> None:
        self._due.clear()

    def extend(self, seat: int, seconds: float) -> bool:
        """More time on every clock of the questions put to ``seat``; whether there was one."""
        keys = [k for k, (s, _) in self._due.items() if s == seat]
        for key in keys:
            s, until = self._due[key]
            self._due[key] = (s, until + seconds)
        return bool(keys)

    @property
    def wake(self) -> float | None:
        """The earliest time a clock runs out."""
        return min((until for _, until in self._due.values()), default=None)

    def held_until(self, seat: int) -> float | None:
        """The latest clock of the questions put to ``seat``: its own decisions wait at least until then."""
        return max((until for s, until in self._due.values() if s == seat), default=None)

    def left(self, key: Hashable, now: float) -> float | None:
        got = self._due.get(key)
        return None if got is None else round(max(0.0, got[1] - now), 1)

    def expired(self, now: float) -> Iterator[tuple[Hashable, int]]:
        """The questions whose time is up (forgotten as they are given)."""
        for key, (seat, until) in sorted(self._due.items(), key=lambda item: item[1][1]):
            if now >= until and key in self._due:
                del self._due[key]
                yield key, seat
