"""The social side of the storage contract: profiles, friends, offline messages, ratings.

Re-exported by :mod:`server.storage.api` (import them from there); the refusals
(``MailboxFull``, ``TooManyFriends``) are there with the other storage errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypedDict


@dataclass(frozen=True, slots=True)
class RatedRound:
    """What the ratings learn from one finished round (RULES P, T15, S10).

    ``scores``: the seats that played, each with its score (higher is better: the
    place's opposite, or the chips won); ``bots``: the seats a bot played, with the
    bot's rating key (``bot:LEVEL``). People are rated among people only; a bot
    among every entrant (its result never moves a person's rating). Guests are not
    rated."""

    game: str
    rules: str
    scores: Mapping[int, float]
    bots: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Rating:
    """One entrant's OpenSkill rating at one table kind; ``rating`` is what boards rank by."""

    name: str
    kind: str  # "player" | "bot"
    game: str
    rules: str
    mu: float
    sigma: float
    games: int

    @property
    def rating(self) -> float:
        """The conservative estimate OpenSkill ranks by (its ordinal): mu - 3 sigma."""
        return self.mu - 3.0 * self.sigma


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One rated round seen from one entrant."""

    round_id: str
    name: str
    game: str
    rules: str
    seat: int
    score: float
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    ts: float


@dataclass(frozen=True, slots=True)
class Profile:
    """What ``finger`` shows of an account besides its games: kept by :class:`Social`."""

    name: str
    registered: float  # when the account was made
    last_seen: float | None
    bio: str = ""
    hide_where: bool = False
    notify: bool = True


class TablePlayed(TypedDict):
    """One table kind an account played (``finger``): rounds as Président ``titles``, ``won`` matches."""

    game: str
    rules: str
    rounds: int
    matches: int
    titles: int
    won: int


@dataclass(frozen=True, slots=True)
class Letter:
    """An offline message waiting for its recipient's next login."""

    id: int
    sender: str
    text: str
    sent: float


class Social(Protocol):
    """Profiles, friends and offline messages of registered accounts."""

    async def profile(self, name: str) -> Profile | None:
        """A registered account's profile (defaults when it set nothing), or None."""
        ...

    async def set_profile(self, name: str, *, bio: str | None = None, hide_where: bool | None = None,
                          notify: bool | None = None) -> Profile: ...

    async def seen(self, name: str) -> None:
        """The account is seen now (logging in or out): ``last_seen``."""
        ...

    async def friends(self, name: str) -> list[str]:
        """The display names on ``name``'s list, in the order added."""
        ...

    async def add_friend(self, name: str, friend: str, *, limit: int) -> str:
        """Add a registered account (NoSuchAccount otherwise); its display name. At most ``limit``."""
        ...

    async def remove_friend(self, name: str, friend: str) -> bool: ...

    async def watchers(self, name: str) -> list[str]:
        """The name keys of the accounts that have ``name`` as a friend and want notices."""
        ...

    async def send_mail(self, sender: str, recipient: str, text: str, *, per_sender: int,
                        per_recipient: int) -> int:
        """Keep a message for ``recipient``'s next login (a registered account); its id.
        MailboxFull beyond ``per_sender`` waiting from that sender, or ``per_recipient`` in all."""
        ...

    async def take_mail(self, name: str) -> list[Letter]:
        """The messages waiting for ``name``, oldest first; they are gone from the store."""
        ...

    async def tables_played(self, name: str) -> list[TablePlayed]:
        """Per table kind the account played: ``game, rules, rounds, matches, titles`` (rounds as
        Président, deals won), ``won`` (matches won)."""
        ...


class Ratings(Protocol):
    async def of(self, name: str) -> list[Rating]:
        """Every table kind's rating of a player (or a bot: ``bot:LEVEL``)."""
        ...

    async def board(self, game: str, rules: str, limit: int = 10, *, min_games: int = 0,
                    kind: str = "player") -> list[Rating]:
        """The best ratings of a table kind among those with at least ``min_games`` rated games."""
        ...

    async def changes(self, name: str, limit: int = 20) -> list[RatingChange]:
        """The player's latest rating changes, newest first."""
        ...

    async def replace_all(self, ratings: Sequence[Rating], changes: Sequence[RatingChange]) -> None:
        """Recomputed from scratch: every rating and change replaced by these, in one transaction."""
        ...
