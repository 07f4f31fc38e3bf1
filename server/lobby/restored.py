"""Tables a restart found unfinished, rebuilt into rooms of the lobby (``docs/restart.md``).

Each stored table is replayed from its log (:meth:`server.rooms.room.Room.restored_from`); its
people get their seat claims back and become players away, exactly as after a lost
connection; a table whose log does not replay is set aside, its unsettled round voided.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

from server.lobby.api import LobbyHost
from server.people.players import Player
from server.rooms.room import Room
from server.storage.api import StoredTable, TableClosed
from server.table.durable import Unreplayable

log = logging.getLogger(__name__)


async def restore(lobby: LobbyHost, stored: Sequence[StoredTable]) -> list[tuple[str, str]]:
    """Rebuild the rooms of the tables a restart found unfinished (``docs/restart.md``).

    Each table is replayed from its log; its people get their seats back as players away
    (their grace runs; logging in again takes the seat back) and their seat claims. A table
    whose log does not replay is set aside (its unsettled round voided, its bots' chips sent
    home) and the operator told. Returns the tables set aside, with their reason."""
    aside: list[tuple[str, str]] = []
    rebuilt: list[Room] = []
    now = time.monotonic()
    for t in stored:
        try:
            room = Room.restored_from(lobby, t, now)
        except Unreplayable as exc:
            aside.append((t.table_id, exc.reason))
            continue
        except Exception as exc:  # a bug: the table is set aside rather than the server kept down
            log.exception("table %s could not be rebuilt", t.table_id)
            aside.append((t.table_id, f"rebuilding failed ({type(exc).__name__})"))
            continue
        if not await _seat_again(lobby, room):
            aside.append((t.table_id, "a seat's account is held elsewhere"))
            continue
        lobby.adopt(room)
        rebuilt.append(room)
    for table_id, reason in aside:
        log.error("table %s is set aside: %s; its unsettled round is voided (donne audit lists it)",
                  table_id, reason)
        try:
            await lobby.store.apply([TableClosed(table_id, "aside", reason)])
        except Exception:
            log.exception("could not set table %s aside", table_id)
    for room in rebuilt:  # only these: a cluster node takes tables over while its own play on
        room.start()
    if rebuilt:
        log.info("%d table(s) resumed: %s", len(rebuilt), " ".join(sorted(r.id for r in rebuilt)))
    return aside

async def _seat_again(lobby: LobbyHost, room: Room) -> bool:
    """A rebuilt table's people: their seat claims, and a player away for each person seated."""
    table = room.table
    # a seat a person left, played to its round's end by a bot, holds no claim: they may sit elsewhere
    accounts = [s.account for s in table.seats if s.account is not None and s.member is not None]
    if any(lobby.seats.holder(a) not in (None, room.id) for a in accounts):
        return False
    for account in accounts:
        lobby.seats.claim(account, room.id)
    people = [s for s in table.seats if s.member is not None]
    found = await asyncio.gather(*(lobby.store.accounts.get(s.account or "") for s in people),
                                 return_exceptions=True)
    for seat, got in zip(people, found, strict=True):
        assert seat.member is not None
        guest = not isinstance(got, BaseException) and got is not None and got.guest
        if got is None or isinstance(got, BaseException):
            try:  # a guest's account ended meanwhile: open it again (the store keeps it otherwise)
                guest = (await lobby.store.accounts.login_guest(seat.name or "")).guest
            except Exception:
                log.warning("table %s: no account for %s", room.id, seat.name)
        player = Player(name=seat.name or seat.member, guest=guest, prefs=dict(seat.prefs))
        if guest:
            player.resume = seat.proof  # only the code given at this seat takes it back (server/people/resume.py)
        player.room = room
        player.seat = seat.index
        lobby.players[seat.member] = player
    return True
