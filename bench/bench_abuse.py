"""Witnesses of the attack round: what one person in the lobby feels while others abuse the server.

    python bench/bench_abuse.py [--quick] [--only slots,bots] [--out FILE]
    python bench/bench_abuse.py --only slots --addresses 120 --per-address 5 --listeners 300
    python bench/bench_abuse.py --only bots --tables 20 --duration 20
    python bench/bench_abuse.py --only tells,challenges,seeks,verify --social-attackers 40

Every scenario starts the real ``donne serve`` in a subprocess
(``clients/serverproc.py``) with its own configuration, and a *witness*:
one JSON client in the lobby that sends ``ping`` every 10 ms and times each
reply. Its latency percentiles, per phase, are the figures; the server's
memory (RSS) and CPU are read from ``/proc``; this process's own event-loop
lag is printed too (a lagging bench would inflate the witness's figures).
Nothing is asserted: it prints one JSON object on stdout.

* ``slots``: guests from many addresses (``127.0.0.N``, ``--per-address``
  connections each) each open a room nobody else will join, as fast as they
  can, while ``--listeners`` guests wait in the lobby and hear the room-list
  news. Then a registered player tries to open a room (the refusal's message
  is printed), the ``rooms`` reply is measured (bytes), and every attacker
  drops its connection at once: hundreds of rooms close in the same second
  and their news go to every listener. Phases: ``idle``, ``flood``, ``close``.
* ``tells``, ``challenges``, ``seeks``, ``verify``: ``--social-attackers`` guests
  (``--per-address`` on each loopback address) flood for ``--flood-seconds``, each
  waiting for its reply before the next: tells to one registered victim; a
  challenge to the victim and its withdrawal; a seek and its withdrawal, heard
  by ``--social-listeners`` guests in the lobby; ``verify`` of a Speculation
  deal the victim played with bots. Each attacker pauses ``--social-pause``
  between two (by default it keeps within the command rate). The replies'
  codes, what the victim (and a listener) heard, the server's CPU share.
  Phases: ``idle``, ``flood``.
* ``bots``: ``--tables`` tables of one wire bot (greedy, in this process) and
  three ``hard`` (search) bots each, playing for ``--duration`` seconds with no
  pause between moves. Phases: ``idle`` (before the tables), ``play``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import machine, today

from clients.client import Client, ClientError
from clients.figures import LagMonitor, summarize_ms
from clients.serverproc import ServerProcess
from clients.wirebot import WireBot, WireStats

ROOT = Path(__file__).resolve().parent.parent

# Only keys every version of the server knows: the same script witnesses the server before and after a fix.
SLOTS_LIMITS = """\
[limits]
idle_timeout = 3600
login_timeout = 120
[timers]
round_pause = 0
"""

BOTS_LIMITS = """\
[limits]
idle_timeout = 3600
login_timeout = 120
max_connections_per_address = 1000
commands_per_second = 1000.0
command_burst = 1000
[timers]
round_pause = 0
bot_delay = 0
close_after_over = 1
"""


CHIPS_LIMITS = """\
[limits]
idle_timeout = 3600
login_timeout = 120
max_connections_per_address = 1000
commands_per_second = 1000.0
command_burst = 1000
registrations_per_hour = 0
[timers]
round_pause = 60
flip_seconds = 30
auction_seconds = 30
"""

PASSWORD = "a long password"


def audit(srv: ServerProcess) -> dict[str, Any]:
    """``donne audit --data-dir`` on the server's data folder (read-only, beside the running server)."""
    proc = subprocess.run([sys.executable, "-m", "server.start.cli", "audit", "--data-dir", str(srv.data_dir)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    try:
        got = json.loads(proc.stdout)
    except ValueError:
        return {"exit": proc.returncode, "error": (proc.stdout + proc.stderr)[-500:]}
    return {"exit": proc.returncode, **{k: got.get(k) for k in ("ok", "balances", "escrow", "held", "granted",
                                                                 "retired", "problems")}}


def extra(args: argparse.Namespace) -> str:
    """``--set KEY=VALUE`` lines, added to the last section (the loader takes a key in any section)."""
    return "".join(f"{item}\n" for item in args.set)


class _Helper:
    """This script run again in a process of its own with ``args``: it writes ``OUT.ready`` (its
    text, if any) once it runs, and its figures to ``OUT`` (JSON) once its stdin closes."""

    name = "helper"
    tries = 600  # ready within tries x 50 ms

    def __init__(self) -> None:
        self._proc: asyncio.subprocess.Process | None = None
        self._out = ""

    async def _start(self, *args: str) -> str:
        """Start it; what it wrote in its ready file."""
        fd, self._out = tempfile.mkstemp(prefix=f"donne-{self.name}-", suffix=".json")
        os.close(fd)
        ready = self._out + ".ready"
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, *args, "--witness-out", self._out, stdin=asyncio.subprocess.PIPE)
        for _ in range(self.tries):
            if os.path.exists(ready):
                text = Path(ready).read_text()
                os.unlink(ready)
                return text
            await asyncio.sleep(0.05)
        raise RuntimeError(f"the {self.name} did not start")

    async def _stop(self) -> dict[str, Any] | None:
        """Close its stdin, wait for it to end; its figures (None: it was not running)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        assert proc.stdin is not None
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 60)
        data: dict[str, Any] = json.loads(Path(self._out).read_text())
        os.unlink(self._out)
        return data


class Witness(_Helper):
    """The witness: its own process (this script with ``--witness-port``), so the bench's busy loop
    never delays its pings. It pings every 10 ms until its stdin closes, then writes its samples
    ``(sent at, round trip)`` (``time.perf_counter``, the system's monotonic clock: the same in
    both processes) and its own loop's lag to a file."""

    name = "witness"

    def __init__(self, port: int, local: str = "127.0.1.1") -> None:
        super().__init__()
        self.port = port
        self.local = local
        self.samples: list[tuple[float, float]] = []
        self.own_lag: dict[str, Any] = {}
        self.failures = 0

    async def start(self) -> None:
        await self._start("--witness-port", str(self.port), "--witness-from", self.local)

    async def stop(self) -> None:
        data = await self._stop()
        if data is None:
            return
        self.samples = [tuple(x) for x in data["samples"]]  # type: ignore[misc]
        self.own_lag = data["lag"]
        self.failures = data["failures"]

    def window(self, start: float, end: float) -> dict[str, Any]:
        got = [(rtt, at) for at, rtt in self.samples if start <= at < end]
        worst = max(got, default=(0.0, start))
        return {**summarize_ms([rtt for rtt, _ in got]), "max_at_s": round(worst[1] - start, 2), "pings": len(got)}


async def witness_main(port: int, local: str, out: str) -> None:
    client = await Client.connect_tcp("127.0.0.1", port, timeout=60, local_addr=local)
    await client.login("witness")
    loop = asyncio.get_running_loop()
    lag = LagMonitor(loop)
    lag.start()
    samples: list[tuple[float, float]] = []
    failures = 0
    stdin_closed = asyncio.Event()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    async def watch_stdin() -> None:
        while await reader.read(1024):
            pass
        stdin_closed.set()

    watcher = loop.create_task(watch_stdin())
    Path(out + ".ready").write_text("")
    while not stdin_closed.is_set():
        t0 = time.perf_counter()
        try:
            await client.request_raw("ping", timeout=30)
        except ClientError:
            failures += 1
        else:
            samples.append((t0, time.perf_counter() - t0))
        await asyncio.sleep(max(0.0, 0.01 - (time.perf_counter() - t0)))
    watcher.cancel()
    Path(out).write_text(json.dumps({"samples": samples, "lag": lag.summary(), "failures": failures}))
    await client.close()


class Listeners(_Helper):
    """Guests waiting in the lobby, in their own process (this script with ``--listeners-port``): raw
    sockets that log in and then only count the rooms closed they hear of (``room_closed``, or the
    ``closed`` count of a ``rooms_changed`` digest), noting when each chunk
    of them arrived (``time.perf_counter``) at the first listener."""

    name = "listeners"
    tries = 1200

    def __init__(self, port: int, count: int) -> None:
        super().__init__()
        self.port = port
        self.count = count
        self.connected = 0
        self.heard: list[int] = []  # rooms closed each listener heard of
        self.arrivals: list[tuple[float, int]] = []  # (when, how many) at the first listener

    async def start(self) -> None:
        self.connected = int(await self._start("--listeners-port", str(self.port),
                                               "--listeners-count", str(self.count)) or 0)

    async def stop(self) -> None:
        data = await self._stop()
        if data is None:
            return
        self.heard = data["heard"]
        self.arrivals = [tuple(x) for x in data["arrivals"]]  # type: ignore[misc]


async def listeners_main(port: int, count: int, out: str) -> None:
    heard = [0] * count
    arrivals: list[tuple[float, int]] = []
    tasks: list[asyncio.Task[None]] = []
    writers: list[asyncio.StreamWriter] = []

    async def one(i: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(f"127.0.2.{1 + i // 15}", 0))
        writers.append(writer)
        writer.write(b"\xff\xfc\x18json\n" + json.dumps({"cmd": "login", "name": nick("lis", i)}).encode() + b"\n")
        buf = b""
        while b'"type":"ok"' not in buf.replace(b" ", b""):
            chunk = await reader.read(65536)
            if not chunk:
                return
            buf += chunk
        logged.append(i)
        rest = b""
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                return
            *lines, rest = (rest + chunk).split(b"\n")
            n = 0
            for line in lines:
                if b'"room_closed"' in line:
                    n += 1
                elif b'"rooms_changed"' in line:  # a digest of the news of one push (docs/protocol.md)
                    n += int(json.loads(line).get("closed") or 0)
            if n:
                heard[i] += n
                if i == 0:
                    arrivals.append((time.perf_counter(), n))

    logged: list[int] = []
    sem = asyncio.Semaphore(32)

    async def limited(i: int) -> None:
        async with sem:
            task = asyncio.get_running_loop().create_task(one(i))
            tasks.append(task)
            while i not in logged and not task.done():
                await asyncio.sleep(0.01)

    await asyncio.gather(*(limited(i) for i in range(count)), return_exceptions=True)
    Path(out + ".ready").write_text(str(len(logged)))
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while await reader.read(1024):
        pass
    Path(out).write_text(json.dumps({"heard": heard, "arrivals": arrivals}))
    for w in writers:
        w.close()
    for t in tasks:
        t.cancel()


_LETTERS = "acdefhjknpqrtxyz"  # no two of them look alike, nor do their pairs (server/storage/names.py)


def nick(prefix: str, i: int) -> str:
    """A guest name no other one looks like (names with digits fold: ``l8`` and ``l6`` are the same look)."""
    word = ""
    while True:
        i, d = divmod(i, len(_LETTERS))
        word += _LETTERS[d]
        if i == 0:
            return prefix + word


async def connect(port: int, name: str, local: str | None = None, *, register: str | None = None,
                  password: str | None = None) -> Client:
    client = await Client.connect_tcp("127.0.0.1", port, timeout=60, local_addr=local, keep_pushes=100_000)
    try:
        if register is not None:
            await client.register(name, register)
        else:
            await client.login(name, password)
    except BaseException:
        await client.close()
        raise
    return client


async def gather_limited(coros: list[Any], parallel: int) -> list[Any]:
    sem = asyncio.Semaphore(parallel)

    async def one(coro: Any) -> Any:
        async with sem:
            try:
                return await coro
            except Exception as exc:  # a figure, not a failure of the bench
                return exc

    return await asyncio.gather(*(one(c) for c in coros))


class Phases:
    """Named windows of time; the witness's figures of each are read once it has stopped."""

    def __init__(self, lag: LagMonitor) -> None:
        self.lag = lag
        self.marks: list[tuple[str, float, float, dict[str, Any]]] = []
        self._start = 0.0

    def begin(self) -> None:
        self.lag.reset()
        self._start = time.perf_counter()

    def end(self, name: str) -> None:
        self.marks.append((name, self._start, time.perf_counter(), self.lag.summary()))

    def figures(self, witness: Witness) -> list[dict[str, Any]]:
        return [{"phase": name, "seconds": round(end - start, 2), **witness.window(start, end), "bench_loop": lag}
                for name, start, end, lag in self.marks]


# ---------------------------------------------------------------------------
# slots


async def slots(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"scenario": "slots", "addresses": args.addresses, "per_address": args.per_address,
                           "listeners": args.listeners}
    async with ServerProcess(SLOTS_LIMITS + extra(args), profile=args.profile) as srv:
        port = srv.telnet_port
        loop = asyncio.get_running_loop()
        lag = LagMonitor(loop)
        lag.start()
        phases = Phases(lag)
        witness = Witness(port, "127.0.1.1")
        await witness.start()
        legit = await connect(port, "legit", "127.0.1.2", register="a long password")
        listeners = Listeners(port, args.listeners)
        await listeners.start()
        out["listeners_connected"] = listeners.connected
        out["rss_mb_start"] = srv.rss_mb()
        phases.begin()
        await asyncio.sleep(args.idle)
        phases.end("idle")

        # the flood: every attacker opens a room of 8 seats that nobody will join
        attackers: list[Client] = []
        refusals: dict[str, int] = {}
        first_refusal: float | None = None
        created = 0

        async def attack(i: int) -> None:
            nonlocal created, first_refusal
            addr = f"127.0.{3 + i // (args.per_address * 250)}.{1 + (i // args.per_address) % 250}"
            client = await connect(port, nick("att", i), addr)
            attackers.append(client)
            reply = await client.request_raw("create", game="president", rules="classic", seats=8, timeout=60)
            if reply.get("type") == "ok":
                created += 1
            else:
                key = f"{reply.get('code')}: {reply.get('message')}"
                refusals[key] = refusals.get(key, 0) + 1
                if first_refusal is None:
                    first_refusal = time.perf_counter()

        phases.begin()
        t_flood = time.perf_counter()
        results = await gather_limited([attack(i) for i in range(args.addresses * args.per_address)], 64)
        t_flooded = time.perf_counter()
        phases.end("flood")
        out.update(created=created, refusals=refusals,
                   attack_errors=sum(1 for r in results if isinstance(r, Exception)),
                   flood_s=round(t_flooded - t_flood, 2),
                   first_refusal_s=None if first_refusal is None else round(first_refusal - t_flood, 2))
        reply = await legit.request_raw("create", game="president", rules="classic", seats=4, bots=3)
        out["registered_player_create"] = ({"ok": True} if reply.get("type") == "ok" else
                                           {"code": reply.get("code"), "message": reply.get("message")})
        if reply.get("type") == "ok":
            await legit.request_raw("leave")
        listing = await legit.request_raw("rooms")
        out["rooms_reply_bytes"] = len(json.dumps(listing, ensure_ascii=False, separators=(",", ":")))
        out["rooms_reply_listed"] = len(listing.get("rooms") or [])
        out["rooms_reply_total"] = listing.get("total", len(listing.get("rooms") or []))
        out["rss_mb_flooded"] = srv.rss_mb()

        # every attacker leaves at once: their rooms close together, the news go to every listener
        await asyncio.sleep(1.5)  # the flood's own news are out (at most one batch a second)
        phases.begin()
        cpu0 = srv.cpu_s()
        t_close = time.perf_counter()
        await asyncio.gather(*(c.close() for c in attackers), return_exceptions=True)
        await asyncio.sleep(args.close_wait)
        phases.end("close")
        cpu1 = srv.cpu_s()
        out["close_server_cpu_s"] = None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 2)
        out["rss_mb_end"] = srv.rss_mb()
        await listeners.stop()
        await witness.stop()
        closing = [(at, n) for at, n in listeners.arrivals if at >= t_close]
        out["close_news_heard"] = {"first_listener": sum(n for _, n in closing), "rooms": created,
                                   "listeners_heard_all": sum(1 for h in listeners.heard if h >= created)}
        if closing:
            big_at = max(closing, key=lambda x: x[1])[0]  # the chunk with the most news: the big batch
            out["close_news_batches"] = [(round(at - t_close, 3), n) for at, n in closing][:20]
            phases.marks.append(("close_news", big_at - 0.3, big_at + 0.3, {}))
        out["phases"] = phases.figures(witness)
        out["witness_loop"] = witness.own_lag
        await legit.close()
        out["audit"] = audit(srv)
        if os.environ.get("PYTHONASYNCIODEBUG"):  # the server's slow callbacks, logged by asyncio's debug mode
            print(srv.log_tail(200_000), file=sys.stderr)
        lag.stop()
    return out


