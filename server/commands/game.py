"""Moves, forwarded to the player's room: the room coroutine checks them with the engine.

``play``/``pass``/``cut``/``give`` (Président), ``bid``/``sell``/``keep``/``turn``/
``offer``/``accept``/``decline``/``withdraw`` (Speculation). Their arguments are
the protocol's (PROTOCOL.md); the engine's refusals come back as error codes
(``not_your_turn``, ``illegal_play``, ``not_allowed``, ``insufficient_chips``,
``bad_argument``) and change nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable

from server.commands import Context, Handler, command
from server.protocol import PLAY_COMMANDS, Args, CommandError, Result


def _forward(cmd: str) -> Handler:
    def handler(ctx: Context, args: Args) -> Awaitable[Result | None]:
        """The room's own ``submit`` is what the dispatcher awaits (no coroutine of ours around it)."""
        player = ctx.session.player
        assert player is not None
        room = player.room  # (a property: read once)
        if room is None:
            raise CommandError("not_in_room")
        # the room answers as it delivers, before the states the move causes
        submitted: Awaitable[Result | None] = room.submit(player, cmd, args, answer=ctx.answer)
        return submitted

    handler.__name__ = f"game_{cmd}"
    handler.__qualname__ = handler.__name__
    return handler


for _cmd in sorted(PLAY_COMMANDS):
    command(_cmd)(_forward(_cmd))
command("extend")(_forward("extend"))  # more time from the person's time bank (server.table.bank)
command("tricks")(_forward("tricks"))  # the round's tricks as everyone saw them (server.games.tricks)
