"""Text players that see the table through GMCP: ``donne load --gmcp``'s bots.

A :class:`GmcpBot` is what a MUD client with a script is: it connects to the
telnet door, answers ``IAC WILL GMCP`` with ``DO GMCP``, sends ``Core.Hello``
and ``Core.Supports.Set ["Char 1", "Donne 1"]``, logs in through the text door
(English, a guest name) and from then on stays a person's text session: it
types text commands (``create president classic``, ``join r3``, ``play 7h 7c``,
``pass``) and reads nothing of the text. It decides from the GMCP packages
alone: ``Donne.Table`` (``turn``, ``you``, ``phase``, ``legal``) and
``Donne.Hand`` (its cards). Its play is the weakest legal one (the lowest rank
of ``legal.plays``, fewest cards), a pass when it may pass and nothing beats,
and at the Président exchange the cards the table asks for (the lowest ones).

Many bots share one event loop: each is an :class:`asyncio.Protocol` driven by
what arrives, with no task of its own. A bot counts the moves it sends
(``actions``) and the rounds it sees end; :func:`run_gmcp_worker` runs the
bots of some tables and writes their figures as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clients.jsontypes import JSONObject, int_of, items_in

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
GMCP = 201
TTYPE = 24
RANKS = "3456789TJQKA2"
"""Président's ranks, weakest first (the ``legal.plays`` ranks and the hand's first letter)."""
SUPPORTS = ["Char 1", "Donne 1"]
WARMUP = 3.0
"""Seconds of play before a worker says it is ready to be measured (every table under way)."""
RETRY = 2.0
"""Seconds without a new state after a move before the bot decides again (its move was refused)."""


@dataclass
class GmcpStats:
    """What a group of GMCP bots did; ``actions`` counts the text moves sent (plays, passes, gives)."""

    actions: int = 0
    window_actions: int = 0
    rounds: int = 0  # rounds seen ending, by every seat (divided by the seats in the figures)
    card_moves: int = 0  # played/passed/cut events seen, by every seat (likewise)
    matches: int = 0
    errors: int = 0
    packages: int = 0
    bytes_in: int = 0
    disconnects: int = 0
    retries: int = 0
    counting: bool = False
    playing: bool = False
    """False while the tables are being seated: no move yet (the server's CPU then goes to the logins)."""


def gmcp(package: str, data: object = None) -> bytes:
    """One ``IAC SB GMCP <package> <json> IAC SE`` message."""
    body = package if data is None else f"{package} {json.dumps(data)}"
    return bytes([IAC, SB, GMCP]) + body.encode() + bytes([IAC, SE])


def rank_of(card: str) -> str:
    """A card's rank letter (``"Td"`` → ``"T"``, ``"10d"`` → ``"T"``)."""
    return "T" if card.startswith("10") else card[0]


def choose(table: JSONObject, hand: list[str]) -> str | None:
    """The text line this seat types for ``table``, or ``None`` when it is not this seat's move."""
    phase = table.get("phase")
    legal = table.get("legal")
    if not isinstance(legal, Mapping):
        legal = {}
    give = legal.get("give")
    if phase == "give" and give:
        count = int_of(give.get("count", 1)) if isinstance(give, Mapping) else int_of(give)
        cards = sorted(hand, key=lambda c: RANKS.index(rank_of(c)))[:count]
        return "give " + " ".join(cards) if cards else None
    if table.get("turn") != table.get("you") or table.get("you") is None:
        return None
    if legal.get("pass"):
        return "pass"
    plays = [(str(p[0]), int_of(p[1])) for p in items_in(legal.get("plays")) if isinstance(p, Sequence) and len(p) == 2]
    if plays:  # (rank, count) pairs
        rank, count = min(plays, key=lambda p: (RANKS.index(p[0]), p[1]))
        cards = [c for c in hand if rank_of(c) == rank][:count]
        if len(cards) == count:
            return "play " + " ".join(cards)
    return None


def choose_from_text(prompt: str, hand: list[str]) -> str | None:
    """The same choice from the text alone: ``pass`` when the turn prompt offers it, else the weakest card."""
    if " or pass" in prompt:
        return "pass"
    if not hand:
        return None
    return "play " + min(hand, key=lambda c: RANKS.index(rank_of(c)))


_SEATED = re.compile(r"^(?:Room (r\d+) is open|You sit in room (r\d+))")
_ROUND_OVER = re.compile(r"^Round \d+ over")
_MOVE = re.compile(r"^(?:\S+ plays |\S+ passes|You pass|You play)")


class GmcpBot(asyncio.Protocol):
    """One text session with GMCP at a table; see the module's text."""

    def __init__(self, name: str, stats: GmcpStats, *, create: bool, room: asyncio.Future[str],
                 gmcp: bool = True) -> None:
        self.name = name
        self.gmcp = gmcp
        self.text = bytearray()  # without GMCP: the text not yet split into lines
        self.waiting: str | None = None  # a turn prompt seen before the start
        self.prompted = False  # the turn prompt at the end of the text was answered before its line ended
        self.stats = stats
        self.create = create
        self.room = room
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.stage = 0
        """0: the language menu is coming; 1: English chosen, the name prompt is coming; 2: name typed."""
        self.logged_in: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.seated: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.table: JSONObject = {}
        self.hand: list[str] = []
        self.sent_for: tuple[object, ...] | None = None  # what the last move answered (compared with ==)
        self.retry: asyncio.TimerHandle | None = None
        self.closed = False
        self.mates: list[GmcpBot] = []  # the creator's: the bots that join each table it opens
        self.room_now: str | None = None

    # -- the wire -----------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.stats.counting:
            return
        self.stats.disconnects += 1

    def line(self, text: str) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(text.encode() + b"\r\n")

    def data_received(self, data: bytes) -> None:
        self.stats.bytes_in += len(data)
        buf = self.buf
        buf += data
        i = 0
        n = len(buf)
        while True:
            j = buf.find(IAC, i)
            if not self.gmcp:
                self.text += buf[i:n if j < 0 else j]
            if j < 0 or j + 1 >= n:
                i = n if j < 0 else j
                break
            op = buf[j + 1]
            if op == SB:
                end = buf.find(bytes([IAC, SE]), j + 2)
                if end < 0:
                    i = j
                    break
                if buf[j + 2] == GMCP:
                    self._package(bytes(buf[j + 3:end]))
                elif buf[j + 2] == TTYPE and self.transport is not None:  # SEND: we are a MUD client
                    self.transport.write(bytes([IAC, SB, TTYPE, 0]) + b"DONNE-LOAD" + bytes([IAC, SE]))
                i = end + 2
            elif op in (WILL, WONT, DO, DONT):
                if j + 2 >= n:
                    i = j
                    break
                self._negotiate(op, buf[j + 2])
                i = j + 3
            else:
                i = j + 2
        del buf[:i]
        if self.stage < 2:
            self._log_in(data)
        elif not self.gmcp and b"\n" in self.text:
            *lines, rest = bytes(self.text).split(b"\n")
            self.text = bytearray(rest)
            for raw in lines:
                self._text_line(raw.decode("utf-8", "replace").strip(" \a\r\t"))
        if not self.gmcp and self.stage == 2 and b"Your turn" in self.text and not self.prompted:
            # a prompt waits on its line for the answer: taken before its line ends
            self.prompted = True
            self._text_line(self.text.decode("utf-8", "replace").strip(" \a\r\t"), partial=True)

    def _log_in(self, data: bytes) -> None:
        if self.stage == 0:
            self.stage = 1
            self.line("1")  # the language menu: English
        elif b"Name: " in data:
            self.stage = 2
            self.line(self.name)

    def _negotiate(self, op: int, option: int) -> None:
        assert self.transport is not None
        if op == WILL and option == GMCP and self.gmcp:
            self.transport.write(bytes([IAC, DO, GMCP]) + gmcp("Core.Hello", {"client": "donne-load", "version": "1"})
                                 + gmcp("Core.Supports.Set", SUPPORTS))
        elif op == DO and option == TTYPE:  # a MUD client names itself: the door then offers GMCP
            self.transport.write(bytes([IAC, WILL, TTYPE]))
        elif op == WILL:
            self.transport.write(bytes([IAC, DONT, option]))
        elif op == DO:
            self.transport.write(bytes([IAC, WONT, option]))

    # -- the packages -------------------------------------------------------------
    def _package(self, body: bytes) -> None:
        self.stats.packages += 1
        name, _, raw = body.partition(b" ")
        if name == b"Donne.Table":
            self.table = json.loads(raw)  # its Donne.Hand follows: the decision waits for it
        elif name == b"Donne.Hand":
            if self.retry is not None:
                self.retry.cancel()
                self.retry = None
            self.hand = list(json.loads(raw).get("hand") or [])
            self._decide()
        elif name == b"Donne.Event":
            self._event(json.loads(raw))
        elif name == b"Char.Status":
            status = json.loads(raw)
            self._logged_in()
            room = status.get("room")
            if room is not None and status.get("seat") is not None:
                self._seated(str(room))

    def _event(self, event: JSONObject) -> None:
        name = event.get("event")
        if not self.stats.counting:
            pass
        elif name in ("played", "passed", "cut"):
            self.stats.card_moves += 1
        elif name == "round_over":
            self.stats.rounds += 1
        elif name == "match_over":
            self.stats.matches += 1
        if name == "room_closed" and self.create:  # back in the lobby: a new table for the same four
            self.line("create president classic")
        elif name == "error":
            self.stats.errors += 1
            self.sent_for = None

    def _text_line(self, line: str, partial: bool = False) -> None:
        """Without GMCP the bot reads the screen as a person does (English, one line at a time)."""
        if "! Type help" in line:  # "Hello NAME! Type help...", after the name prompt on its line
            self._logged_in()
        elif line.startswith("Your hand ("):
            self.hand = line.partition(": ")[2].split() if not line.endswith(": -") else []
        elif line.startswith(("Your turn", "> Your turn")):
            if self.prompted and not partial:
                self.prompted = False  # its line ends: answered already
                return
            if not self.stats.playing:
                self.waiting = line  # answered at the start
                return
            move = choose_from_text(line, self.hand)
            if move is not None:
                self._send_move(move)
        elif (m := _SEATED.match(line)) is not None:
            self._seated(m.group(1) or m.group(2))
        elif line.startswith("Room ") and (line.endswith(" is closed.") or " is closed: " in line):
            self._event({"event": "room_closed"})
        elif line.startswith("The match is over"):
            self._event({"event": "match_over"})
        elif _ROUND_OVER.match(line):
            self._event({"event": "round_over"})
        elif _MOVE.search(line):
            self._event({"event": "played"})

    def _logged_in(self) -> None:
        if not self.logged_in.done():
            self.logged_in.set_result(None)

    def _seated(self, room: str) -> None:
        if self.create and not self.room.done():
            self.room.set_result(str(room))
        elif self.create and room != self.room_now:  # a new match: the others follow
            for mate in self.mates:
                mate.line(f"join {room}")
        self.room_now = room
        if not self.seated.done():
            self.seated.set_result(None)

    def _send_move(self, move: str) -> None:
        if self.retry is not None:
            self.retry.cancel()
            self.retry = None
        self.stats.actions += 1
        if self.stats.counting:
            self.stats.window_actions += 1
        self.line(move)

    def _again(self) -> None:
        """No new state since the move: it was refused (a text error) or lost; decide again."""
        self.retry = None
        self.stats.retries += 1
        self.sent_for = None
        self._decide()

    def start(self) -> None:
        """The tables are all seated: answer the turn seen meanwhile."""
        if self.gmcp:
            self._decide()
        elif self.waiting is not None:
            line, self.waiting = self.waiting, None
            self._text_line(line, partial=True)

    def _decide(self) -> None:
        if not self.stats.playing:
            return
        table = self.table
        if not table or table.get("status") not in (None, "playing"):
            return
        key = (table.get("round"), table.get("phase"), table.get("turn"), repr(table.get("trick")), tuple(self.hand))
        if key == self.sent_for:
            return
        move = choose(table, self.hand)
        if move is None:
            return
        self.sent_for = key
        self._send_move(move)
        self.retry = asyncio.get_running_loop().call_later(RETRY, self._again)


async def play_table(host: str, port: int, index: int, seats: int, stats: GmcpStats,
                     timeout: float = 60.0, gmcp: bool = True) -> list[GmcpBot]:
    """Four text bots (with GMCP or not) at one new table: the first creates it, the others join it."""
    loop = asyncio.get_running_loop()
    room: asyncio.Future[str] = loop.create_future()
    bots: list[GmcpBot] = []
    for seat in range(seats):
        bot = GmcpBot(f"g{index}x{seat}", stats, create=seat == 0, room=room, gmcp=gmcp)
        await loop.create_connection(lambda b=bot: b, host, port)  # type: ignore[misc]
        await asyncio.wait_for(bot.logged_in, timeout)
        if seat == 0:
            bot.line("create president classic")
            await asyncio.wait_for(room, timeout)
        else:
            bot.line(f"join {room.result()}")
        await asyncio.wait_for(bot.seated, timeout)
        bots.append(bot)
    bots[0].mates = bots[1:]
    return bots


async def run_gmcp_worker(host: str, port: int, tables: list[int], seats: int = 4, gmcp: bool = True) -> int:
    """The bots of ``tables``, driven through stdin/stdout by :mod:`clients.gmcpload`.

    Writes ``{"phase": "ready", ...}`` once every bot is seated, counts from ``go`` on stdin
    to ``stop``, then writes ``{"phase": "result", ...}`` (one JSON line each).
    """
    loop = asyncio.get_running_loop()
    stats = GmcpStats()
    sem = asyncio.Semaphore(16)
    inbox = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(inbox), sys.stdin)

    async def one(t: int) -> list[GmcpBot]:
        async with sem:
            return await play_table(host, port, t, seats, stats, gmcp=gmcp)

    t0 = time.perf_counter()
    groups = await asyncio.gather(*(one(t) for t in tables))
    _say({"phase": "ready", "clients": sum(map(len, groups)), "setup_s": round(time.perf_counter() - t0, 2)})
    stats.playing = True
    for g in groups:
        for b in g:
            b.start()
    await asyncio.sleep(WARMUP)
    _say({"phase": "playing"})
    await inbox.readline()  # go
    stats.counting = True
    cpu0, t1 = time.process_time(), time.perf_counter()
    await inbox.readline()  # stop
    stats.counting = False
    cpu, elapsed = time.process_time() - cpu0, time.perf_counter() - t1
    connected = sum(not b.closed for g in groups for b in g)
    _say({"phase": "result", "clients": sum(map(len, groups)), "connected_at_end": connected,
          "actions": stats.window_actions, "rounds": stats.rounds / seats, "card_moves": stats.card_moves / seats,
          "matches": stats.matches / seats, "errors": stats.errors, "retries": stats.retries,
          "disconnects": stats.disconnects, "packages": stats.packages, "bytes_in": stats.bytes_in,
          "cpu_s": round(cpu, 2), "cpu_share": round(cpu / max(1e-9, elapsed), 3)})
    for g in groups:
        for b in g:
            if b.transport is not None:
                b.transport.close()
    return 0


def _say(msg: JSONObject) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """``python -m clients.gmcpbot --port P --tables 0,1``: one worker of ``donne load --gmcp``."""
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--tables", required=True)
    p.add_argument("--no-gmcp", action="store_true", help="refuse GMCP (DONT) and play from the text")
    ns = p.parse_args(argv)
    tables = [int(t) for t in ns.tables.split(",") if t]
    return asyncio.run(run_gmcp_worker(ns.host, ns.port, tables, gmcp=not ns.no_gmcp))


if __name__ == "__main__":
    raise SystemExit(main())
