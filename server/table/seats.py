"""A seat of a table: who sits there (a person, a bot, nobody) and on which account."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.bots import Bot


@dataclass(eq=False, slots=True)
class Seat:
    index: int
    name: str | None = None  # display name
    account: str | None = None  # ledger account (people: their name; bots: their bot account)
    member: str | None = None  # the key of the person sitting here (None: a bot or nobody)
    present: bool = False  # the person's connection is up
    prefs: dict[str, bool] = field(default_factory=dict)  # the person's automatic moves (autocut)
    bot: Bot | None = None  # the engine bot playing this seat (bots, and people replaced after leaving)
    bot_display: str | None = None  # ledger display name of a funded bot
    grace_until: float | None = None  # disconnected person: the seat is kept until then
    leaving: bool = False  # the person left; the seat ends with the round being played
    departed: str | None = None  # who left (leaving): told how the round ended for them
    optional_actions: int = 0  # this round's actions nobody waited for (offers, cuts...)
    substitute: bool = False  # the bot plays for a person who left (not one of the table's own bots)
    seed: str | None = None  # the person's standing contribution to every deal (``seed``, docs/fairness.md)
    arrived: int = 0  # the table's count of arrivals when this player sat down (T12: newcomers)
    hidden: bool = False  # the person hides where they sit (``hide``): spectators see the seat, not the name
    proof: str | None = field(default=None, repr=False)  # a guest's resume code, hashed: who may take it back

    @property
    def empty(self) -> bool:
        """Free for someone to sit: no person, no bot, nobody finishing a round on it."""
        return self.member is None and self.bot is None and not self.leaving

    @property
    def human(self) -> bool:
        return self.member is not None

    @property
    def connected(self) -> bool:
        if self.member is not None:
            return self.present
        return self.bot is not None

    def clear(self) -> None:
        """Nobody sits here any more."""
        self.name = self.account = self.member = self.bot_display = None
        self.bot = None
        self.present = self.leaving = self.substitute = False
        self.departed = None
        self.grace_until = None
        self.prefs = {}
        self.seed = None
        self.arrived = 0
        self.hidden = False
        self.proof = None
