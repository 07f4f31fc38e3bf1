"""The table core: one card table as data in, data out (see :mod:`server.table.core`).

:class:`Table` never awaits, reads a clock or touches a socket; the asyncio room
(``server.rooms.room``) feeds it inputs and the time, performs the effects it asks for
(ledger, reads, seat claims, slow bots) and delivers its messages.
"""

from server.protocol import Shared
from server.table.core import Table, TableSettings
from server.table.io import (
    Balance,
    Claim,
    Closed,
    Command,
    Connected,
    Disconnected,
    Effect,
    Escrow,
    FundBot,
    Gone,
    HoldChips,
    Input,
    Member,
    Outputs,
    Pause,
    Pay,
    Placed,
    Record,
    Refused,
    ReleaseBot,
    ReleaseChips,
    Released,
    Reply,
    Send,
    Settle,
    Shutdown,
    Think,
    Void,
)
from server.table.states import StateSet

__all__ = [
    "Balance",
    "Claim",
    "Closed",
    "Command",
    "Connected",
    "Disconnected",
    "Effect",
    "Escrow",
    "FundBot",
    "Gone",
    "HoldChips",
    "Input",
    "Member",
    "Outputs",
    "Pause",
    "Pay",
    "Placed",
    "Record",
    "Refused",
    "ReleaseBot",
    "ReleaseChips",
    "Released",
    "Reply",
    "Send",
    "Settle",
    "Shared",
    "Shutdown",
    "StateSet",
    "Table",
    "TableSettings",
    "Think",
    "Void",
]
