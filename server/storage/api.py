"""The storage contract the rest of the server codes against (its social side: ``api_social``).

Rooms and commands never see SQL: they call these async methods. The SQLite
backend (``server/storage/sqlite/``) is the default; the PostgreSQL backend
(``server/storage/postgres/``) implements the same Protocols; both share the
SQL of ``server/storage/sql/``. ``docs/storage.md`` describes the operations.

One atomic operation API: ``await store.apply([op, ...])`` performs a
sequence of the operation records below (:class:`OpenRound`,
:class:`SettleRound`, :class:`Transfer`, :class:`RefundRound`, :class:`Hold`,
:class:`ReleaseHold`, :class:`FundBot`, :class:`ReleaseBot`,
:class:`TableOpened`, :class:`TableLog`, :class:`TableClosed`, :class:`Fence`; a tournament's
:class:`TournamentOpened`, :class:`TournamentLog`, :class:`TournamentTable`, :class:`TournamentClosed`) in ONE
transaction: all of them or none (a refusal raises its :class:`StorageError`
and nothing changed). It returns one result per operation, in order (see
:data:`OpResult`). The older methods below are one-operation ``apply`` calls.

Chips: every movement is a ledger entry written in one transaction.
* Staked rounds (tdc T13) and Speculation deals (S3) put their chips into an
  escrow keyed by a round id with :meth:`Ledger.open_round`, and pay it out
  with :meth:`Ledger.settle_round` exactly once (a second call with the same
  id is a no-op that returns False).
* Auction and trade prices (S7, S9) are direct :meth:`Ledger.transfer`\\ s.
* :meth:`Ledger.refund_unsettled` runs at start: escrows of rounds that never
  settled (crash, ``kill -9``) go back to their payers.
* :meth:`Ledger.audit` proves balances + escrows = chips ever granted − chips
  retired (guest balances are retired when the guest leaves).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

from server.protocol import JSONValue
from server.storage.api_social import Letter as Letter
from server.storage.api_social import Profile as Profile
from server.storage.api_social import RatedRound as RatedRound
from server.storage.api_social import Rating as Rating
from server.storage.api_social import RatingChange as RatingChange
from server.storage.api_social import Ratings as Ratings
from server.storage.api_social import Social as Social
from server.storage.api_social import TablePlayed as TablePlayed
from server.storage.api_tournaments import StoredTournament as StoredTournament
from server.storage.api_tournaments import TournamentClosed as TournamentClosed
from server.storage.api_tournaments import TournamentLog as TournamentLog
from server.storage.api_tournaments import TournamentOpened as TournamentOpened
from server.storage.api_tournaments import TournamentTable as TournamentTable
from server.storage.api_tournaments import fence_key as fence_key
from server.storage.moderation import BAN_KINDS as BAN_KINDS  # re-exported: the whole contract is here
from server.storage.moderation import ROLES as ROLES
from server.storage.moderation import Ban as Ban
from server.storage.moderation import ModEntry as ModEntry
from server.storage.moderation import Moderation as Moderation
from server.storage.moderation import Mute as Mute
from server.storage.moderation import Refusal as Refusal
from server.storage.moderation import Standing as Standing
from server.storage.moderation import role_rank as role_rank


class StorageError(Exception):
    """Base of storage refusals; ``code`` is a protocol error code."""

    code = "not_allowed"


class ToolRefused(StorageError):
    """An operator's storage tool (``donne backup``, ``donne migrate``) will not run as asked: nothing
    was done."""


class Unreachable(StorageError):
    """The database could not be reached (nothing was done): an outage, not a refusal."""

    code = "server_trouble"


class InsufficientChips(StorageError):
    """An account cannot cover a stake, a transfer or a hold from its *available* chips.

    ``account``: the first account that was short; ``names``: all of them (a round)."""

    code = "insufficient_chips"

    def __init__(self, message: str = "", *, account: str | None = None, names: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.names: list[str] = list(names) or ([account] if account is not None else [])
        self.account: str | None = account if account is not None else (self.names[0] if self.names else None)


class AlreadyStaked(InsufficientChips):
    """Kept for callers that name it; no longer raised: an account may be staked in several unsettled
    rounds (a seat its person left plays its round out on their stake while they sit elsewhere)."""


class NameTaken(StorageError):
    code = "name_taken"


class BadName(StorageError):
    code = "bad_name"


class BadPassword(StorageError):
    code = "bad_password"


class NoSuchAccount(StorageError):
    code = "no_such_account"


class GuestsForbidden(StorageError):
    """This server admits registered accounts only (``allow_guests = false``)."""

    code = "account_needed"


class UnknownRound(StorageError):
    code = "not_allowed"


class RoundNotOpen(StorageError):
    """A round-scoped movement or hold for a round that is settled or voided."""

    code = "not_allowed"


class UnknownHold(StorageError):
    code = "not_allowed"


class UnknownTable(StorageError):
    code = "not_allowed"


class BadSequence(StorageError):
    """A table log append that leaves a gap or overlaps what is stored."""

    code = "bad_argument"


class StaleOwner(StorageError):
    """A write for a table whose fencing token (its owner's lease epoch, :class:`Fence`) is not the
    table's current one: another node took the table over. Nothing was written. ``current``: the
    table's epoch in the database."""

    code = "table_moved"

    def __init__(self, message: str = "", *, current: int = 0) -> None:
        super().__init__(message)
        self.current = current


class BadRecord(StorageError):
    """A table record that cannot be stored (not JSON, a bad status, a table opened twice)."""

    code = "bad_argument"


class TooManyRegistrations(StorageError):
    """More new accounts from one address in an hour than ``registrations_per_hour``."""

    code = "too_many_registrations"


class BadKey(StorageError):
    code = "bad_argument"


class MailboxFull(StorageError):
    """Too many offline messages waiting: from this sender for this recipient, or for the recipient."""

    code = "mailbox_full"


class TooManyFriends(StorageError):
    code = "too_many_friends"


class BadAmount(StorageError):
    """A negative or zero amount, payouts that do not add up, a round opened twice."""

    code = "bad_argument"


class RegistrationClosed(StorageError):
    """This server takes no new accounts (``allow_registration = false``)."""

    code = "registration_closed"


class Forbidden(StorageError):
    """A moderation action its target's role or situation does not allow (an admin's account, one's
    own, a guest's name where an account is needed, an account in the middle of a round)."""

    code = "forbidden"


class NoSuchBan(StorageError):
    """Nothing to lift: no active ban (or mute) of that target."""

    code = "no_such_ban"


# System accounts: names no player can take (player names never contain ":").
HOUSE = "bot:house"  # the bankroll bots play from; granted once, like any account
BOT_PREFIX = "bot:"  # a bot's own account is BOT_PREFIX + its display name, funded by the house


def bot_account(display_name: str) -> str:
    """The ledger name of a bot seated as ``display_name``."""
    return BOT_PREFIX + display_name


def table_bots(table_id: str) -> str:
    """How the ledger names of a table's bots begin: a table's bots are seated as
    ``TABLE-...`` (``bot:r12-ab12cd34-2``), so a restart knows which bots' chips stay at a table
    that resumes and which go home."""
    return f"{BOT_PREFIX}{table_id}-"


@dataclass(frozen=True, slots=True)
class Account:
    name: str  # display form, as registered (or as the guest typed it, cleaned)
    guest: bool
    chips: int


@dataclass(frozen=True, slots=True)
class Audit:
    ok: bool
    balances: int  # sum of all balances
    escrow: int  # sum of all open escrows (stakes and pools)
    granted: int  # chips ever granted
    retired: int  # chips taken back (guest sessions ended)
    problems: tuple[str, ...] = ()  # what failed, one sentence each (empty when ok)
    held: int = 0  # chips reserved by holds (part of the balances)
    tables_aside: tuple[tuple[str, str], ...] = ()  # (table_id, reason) of tables set aside
    tables_unfinished: tuple[str, ...] = ()  # tables neither over nor set aside
    admin_granted: int = 0  # part of granted: chips an admin granted (``chips``, ``donne admin chips``)
    admin_retired: int = 0  # part of retired: chips an admin retired from an account
    rounds_stuck: tuple[tuple[str, int], ...] = ()  # (round_id, age in seconds): open longer than the bound


@dataclass(frozen=True, slots=True)
class AuditSummary:
    """The O(1) audit from maintained totals (what players may ask; the full audit is an operator's)."""

    ok: bool  # balances + escrow == granted - retired, and holds within balances
    balances: int
    escrow: int
    granted: int
    retired: int
    held: int
    problems: tuple[str, ...] = ()


# --------------------------------------------------------------------------- operations for apply()


@dataclass(frozen=True, slots=True)
class OpenRound:
    """Escrow each account's stake (T13 stakes, S3 antes) from its available chips.

    ``partial=False``: all or nothing (:class:`InsufficientChips` naming who is short).
    ``partial=True``: escrow every stake that can be covered, skip the others
    (T13: who cannot cover the stake sits the round out); the result says who.
    An account may be staked in other unsettled rounds too (a seat its person left
    is played out on their stake): each stake comes from the available chips.
    Result: :class:`RoundOpened`."""

    round_id: str
    stakes: Mapping[str, int]
    table: str | None = None
    partial: bool = False


@dataclass(frozen=True, slots=True)
class RoundOpened:
    round_id: str
    covered: tuple[str, ...]  # the names (as given in stakes) whose stake is in escrow
    skipped: tuple[str, ...] = ()  # the names that could not cover it (partial only)
    escrow: int = 0


@dataclass(frozen=True, slots=True)
class SettleRound:
    """Pay an open round's escrow out (payouts >= 0 summing to the escrow). Exactly once.

    Result: True when settled now, False when it was already settled or voided.
    Round-scoped transfers stay; the round's holds are released."""

    round_id: str
    payouts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class RefundRound:
    """Void an open round: its stakes go back AND every transfer scoped to it is reversed.

    Every account is then exactly as before the round. Result: True when voided
    now, False when already settled or voided (idempotent)."""

    round_id: str


@dataclass(frozen=True, slots=True)
class Transfer:
    """``amount`` chips from ``src`` to ``dst`` (S7 auction, S9 trade prices). Result: None.

    ``round_id``: the transfer belongs to that open round (reversed if it is voided;
    the receiver cannot spend those chips outside the round until it settles).
    ``hold_id``: paid from that hold of ``src`` (amount <= the hold), which is consumed;
    a hold of a round makes the transfer belong to that round."""

    src: str
    dst: str
    amount: int
    reason: str
    round_id: str | None = None
    hold_id: str | None = None
    ref: str = ""


@dataclass(frozen=True, slots=True)
class Hold:
    """Reserve ``amount`` of an account's available chips (an open Speculation offer's price).

    Result: None. Released by :class:`ReleaseHold`, consumed by a Transfer with its
    ``hold_id``, released when its round settles or is voided, and at start."""

    hold_id: str
    account: str
    amount: int
    round_id: str | None = None


@dataclass(frozen=True, slots=True)
class ReleaseHold:
    """Result: True when released now, False when there was no such hold (idempotent)."""

    hold_id: str


@dataclass(frozen=True, slots=True)
class FundBot:
    """Top the bot's account up (or down) to ``chips`` from the house. Result: :class:`Account`."""

    display: str
    chips: int


@dataclass(frozen=True, slots=True)
class ReleaseBot:
    """Give the bot's available chips back to the house. Result: how many (int)."""

    display: str


@dataclass(frozen=True, slots=True)
class TableOpened:
    """A new table and its configuration (JSON-able). Result: None."""

    table_id: str
    config: Mapping[str, JSONValue]


@dataclass(frozen=True, slots=True)
class TableLog:
    """Append ``entries`` (JSON-able dicts) numbered from ``seq`` (refused: a gap or an overlap).

    Result: the next sequence number (``seq + len(entries)``)."""

    table_id: str
    seq: int
    entries: Sequence[Mapping[str, JSONValue]]


@dataclass(frozen=True, slots=True)
class TableClosed:
    """The table is finished (``over``) or set aside (``aside``: could not be replayed...).

    Setting a table aside also voids its unsettled rounds (every chip movement of them undone,
    their holds released) and sends its bots' chips home (:func:`table_bots`), in the same
    transaction. Result: True when closed now, False when it was already closed."""

    table_id: str
    status: Literal["over", "aside"]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Fence:
    """A cluster owner's fencing token for ``table_id``: its lease epoch (``docs/cluster.md``).

    Checked in the transaction of the operations it comes with (first in the list): the table's
    row of fences is locked and compared, so a write of a node that lost the table is refused by
    the database itself (:class:`StaleOwner`) and the whole ``apply`` with it.

    ``take=False`` (every write of an owner): accepted when the table's epoch is ``epoch`` (or the
    table has none yet: it is set). ``take=True`` (a node taking the table over, before it reads
    the log): the table's epoch is raised to ``epoch``, refused unless it was lower; from then on
    the former owner's writes are refused. Result: the table's epoch before (0: none).
    PostgreSQL only (a cluster's store); the one-process SQLite store refuses it."""

    table_id: str
    epoch: int
    take: bool = False


Op = (OpenRound | SettleRound | RefundRound | Transfer | Hold | ReleaseHold | FundBot | ReleaseBot
      | TableOpened | TableLog | TableClosed | Fence
      | TournamentOpened | TournamentLog | TournamentTable | TournamentClosed)
OP_TYPES: tuple[type, ...] = (OpenRound, SettleRound, RefundRound, Transfer, Hold, ReleaseHold, FundBot,
                              ReleaseBot, TableOpened, TableLog, TableClosed, Fence,
                              TournamentOpened, TournamentLog, TournamentTable, TournamentClosed)
# What apply() returns for each operation, in order: RoundOpened | bool | None | Account | int.
OpResult = RoundOpened | Account | bool | int | None
R = TypeVar("R", RoundOpened, Account, bool, int)


def first_result(results: Sequence[OpResult], kind: type[R]) -> R:
    """The first operation's result, of the kind that operation gives (``FundBot``: an ``Account``)."""
    result = results[0]
    if not isinstance(result, kind):
        raise TypeError(f"an operation gave {type(result).__name__}, not {kind.__name__}")
    return result


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A durable table: its configuration and log, as the server appended them."""

    table_id: str
    config: Mapping[str, JSONValue]
    entries: Sequence[Mapping[str, JSONValue]]
    opened_at: float
    status: str = "open"  # open | over | aside
    reason: str = ""
    closed_at: float | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the ledger: a signed chip movement on one account."""

    id: int
    ts: float
    account: str
    delta: int
    kind: str  # grant | retire | stake | payout | refund | transfer
    round_id: str | None = None
    ref: str = ""


MATCH_SUFFIX = "-match"
"""A record whose round id ends so is a whole match's result (the ``match_over`` event)."""


def is_match(round_id: str) -> bool:
    return round_id.endswith(MATCH_SUFFIX)


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One finished round or deal, enough to replay it through the engine; or a finished match
    (round id ending in :data:`MATCH_SUFFIX`, ``result`` its ``match_over`` event)."""

    round_id: str
    game: str  # "president" | "speculation"
    rules: str  # "classic" | "tdc" | "speculation"
    seats: Sequence[str]  # names, by seat number
    config: Mapping[str, JSONValue]  # what the match was created with (seats, stake, ante, rounds, ...)
    log: Sequence[Mapping[str, JSONValue]]  # the engine actions (to_dict()) from match start to this round's end
    result: Mapping[str, JSONValue]  # the round_over / deal_over / match_over event (to_dict())
    commitment: str = ""
    finished_at: float = 0.0
    extra: Mapping[str, JSONValue] = field(default_factory=dict)

    @property
    def match(self) -> Mapping[str, JSONValue]:
        """What the match was made with, as its adapter reads it (``config["match"]``, else empty)."""
        match = self.config.get("match")
        return match if isinstance(match, Mapping) else {}


@dataclass(frozen=True, slots=True)
class Played:
    """One record seen from one player's seat: the record (without its log) and the figures the
    history keeps for that seat, those the standings add up."""

    record: RoundRecord
    seat: int
    points: int  # classic points (P14); a match: its total
    chips: int  # the chip change (never a balance); a match: over the match, when the engine says
    president: bool  # this seat was Président (Speculation: won the pool)


class Accounts(Protocol):
    async def exists(self, name: str, *, fresh: bool = False) -> bool: ...

    async def register(
        self, name: str, password: str, *, replacing_guest: str | None = None, address: str = ""
    ) -> Account:
        """A new account with the starting grant (``replacing_guest``: retire that live guest first,
        in the same transaction, so a guest can register the name he plays under).

        ``address`` (the client's IP): at most ``registrations_per_hour`` new accounts
        per address per hour (:class:`TooManyRegistrations`); empty: not counted."""
        ...

    async def verify_password(self, name: str, password: str, address: str = "") -> Account | None:
        """The account when the password is right; None otherwise (slowed down and logged).

        ``address`` (the client's IP) feeds the per-address back-off; it may be empty."""
        ...

    async def get(self, name: str) -> Account | None:
        """The live account of that name (registered, guest or system), or None."""
        ...

    async def login_guest(self, name: str) -> Account:
        """A guest with a temporary grant; refused (NameTaken) when the name is registered."""
        ...

    async def logout_guest(self, name: str) -> None:
        """Retire what is left of a guest's chips (an entry, never a silent delete)."""
        ...

    async def add_key(self, name: str, public_key: str) -> None: ...

    async def keys(self, name: str) -> list[str]: ...

    async def remove_key(self, name: str, public_key: str) -> bool:
        """Remove one of an account's keys; whether it had it."""
        ...

    async def set_password(self, name: str, password: str) -> None:
        """Change a registered account's password."""
        ...

    async def fund_bot(self, display_name: str, chips: int) -> Account:
        """The bot's account (``bot_account(display_name)``), topped up from the house to ``chips``."""
        ...

    async def release_bot(self, display_name: str) -> int:
        """Give a bot's chips back to the house; returns how many."""
        ...


class Ledger(Protocol):
    async def balance(self, name: str) -> int:
        """The whole balance (holds and round-scoped receipts included)."""
        ...

    async def available(self, name: str) -> int:
        """What the account may stake, pay or hold now: balance − holds − chips received in
        transfers of unsettled rounds (those go back if the round is voided)."""
        ...

    async def open_round(self, round_id: str, stakes: Mapping[str, int]) -> None:
        """Move each stake from its balance into the round's escrow, all or nothing."""
        ...

    async def settle_round(self, round_id: str, payouts: Mapping[str, int]) -> bool:
        """Pay the escrow out; payouts must sum to what was escrowed. Exactly once."""
        ...

    async def transfer(self, src: str, dst: str, amount: int, reason: str, ref: str = "") -> None: ...

    async def refund_unsettled(self) -> list[str]:
        """Refund every open escrow to its payers; returns the round ids refunded."""
        ...

    async def audit(self) -> Audit:
        """The full audit (an operator's tool: it reads every entry)."""
        ...

    async def audit_summary(self) -> AuditSummary:
        """The cheap audit from maintained totals (O(1))."""
        ...

    async def refund_round(self, round_id: str) -> bool:
        """Void one open round (see :class:`RefundRound`); False when not open."""
        ...

    async def grant(self, name: str, amount: int, reason: str) -> None:
        """New chips for an account (counted in ``Audit.granted``)."""
        ...

    async def statement(self, name: str, limit: int = 20) -> list[Entry]:
        """The account's latest ledger entries, newest first."""
        ...


class History(Protocol):
    async def record_round(self, record: RoundRecord, rated: RatedRound | None = None, *,
                           fence: Fence | None = None) -> None:
        """Store a finished round; ``rated``: and update the ratings from it, in the same transaction
        (so the ratings' order is the history's, and :func:`server.storage.ratings.recompute` finds the same);
        ``fence``: checked first in that transaction (:class:`StaleOwner`: nothing stored)."""
        ...

    async def recent(self, name: str, limit: int = 10) -> list[RoundRecord]: ...

    def each_record(self, batch: int = 200) -> AsyncIterator[tuple[RoundRecord, list[bool]]]:
        """Every record with its log, oldest first, with which seats were registered accounts then."""
        ...

    async def played(self, name: str, limit: int = 10) -> list[Played]:
        """The player's latest records, newest first, without their logs, with the player's figures."""
        ...

    async def get(self, round_id: str) -> RoundRecord | None: ...

    async def standings(self, game: str, rules: str, limit: int = 10, include_guests: bool = False, *,
                        by: str = "chips", name: str | None = None) -> list[dict[str, JSONValue]]:
        """A table's leaderboard, ranked ``by`` ``"points"`` or ``"chips"`` won (registered players unless
        ``include_guests``; ``name``: that player's row alone)."""
        ...


class Tables(Protocol):
    async def next_table_number(self) -> int:
        """A durable number, strictly increasing across restarts (table ids never repeat)."""
        ...

    async def unfinished(self) -> list[StoredTable]:
        """Tables neither over nor set aside, oldest first, each with its whole log."""
        ...

    async def get(self, table_id: str) -> StoredTable | None: ...


class Store(Protocol):
    # Read-only members, so that a backend may hold its own subclasses of these Protocols.
    @property
    def accounts(self) -> Accounts: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def history(self) -> History: ...

    @property
    def tables(self) -> Tables: ...

    @property
    def social(self) -> Social: ...

    @property
    def ratings(self) -> Ratings: ...

    @property
    def moderation(self) -> Moderation: ...

    @property
    def tournaments(self) -> Tournaments: ...

    async def apply(self, ops: Sequence[Op]) -> list[OpResult]:
        """Perform the operations in one transaction, all or nothing; one result per operation."""
        ...

    def log_ahead(self, op: TableLog) -> int | None:
        """A table's step that moves no chip, safe from a crash of the server when this returns and
        in the store soon after, in order with every other write: ``apply([op])``'s result. None
        when the store does not write ahead (then ``apply``)."""
        ...

    async def recover(self, *, keep_tables: bool = False, keep_accounts: Collection[str] = ()) -> dict[str, JSONValue]:
        """At start: void unsettled rounds, release holds, retire guests left over, bring bots' chips
        home (``keep_tables``: what belongs to an unfinished table stays, for it resumes). What it did."""
        ...

    async def close(self) -> None: ...


class Tournaments(Protocol):
    """A tournament's stored record (its operations: :mod:`server.storage.api_tournaments`)."""

    async def events(self, status: str | None = None) -> list[StoredTournament]:
        """Events (``status``: only those open, over or aside), oldest first, without their journals."""
        ...

    async def get(self, tournament_id: str) -> StoredTournament | None:
        """One event with its whole journal and its tables."""
        ...

    async def journal(self, tournament_id: str, start: int = 0) -> list[Mapping[str, JSONValue]]:
        """The event's journal entries from number ``start`` on, in order."""
        ...

    async def rounds(self, tournament_id: str) -> list[RoundRecord]:
        """The round records of the event's tables (their rounds and matches), oldest first."""
        ...

    async def export(self, tournament_id: str) -> dict[str, JSONValue] | None:
        """The event as ``donne export`` writes it (JSON-able): its record (configuration and
        journal, ``EventRecord.to_dict()``'s shape), status, standings, tables and their rounds' ids."""
        ...
