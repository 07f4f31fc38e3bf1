"""What goes into a :class:`~server.table.core.Table` and what comes out: plain data.

Inputs are a person's command (:class:`Command`), a connection coming back or
going (:class:`Connected`, :class:`Disconnected`), the end of the server
(:class:`Shutdown`) — and the time, passed to every call. Outputs
(:class:`Outputs`) are messages for audiences (:class:`Send`), changes of who is
in the room (:class:`Placed`, :class:`Gone`), seat claims to drop
(``released``), and at most one :data:`Effect` the table waits for: a chip
movement (the store's own operations, :data:`ChipOp`), a read, a seat claim, or a
bot's thinking. The caller performs the
effect and hands its result back with :meth:`Table.resume`; nothing else happens
to the table in between.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.api import Action, View
from engine.bots import Bot
from server.protocol import Args, Result, Shared
from server.storage.api import (
    FundBot,
    Hold,
    OpenRound,
    RefundRound,
    ReleaseBot,
    ReleaseHold,
    RoundRecord,
    SettleRound,
    Transfer,
)
from server.table.states import StateSet

# -- inputs --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Member:
    """A person as a table knows them."""

    key: str  # identity (the name's key)
    name: str  # display name
    account: str  # ledger account
    prefs: Mapping[str, bool] = field(default_factory=dict)  # autocut...
    seed: str | None = None  # a standing contribution to every deal (normalised text)
    hidden: bool = False  # ``hide``: spectators are not shown their name (only their seat)
    proof: str | None = field(default=None, repr=False)  # a guest's resume code, hashed (server/people/resume.py)


@dataclass(frozen=True, slots=True)
class Command:
    member: Member
    cmd: str
    args: Args
    req: object = None  # the caller's token for the reply (echoed in Reply / Refused)


@dataclass(frozen=True, slots=True)
class Connected:
    """The member's connection is (back) here, or wants its view drawn again."""

    member: Member


@dataclass(frozen=True, slots=True)
class Disconnected:
    member: Member


@dataclass(frozen=True, slots=True)
class Shutdown:
    """End now, giving back the chips of an unfinished round: the server stops (``reason``
    ``shutdown``), or the room is closed for another reason (``waited``: nobody came to play)."""

    reason: str = "shutdown"


Input = Command | Connected | Disconnected | Shutdown

# -- messages ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reply:
    """A command succeeded: its result fields (or None)."""

    req: object
    result: Result | None


@dataclass(frozen=True, slots=True)
class Refused:
    req: object
    code: str
    params: Mapping[str, object]  # the refusal's sentence parameters (CommandError.params)


Recipient = tuple[str, "int | None"]
"""A member's key and the seat it reads as (``None``: a spectator)."""


@dataclass(frozen=True, slots=True)
class Send:
    """``msg`` for each recipient, who reads it as its seat."""

    recipients: tuple[Recipient, ...]
    msg: Shared | StateSet | Reply | Refused


@dataclass(frozen=True, slots=True)
class Placed:
    """``member`` is in the room now: on ``seat``, or watching (``seat is None``)."""

    member: str
    seat: int | None


@dataclass(frozen=True, slots=True)
class Gone:
    """``member`` is no longer in the room (back in the lobby)."""

    member: str


@dataclass(frozen=True, slots=True)
class Released:
    """``account``'s seat claim ends (it holds no seat here any more)."""

    account: str


@dataclass(frozen=True, slots=True)
class Closed:
    """The table closed (after the members gone before it, before those it sends away)."""

    reason: str


# -- effects the table waits for -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Claim:
    """Take ``account``'s one seat of the server (result: None, or the id of the table holding it)."""

    account: str
    table: str


@dataclass(frozen=True, slots=True)
class Balance:
    """Read an account's chips (result: int)."""

    account: str


@dataclass(frozen=True, slots=True)
class Record:
    """A finished round for the history (``record``: a ``RoundRecord``)."""

    record: RoundRecord


@dataclass(frozen=True, slots=True)
class Think:
    """A bot too slow to decide inline (search): result ``bot.decide(view, legal)``."""

    bot: Bot
    view: View
    legal: Sequence[Action]


@dataclass(frozen=True, slots=True)
class Pause:
    """Let the rest of the server run before going on (result: None)."""


ChipOp = OpenRound | SettleRound | Transfer | Hold | ReleaseHold | RefundRound | FundBot | ReleaseBot
"""A chip movement the table waits for: the store's own operation (``store.apply``), as the table
asks for it. Results: :class:`~server.storage.api.RoundOpened` for ``OpenRound`` (the accounts
covered), the store's for the others (the table reads none of them)."""

CHIP_OPS = (OpenRound, SettleRound, Transfer, Hold, ReleaseHold, RefundRound, FundBot, ReleaseBot)

Effect = Claim | Balance | ChipOp | Record | Think | Pause

# -- outputs -------------------------------------------------------------------------------------


Item = Send | Placed | Gone | Released | Closed


@dataclass(slots=True)
class Outputs:
    """What one call to the table produced: ``items`` to carry out in order, and at most one
    effect the table waits for (perform it, then :meth:`Table.resume` with its result)."""

    items: list[Item] = field(default_factory=list)
    effect: Effect | None = None
    closed: str | None = None  # the table closed (reason)
