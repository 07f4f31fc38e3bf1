"""The store's settings (chips, security knobs), read from the server configuration."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from server.storage import passwords as _pw
from server.storage.api import HOUSE


@dataclass(frozen=True)
class StoreSettings:
    """Chips and security knobs; :meth:`from_mapping` reads them from the server config."""

    starting_chips: int = 1000  # grant of a newly registered account
    guest_chips: int = 200  # grant of a guest, retired when the guest leaves
    allow_guests: bool = True  # False: login_guest raises GuestsForbidden (code account_needed)
    house_chips: int = 1_000_000  # the house bankroll, granted once when the store is created
    house_account: str = HOUSE
    house_topup: bool = True  # a house too poor to fund a bot is granted house_chips more (logged)
    scrypt_n: int = _pw.SCRYPT_N
    backoff_base: float = 0.5  # first wrong password: answered after this many seconds ...
    backoff_max: float = 8.0  # ... doubling up to this
    backoff_window: float = 900.0  # failures older than this are forgotten
    max_keys: int = 20  # SSH public keys per account
    registrations_per_hour: int = 3  # new accounts per address per hour (0: no limit)
    allow_registration: bool = True  # False: register raises RegistrationClosed (accounts made offline only)
    reset_code_seconds: float = 86400.0  # a resetpw code logs in and opens passwd this long
    write_ahead: bool = True  # SQLite: tables' steps that move no chip written ahead (server/storage/sql/ahead.py)

    @classmethod
    def from_mapping(cls, *mappings: Mapping[str, object] | None) -> StoreSettings:
        """Settings from config sections (later ones win); unknown keys are ignored."""
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}  # the configuration's values as given, of any kind: not checked here
        for mapping in mappings:
            for key, value in (mapping or {}).items():
                if key in known:
                    values[key] = value
        return cls(**values)