# ---------------------------------------------------------------------------
# bots


async def bots(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"scenario": "bots", "tables": args.tables, "duration_s": args.duration}
    async with ServerProcess(BOTS_LIMITS + extra(args), profile=args.profile) as srv:
        port = srv.telnet_port
        loop = asyncio.get_running_loop()
        lag = LagMonitor(loop)
        lag.start()
        phases = Phases(lag)
        witness = Witness(port)
        await witness.start()
        out["rss_mb_start"] = srv.rss_mb()
        phases.begin()
        await asyncio.sleep(args.idle)
        phases.end("idle")
        stats = WireStats()
        people = [await connect(port, nick("pla", i)) for i in range(args.tables)]
        stop_at = time.perf_counter() + args.duration

        async def table(i: int, client: Client) -> None:
            bot = WireBot(client, "greedy", f"abuse-{i}".encode(), stats, idle_timeout=120)
            while time.perf_counter() < stop_at:
                await client.request("create", game="president", rules="classic", seats=4, bots=3,
                                     bot_level="hard", turn_seconds=60)
                outcome = await bot.play(stop_at=stop_at, matches=1)
                with contextlib.suppress(ClientError):
                    await client.request_raw("leave")
                if outcome != "over":
                    return

        cpu0 = srv.cpu_s()
        phases.begin()
        t_play = time.perf_counter()
        results = await asyncio.gather(*(table(i, c) for i, c in enumerate(people)), return_exceptions=True)
        t_played = time.perf_counter()
        phases.end("play")
        cpu1 = srv.cpu_s()
        out.update(people_actions=stats.actions, matches=stats.matches,
                   errors=dict(stats.codes) | {"exceptions": sum(1 for r in results if isinstance(r, Exception))},
                   server_cpu_s=None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 2),
                   server_cpu_share=None if cpu0 is None or cpu1 is None else
                   round((cpu1 - cpu0) / (t_played - t_play), 2),
                   rss_mb_end=srv.rss_mb(), load_avg=os.getloadavg()[0])
        await witness.stop()
        out["phases"] = phases.figures(witness)
        out["witness_loop"] = witness.own_lag
        await asyncio.gather(*(c.close() for c in people), return_exceptions=True)
        out["audit"] = audit(srv)
        lag.stop()
    return out


