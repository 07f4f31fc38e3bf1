"""Seeks and challenges: a table asked for before anyone sits, as data with explicit times.

A **seek** (``seek president tdc 4 stake=10``) is open to everyone in the lobby: the
first people who accept take its seats; when the last seat a person needs is taken
the table opens with all of them seated. With ``fill`` a seek that lapses with at
least one person besides its owner opens all the same, its empty seats taken by
bots. A **challenge** (``challenge bob president classic 4``) is a seek for one
person: when they accept, the table opens for the two of them (the other seats:
bots). Each owner has at most one open seek or challenge, and its table counts against its owner's
room limits (``server.operations.limits.RoomSlots``) from the moment it is made. :class:`Seeks` holds them
and says which lapse when (the lobby arms one timer for the next deadline); it
never reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.games import TableOptions
from server.operations.limits import Opener
from server.protocol import Args, JSONValue


@dataclass(eq=False, slots=True)
class Seek:
    id: int
    owner: str  # display name
    owner_key: str
    args: dict[str, JSONValue]  # the create arguments, checked (``opts``)
    opts: TableOptions
    expires: float
    to: str | None = None  # a challenge: the name key of the person challenged
    to_name: str | None = None
    fill: bool = False
    accepted: list[str] = field(default_factory=list)  # name keys, in the order they accepted
    names: dict[str, str] = field(default_factory=dict)  # name key -> display name
    opener: Opener | None = None  # who opens its table (its owner's account and address): the room limits

    @property
    def challenge(self) -> bool:
        return self.to is not None

    @property
    def people(self) -> int:
        """How many people the table seats (its owner included): the seats bots do not take."""
        return self.opts.seats - self.opts.bots

    @property
    def missing(self) -> int:
        return self.people - 1 - len(self.accepted)

    def visible_to(self, key: str) -> bool:
        return self.to is None or key in (self.to, self.owner_key)

    def summary(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {"seek": self.id, "name": self.owner, "game": self.opts.game, "rules": self.opts.rules,
                               "seats": self.opts.seats, "bots": self.opts.bots, "bot_level": self.opts.bot_level,
                               "turn_seconds": self.opts.turn_seconds, "stake": self.opts.stake,
                               "ante": self.opts.ante, "rounds": self.opts.rounds,
                               "options": {k: v for k, v in self.opts.extra.items() if k != "rated"},
                               "rated": bool(self.opts.extra.get("rated")), "fill": self.fill,
                               "missing": self.missing, "accepted": [self.names[k] for k in self.accepted]}
        if self.to_name is not None:
            out["to"] = self.to_name
        return out


class Seeks:
    """The open seeks and challenges of one lobby."""

    def __init__(self) -> None:
        self._open: dict[int, Seek] = {}
        self._next = 1

    def __len__(self) -> int:
        return len(self._open)

    def add(self, owner: str, owner_key: str, args: Args, opts: TableOptions, expires: float, *,
            to: str | None = None, to_name: str | None = None, fill: bool = False,
            opener: Opener | None = None) -> Seek:
        seek = Seek(self._next, owner, owner_key, dict(args), opts, expires, to, to_name, fill, opener=opener)
        seek.names[owner_key] = owner
        self._next += 1
        self._open[seek.id] = seek
        return seek

    def get(self, seek_id: int) -> Seek | None:
        return self._open.get(seek_id)

    def openers(self) -> list[Opener | None]:
        """Who would open the tables of the open seeks and challenges (``RoomSlots.refusal``'s pending)."""
        return [s.opener for s in self._open.values()]

    def owned_by(self, key: str) -> Seek | None:
        return next((s for s in self._open.values() if s.owner_key == key), None)

    def visible(self, key: str) -> list[Seek]:
        """The seeks ``key`` may accept or sees as its own, oldest first."""
        return [s for s in self._open.values() if s.visible_to(key)]

    def offered_to(self, key: str) -> list[Seek]:
        """What ``key`` may accept now: challenges to them and others' seeks they have not joined."""
        return [s for s in self._open.values()
                if s.owner_key != key and s.visible_to(key) and key not in s.accepted]

    def remove(self, seek: Seek) -> None:
        self._open.pop(seek.id, None)

    def accept(self, seek: Seek, key: str, name: str) -> bool:
        """``key`` takes a seat of the seek; True when every seat a person needs is taken."""
        if key not in seek.accepted:
            seek.accepted.append(key)
            seek.names[key] = name
        return seek.missing <= 0

    def drop(self, key: str) -> tuple[list[Seek], list[Seek]]:
        """``key`` is gone: their own seeks end (returned first), their acceptances are withdrawn
        (the seeks they had accepted, second)."""
        own = [s for s in self._open.values() if s.owner_key == key or s.to == key]
        for seek in own:
            self.remove(seek)
        left = [s for s in self._open.values() if key in s.accepted]
        for seek in left:
            seek.accepted.remove(key)
        return own, left

    def next_deadline(self) -> float | None:
        return min((s.expires for s in self._open.values()), default=None)

    def expire(self, now: float) -> list[Seek]:
        """The seeks whose time is up at ``now``, removed."""
        due = [s for s in self._open.values() if s.expires <= now]
        for seek in due:
            self.remove(seek)
        return due
