"""The table core: one card table as data in, data out (see :mod:`server.table.core`).

:class:`Table` never awaits, reads a clock or touches a socket; the asyncio room
(``server.rooms.room``) feeds it inputs and the time, performs the effects it asks for
(chip movements as the store's own operations, reads, seat claims, slow bots) and delivers its messages.
"""

from server.protocol import Shared
from server.table.core import Table, TableSettings
from server.table.io import (
    CHIP_OPS,
    Balance,
    ChipOp,
    Claim,
    Closed,
    Command,
    Connected,
    Disconnected,
    Effect,
    Gone,
    Input,
    Member,
    Outputs,
    Pause,
    Placed,
    Record,
    Refused,
    Released,
    Reply,
    Send,
    Shutdown,
    Think,
)
from server.table.states import StateSet

__all__ = [
    "CHIP_OPS",
    "Balance",
    "ChipOp",
    "Claim",
    "Closed",
    "Command",
    "Connected",
    "Disconnected",
    "Effect",
    "Gone",
    "Input",
    "Member",
    "Outputs",
    "Pause",
    "Placed",
    "Record",
    "Refused",
    "Released",
    "Reply",
    "Send",
    "Shared",
    "Shutdown",
    "StateSet",
    "Table",
    "TableSettings",
    "Think",
]
