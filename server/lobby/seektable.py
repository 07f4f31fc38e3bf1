"""A seek's table: opened when its seats are taken (or it lapses with ``fill``), its people seated.

It is a room its owner opens: the room limits of ``create`` (per account, per guest address, the
guests' share of ``max_rooms``: ``server.operations.limits.RoomSlots``) count it against the owner.

The lobby keeps the seeks (:mod:`server.lobby.seeks`, pure data) and their timer; this is the one
step that turns a seek into a room.
"""

from __future__ import annotations

from server.games import parse_options
from server.lobby.api import LobbyHost
from server.lobby.seeks import Seek
from server.people.players import Player
from server.protocol import CommandError
from server.rooms.room import Room


async def open_seek(lobby: LobbyHost, seek: Seek) -> Room | None:
    """The seek's table: its owner on seat 0, then the people who accepted, the empty seats to
    bots. People no longer free to sit (gone, at a table) are left out; without its owner the
    seek ends. A person who cannot sit (chips) is told why; the others still play."""
    lobby.seeks.remove(seek)
    lobby.arm_seeks()
    people = [lobby.players.get(k) for k in [seek.owner_key, *seek.accepted]]
    free = [p for p in people if p is not None and p.connected and p.room is None]
    if not free or free[0].key != seek.owner_key or len(free) < 2:
        lobby.tell_seek(seek, "gone")
        return None
    free = free[: seek.opts.seats]
    args = {**seek.args, "bots": seek.opts.seats - len(free)}
    try:
        opts = parse_options(args, lobby.config)
        # the table counts against its owner's room limits, as a room they create would
        room = await lobby.open_room(opts, owner=seek.owner, opener=seek.opener or lobby.opener(free[0]))
    except CommandError as exc:
        lobby.tell_seek(seek, "refused", code=exc.code, **exc.params)
        return None
    seated: list[tuple[int, Player]] = []
    for seat, person in enumerate(free):
        try:
            await room.submit(person, "join", {"seat": seat})
        except CommandError as exc:
            if person.session is not None:
                person.session.push_event({"event": "seek_over", "seek": seek.id, "reason": "refused",
                                           "name": seek.owner, "code": exc.code, "challenge": seek.challenge})
            if seat == 0 or seek.challenge:
                # without its owner, or without the person challenged, the table is not what was asked
                # for: it does not open (never "opened" with a free seat where that person should sit)
                await room.stop(end=True)
                lobby.tell_seek(seek, "refused", but=person.key)
                return None
            continue
        seated.append((seat, person))
    for seat, person in seated:  # told once the table is sure to open
        if person.session is not None:
            person.session.push_event({"event": "seek_started", "seek": seek.id, "room": room.id,
                                       "seat": seat, "name": seek.owner, "challenge": seek.challenge})
    lobby.announce(room, seek.owner)
    return room
