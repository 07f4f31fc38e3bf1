"""What a ``tournament_*`` command asks of an event this process runs, for a person named ``name``
(here, or at another node of a cluster: the owner runs the same for both).

The commands (``server/commands/tournaments.py``) run these on the event's owner: directly when
the event is this process's, else forwarded to the node that runs it
(:meth:`~server.lobby.tournaments.host.HallCluster.forward`), whose hall runs them here. A refusal
is a ``CommandError`` either way. ``tournament_leave`` says whether the entry was ``withdrawn`` (taken
back before the start) rather than left. ``tournament_watch`` answers the room to watch only: the person's
own node makes them watch it (a room of another node is watched through that node).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.protocol import Args, CommandError, JSONValue
from server.storage.names import name_key
from server.tournaments import Join, Leave

if TYPE_CHECKING:
    from server.lobby.tournaments.hall import Hall

ACTS = ("tournaments", "tournament_join", "tournament_leave", "tournament_standings", "tournament_watch",
        "tournament_stop")
"""The commands an event's owner runs for a person of any node."""


async def act(hall: Hall, cmd: str, args: Args, name: str, staff: bool) -> dict[str, JSONValue]:
    """Run ``cmd`` for ``name`` (``staff``: their role, as their node read it) on this hall's event."""
    if cmd == "tournaments":
        return {"tournaments": [hall.summary(shell, name) for shell in hall.events.values()]}
    if cmd not in ACTS:
        raise CommandError("unknown_command", cmd=cmd[:20])
    shell = hall.get(args.get("tournament"))
    if cmd == "tournament_join":
        rating = await hall.rating(name, shell.director.config.options)
        await hall.ask(shell, Join(name, rating))
    elif cmd == "tournament_leave":
        await hall.ask(shell, Leave(name))
        # before the start the entry is taken back (no line of theirs left), after it they are "left"
        withdrawn = not any(name_key(line.name) == name_key(name) for line in shell.seen().standings.lines)
        return {"tournament": shell.id, "withdrawn": withdrawn}
    elif cmd == "tournament_standings":
        return hall.standings(shell, name)
    elif cmd == "tournament_watch":
        return {"room": hall.table_to_watch(shell, args.get("table")).id}
    elif cmd == "tournament_stop":
        if name_key(shell.organiser) != name_key(name) and not staff:
            raise CommandError("not_allowed", reason="organiser_only")
        await hall.stop(shell)
    return {"tournament": shell.id}