# ---------------------------------------------------------------------------
# seats: one account, two connections, two tables at once


async def seats(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"scenario": "seats", "accounts": args.accounts, "rounds": args.rounds}
    async with ServerProcess(CHIPS_LIMITS + extra(args), profile=args.profile) as srv:
        port = srv.telnet_port
        lag = LagMonitor(asyncio.get_running_loop())
        lag.start()
        phases = Phases(lag)
        witness = Witness(port)
        await witness.start()
        hosts = [await connect(port, nick("hos", i), register=PASSWORD) for i in range(args.accounts)]
        tables = [(await h.request("create", game="president", rules="tdc", seats=4, stake=2))["room"] for h in hosts]
        names = [nick("dup", i) for i in range(args.accounts)]
        for name in names:
            await (await connect(port, name, register=PASSWORD)).close()
        out["rss_mb_start"] = srv.rss_mb()
        phases.begin()
        await asyncio.sleep(args.idle)
        phases.end("idle")
        outcomes: dict[str, int] = {}
        most_seats = 0
        rng = random.Random(7)

        async def attacker(name: str) -> None:
            nonlocal most_seats
            for _ in range(args.rounds):
                first, second = rng.sample(tables, 2)
                tel = await connect(port, name, password=PASSWORD)
                tel.send("join", room=first)
                other = await Client.connect_ssh("127.0.0.1", srv.ssh_port, name, PASSWORD, timeout=60)
                try:
                    reply = await other.request_raw("join", room=second)
                    key = "ok" if reply.get("type") == "ok" else str(reply.get("code"))
                    outcomes[key] = outcomes.get(key, 0) + 1
                    listing = await other.request("rooms", limit=100)
                    most_seats = max(most_seats, sum(1 for r in listing["rooms"] if name in r["players"]))
                    if (await other.request("whoami"))["room"] is not None:
                        await other.request_raw("leave")
                finally:
                    await other.close()
                    await tel.close()

        phases.begin()
        results = await asyncio.gather(*(attacker(n) for n in names), return_exceptions=True)
        phases.end("attack")
        out.update(joins=outcomes, most_seats_of_one_account=most_seats,
                   errors=[repr(r) for r in results if isinstance(r, Exception)][:5], rss_mb_end=srv.rss_mb())
        await witness.stop()
        out["phases"] = phases.figures(witness)
        out["witness_loop"] = witness.own_lag
        await asyncio.gather(*(h.close() for h in hosts), return_exceptions=True)
        out["audit"] = audit(srv)
        lag.stop()
    return out


