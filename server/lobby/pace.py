"""How often one person may reach others: tells, challenges, seeks, and the costly ``verify``.

Each kind has a budget per sender and, for what is aimed at one person (tells,
challenges), one per recipient: ten guests taking turns cannot bury one person
in tells, and one person cannot bury everyone. A sender is an account, or for a
guest its address (:func:`server.operations.limits.address_key`): guest names are free, so
the guests of one address share one budget. A recipient's budget counts only
what comes from people they have not told anything this connection: a
conversation they take part in is never held up by strangers flooding them.

``verify`` recomputes a deal (milliseconds of CPU each): a budget per player
and one per address (three times the player's), and one at a time
(:attr:`Pace.verifying`), and recent replies are kept (:attr:`Pace.verified`);
``replay`` recomputes a round too, and has budgets of its own with the same
numbers, the same one-at-a-time and its own kept replies (:attr:`Pace.replayed`).
Refusals are ``rate_limited`` with a ``reason``
(``tells``, ``tells_to`` with the ``name``, ``challenges``, ``challenges_to``,
``seeks``, ``verify``, ``replay``), worded in every language (``server/messages/pace.py``).

Pure but for the clock, which is passed in (the commands give ``time.monotonic()``).
"""

from __future__ import annotations

import asyncio
import collections
from typing import TYPE_CHECKING, Generic, TypeVar

from server.operations.limits import Budgets, address_key
from server.people.players import Player
from server.protocol import CommandError, JSONValue

if TYPE_CHECKING:
    from server.config import Config

K = TypeVar("K")
V = TypeVar("V")

SPOKEN = "spoke_to"
"""``Player.extra`` key: the name keys this connection told something (newest last, at most
:data:`SPOKEN_MAX`); they reach the player past its recipient's budget."""

SPOKEN_MAX = 64


def sender(player: Player) -> str:
    """Whose budget ``player`` spends: its account, or (a guest) its connection's address."""
    if not player.guest:
        return "@" + player.key
    session = player.session
    peer = str(getattr(getattr(session, "conn", None), "peer", "") or "?")
    return address_key(peer)


def address_of(player: Player) -> str:
    session = player.session
    return address_key(str(getattr(getattr(session, "conn", None), "peer", "") or "?"))


def spoke(player: Player, to: Player) -> None:
    """``player`` told ``to`` something: from now on ``to`` reaches ``player`` past its budget."""
    spoken = player.extra.get(SPOKEN)
    if not isinstance(spoken, dict):
        spoken = player.extra[SPOKEN] = {}
    spoken.pop(to.key, None)
    spoken[to.key] = True
    while len(spoken) > SPOKEN_MAX:
        del spoken[next(iter(spoken))]


def _in_conversation(to: Player, me: Player) -> bool:
    spoken = to.extra.get(SPOKEN)
    return isinstance(spoken, dict) and me.key in spoken


class Recent(Generic[K, V]):
    """The last ``size`` values put, by key (the least recently used go first)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: collections.OrderedDict[K, V] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._values)

    def get(self, key: K) -> V | None:
        value = self._values.get(key)
        if value is not None:
            self._values.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self.size:
            self._values.popitem(last=False)


class Pace:
    """The budgets of one server (or node), from its configuration (``[limits]``, ``docs/server.md``)."""

    def __init__(self, config: Config) -> None:
        def budget(kind: str, times: int = 1) -> Budgets:
            return Budgets(getattr(config, f"{kind}_per_minute") * times, getattr(config, f"{kind}_burst") * times)

        self.tells = budget("tells")
        self.tells_received = budget("tells_received")
        self.challenges = budget("challenges")
        self.challenges_received = budget("challenges_received")
        self.seeks = budget("seeks")
        self.logins = budget("logins")
        self.verify_player = budget("verify")
        self.verify_address = budget("verify", 3)
        self._verifying: asyncio.Semaphore | None = None
        self.verified: Recent[tuple[str, int | None, str], dict[str, JSONValue]] = Recent(256)
        """Recent ``verify`` replies by (round, seat, fingerprint of the stored record)."""
        self.replay_player = budget("verify")  # ``replay`` recomputes a round too: the same numbers
        self.replay_address = budget("verify", 3)
        self.replayed: Recent[tuple[str, str], dict[str, JSONValue]] = Recent(32)
        """Recent ``replay`` replies by (round, fingerprint of the stored record): the same for all."""

    def tell(self, me: Player, to: Player, now: float) -> None:
        """A tell (``reply``, a ``message`` told at once) from ``me`` to ``to``, or ``rate_limited``."""
        self._aimed(self.tells, self.tells_received, "tells", me, to, now)

    def message(self, me: Player, now: float) -> None:
        """An offline message from ``me`` (kept for later: only the sender's budget)."""
        if not self.tells.take(sender(me), now):
            raise CommandError("rate_limited", reason="tells")

    def challenge(self, me: Player, to: Player, now: float) -> None:
        self._aimed(self.challenges, self.challenges_received, "challenges", me, to, now)

    def seek(self, me: Player, now: float) -> None:
        if not self.seeks.take(sender(me), now):
            raise CommandError("rate_limited", reason="seeks")

    def login(self, key: str, now: float) -> None:
        """A login to the account ``key`` with a password (a hash of CPU each, right or wrong)."""
        if not self.may_login(key, now):
            raise CommandError("rate_limited", reason="logins")

    def may_login(self, key: str, now: float) -> bool:
        """Whether a password login to the account ``key`` is within its budget (taking it), for
        the doors that refuse without a reply (SSH's password methods)."""
        return self.logins.take(key, now)

    def verify(self, me: Player, now: float) -> None:
        """One ``verify`` of ``me``: its own budget and its address's (everyone's from there)."""
        self._costly(self.verify_player, self.verify_address, "verify", me, now)

    def replay(self, me: Player, now: float) -> None:
        """One ``replay`` of ``me``: budgets of their own, as many as ``verify``'s."""
        self._costly(self.replay_player, self.replay_address, "replay", me, now)

    @staticmethod
    def _costly(player: Budgets, by_address: Budgets, reason: str, me: Player, now: float) -> None:
        address = address_of(me)
        if not (player.ready(me.key, now) and by_address.ready(address, now)):
            raise CommandError("rate_limited", reason=reason)
        player.take(me.key, now)
        by_address.take(address, now)

    @property
    def verifying(self) -> asyncio.Semaphore:
        """One ``verify`` computed at a time: a crowd of them queues rather than takes every core."""
        if self._verifying is None:
            self._verifying = asyncio.Semaphore(1)
        return self._verifying

    @staticmethod
    def _aimed(out: Budgets, into: Budgets, kind: str, me: Player, to: Player, now: float) -> None:
        """Both budgets are checked before either is spent: a refusal costs nothing."""
        key = sender(me)
        counted = not _in_conversation(to, me)
        if not out.ready(key, now):
            raise CommandError("rate_limited", reason=kind)
        if counted and not into.ready(to.key, now):
            raise CommandError("rate_limited", reason=kind + "_to", name=to.name)
        out.take(key, now)
        if counted:
            into.take(to.key, now)


__all__ = ["SPOKEN", "Pace", "Recent", "address_of", "sender", "spoke"]
