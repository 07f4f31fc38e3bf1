"""One account, at most one seat in the whole server: the seat claims.

A table claims an account's seat before it seats anyone (:class:`server.table.io.Claim`)
and releases it when that seat ends (the person left and the round they were in
is over, the table closed). Checking and taking are one synchronous step, so no
await can slip between them: two connections of one account joining two tables
at once get one seat between them.
"""

from __future__ import annotations

from server.storage.names import name_key


class SeatClaims:
    def __init__(self) -> None:
        self._held: dict[str, str] = {}  # account key -> table id

    def claim(self, account: str, table: str) -> str | None:
        """Take ``account``'s seat for ``table``: None when granted, else the table holding it."""
        key = name_key(account)
        holder = self._held.get(key)
        if holder is not None:
            return holder
        self._held[key] = table
        return None

    def release(self, account: str, table: str) -> None:
        key = name_key(account)
        if self._held.get(key) == table:
            del self._held[key]

    def holder(self, account: str) -> str | None:
        return self._held.get(name_key(account))

    def __len__(self) -> int:
        return len(self._held)
