"""The storage contract the rest of the server codes against.

Rooms and commands never see SQL: they call these async methods. The SQLite
backend (``server/storage/sqlite.py``) is the default; another backend
(PostgreSQL) implements the same Protocols without touching rooms.

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class StorageError(Exception):
    """Base of storage refusals; ``code`` is a protocol error code."""

    code = "not_allowed"


class InsufficientChips(StorageError):
    code = "insufficient_chips"


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


class BadKey(StorageError):
    code = "bad_argument"


class BadAmount(StorageError):
    """A negative or zero amount, payouts that do not add up, a round opened twice."""

    code = "bad_argument"


# System accounts: names no player can take (player names never contain ":").
HOUSE = "bot:house"  # the bankroll bots play from; granted once, like any account
BOT_PREFIX = "bot:"  # a bot's own account is BOT_PREFIX + its display name, funded by the house


def bot_account(display_name: str) -> str:
    """The ledger name of a bot seated as ``display_name``."""
    return BOT_PREFIX + display_name


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


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One finished round or deal, enough to replay it through the engine."""

    round_id: str
    game: str  # "president" | "speculation"
    rules: str  # "classic" | "tdc" | "speculation"
    seats: Sequence[str]  # names, by seat number
    config: Mapping[str, Any]  # what the match was created with (seats, stake, ante, rounds, ...)
    log: Sequence[Mapping[str, Any]]  # the engine actions (to_dict()) from match start to this round's end
    result: Mapping[str, Any]  # the round_over / pool_won event (to_dict())
    commitment: str = ""
    finished_at: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)


class Accounts(Protocol):
    async def exists(self, name: str) -> bool: ...

    async def register(self, name: str, password: str, *, replacing_guest: str | None = None) -> Account:
        """A new account with the starting grant (``replacing_guest``: retire that live guest first,
        in the same transaction, so a guest can register the name he plays under)."""
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

    async def fund_bot(self, display_name: str, chips: int) -> Account:
        """The bot's account (``bot_account(display_name)``), topped up from the house to ``chips``."""
        ...

    async def release_bot(self, display_name: str) -> int:
        """Give a bot's chips back to the house; returns how many."""
        ...


class Ledger(Protocol):
    async def balance(self, name: str) -> int: ...

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

    async def audit(self) -> Audit: ...

    async def grant(self, name: str, amount: int, reason: str) -> None:
        """New chips for an account (counted in ``Audit.granted``)."""
        ...

    async def statement(self, name: str, limit: int = 20) -> list[Entry]:
        """The account's latest ledger entries, newest first."""
        ...


class History(Protocol):
    async def record_round(self, record: RoundRecord) -> None: ...

    async def recent(self, name: str, limit: int = 10) -> list[RoundRecord]: ...

    async def get(self, round_id: str) -> RoundRecord | None: ...

    async def standings(self, game: str, rules: str, limit: int = 10) -> list[dict[str, Any]]: ...


class Store(Protocol):
    # Read-only members, so that a backend may hold its own subclasses of these Protocols.
    @property
    def accounts(self) -> Accounts: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def history(self) -> History: ...

    async def close(self) -> None: ...
