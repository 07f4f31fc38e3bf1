"""Scripted players and real server processes for the restart tests (``test_restart_*.py``).

:class:`ServerProcess` runs ``python -m server.start.cli serve`` on ports 0 with a data folder
and a configuration text, reads its ports from its log, and is stopped by a signal
(``kill -9`` included). :class:`TableRun` is one table played over the wire by
scripted JSON players (:class:`Person`: a telnet client logged in as a guest or an
account): each person's choices come from a seeded random number generator and the
legal actions the wire adapters (``clients.adapters``) compute from the states
pushed. A run plays until its *target* (a seeded number of actions, or a situation:
a cut, a revolution, an exchange choice pending, a passive seat, an auction or an
offer open) and then stops acting, so that the table stands still for the kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clients.adapters import ADAPTERS
from clients.client import Client, ClientClosed, ClientError

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"listening: telnet [^:]+:(\d+), ssh [^:]+:(\d+)")

FAST_TIMERS = """[timers]
turn_seconds = 60
auction_seconds = 60
flip_seconds = 60
grace_seconds = 60
round_pause = 0
bot_delay = 0
cut_window = 0
trade_window = 0
autopass_delay = 0.2
close_after_over = 600
[limits]
commands_per_second = 500
command_burst = 1000
max_connections_per_address = 200
registrations_per_hour = 0
"""


class ServerProcess:
    """A real ``donne serve`` on a data folder (see the module's documentation)."""

    def __init__(self, data: Path, config: str) -> None:
        self.data = data
        self.config = config
        self.proc: asyncio.subprocess.Process | None = None
        self.log: list[str] = []
        self.telnet_port = 0
        self.ssh_port = 0
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> ServerProcess:
        path = self.data.parent / "restart-test.toml"
        path.write_text(self.config)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.start.cli", "serve", "--data-dir", str(self.data),
            "--ssh-port", "0", "--telnet-port", "0", "--web-port", "0", "--config", str(path), "--log-level", "INFO",
            cwd=ROOT, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )
        assert self.proc.stderr is not None
        while True:
            raw = await asyncio.wait_for(self.proc.stderr.readline(), 60)  # a loaded machine: 30 s were seen to pass
            if not raw:
                raise AssertionError("server ended before listening:\n" + "".join(self.log))
            line = raw.decode(errors="replace")
            self.log.append(line)
            m = LISTENING.search(line)
            if m:
                self.telnet_port, self.ssh_port = int(m.group(1)), int(m.group(2))
                break
        self._drain = asyncio.get_running_loop().create_task(self._read_log())
        return self

    async def _read_log(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while raw := await self.proc.stderr.readline():
            self.log.append(raw.decode(errors="replace"))

    async def kill(self, sig: int) -> int:
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(sig)
        try:
            rc = await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            raise AssertionError(f"the server did not end on signal {sig}:\n" + "".join(self.log[-40:])) from None
        if self._drain is not None:
            await asyncio.wait_for(self._drain, 5)
        return rc

    def errors(self) -> list[str]:
        return [line for line in self.log if " ERROR " in line or "Traceback" in line]


@dataclass
class Person:
    name: str
    password: str | None = None  # None: a guest
    client: Client | None = None
    acted_on: Any = None  # the last state acted upon (never act twice on one state)
    resumed: list[dict[str, Any]] = field(default_factory=list)
    offers: int = 0  # offers made this deal (Speculation)
    resume: str | None = None  # a guest's resume code (server/people/resume.py), given at the first login

    async def connect(self, port: int, on_push: Any, *, register: bool = False) -> Client:
        client = await Client.connect_tcp("127.0.0.1", port, timeout=20)
        client.on_push = on_push
        self.client = client
        self.acted_on = None
        if register and self.password is not None:
            await client.register(self.name, self.password)
        else:
            await client.login(self.name, self.password, resume=self.resume)
            self.resume = client.resume or self.resume  # a guest keeps the code it was given
        return client


SITUATIONS = ("cut", "revolution", "exchange", "passive", "auction", "offer")


@dataclass
class TableRun:
    """One table and its scripted people (see the module's documentation)."""

    label: str
    create: dict[str, Any]
    people: list[Person]
    rng: random.Random
    restless: bool = False  # its clocks run while it stands still: never compared across a kill
    room: str | None = None
    target: tuple[Any, ...] = ("end",)
    steps: int = 0  # people's actions since the target was set
    events: list[str] = field(default_factory=list)  # event names since the target was set
    seen_at_kill: set[str] = field(default_factory=set)  # situations standing when killed (all runs)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    last_push: float = 0.0
    match_over: dict[str, Any] | None = None
    refusals: list[str] = field(default_factory=list)

    def on_push(self, msg: dict[str, Any]) -> None:
        self.last_push = asyncio.get_running_loop().time()
        if msg.get("type") == "event":
            name = str(msg.get("event"))
            self.events.append(name)
            if name == "match_over" and msg.get("room") == self.room:
                self.match_over = msg
        self.changed.set()

    async def connect(self, port: int, *, register: bool = False) -> None:
        for p in self.people:
            await p.connect(port, self.on_push, register=register)

    async def open(self) -> None:
        first = self.people[0].client
        assert first is not None
        self.room = str((await first.request("create", **self.create))["room"])
        for p in self.people[1:]:
            assert p.client is not None
            await p.client.request("join", room=self.room)

    async def close(self) -> None:
        await asyncio.gather(*(p.client.close() for p in self.people if p.client is not None),
                             return_exceptions=True)

    # -- where the table stands ------------------------------------------------------------------

    def states(self) -> list[dict[str, Any]]:
        return [p.client.state for p in self.people
                if p.client is not None and p.client.state is not None and p.client.state.get("room") == self.room]

    def over(self) -> bool:
        return self.match_over is not None or any(s.get("status") == "over" for s in self.states())

    def situations(self) -> set[str]:
        """The situations the latest states show (what a kill now would interrupt)."""
        out: set[str] = set()
        for s in self.states():
            if s.get("phase") == "exchange" and s.get("decision") == "give":
                out.add("exchange")
            if any(seat.get("passive") for seat in s.get("seats") or []):
                out.add("passive")
            if s.get("auction"):
                out.add("auction")
            if s.get("offers"):
                out.add("offer")
            if s.get("order") == "reversed":
                out.add("revolution")
        if "cut" in self.events[-8:]:  # just made (each person hears it: the last events repeat)
            out.add("cut")
        return out

    def reached(self) -> bool:
        kind = self.target[0]
        if self.over():
            return True
        if kind == "end":
            return False
        if kind == "steps":
            return self.steps >= int(self.target[1])
        if self.steps >= (400 if kind == "cut" else 120):
            # the situation did not come: stand still anyway (coverage is checked apart); the deals
            # are the server's own, and a cut may take a few rounds to come
            return True
        if kind in ("cut", "revolution"):
            return kind in self.events
        return kind in self.situations()

    def aim(self, target: tuple[Any, ...]) -> None:
        self.target = target
        self.steps = 0
        self.events = []

    # -- playing ---------------------------------------------------------------------------------------

    async def drive(self, *, timeout: float = 60.0) -> None:
        """Act until the target is reached (then stand still and return)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not self.reached():
            self.changed.clear()
            if await self._act_once():
                continue
            left = end - loop.time()
            if left <= 0:
                raise AssertionError(f"{self.label}: target {self.target} not reached in {timeout} s "
                                     f"(states {[self._short(s) for s in self.states()]})")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 5.0))

    @staticmethod
    def _short(s: dict[str, Any]) -> dict[str, Any]:
        return {k: s.get(k) for k in ("round", "phase", "turn", "you", "decision", "status", "auction", "offers")}

    async def _act_once(self) -> bool:
        for p in self.rng.sample(self.people, len(self.people)):
            client = p.client
            if client is None or client.state is None or client.state is p.acted_on:
                continue
            state = client.state
            if state.get("room") != self.room or state.get("status") != "playing":
                continue
            choice = self._choose(p, state)
            p.acted_on = state
            if choice is None:
                continue
            cmd, args = choice
            try:
                reply = await client.request_raw(cmd, **args)
            except (ClientClosed, ClientError):
                return False
            if reply.get("type") == "ok":
                self.steps += 1
            else:
                self.refusals.append(str(reply.get("code")))
            return True
        return False

    def _choose(self, p: Person, state: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        game = str(state.get("game"))
        adapter = ADAPTERS[game]()
        if not adapter.may_act(state):
            return None
        view = adapter.view(state)
        if view is None:
            return None
        legal = list(adapter.legal(state, view))
        if not legal:
            return None
        if self.target[0] == "passive" and state.get("turn") == state.get("you") and not any(
                seat.get("passive") for seat in state.get("seats") or []):
            return None  # let the clock run out: passive for the rest of the round (T14)
        action = (self._president if game == "president" else self._speculation)(p, state, legal)
        if action is None:
            return None
        d = dict(action.to_dict())
        cmd = d.pop("cmd")
        d.pop("seat", None)
        return cmd, d

    def _president(self, p: Person, state: dict[str, Any], legal: list[Any]) -> Any:
        rng = self.rng
        cuts = [a for a in legal if a.cmd == "cut"]
        if cuts:
            return cuts[0]  # always cut (T9): cuts happen often
        gives = [a for a in legal if a.cmd == "give"]
        if gives:
            return rng.choice(gives)
        quads = [a for a in legal if a.cmd == "play" and len(a.cards) == 4]
        if quads:
            return quads[0]  # a revolution (T10) whenever it can
        plays = [a for a in legal if a.cmd == "play"]
        passes = [a for a in legal if a.cmd == "pass"]
        if passes and (not plays or rng.random() < 0.2):
            return passes[0]
        return rng.choice(plays) if plays else None

    def _speculation(self, p: Person, state: dict[str, Any], legal: list[Any]) -> Any:
        rng = self.rng
        by: dict[str, list[Any]] = {}
        for a in legal:
            by.setdefault(str(a.to_dict()["cmd"]), []).append(a)
        if state.get("auction"):
            if "keep" in by:  # the seller decides at once (nobody waits for the auction's clock)
                return by["sell"][0] if "sell" in by and rng.random() < 0.7 else by["keep"][0]
            if "bid" in by and rng.random() < 0.5:
                return by["bid"][0]
            return None
        if ("accept" in by or "decline" in by) and self.target[0] != "offer":  # steered to an open offer: kept
            options = by.get("accept", []) + by.get("decline", [])
            return rng.choice(options)
        wants_offer = self.target[0] == "offer" or rng.random() < 0.25
        if "offer" in by and wants_offer and p.offers < 2:
            p.offers += 1
            return rng.choice(by["offer"])
        if "turn" in by:
            p.offers = 0
            return by["turn"][0]
        return None


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A state without what a restart may change: clocks, connections, windows' and offers' time left."""
    out = {k: v for k, v in state.items() if k not in ("deadline", "window", "type")}
    out["seats"] = [{k: v for k, v in seat.items() if k != "connected"} for seat in state.get("seats") or []]
    if isinstance(out.get("auction"), dict):
        out["auction"] = {k: v for k, v in out["auction"].items() if k != "deadline"}
    if isinstance(out.get("offers"), list):  # a person's time to answer an offer: a clock
        out["offers"] = [{k: v for k, v in o.items() if k != "left"} for o in out["offers"]]
    return out


async def quiet(runs: Iterable[TableRun], seconds: float = 0.4, limit: float = 20.0) -> None:
    """Wait until none of these tables has pushed anything for ``seconds``."""
    loop = asyncio.get_running_loop()
    runs = list(runs)
    end = loop.time() + limit
    while loop.time() < end:
        last = max((r.last_push for r in runs), default=0.0)
        idle = loop.time() - last
        if idle >= seconds:
            return
        await asyncio.sleep(seconds - idle)
    raise AssertionError("the tables never stood still")