# ---------------------------------------------------------------------------
# offers: a Speculation buyer leaves with an open offer, to stake the chips at a tdc table


async def offers(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"scenario": "offers", "tables": args.offer_tables}
    async with ServerProcess(CHIPS_LIMITS + extra(args), profile=args.profile) as srv:
        port = srv.telnet_port
        lag = LagMonitor(asyncio.get_running_loop())
        lag.start()
        phases = Phases(lag)
        witness = Witness(port)
        await witness.start()
        out["rss_mb_start"] = srv.rss_mb()
        phases.begin()
        await asyncio.sleep(args.idle)
        phases.end("idle")
        counts: dict[str, int] = {}

        def count(key: str) -> None:
            counts[key] = counts.get(key, 0) + 1

        async def table(i: int) -> list[Client]:
            people = [await connect(port, nick(f"sp{c}", i), register=PASSWORD) for c in "xyz"]
            host = await connect(port, nick("tdh", i), register=PASSWORD)
            tdc = (await host.request("create", game="president", rules="tdc", seats=3, stake=100, bots=1))["room"]
            room = (await people[0].request("create", game="speculation", seats=3, ante=1))["room"]
            for c in people[1:]:
                await c.request("join", room=room)
            state: dict[str, Any] = {}
            try:  # a moment to trade: a deal under way, no auction open (the owner keeps the card)
                for _ in range(6):
                    state = await people[0].next_state(lambda s: bool(s.get("in_deal")), timeout=10, current=True)
                    if not state.get("auction"):
                        break
                    await people[state["auction"]["seat"]].request_raw("keep")
                    await people[0].next_state(lambda s: not s.get("auction"), timeout=10)
            except ClientError:
                pass
            if not state.get("in_deal") or state.get("auction") or state.get("turn") is None:
                count("no_trading_moment")  # the deal was won at once (a face-up ace, S6): nothing to trade
                return [*people, host]
            buyer = next(s for s in range(3) if s != state["turn"])
            seller = next((s for s in range(3) if s != buyer and state["seats"][s]["facedown"] > 0), None)
            if seller is None:
                count("no_card_to_buy")
                return [*people, host]
            chips = state["seats"][buyer]["chips"]
            reply = await people[buyer].request_raw("offer", to=seller, cards=1, price=max(1, chips - 5))
            if reply.get("type") != "ok":
                count("offer_refused:" + str(reply.get("code")))
                return [*people, host]
            count("offers")
            await people[buyer].request("leave")
            joined = await people[buyer].request_raw("join", room=tdc)
            count("tdc_join_" + ("ok" if joined.get("type") == "ok" else str(joined.get("code"))))
            accepted = await people[seller].request_raw("accept", offer=reply["offer"])
            count("accept_" + ("ok" if accepted.get("type") == "ok" else str(accepted.get("code"))))
            return [*people, host]

        phases.begin()
        results = await asyncio.gather(*(table(i) for i in range(args.offer_tables)), return_exceptions=True)
        phases.end("attack")
        everyone = [c for r in results if isinstance(r, list) for c in r]
        out.update(outcomes=counts, errors=[repr(r) for r in results if isinstance(r, Exception)][:5],
                   audit_while_open=audit(srv))
        await asyncio.gather(*(c.close() for c in everyone), return_exceptions=True)
        await asyncio.sleep(1.0)
        out["rss_mb_end"] = srv.rss_mb()
        await witness.stop()
        out["phases"] = phases.figures(witness)
        out["witness_loop"] = witness.own_lag
        out["audit"] = audit(srv)
        lag.stop()
    return out


