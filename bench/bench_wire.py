"""Instructions of the wire: a move's line in, its reply, states and events out, for JSON sessions.

    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        .venv/bin/python bench/bench_wire.py --rounds N      # then 2N: the difference, over N rounds

What runs is the server's own way in and way out, over real loopback sockets: the telnet listener
(:func:`server.transports.telnet.start_telnet`), telnetlib3's protocol and :class:`TelnetConn`
in JSON mode, :class:`server.sessions.session.Session` (``run``, ``readline``, the JSON presenter's
``read``, :func:`server.sessions.dispatch.dispatch` with its rate limit and metrics stamp, the ``play``
command's handler), and what a table's step sends back (the actor's ``ok``, then every seat's
state and the step's shared events, through ``push_states`` / ``push_shared``, the loop's one
flush and one write per session). Only the room is a stand-in: it answers a move at the next turn
of the loop and delivers the next step of a real classic match (``tests/server/messages/
shared_games.py``, four people, recorded once: its state sets and events, each event a fresh
:class:`~server.protocol.Shared` every time) with the command's stamp current, as
``Room._run`` does. No table, engine or database runs: what is counted is the wire's part.

``--tables`` tables of four raw TCP clients (sockets of this process, one ``send`` of the move
and one ``recv`` sweep per round: a small constant part of the count). Each round every table's
next actor sends its move; the round ends when every client has its lines. Prints one JSON line:
rounds, actions, lines written and bytes received (compare two commits by these too: the same bytes).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import socket
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.config import Config
from server.operations import metrics
from server.operations.limits import ConnectionCounter
from server.people.players import Player
from server.protocol import Shared
from server.sessions.session import Session
from server.table import Send
from server.table.io import Reply
from server.table.states import StateSet
from server.transports.telnet import start_telnet

Step = list[Send]


def recorded_steps() -> list[Step]:
    """The sends of a real classic match between two replies: one step of the table each."""
    from tests.server.messages.shared_games import play

    h, _ = play("classic", 0, people=4, bots=0, spectator=False)
    steps: list[Step] = []
    current: Step | None = None
    for item in h.items:
        if isinstance(item, Send) and isinstance(item.msg, Reply):
            if current:
                steps.append(current)
            current = []
        elif isinstance(item, Send) and current is not None and isinstance(item.msg, (StateSet, Shared)):
            current.append(item)
    if current:
        steps.append(current)
    return [s for s in steps if any(isinstance(i.msg, StateSet) for i in s)]


class Lobby:
    async def detach(self, session: Any) -> None:
        pass


@dataclasses.dataclass
class App:
    config: Config
    lobby: Lobby = dataclasses.field(default_factory=Lobby)
    sessions: set[Any] = dataclasses.field(default_factory=set)
    connections: ConnectionCounter = dataclasses.field(default_factory=lambda: ConnectionCounter(1_000_000))
    stopping: bool = False


class FakeRoom:
    """A table's room for the wire: a move is answered at the next turn, with the next recorded step."""

    def __init__(self, steps: list[Step], members: list[str]) -> None:
        self.steps = steps
        self.members = members  # the recorded match's member keys, in seat order
        self.next = 0
        self.sessions: dict[str, Session] = {}
        self.delivered = 0
        self.id = "r1"
        self.part = "all"

    async def submit(self, player: Player, cmd: str, args: Mapping[str, Any], *, answer: Any = None) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        stamp = metrics.current()
        if stamp is not None:
            stamp.hold()
        loop.call_soon(self._deliver, future, stamp, answer)
        return await future

    def _deliver(self, future: asyncio.Future[Any], stamp: metrics.Stamp | None, answer: Any) -> None:
        with metrics.handling(stamp):
            step = self.steps[self.next % len(self.steps)]
            self.next += 1
            if answer is not None:
                answer(None)
            future.set_result(None)
            for send in step if self.part == "all" else ():
                msg = send.msg
                if isinstance(msg, Shared):
                    msg = Shared(msg.event, msg.names, msg.source)  # (a new event: nothing cached)
                for key, seat in send.recipients:
                    session = self.sessions.get(key)
                    if session is None:
                        continue
                    if isinstance(msg, StateSet):
                        session.push_states(msg, seat)
                    else:
                        session.push_shared(msg, seat)
        self.delivered += 1


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    steps = recorded_steps()
    members = ["alice", "bob", "carol", "dave"]
    cfg = Config(commands_per_second=1e9, command_burst=1_000_000, input_bytes_per_second=1 << 30,
                 input_burst=1 << 30, telnet_connect_maxwait=0.05, host="127.0.0.1", telnet_port=0, web_port=0)
    app = App(cfg)
    rooms = [FakeRoom(steps, members) for _ in range(args.tables)]
    for room in rooms:
        room.part = args.part
    pending: asyncio.Queue[tuple[int, int]] = asyncio.Queue()
    for t in range(args.tables):
        for s in range(4):
            pending.put_nowait((t, s))
    ready = asyncio.Event()
    started = [0]

    async def serve(app_: Any, conn: Any) -> None:
        t, s = pending.get_nowait()
        session = Session(app_, conn)
        session.start()
        session.mode = "json"
        key = members[s]
        session.logged(f"{key}{t}", False)
        player = Player(key, False, session=session)
        player.room = rooms[t]  # type: ignore[assignment]
        player.seat = s
        session.player = player
        rooms[t].sessions[key] = session
        started[0] += 1
        if started[0] == 4 * args.tables:
            ready.set()
        try:
            await session.run()
        finally:
            session.close(session.close_reason or "eof")
            await session.done.wait()

    listener = await start_telnet(app, serve)  # type: ignore[arg-type]
    port = listener.sockets[0].getsockname()[1]
    clients: list[list[socket.socket]] = []
    for _t in range(args.tables):
        row = []
        for _s in range(4):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.setblocking(False)
            row.append(sock)
            while started[0] < sum(len(r) for r in clients) + len(row):
                await asyncio.sleep(0.01)  # one connection served at a time: table t, seat s in order
        clients.append(row)
    await asyncio.wait_for(ready.wait(), 120)
    await asyncio.sleep(0.2)
    flat = [sock for row in clients for sock in row]

    buf = bytearray(1 << 20)

    crc = [0]

    def sweep() -> int:
        size = 0
        for i, sock in enumerate(flat):
            while True:
                try:
                    n = sock.recv_into(buf)
                except BlockingIOError:
                    break
                size += n
                if args.check:  # what each client received, in order
                    crcs[i] = zlib.crc32(memoryview(buf)[:n], crcs[i])
        return size

    crcs = [0] * len(flat)

    while sweep():  # the hello lines, telnet's negotiation
        await asyncio.sleep(0.05)
    sessions = [s for room in rooms for s in room.sessions.values()]
    lines_before = sum(s._written for s in sessions)
    move = b'{"cmd":"pass","id":%d}\n'
    total_bytes = extra = 0
    for r in range(args.rounds):
        before = sum(room.delivered for room in rooms)
        for t in range(args.tables if args.part != "none" else 0):
            clients[t][r % 4].send(move % r)
        for _ in range(args.turns):
            await asyncio.sleep(0)
        while True:
            total_bytes += sweep()
            if sum(room.delivered for room in rooms) - before == args.tables or args.part == "none":
                break
            extra += 1
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        total_bytes += sweep()
    total_lines = sum(s._written for s in sessions) - lines_before
    crc[0] = zlib.crc32(json.dumps(crcs).encode())
    for sock in flat:
        sock.close()
    listener.close()
    await asyncio.sleep(0.1)
    return {"rounds": args.rounds, "tables": args.tables, "actions": args.rounds * args.tables,
            "lines": total_lines, "bytes": total_bytes, "extra_turns": extra,
            **({"crc32": crc[0]} if args.check else {}),
            "commands": dict(metrics._FIGURES.commands)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--tables", type=int, default=10)
    ap.add_argument("--turns", type=int, default=6, help="loop turns before the first sweep of a round")
    ap.add_argument("--part", choices=("all", "answer", "none"), default="all",
                    help="answer: the room answers the move and sends nothing else; none: no move is sent")
    ap.add_argument("--check", action="store_true", help="a CRC of what every client received (the same bytes?)")
    args = ap.parse_args(argv)
    print(json.dumps(asyncio.run(main_async(args))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
