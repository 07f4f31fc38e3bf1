"""``donne bot``: the engine's strategies playing over the wire, seeing only what the server sends.

    donne bot --port 2323 --name robo --strategy greedy --create president:classic --seats 4 --bots 3
    donne bot --port 2323 --name robo --strategy random --join r12 --games 3 --count 4

A :class:`WireBot` owns one :class:`~clients.client.Client`. From every pushed
``state`` it rebuilds the engine's view object (:mod:`clients.adapters`:
the JSON state back into
:class:`engine.president.view.PresidentView` /
:class:`engine.speculation.view.SpeculationView`) and the seat's legal
actions, computed from that view alone by the rules (RULES P5–P9, T4–T12,
S7–S9); the engine bot made by :func:`engine.bots.make_bot` decides, and the
action goes back as its protocol command (``action.to_dict()`` without
``seat``). Pushed events go to ``bot.observe`` as light
:class:`JsonEvent` objects (name + fields). A refusal that came after a newer
state is a race (the table moved on first): the bot decides again on that
state. Any other refusal is a mistake, counted apart; the bot asks for the
state, and when refused again falls back to the safest command (a pass, the
weakest single, or nothing).

Several bots run in one process (``--count N``): with ``--create`` the first
bot creates the room and the others join it. A bot is driven by callbacks
(see "playing" below), not by a task woken for every push: thousands of them
share one worker of ``donne load``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import hashlib
import json
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from clients.adapters import ADAPTERS, GameAdapter
from clients.client import Client
from clients.common import Deadline, check_loopback
from clients.errors import ClientClosed, ClientError, ClientTimeout
from clients.framing import Message
from clients.jsontypes import JSONObject, JSONValue
from engine.api import Action
from engine.bots import Bot, make_bot

ROUND_ENDS = frozenset({"round_over", "deal_over"})
"""The events that end a round of Président or a deal of Speculation (counted as ``rounds``)."""
CARD_MOVES = frozenset({"played", "passed", "cut"})
"""The events of a card move at a Président table, whoever made it (the server's forced passes too,
RULES P9): counted as ``card_moves``, the work of a round that does not depend on who sent it."""

TIMER_SLACK = 0.001
"""Seconds a timer may ring before its time by the clock (the event loop's resolution): not early."""

# ---------------------------------------------------------------------------
# figures shared by many bots


@dataclass
class WireStats:
    """What a group of wire bots did; ``latencies`` are seconds from sending an action to the next state.

    ``refused`` counts every action the rules refused (``codes``: by code). Of
    those, ``stale`` ones were chosen from a table that had already moved on
    when the server saw them (another seat's cut, T9, or give, T12, came
    first): a race, and a newer state is already on its way. ``wrong``
    (by code) were chosen from the table exactly as it was: a mistake of the
    strategy or of the adapter, never a race.
    """

    actions: int = 0
    refused: int = 0
    stale: int = 0
    wrong: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    disconnects: int = 0
    matches: int = 0
    rounds: int = 0  # rounds (Président) and deals (Speculation) seen ending
    card_moves: int = 0  # CARD_MOVES events seen
    timeouts: int = 0
    latencies: list[float] = field(default_factory=list)
    codes: Counter[str] = field(default_factory=Counter)

    def error(self, code: str) -> None:
        self.errors += 1
        self.codes[code] += 1

class JsonEvent:
    """A pushed event for ``bot.observe``: ``name`` plus the JSON fields as attributes."""

    __slots__ = ("data", "name")

    def __init__(self, data: Message) -> None:
        self.data = data
        self.name = str(data.get("event"))

    def __getattr__(self, key: str) -> JSONValue:
        try:
            return self.data[key]
        except KeyError:
            raise AttributeError(key) from None

    def for_seat(self, seat: int | None) -> JsonEvent:
        return self

    def to_dict(self) -> JSONObject:
        return dict(self.data)


def command_of(action: Action) -> tuple[str, JSONObject]:
    """The protocol command of an engine action: ``to_dict()`` without ``cmd`` and ``seat``."""
    d: JSONObject = dict(action.to_dict())
    cmd = str(d.pop("cmd"))
    d.pop("seat", None)
    return cmd, d



# ---------------------------------------------------------------------------
# one bot on one connection


class WireBot:
    """One engine strategy playing one connection's seat, from the pushes alone."""

    def __init__(self, client: Client, strategy: str, seed: bytes, stats: WireStats | None = None,
                 *, name: str = "", idle_timeout: float = 120.0, think: float = 0.0) -> None:
        self.client = client
        self.think = think
        """Seconds of "thinking" before each action (0: answer at once), jittered 0.5x-1.5x."""
        self._rng = random.Random(seed)
        self.strategy = strategy
        self.seed = seed
        self.stats = stats if stats is not None else WireStats()
        self.name = name
        self.idle_timeout = idle_timeout
        self.room: str | None = None
        self.bot: Bot | None = None
        self.adapter: GameAdapter[Any] | None = None  # (its view is opaque here: handed back to it and to the bot)
        self._bot_key: tuple[JSONValue, ...] | None = None
        self._sent_at: float | None = None
        self._fresh = True
        self._refused_in_row = 0
        self._states = 0  # states received so far
        self._reply_mark: tuple[JSONValue, int] = (None, 0)  # (id of the latest reply, states received before it)
        self.last_over: Message | None = None
        self._playing: asyncio.Future[str] | None = None  # the outcome of :meth:`play`, while it plays
        self._stop_at: float | Deadline | None = None
        self._matches = self._over = 0
        self._waiting = False  # waiting for a push (not thinking, not waiting for a reply)
        self._woken = False  # a wake-up is scheduled
        self._wait_until = 0.0
        self._wait_stops = False  # the wait ends at the stop time (else: the idle time-out)
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._think_timer: asyncio.TimerHandle | None = None
        self._request: asyncio.Future[Message] | None = None
        client.on_push = self._on_push
        client.on_reply = self._on_reply
        client.on_chunk = self._on_chunk

    def _on_push(self, msg: Message) -> None:
        # In the reader: time the first state after an action; wake the bot waiting for pushes.
        if msg.get("type") == "state":
            self._states += 1
            self._fresh = True
            if self._sent_at is not None:
                self.stats.latencies.append(time.perf_counter() - self._sent_at)
                self._sent_at = None
        if self._waiting:
            self._wake_soon()

    def _on_reply(self, msg: Message) -> None:
        # In the reader. The server queues a reply behind every state it pushed before
        # handling the request, so a state received before the reply means the table had moved on.
        self._reply_mark = (msg.get("id"), self._states)

    def _on_close(self) -> None:
        if self._waiting:
            self._wake_soon()

    def _ensure_bot(self, state: Message) -> bool:
        game, seat = state.get("game"), state.get("you")
        if game not in ADAPTERS or not isinstance(seat, int):
            return False
        key = (state.get("room"), game, seat)
        if key != self._bot_key:
            self._bot_key = key
            self.adapter = ADAPTERS[str(game)]()
            seed = hashlib.sha256(self.seed + json.dumps(key).encode()).digest()
            self.bot = make_bot(str(game), self.strategy, seat, seed)
            if getattr(self.bot, "observes", True):
                self.client.full_events()
            else:  # events are only counted by name (and ``match_over`` kept whole): none parsed
                self.client.light_events("match_over")
        return True

    # -- playing ------------------------------------------------------------------
    #
    # The bot is driven by callbacks, not by a task woken for every push (the
    # load generator's CPU per action). The steps are those of a loop
    #
    #     until the stop time: wait for pushes; take every push queued (a batch); count its
    #     events; on its latest state decide, think, send, wait for the reply
    #
    # where each wait is a callback: a push while waiting makes the next batch once the
    # client's read is dispatched (``Client.on_chunk``: that read's pushes are the batch, as
    # a task woken by them would have found; a push from elsewhere, ``call_soon``), the think
    # is one timer, the reply a future's callback, and one lazy timer per bot covers the stop
    # time and the idle time-out. While the bot thinks or waits for its reply, pushes queue
    # up unread, and are the next batch.

    async def play(self, stop_at: float | Deadline | None = None, matches: int = 1) -> str:
        """Play until ``matches`` matches are over (``"over"``), ``stop_at`` (``"stopped"``) or the end
        of the connection (``"closed"``). ``stop_at`` is a :func:`time.perf_counter` time, or a
        :class:`Deadline` whose time may be set later."""
        if self._playing is not None:
            raise RuntimeError("this bot is already playing")
        done: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._playing = done
        self._stop_at, self._matches, self._over = stop_at, matches, 0
        self.client.on_close = self._on_close
        try:
            self._step(self._run)
            return await done
        finally:
            self._playing = None
            self._waiting = self._woken = False
            for handle in (self._timer, self._think_timer):
                if handle is not None:
                    handle.cancel()
            self._timer = self._think_timer = None
            request, self._request = self._request, None
            if request is not None:
                request.cancel()
            if self.client.on_close == self._on_close:
                self.client.on_close = None

    def _step(self, fn: Callable[..., None], *args: object) -> None:
        """Run one step of the play; an exception in it ends :meth:`play` with that exception."""
        try:
            fn(*args)
        except Exception as exc:
            done = self._playing
            if done is not None and not done.done():
                done.set_exception(exc)

    def _finish(self, outcome: str) -> None:
        done = self._playing
        self._waiting = False
        if done is not None and not done.done():
            done.set_result(outcome)

    def _stop_time(self) -> float | None:
        stop_at = self._stop_at
        if isinstance(stop_at, Deadline):
            if stop_at.at == math.inf:
                return None
            self._stop_at = stop_at = stop_at.at  # set: it no longer moves
        return None if stop_at is None else float(stop_at)

    def _run(self) -> None:
        """From the top of the loop until the bot must wait (pushes, its think, a reply) or is done."""
        client = self.client
        while True:
            stop = self._stop_time()
            now = time.perf_counter()
            if stop is not None and stop - now <= 0:
                return self._finish("stopped")
            if not client.pending_pushes():
                if client.closed.is_set():
                    return self._finish("closed")
                self._wait(now, stop)
                return
            state = None
            while (msg := client.next_push_nowait()) is not None:
                kind = msg.get("type")
                if kind == "state":
                    state = msg
                elif kind == "event":
                    self._event(msg)
            if self._over >= self._matches:
                return self._finish("over")
            if state is not None and self._act(state):
                return  # thinking, or waiting for the reply: the loop goes on in a callback

    def _event(self, msg: Message) -> None:
        name = msg.get("event")
        if self.bot is not None and getattr(self.bot, "observes", True):
            with contextlib.suppress(Exception):
                self.bot.observe(JsonEvent(msg))
        if name in CARD_MOVES:
            self.stats.card_moves += 1
        elif name in ROUND_ENDS:
            self.stats.rounds += 1
        elif name == "match_over":
            self.last_over = msg
            self._over += 1
            self.stats.matches += 1

    # waiting for pushes

    def _wait(self, now: float, stop: float | None) -> None:
        """Wait for a push: until ``stop`` when it comes first, else for :attr:`idle_timeout` seconds."""
        self._waiting = True
        idle_at = now + self.idle_timeout
        if stop is not None and stop <= idle_at:
            self._wait_until, self._wait_stops = stop, True
        else:
            self._wait_until, self._wait_stops = idle_at, False
        # one timer per bot, not one per wait: an earlier one stays (it re-arms itself when it fires)
        if self._timer is None or self._timer_at > self._wait_until:
            self._arm(self._wait_until)

    def _arm(self, at: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = at
        self._timer = asyncio.get_running_loop().call_later(max(0.0, at - time.perf_counter()), self._step, self._ring)

    def _ring(self) -> None:
        self._timer = None
        if not self._waiting:
            return  # thinking or waiting for a reply: the next wait arms a timer
        if time.perf_counter() + TIMER_SLACK < self._wait_until:
            self._arm(self._wait_until)  # the wait began after this timer was armed
            return
        if self._wait_stops:
            return self._finish("stopped")
        self.stats.error("idle")
        self._finish("idle")

    def _wake_soon(self) -> None:
        """Take the next batch once the pushes at hand are in: at the end of the client's read
        (:meth:`_on_chunk`), or, for a push from elsewhere (a test's ``dispatch``), in a callback."""
        if not self._woken:
            self._woken = True
            if not self.client.reading:
                asyncio.get_running_loop().call_soon(self._step, self._wake)

    def _on_chunk(self) -> None:
        if self._woken:
            self._step(self._wake)

    def _wake(self) -> None:
        self._woken = False
        if self._waiting and self._playing is not None:
            self._waiting = False
            self._run()

    # deciding, thinking, sending

    def _act(self, state: Message) -> bool:
        """Decide on ``state`` and send the action (after the think); ``True`` while that goes on."""
        basis = self._states  # ``state`` is the latest one received: nothing was read since the batch
        if self.room is not None and state.get("room") != self.room:
            return False  # a late state of a previous room
        if not self._ensure_bot(state):
            return False
        adapter, bot = self.adapter, self.bot
        if adapter is None or bot is None or not adapter.may_act(state):  # (both made by _ensure_bot)
            return False
        view = adapter.view(state)
        if view is None:
            return False
        legal = adapter.legal(state, view)
        if not legal:
            return False
        action = bot.decide(view, legal)
        if action is None:
            return False
        cmd, args = command_of(action)
        if self.think > 0:
            self._fresh = False
            delay = self.think * (0.5 + self._rng.random())
            self._think_timer = asyncio.get_running_loop().call_later(delay, self._step, self._thought, cmd, args, basis, state, view)
            return True
        return self._send(cmd, args, basis, state, view, True)

    def _thought(self, cmd: str, args: JSONObject, basis: int, state: Message, view: object) -> None:
        self._think_timer = None
        if self._fresh:  # the table moved on while thinking: decide again on the new state
            return self._run()
        if not self._send(cmd, args, basis, state, view, True):
            self._run()

    def _send(self, cmd: str, args: JSONObject, basis: int, state: Message, view: object, main: bool) -> bool:
        """Send one action chosen from the ``basis``-th state received; ``True``: its reply is awaited
        (:meth:`_replied`). ``main``: the bot's choice (not the fallback after a refusal)."""
        self._sent_at = time.perf_counter()
        self._fresh = False
        try:
            request = self.client.start_request(
                cmd, timeout=None, on_done=functools.partial(self._step, self._replied, basis, state, view, main), **args)
        except ClientClosed:
            self._sent_at = None
            return False
        self._request = request
        return True

    def _replied(self, basis: int, state: Message, view: object, main: bool,
                 request: asyncio.Future[Message]) -> None:
        if request is not self._request or self._playing is None:
            return  # the play ended meanwhile
        self._request = None
        outcome = self._outcome(request, basis)
        if main:
            if outcome == "ok":
                self._refused_in_row = 0
            elif outcome == "wrong":
                # Refused although chosen from the current table: first ask for the state and
                # decide again; when refused again, the safest command.
                self._refused_in_row += 1
                adapter = self.adapter
                fb = adapter.fallback(state, view) if adapter is not None and self._refused_in_row > 1 else None
                if fb is not None:
                    if self._send(fb[0], fb[1], basis, state, view, False):
                        return
                else:
                    with contextlib.suppress(ClientError):
                        self.client.send("state")
            # "stale": the table moved on first (a race); the newer state is already queued: decide on it.
        self._run()

    def _outcome(self, request: asyncio.Future[Message], basis: int) -> str:
        """``"ok"`` accepted; refused by the rules: ``"stale"`` when a newer state came before the
        refusal (the table had moved on), else ``"wrong"``; ``"failed"`` for any other failure."""
        exc = request.exception()
        if exc is not None:
            self._sent_at = None
            if isinstance(exc, ClientTimeout):
                self.stats.error("timeout")
                return "failed"
            if isinstance(exc, ClientClosed):
                return "failed"
            raise exc
        reply = request.result()
        if reply.get("type") == "ok":
            self.stats.actions += 1
            return "ok"
        self._sent_at = None
        code = str(reply.get("code"))
        if code in ("illegal_play", "not_your_turn", "not_allowed", "insufficient_chips"):
            self.stats.refused += 1
            self.stats.codes[code] += 1
            reply_id, states = self._reply_mark
            if reply_id == reply.get("id") and states > basis:
                self.stats.stale += 1
                return "stale"
            self.stats.wrong[code] += 1
            return "wrong"
        self.stats.error(code)
        return "failed"


# ---------------------------------------------------------------------------
# donne bot


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="telnet port, or SSH port with --ssh")
    parser.add_argument("--ssh", action="store_true", help="connect over SSH (exec json) instead of telnet")
    parser.add_argument("--password", help="account password (SSH password auth, or telnet login)")
    parser.add_argument("--name", default="wirebot", help="player name (suffixed -2, -3... with --count)")
    parser.add_argument("--strategy", default="greedy", help="engine strategy: random, greedy, search")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--join", metavar="ROOM", help="join this room")
    where.add_argument("--create", metavar="GAME[:RULES]", help="create a room (president:classic, "
                                                                "president:tdc, speculation)")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--bots", type=int, default=0, help="server bots to seat in a created room")
    parser.add_argument("--turn-seconds", type=float)
    parser.add_argument("--stake", type=int)
    parser.add_argument("--ante", type=int)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--games", type=int, default=1, help="matches to play (with --create: one room each)")
    parser.add_argument("--count", type=int, default=1, help="wire bots in this process")
    parser.add_argument("--seed", default="wirebot", help="seed of the bots' choices")
    parser.add_argument("--timeout", type=float, default=600.0, help="give up after this many seconds")


def create_args(spec: str, ns: argparse.Namespace) -> JSONObject:
    game, _, rules = spec.partition(":")
    args: JSONObject = {"game": game, "seats": ns.seats}
    if game == "president":
        args["rules"] = rules or "classic"
    elif rules:
        args["rules"] = rules
    if ns.bots:
        args["bots"] = ns.bots
    for key in ("turn_seconds", "stake", "ante", "rounds"):
        value = getattr(ns, key, None)
        if value is not None:
            args[key] = value
    return args


async def connect(ns: argparse.Namespace, name: str) -> Client:
    if ns.ssh:
        return await Client.connect_ssh(ns.host, ns.port, name, password=ns.password)
    client = await Client.connect_tcp(ns.host, ns.port, pushed=True)
    await client.login(name, ns.password)
    return client


async def run_bots(ns: argparse.Namespace) -> JSONObject:
    """``donne bot``: connect ``--count`` bots, seat them, play ``--games`` matches; the summary.

    A room ends with its match, so with ``--create`` every game is a new room
    (the first bot creates it, the others join); ``--join`` plays the one match
    of that room.
    """
    check_loopback(ns.host)
    if ns.join and ns.games != 1:
        raise SystemExit("--games > 1 needs --create: a room ends with its match")
    stats = WireStats()
    names = [ns.name] + [f"{ns.name}-{i}" for i in range(2, ns.count + 1)]
    clients = [await connect(ns, name) for name in names]
    stop_at = time.perf_counter() + ns.timeout
    bots = [WireBot(c, ns.strategy, f"{ns.seed}/{i}".encode(), stats, name=n)
            for i, (c, n) in enumerate(zip(clients, names, strict=True))]
    results: Counter[str] = Counter()
    rooms: list[str] = []
    try:
        for _ in range(ns.games):
            for c in clients:
                c.clear_pushes()
            if ns.create:
                room = str((await clients[0].request("create", timeout=None, **create_args(ns.create, ns)))["room"])
                joiners = clients[1:]
            else:
                room, joiners = ns.join, clients
            rooms.append(room)
            for c in joiners:
                await c.request("join", room=room)
            for b in bots:
                b.room = room
                b.client.send("state")
            outcome = await asyncio.gather(*(b.play(stop_at, 1) for b in bots))
            results.update(outcome)
            if any(r != "over" for r in outcome):
                break
            for c in clients:
                with contextlib.suppress(ClientError):
                    await c.request("leave")
    finally:
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    return {
        "room": rooms[-1] if rooms else None,
        "rooms": rooms,
        "bots": len(clients),
        "results": dict(results),
        "matches": stats.matches,
        "actions": stats.actions,
        "refused": stats.refused,
        "stale": stats.stale,
        "wrong": dict(stats.wrong),
        "errors": stats.errors,
        "codes": dict(stats.codes),
        "last_over": next((b.last_over for b in bots if b.last_over), None),
    }


def run(args: argparse.Namespace) -> int:
    try:
        summary = asyncio.run(run_bots(args))
    except (ClientError, OSError) as exc:
        print(f"donne bot: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(summary, ensure_ascii=False))
    results = summary["results"]
    over = results.get("over", 0) if isinstance(results, Mapping) else 0
    return 0 if over == summary["bots"] * args.games else 1