# ---------------------------------------------------------------------------
# the social floods: tells, challenges, seeks, verify

SOCIAL_LIMITS = """\
[limits]
idle_timeout = 3600
login_timeout = 120
max_connections_per_address = 1000
[timers]
round_pause = 0
bot_delay = 0
auction_seconds = 1
flip_seconds = 0.2
trade_window = 0
entropy_window = 0
"""


class Flood:
    """Attackers each running ``one(client, i)`` in a loop for ``seconds``, counting the replies' codes."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}

    def count(self, reply: dict[str, Any]) -> None:
        key = "ok" if reply.get("type") == "ok" else str(reply.get("code"))
        self.codes[key] = self.codes.get(key, 0) + 1

    async def run(self, clients: list[Client], one: Any, seconds: float, pause: float = 0.0) -> None:
        end = time.perf_counter() + seconds

        async def loop(i: int, client: Client) -> None:
            while time.perf_counter() < end:
                await one(client, i)
                if pause:
                    await asyncio.sleep(pause)

        await asyncio.gather(*(loop(i, c) for i, c in enumerate(clients)), return_exceptions=True)


def pushes_of(client: Client) -> dict[str, int]:
    """The events ``client`` received and not read yet, by name (they are consumed)."""
    seen: dict[str, int] = {}
    while (msg := client.next_push_nowait()) is not None:
        if msg.get("type") == "event":
            seen[str(msg.get("event"))] = seen.get(str(msg.get("event")), 0) + 1
    return seen


async def social(args: argparse.Namespace, name: str) -> dict[str, Any]:
    """One social flood (``tells``, ``challenges``, ``seeks``, ``verify``) with a witness and a victim."""
    out: dict[str, Any] = {"scenario": name, "attackers": args.social_attackers, "seconds": args.flood_seconds}
    async with ServerProcess(SOCIAL_LIMITS + extra(args), profile=args.profile) as srv:
        port = srv.telnet_port
        lag = LagMonitor(asyncio.get_running_loop())
        lag.start()
        phases = Phases(lag)
        witness = Witness(port)
        await witness.start()
        victim = await connect(port, "victim", "127.0.1.3", register=PASSWORD)
        listeners = [await connect(port, nick("lis", i), f"127.0.2.{1 + i // 10}")
                     for i in range(args.social_listeners)] if name == "seeks" else []
        # the attackers: guests, --per-address of them on each loopback address
        attackers = [await connect(port, nick("fl", i), f"127.0.4.{1 + i // args.per_address}")
                     for i in range(args.social_attackers)]
        round_id: str | None = None
        if name == "verify":  # a Speculation deal to check: the victim plays one with bots
            await victim.request("create", game="speculation", seats=3, bots=2, rounds=1)
            for _ in range(600):
                reply = await victim.request_raw("verify")
                if reply.get("type") == "ok":
                    round_id = str(reply["round"])
                    break
                await asyncio.sleep(0.1)
            out["round"] = round_id
            await victim.request_raw("leave")
        out["rss_mb_start"] = srv.rss_mb()
        phases.begin()
        await asyncio.sleep(args.idle)
        phases.end("idle")
        for c in [victim, *listeners]:
            c.clear_pushes()
        flood = Flood()

        async def tell(client: Client, i: int) -> None:
            flood.count(await client.request_raw("tell", name="victim", text=f"spam {i}", timeout=60))

        async def challenge(client: Client, i: int) -> None:
            reply = await client.request_raw("challenge", name="victim", game="president", rules="classic",
                                             seats=3, timeout=60)
            flood.count(reply)
            if reply.get("type") == "ok":
                await client.request_raw("cancel_seek", timeout=60)

        async def seek(client: Client, i: int) -> None:
            reply = await client.request_raw("seek", game="president", rules="classic", seats=3, timeout=60)
            flood.count(reply)
            if reply.get("type") == "ok":
                await client.request_raw("cancel_seek", timeout=60)

        async def verify(client: Client, i: int) -> None:
            flood.count(await client.request_raw("verify", round=round_id, timeout=60))

        one = {"tells": tell, "challenges": challenge, "seeks": seek, "verify": verify}[name]
        cpu0 = srv.cpu_s()
        phases.begin()
        t0 = time.perf_counter()
        await flood.run(attackers, one, args.flood_seconds, pause=args.social_pause)
        spent = time.perf_counter() - t0
        phases.end("flood")
        cpu1 = srv.cpu_s()
        await asyncio.sleep(1.2)  # the last news are out
        await victim.request("ping")
        for c in listeners:
            await c.request("ping")
        out.update(replies=flood.codes, flood_s=round(spent, 2),
                   sent_per_s=round(sum(flood.codes.values()) / spent, 1) if spent else None,
                   server_cpu_share=None if cpu0 is None or cpu1 is None else round((cpu1 - cpu0) / spent, 2))
        out["victim_heard"] = pushes_of(victim)
        if listeners:
            heard = [pushes_of(c) for c in listeners]
            out["listener_heard"] = heard[0]
            out["listener_lines_mean"] = round(sum(sum(h.values()) for h in heard) / len(heard), 1)
        out["rss_mb_end"] = srv.rss_mb()
        await witness.stop()
        out["phases"] = phases.figures(witness)
        out["witness_loop"] = witness.own_lag
        await asyncio.gather(*(c.close() for c in [victim, *listeners, *attackers]), return_exceptions=True)
        out["audit"] = audit(srv)
        lag.stop()
    return out


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default="slots,bots,seats,offers,tells,challenges,seeks,verify")
    p.add_argument("--addresses", type=int, default=120, help="slots: attacking addresses")
    p.add_argument("--per-address", type=int, default=5, help="slots: attackers per address")
    p.add_argument("--listeners", type=int, default=300, help="slots: guests waiting in the lobby")
    p.add_argument("--tables", type=int, default=20, help="bots: tables of hard bots")
    p.add_argument("--duration", type=float, default=20.0, help="bots: seconds of play")
    p.add_argument("--idle", type=float, default=2.0, help="seconds of the idle phase")
    p.add_argument("--accounts", type=int, default=20, help="seats: accounts, each on two connections at once")
    p.add_argument("--rounds", type=int, default=10, help="seats: double joins per account")
    p.add_argument("--offer-tables", type=int, default=10, help="offers: Speculation tables")
    p.add_argument("--social-attackers", type=int, default=10, help="tells/challenges/seeks/verify: attacking guests")
    p.add_argument("--social-listeners", type=int, default=30, help="seeks: guests waiting in the lobby")
    p.add_argument("--flood-seconds", type=float, default=8.0, help="tells/challenges/seeks/verify: seconds of flood")
    p.add_argument("--social-pause", type=float, default=0.13,
                   help="tells/challenges/seeks/verify: each attacker's pause between two (the default keeps "
                        "within the server's command rate, 8 a second)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a configuration key for the server (TOML value), e.g. --set bot_processes=2")
    p.add_argument("--profile", help="cProfile the server into this file")
    p.add_argument("--label", default="", help="a word printed with the figures (before/after)")
    p.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    p.add_argument("--close-wait", type=float, default=4.0, help="slots: seconds watched after the drop")
    p.add_argument("--witness-port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--listeners-port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--listeners-count", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--witness-from", default="127.0.1.1", help=argparse.SUPPRESS)
    p.add_argument("--witness-out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.witness_port:
        await witness_main(args.witness_port, args.witness_from, args.witness_out)
        return {}
    if args.listeners_port:
        await listeners_main(args.listeners_port, args.listeners_count, args.witness_out)
        return {}
    if args.quick:
        args.addresses, args.per_address, args.listeners = 20, 5, 40
        args.tables, args.duration, args.idle = 4, 5.0, 1.0
        args.accounts, args.rounds, args.offer_tables = 4, 3, 3
        args.social_attackers, args.social_listeners, args.flood_seconds = 6, 10, 3.0
    out: dict[str, Any] = {"bench": "abuse", "label": args.label, "date": today(), "machine": machine(),
                           "runs": []}
    for name in args.only.split(","):
        name = name.strip()
        if name in ("tells", "challenges", "seeks", "verify"):
            run = await social(args, name)
        else:
            run = await {"slots": slots, "bots": bots, "seats": seats, "offers": offers}[name](args)
        print(json.dumps(run), file=sys.stderr)
        out["runs"].append(run)
    return out


if __name__ == "__main__":
    result = asyncio.run(main(sys.argv[1:]))
    if result:
        print(json.dumps(result))
