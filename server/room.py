"""A room: one table, one match coroutine — the only place engine and network meet.

Everything that changes a room goes through its queue and is handled by
:meth:`Room._run`, one thing at a time, so the engine needs no locks and
"the first valid cut to reach the server wins" (T9) is simply queue order.
The coroutine waits for the next input or the earliest deadline (decision
time-outs, bots, the pause between rounds, a disconnected player's grace),
applies what is due, then pushes to every participant the events they may
see (``event.for_seat(seat)``; spectators ``for_seat(None)``) and their own
state (``match.view(seat)``).

Chips go through the store's ledger: tdc stakes are escrowed when a round
starts and paid out from its ``round_over`` (T13); Speculation antes are
escrowed with the deal and the pool paid to its winner, auction and trade
prices are transfers (S3, S7, S9). Bots sit on chips funded by the house.
A round that cannot finish (shutdown, crash) is refunded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import engine
from engine.bots import LEVELS, make_bot
from engine.cards import format_cards
from engine.errors import Refusal
from engine.seeds import commitment, derive
from server.commands import CommandError, arg_int, arg_str
from server.jsonmode import encode
from server.session import SharedEvent
from server.storage.api import InsufficientChips, StorageError, bot_account

if TYPE_CHECKING:
    from server.commands import Context
    from server.lobby import Lobby, Player

log = logging.getLogger(__name__)

GAME_COMMANDS = frozenset({"play", "pass", "cut", "give", "bid", "sell", "keep", "turn", "offer", "accept",
                           "decline", "withdraw"})
SEATS = {"classic": (3, 8), "tdc": (3, 8), "speculation": (3, 9)}
MAX_OPTIONAL_BOT_ACTIONS = 12  # per bot and round: offers, cuts... that nobody waits for


def draw_seed() -> bytes:
    """A fresh deal seed (32 bytes from the OS); tests replace it to play explicit deals."""
    return os.urandom(32)


@dataclass(frozen=True, slots=True)
class RoomOptions:
    game: str  # "president" | "speculation"
    rules: str  # "classic" | "tdc" | "speculation"
    seats: int
    bots: int = 0
    bot_level: str = "normal"
    turn_seconds: float = 30.0
    stake: int = 0  # tdc (T13)
    ante: int = 1  # speculation (S3)
    rounds: int | None = None  # classic rounds (P15), tdc rounds (None: endless), speculation deals (S11)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "rules": self.rules, "seats": self.seats, "bots": self.bots,
                "bot_level": self.bot_level, "turn_seconds": self.turn_seconds, "stake": self.stake,
                "ante": self.ante, "rounds": self.rounds}


def parse_options(args: Mapping[str, Any], config: Any) -> RoomOptions:
    """The ``create`` arguments, checked; ``CommandError("bad_argument")`` names the first bad one."""
    game = arg_str(args, "game", limit=20).lower()
    if game not in engine.GAME_NAMES:
        raise CommandError("bad_argument", arg="game")
    if game == "president":
        rules = arg_str(args, "rules", default="classic", limit=20).lower()
        if rules not in ("classic", "tdc"):
            raise CommandError("bad_argument", arg="rules")
    else:
        rules = str(args.get("rules") or "speculation").lower()
        if rules != "speculation":
            raise CommandError("bad_argument", arg="rules")
    lo, hi = SEATS[rules]
    seats = arg_int(args, "seats", default=4, lo=lo, hi=hi)
    bots = arg_int(args, "bots", default=0, lo=0, hi=seats - 1)
    level = arg_str(args, "bot_level", default="normal", limit=20).lower()
    if level not in LEVELS and level not in ("random", "greedy", "search"):
        raise CommandError("bad_argument", arg="bot_level")
    try:
        make_bot(game, level, 0, b"\0" * 16)  # the strategy exists for this game
    except Exception:
        log.exception("no %s bot for %s", level, game)
        raise CommandError("bad_argument", arg="bot_level") from None
    default_turn = config.turn_seconds if game == "president" else config.auction_seconds
    turn = args.get("turn_seconds", default_turn)
    if isinstance(turn, bool) or not isinstance(turn, int | float) or not 1 <= turn <= 600:
        raise CommandError("bad_argument", arg="turn_seconds")
    stake = 0
    ante = 1
    if rules == "tdc":
        stake = arg_int(args, "stake", default=config.default_stake, lo=0, hi=1_000_000)
        if stake % 2:
            raise CommandError("bad_argument", arg="stake")
    elif "stake" in args and args["stake"] not in (0, None):
        raise CommandError("bad_argument", arg="stake")
    if rules == "speculation":
        ante = arg_int(args, "ante", default=config.default_ante, lo=1, hi=1_000_000)
    elif "ante" in args and args["ante"] is not None:
        raise CommandError("bad_argument", arg="ante")
    rounds: int | None
    if args.get("rounds") is None:
        rounds = None
    else:
        rounds = arg_int(args, "rounds", lo=1, hi=1000)
    return RoomOptions(game, rules, seats, bots, level, float(turn), stake, ante, rounds)


async def create_room(ctx: Context, args: Mapping[str, Any]) -> Room:
    """``create``: a new room with the creator on seat 0 and the bots on the last seats."""
    lobby = ctx.lobby
    player = ctx.session.player
    assert player is not None
    if player.room is not None:
        raise CommandError("already_in_room", room=player.room.id)
    opts = parse_options(args, ctx.config)
    if len([r for r in lobby.rooms.values() if not r.closed]) >= ctx.config.max_rooms:
        raise CommandError("not_allowed", reason="too_many_rooms")
    await Room.check_chips(lobby, opts, player.name)
    room = Room(lobby, lobby.new_room_id(), opts, owner=player.name)
    lobby.rooms[room.id] = room
    room.start()
    try:
        await room.submit(player, "join", {"seat": 0})
    except BaseException:
        await room.stop()
        raise
    lobby.broadcast({**room.summary(), "event": "room_created", "name": player.name}, news=True)
    return room


@dataclass(eq=False)
class Seat:
    index: int
    name: str | None = None  # display name
    account: str | None = None  # ledger name (players: their name; bots: their ~bot: account)
    player: Player | None = None  # a person (None: a bot or nobody)
    bot: Any = None  # the engine bot playing this seat (bots, and people replaced after leaving, P16)
    bot_display: str | None = None  # ledger display name of a funded bot
    grace_until: float | None = None  # disconnected person: seat kept until then
    leaving: bool = False  # leaves at the next round boundary (tdc, Speculation)
    optional_actions: int = 0

    @property
    def empty(self) -> bool:
        """Free for someone to sit: no person, no bot, nobody finishing a round on it."""
        return self.player is None and self.bot is None and not self.leaving

    @property
    def human(self) -> bool:
        return self.player is not None

    @property
    def connected(self) -> bool:
        if self.player is not None:
            return self.player.connected
        return self.bot is not None


@dataclass(slots=True)
class _Input:
    kind: str  # "cmd", "reconnect", "disconnected", "stop"
    player: Player | None = None
    cmd: str = ""
    args: Mapping[str, Any] = field(default_factory=dict)
    future: asyncio.Future[Any] | None = None


class Room:
    def __init__(self, lobby: Lobby, rid: str, opts: RoomOptions, owner: str) -> None:
        self.lobby = lobby
        self.app = lobby.app
        self.config = lobby.app.config
        self.id = rid
        self.uid = secrets.token_hex(4)
        self.opts = opts
        self.owner = owner
        self.game = opts.game
        self.rules = opts.rules
        self.seats = [Seat(i) for i in range(opts.seats)]
        self.spectators: list[Player] = []
        self.match: Any = None
        self.status = "waiting"  # waiting | playing | over
        self.closed = False
        self.created = time.monotonic()
        self.log: list[dict[str, Any]] = []
        self.round_id: str | None = None  # open escrow (tdc round, Speculation deal)
        self.round_stakes: dict[int, str] = {}  # seat -> account that staked this round
        self.deal_commitment: str | None = None  # published with the deal; the seed after it
        self.deadlines: dict[Any, float] = {}
        self.next_deal_at = 0.0
        self.over_at: float | None = None
        self._bot_due: float | None = None
        self._queue: asyncio.Queue[_Input] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._last_state: dict[str, dict[str, Any]] = {}
        self._deferred: list[Callable[[], None]] = []  # state pushes sent after the command's reply
        self._bot_seed = os.urandom(16)

    # -- public face -------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        return {
            "room": self.id,
            "game": self.game,
            "rules": self.rules,
            "seats": self.opts.seats,
            "players": [s.name for s in self.seats if not s.empty],
            "bots": sum(1 for s in self.seats if s.bot is not None and s.player is None),
            "spectators": len(self.spectators),
            "status": self.status,
            "stake": self.opts.stake,
            "ante": self.opts.ante,
            "rounds": self.opts.rounds,
            "turn_seconds": self.opts.turn_seconds,
            "round": self.match.round if self.match is not None else 0,
        }

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"room-{self.id}")

    async def submit(self, player: Player, cmd: str, args: Mapping[str, Any]) -> Any:
        """Queue a command for the room coroutine and wait for its result (or CommandError)."""
        if self.closed:
            raise CommandError("no_such_room", room=self.id)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Input("cmd", player, cmd, dict(args), future))
        return await future

    async def reconnect(self, player: Player) -> None:
        if not self.closed:
            self._queue.put_nowait(_Input("reconnect", player))

    async def disconnected(self, player: Player) -> None:
        if self.closed:
            player.room = None
            player.seat = None
            await self.lobby.release(player)
            return
        self._queue.put_nowait(_Input("disconnected", player))

    def refresh(self, player: Player) -> None:
        if not self.closed:
            self._queue.put_nowait(_Input("reconnect", player))

    async def stop(self) -> None:
        """End the room now (shutdown): refund an unfinished round, release everyone."""
        if self._task is None or self._task.done():
            if not self.closed:
                await self._close("shutdown")
            return
        self._queue.put_nowait(_Input("stop"))
        try:
            await asyncio.wait_for(asyncio.shield(self._task), 10)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    def last_state_for(self, player: Player) -> dict[str, Any] | None:
        return self._last_state.get(player.key)

    # -- chips ---------------------------------------------------------------------

    @staticmethod
    async def check_chips(lobby: Lobby, opts: RoomOptions, name: str) -> None:
        need = opts.stake if opts.rules == "tdc" else opts.ante if opts.rules == "speculation" else 0
        if need <= 0:
            return
        balance = await lobby.store.ledger.balance(name)
        if balance < need:
            raise CommandError("insufficient_chips", need=need, chips=balance)

    @property
    def ledger(self) -> Any:
        return self.lobby.store.ledger

    def _bot_ledger_name(self, seat: Seat) -> str:
        return f"{self.id}-{self.uid}-{seat.index}"

    async def _seat_bot(self, seat: Seat) -> None:
        # a search bot's budget counts simulated moves; on a loaded server the
        # wall clock caps it too, so a bot never holds a table beyond its budget
        options = {"clock": time.monotonic} if LEVELS.get(self.opts.bot_level, self.opts.bot_level) == "search" else {}
        bot = make_bot(
            self.game, self.opts.bot_level, seat.index, derive(self._bot_seed, f"bot-{seat.index}"), **options
        )
        if self.rules in ("tdc", "speculation"):
            display = self._bot_ledger_name(seat)
            await self.lobby.store.accounts.fund_bot(display, self.config.bot_chips)  # may refuse: seat stays free
            seat.bot_display = display
            seat.account = bot_account(display)
        seat.bot = bot
        seat.name = f"bot{seat.index}"
        seat.player = None

    async def _release_bots(self) -> None:
        staked = self._staked_bot_displays()
        for seat in self.seats:
            if seat.bot_display is not None and seat.bot_display not in staked:
                try:
                    await self.lobby.store.accounts.release_bot(seat.bot_display)
                except Exception:
                    log.exception("room %s: could not release bot %s", self.id, seat.bot_display)

    def _staked_bot_displays(self) -> set[str]:
        if self.round_id is None:
            return set()
        return {s.bot_display for s in self.seats if s.bot_display and s.index in self.round_stakes}

    # -- the coroutine ----------------------------------------------------------

    async def _run(self) -> None:
        try:
            while not self.closed:
                await self._advance()
                if self.closed:
                    break
                wake = self._next_wakeup()
                timeout = None if wake is None else max(0.0, wake - time.monotonic())
                try:
                    item = await asyncio.wait_for(self._queue.get(), timeout)
                except TimeoutError:
                    continue
                if item.kind == "stop":
                    await self._close("shutdown")
                    break
                await self._handle(item)
        except asyncio.CancelledError:
            if not self.closed:
                await self._close("shutdown")
            raise
        except Exception:
            log.exception("room %s failed; closing it", self.id)
            if not self.closed:
                await self._close("error")
        finally:
            self._fail_waiting()

    def _fail_waiting(self) -> None:
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item.future is not None and not item.future.done():
                item.future.set_exception(CommandError("no_such_room", room=self.id))

    def _next_wakeup(self) -> float | None:
        times = list(self.deadlines.values())
        if self._bot_due is not None:
            times.append(self._bot_due)
        times.extend(s.grace_until for s in self.seats if s.grace_until is not None)
        if self.status == "playing" and self.match is not None and self.match.needs_deal():
            times.append(self.next_deal_at)
        if self.over_at is not None:
            times.append(self.over_at)
        return min(times) if times else None

    async def _handle(self, item: _Input) -> None:
        player = item.player
        assert player is not None
        if item.kind == "reconnect":
            await self._on_reconnect(player)
            return
        if item.kind == "disconnected":
            await self._on_disconnect(player)
            return
        future = item.future
        assert future is not None
        try:
            result, events = await self._command(player, item.cmd, item.args)
        except Exception as exc:
            self._deferred.clear()  # a refused command pushes nothing
            error: Exception = exc
            if isinstance(exc, Refusal):
                error = CommandError(exc.code, **{**exc.params, "detail": exc.detail})
            elif isinstance(exc, StorageError):  # e.g. the house cannot fund a bot any more
                log.warning("room %s: %s refused by the store: %s", self.id, item.cmd, exc)
                error = CommandError(exc.code)
            elif not isinstance(exc, CommandError):
                log.exception("room %s: %s failed", self.id, item.cmd)
            if not future.done():
                future.set_exception(error)
            return
        if not future.done():
            future.set_result(result)
        await asyncio.sleep(0)  # the reply goes out before the states it causes
        deferred, self._deferred = self._deferred, []
        for push in deferred:
            push()
        if events is not None:
            await self._after(events)

    async def _command(self, player: Player, cmd: str, args: Mapping[str, Any]) -> tuple[Any, Any]:
        """Run one command; returns (reply fields, engine events to publish or None)."""
        if cmd == "join":
            return await self._join(player, args), None
        if cmd == "watch":
            return self._watch(player), None
        if cmd == "leave":
            return await self._leave(player), None
        if cmd == "say":
            self._broadcast({"event": "chat", "room": self.id, "name": player.name, "message": args["text"]})
            return None, None
        if cmd == "state":
            self._deferred.append(lambda: self._push_state(player))
            return None, None
        if cmd == "autocut":
            return None, ()  # _after runs the automatic cuts
        if cmd in GAME_COMMANDS:
            return self._game_command(player, cmd, args)
        raise CommandError("unknown_command", cmd=cmd)

    def _game_command(self, player: Player, cmd: str, args: Mapping[str, Any]) -> tuple[Any, Any]:
        if player.room is not self or player.seat is None:
            raise CommandError("not_allowed", reason="not_seated")
        if self.match is None or self.status != "playing":
            raise CommandError("not_allowed", reason="not_started")
        seat = player.seat
        action = self.match.action_from(seat, cmd, args)
        events = self._apply(action)
        result: dict[str, Any] | None = None
        if cmd == "offer":
            for ev in events:
                if ev.name == "offered":
                    result = {"offer": ev.to_dict().get("offer")}
        return result, events

    def _apply(self, action: Any) -> tuple[Any, ...]:
        """Apply one action to the match (raises Refusal, changing nothing)."""
        events = tuple(self.match.apply(action))
        self.log.append(action.to_dict())
        return events

    # -- advancing: deals, time-outs, bots, grace ---------------------------------

    async def _advance(self) -> None:
        for _ in range(500):  # everything due now; bounded so a bug cannot spin forever
            await asyncio.sleep(0)  # a table of fast bots must not hold the loop
            now = time.monotonic()
            if self.over_at is not None and now >= self.over_at:
                await self._close("over")
                return
            if await self._expire_graces(now):
                continue
            if self.status != "playing" or self.match is None:
                return
            if self.match.needs_deal():
                if self.match.over:
                    return
                if now < self.next_deal_at:
                    return
                if not await self._deal():
                    return
                continue
            if await self._timeouts(now):
                continue
            if self._bot_due is not None and now >= self._bot_due:
                self._bot_due = None
                if await self._bots_act():
                    continue
            return

    async def _timeouts(self, now: float) -> bool:
        for pending in self.match.pending():
            due = self.deadlines.get(pending.key)
            if due is not None and now >= due:
                self.deadlines.pop(pending.key, None)
                try:
                    events = self._apply(pending.on_timeout)
                except Refusal as exc:  # an engine bug: log it, try again later rather than stall silently
                    log.error("room %s: time-out action refused (%s)", self.id, exc.code)
                    self.deadlines[pending.key] = now + self._timer_seconds(pending.kind)
                    continue
                await self._after(events)
                return True
        return False

    async def _bots_act(self) -> bool:
        """Ask the bots, the awaited ones first; apply the first action one of them chooses."""
        match = self.match
        awaited = [p.seat for p in match.pending() if p.seat is not None]
        order = [s for s in self.seats if s.bot is not None and s.index in awaited]
        order += [s for s in self.seats if s.bot is not None and s.index not in awaited
                  and s.optional_actions < MAX_OPTIONAL_BOT_ACTIONS]
        for seat in order:
            legal = match.legal_actions(seat.index)
            if not legal:
                continue
            view = match.view(seat.index)
            try:
                if self.opts.bot_level in ("hard", "search"):
                    action = await asyncio.to_thread(seat.bot.decide, view, legal)
                else:
                    action = seat.bot.decide(view, legal)
            except Exception:
                log.exception("room %s: bot %d failed", self.id, seat.index)
                action = None
            if action is None:
                continue
            try:
                events = self._apply(action)
            except Refusal as exc:
                log.warning("room %s: bot %d chose a refused action (%s)", self.id, seat.index, exc.code)
                continue
            if seat.index not in awaited:
                seat.optional_actions += 1
            await self._after(events)
            return True
        return False

    def _autocuts(self) -> Any:
        """tdc: the first seat with automatic cut on that can cut now (T9)."""
        if self.rules != "tdc" or self.match is None or self.status != "playing":
            return None
        options = self.match.cut_options()
        for seat in self.seats:
            if seat.player is not None and seat.player.autocut and seat.index in options:
                for action in self.match.legal_actions(seat.index):
                    if getattr(action, "cmd", "") == "cut" or type(action).__name__ == "Cut":
                        return action
        return None

    def _timer_seconds(self, kind: str) -> float:
        if self.game == "speculation":
            return self.opts.turn_seconds if kind == "auction" else self.config.flip_seconds
        return self.opts.turn_seconds

    def _refresh_deadlines(self) -> None:
        now = time.monotonic()
        pending = self.match.pending() if self.match is not None else ()
        keys = {p.key for p in pending}
        for key in list(self.deadlines):
            if key not in keys:
                del self.deadlines[key]
        for p in pending:
            if p.key not in self.deadlines:
                self.deadlines[p.key] = now + self._timer_seconds(p.kind)

    def _schedule_bots(self) -> None:
        if any(s.bot is not None for s in self.seats) and self.status == "playing":
            due = time.monotonic() + self.config.bot_delay
            if self._bot_due is None or due < self._bot_due:
                self._bot_due = due

    # -- after each change ---------------------------------------------------------

    async def _after(self, events: tuple[Any, ...]) -> None:
        """Chips, pushes, round and match ends, deadlines, automatic cuts, bots."""
        for _ in range(64):
            await self._money(events)
            self._publish(events)
            for ev in events:
                if ev.name == "round_over" and self.game == "president":
                    await self._round_over(ev)
                elif ev.name == "deal_over":
                    await self._deal_over(ev)
                elif ev.name == "match_over":
                    await self._match_over()
            self._refresh_deadlines()
            self._push_states()
            cut = self._autocuts()
            if cut is None:
                break
            try:
                events = self._apply(cut)
            except Refusal:
                break
        self._schedule_bots()

    async def _money(self, events: tuple[Any, ...]) -> None:
        if self.game != "speculation":
            return
        for ev in events:
            name = ev.name
            if name not in ("ante", "pool_won", "sold", "traded"):
                continue
            d = ev.to_dict()
            try:
                if name == "ante":
                    stakes = {self._account(p["seat"]): p["amount"] for p in d["payments"] if p["amount"] > 0}
                    self.round_stakes = {p["seat"]: self._account(p["seat"]) for p in d["payments"]}
                    if stakes:
                        await self.ledger.open_round(self.round_id, stakes)
                elif name == "pool_won":
                    if d["amount"] > 0:
                        await self.ledger.settle_round(self.round_id, {self._account(d["seat"]): d["amount"]})
                    self.round_stakes = {}
                elif name == "sold":
                    await self.ledger.transfer(self._account(d["to"]), self._account(d["seat"]), d["price"],
                                               "sold", ref=self.round_id or "")
                elif name == "traded":
                    await self.ledger.transfer(self._account(d["from"]), self._account(d["to"]), d["price"],
                                               "traded", ref=self.round_id or "")
            except Exception:
                log.exception("room %s: ledger refused %s; closing the room", self.id, name)
                raise

    def _account(self, seat: int) -> str:
        account = self.seats[seat].account or self.round_stakes.get(seat)
        if account is None:
            raise RuntimeError(f"seat {seat} has no account")
        return account

    async def _deal(self) -> bool:
        """Start a round (President) or a deal (Speculation): who plays, the escrow, the seed."""
        match = self.match
        await self._vacate_leavers()
        seed = draw_seed()
        self.round_id = f"{self.id}-{self.uid}-{match.round + 1}"
        table: dict[str, Any] = {}
        if self.rules == "tdc":
            present = await self._tdc_present()
            if len(present) < 3:
                self._pause("waiting")
                return False
            if self.opts.stake > 0:
                try:
                    await self.ledger.open_round(self.round_id, {self._account(s): self.opts.stake for s in present})
                except InsufficientChips:
                    # a balance moved since it was checked: this round waits, the next deal checks again
                    log.info("room %s: a stake could not be covered; the round waits", self.id)
                    self.next_deal_at = time.monotonic() + max(self.config.round_pause, 1.0)
                    return False
            table = {"present": tuple(present), "stake": self.opts.stake}
            self.round_stakes = {s: self._account(s) for s in present}
        elif self.rules == "speculation":
            present = [s.index for s in self.seats if not s.empty and not s.leaving]
            if len(present) < 3:
                await self._end_early()  # seats are not refilled mid-match (S11): the match ends here
                return False
            table = {"present": tuple(present)}
        self.deal_commitment = commitment(seed)
        if self.rules == "speculation":
            self._broadcast({"event": "commitment", "round": match.round + 1, "commitment": self.deal_commitment})
        for s in self.seats:
            s.optional_actions = 0
        try:
            action = match.deal_action(seed, **table)
            events = self._apply(action)
        except Refusal as exc:
            log.info("room %s: no deal possible (%s)", self.id, exc.code)
            await self._refund_round()
            if self.game == "speculation":
                await self._end_early()
            else:
                self._pause("waiting")
            return False
        if match.round == 1:
            log.info("room %s: match started (%s, %d seats)", self.id, self.rules, len(self.seats))
        await self._after(events)
        return True

    def _pause(self, status: str) -> None:
        """Not enough players for a round: wait for someone to join."""
        self.status = status
        self.round_id = None
        if not any(s.human for s in self.seats):
            self.over_at = time.monotonic()
        self._push_states()

    async def _tdc_present(self) -> list[int]:
        present = []
        for seat in self.seats:
            if seat.empty or seat.leaving:
                continue
            if seat.bot is not None and seat.bot_display is not None:
                await self.lobby.store.accounts.fund_bot(seat.bot_display, self.config.bot_chips)
            if self.opts.stake > 0:
                balance = await self.ledger.balance(self._account(seat.index))
                if balance < self.opts.stake:
                    continue  # T13: cannot cover the stake, sits this round out
            present.append(seat.index)
        return present

    async def _round_over(self, ev: Any) -> None:
        d = ev.to_dict()
        if self.rules == "tdc" and self.round_id is not None and self.opts.stake > 0:
            chips = d.get("chips") or []
            payouts: dict[str, int] = {}
            for seat, account in self.round_stakes.items():
                change = chips[seat] if seat < len(chips) and chips[seat] is not None else 0
                payouts[account] = payouts.get(account, 0) + self.opts.stake + change
            await self.ledger.settle_round(self.round_id, payouts)
        await self._record(d)
        self.round_stakes = {}
        self.round_id = None
        self.next_deal_at = time.monotonic() + self.config.round_pause
        await self._vacate_leavers()

    async def _deal_over(self, ev: Any) -> None:
        # S12h: the undealt cards are never shown, and the seed would show
        # them (anyone can re-run the shuffle), so a Speculation seed is never
        # published; its commitment was, and the stored record keeps both.
        d = ev.to_dict()
        await self._record(d)
        self.round_stakes = {}
        self.round_id = None
        self.next_deal_at = time.monotonic() + self.config.round_pause
        await self._vacate_leavers()

    async def _record(self, result: dict[str, Any]) -> None:
        from server.storage.api import RoundRecord

        record = RoundRecord(
            round_id=self.round_id or f"{self.id}-{self.uid}-{self.match.round}",
            game=self.game,
            rules=self.rules,
            seats=[s.name or "" for s in self.seats],
            config={**self.opts.to_dict(), "match": _jsonable(getattr(self.match, "config", {}))},
            log=list(self.log),
            result=result,
            commitment=self.deal_commitment or "",
            finished_at=time.time(),
            extra={"room": self.id},
        )
        try:
            await self.lobby.store.history.record_round(record)
        except Exception:
            log.exception("room %s: could not record round %s", self.id, record.round_id)

    async def _match_over(self) -> None:
        self.status = "over"
        self.deadlines.clear()
        self._bot_due = None
        log.info("room %s: match over", self.id)
        await self._release_bots()
        if not any(s.human and s.player is not None and s.player.connected for s in self.seats):
            self.over_at = time.monotonic()
        else:
            self.over_at = time.monotonic() + self.config.close_after_over

    async def _end_early(self) -> None:
        """Fewer than three players can go on (S3, S12a): the match ends with the chips as they are."""
        self._broadcast({"event": "notice", "code": "not_enough_players"})
        await self._match_over()
        self._push_states()

    async def _refund_round(self) -> None:
        round_id, self.round_id = self.round_id, None
        self.round_stakes = {}
        if round_id is None:
            return
        refund = getattr(self.ledger, "refund_round", None)
        try:
            if refund is not None:
                await refund(round_id)
        except Exception as exc:
            if type(exc).__name__ != "UnknownRound":
                log.exception("room %s: refund of %s failed", self.id, round_id)

    # -- people ----------------------------------------------------------------------

    async def _join(self, player: Player, args: Mapping[str, Any]) -> dict[str, Any]:
        if player.room is self and player.seat is not None:
            raise CommandError("not_allowed", reason="already_seated")
        if player.room is not None and player.room is not self:
            raise CommandError("already_in_room", room=player.room.id)
        if self.status == "over":
            raise CommandError("not_allowed", reason="over")
        joinable = (self.status == "waiting" and self.match is None) or self.rules == "tdc"
        free = [s for s in self.seats if s.empty]
        if not joinable or not free:
            raise CommandError("room_full", room=self.id)
        wanted = args.get("seat")
        if wanted is not None:
            if isinstance(wanted, bool) or not isinstance(wanted, int) or not 0 <= wanted < len(self.seats):
                raise CommandError("bad_argument", arg="seat")
            if not self.seats[wanted].empty:
                raise CommandError("room_full", room=self.id)
            seat = self.seats[wanted]
        else:
            seat = free[0]
        await Room.check_chips(self.lobby, self.opts, player.name)
        if player in self.spectators:
            self.spectators.remove(player)
        seat.player = player
        seat.name = player.name
        seat.account = player.name
        seat.bot = None
        seat.leaving = False
        seat.grace_until = None
        player.room = self
        player.seat = seat.index
        self._broadcast({"event": "joined", "room": self.id, "name": player.name, "seat": seat.index})
        if self.status == "waiting" and self.match is None:
            await self._fill_bots()
            if all(not s.empty for s in self.seats):
                await self._start_match()
        elif self.status == "waiting":
            self.status = "playing"  # tdc: enough players again
            self.next_deal_at = time.monotonic() + self.config.round_pause
            self.over_at = None
        self._deferred.append(self._push_states)
        return {"seat": seat.index}

    async def _fill_bots(self) -> None:
        """Bots take their seats at once: the last ``bots`` seats."""
        wanted = self.opts.bots
        have = sum(1 for s in self.seats if s.bot is not None)
        for seat in reversed(self.seats):
            if have >= wanted:
                break
            if seat.empty:
                await self._seat_bot(seat)
                have += 1
                self._broadcast({"event": "joined", "room": self.id, "name": seat.name, "seat": seat.index,
                                 "bot": True})

    async def _start_match(self) -> None:
        opts = self.opts
        cls = engine.game_class(self.game)
        if self.game == "president":
            self.match = cls(opts.rules, seats=opts.seats, stake=opts.stake, rounds=opts.rounds)
        else:
            chips = [await self.ledger.balance(self._account(s.index)) for s in self.seats]
            self.match = cls(seats=opts.seats, chips=chips, ante=opts.ante, deals=opts.rounds)
        self.status = "playing"
        self.next_deal_at = time.monotonic()
        self._broadcast({"event": "match_started", "room": self.id})

    def _watch(self, player: Player) -> dict[str, Any]:
        if player.room is self and player.seat is not None:
            raise CommandError("not_allowed", reason="already_seated")
        if player not in self.spectators:
            self.spectators.append(player)
        player.room = self
        player.seat = None
        self._broadcast({"event": "joined", "room": self.id, "name": player.name, "seat": None, "watch": True})
        self._deferred.append(lambda: self._push_state(player))
        return {"room": self.id}

    async def _leave(self, player: Player) -> dict[str, Any]:
        if player.room is not self:
            raise CommandError("not_in_room")
        if player.seat is None:
            if player in self.spectators:
                self.spectators.remove(player)
        else:
            seat = self.seats[player.seat]
            await self._free_seat(seat, reason="left")
        player.room = None
        player.seat = None
        self._last_state.pop(player.key, None)
        self._broadcast({"event": "left", "room": self.id, "name": player.name})
        self._push_states()
        await self._maybe_close()
        return {"room": self.id}

    def _in_round(self, seat: Seat) -> bool:
        """The seat holds cards / stakes in the round or deal being played."""
        if self.match is None or self.status != "playing" or self.match.needs_deal():
            return False
        if seat.index in self.round_stakes:
            return True
        if self.game == "president":
            view = self.match.view(None)
            return bool(view.present[seat.index]) and view.counts[seat.index] > 0
        return False

    async def _free_seat(self, seat: Seat, reason: str) -> None:
        """A person leaves their seat (command, or grace expired)."""
        player = seat.player
        if self.match is None:
            seat.player = None
            seat.name = None
            seat.account = None
        elif self.rules == "classic" and self.status == "playing":
            # P16: a built-in bot takes over; the points stay with the seat
            seat.bot = make_bot(self.game, "normal", seat.index, derive(self._bot_seed, f"sub-{seat.index}"))
            seat.player = None
            seat.grace_until = None
            self._broadcast({"event": "replaced", "room": self.id, "name": seat.name, "seat": seat.index})
            self._schedule_bots()
        elif self.status == "playing" and self._in_round(seat):
            # T1/T12 (tdc), S11 (Speculation): leaves at the end of this round or deal; meanwhile the
            # clock plays for the seat (tdc: passive after one time-out, T14; Speculation: auto-turn)
            seat.leaving = True
            seat.player = None
            seat.grace_until = None
        else:
            seat.player = None
            seat.name = None
            seat.account = None
            seat.grace_until = None
        if player is not None and player.seat == seat.index and player.room is self:
            player.seat = None

    async def _vacate_leavers(self) -> None:
        for seat in self.seats:
            if seat.leaving and not self._in_round(seat):
                seat.leaving = False
                seat.name = None
                seat.account = None
                seat.bot = None
        if self.status == "playing" and not any(s.human for s in self.seats):
            await self._close("empty")

    async def _on_disconnect(self, player: Player) -> None:
        if player.room is not self:
            await self.lobby.release(player)
            return
        if player.seat is None:
            if player in self.spectators:
                self.spectators.remove(player)
            player.room = None
            await self.lobby.release(player)
            return
        seat = self.seats[player.seat]
        if self.match is None:
            await self._free_seat(seat, "disconnected")
            player.room = None
            player.seat = None
            self._broadcast({"event": "left", "room": self.id, "name": player.name})
            self._push_states()
            await self.lobby.release(player)
            await self._maybe_close()
            return
        if self.status == "over":
            player.room = None
            player.seat = None
            seat.player = None
            await self.lobby.release(player)
            await self._maybe_close()
            return
        seat.grace_until = time.monotonic() + self.config.grace_seconds
        self._broadcast({"event": "disconnected", "room": self.id, "name": player.name, "seat": seat.index,
                         "grace": self.config.grace_seconds})
        self._push_states()

    async def _on_reconnect(self, player: Player) -> None:
        if player.room is not self:
            return
        if player.seat is not None:
            seat = self.seats[player.seat]
            if seat.player is player and seat.grace_until is not None:
                seat.grace_until = None
                self._broadcast({"event": "reconnected", "room": self.id, "name": player.name,
                                 "seat": seat.index})
            self._push_states()
        else:
            self._push_state(player)

    async def _expire_graces(self, now: float) -> bool:
        changed = False
        for seat in self.seats:
            if seat.grace_until is not None and now >= seat.grace_until and seat.player is not None:
                player = seat.player
                seat.grace_until = None
                await self._free_seat(seat, "grace")
                player.room = None
                player.seat = None
                self._last_state.pop(player.key, None)
                self._broadcast({"event": "left", "room": self.id, "name": player.name, "seat": seat.index})
                await self.lobby.release(player)
                changed = True
        if changed:
            self._push_states()
            await self._maybe_close()
        return changed and not self.closed

    async def _maybe_close(self) -> None:
        """A room closes when no person is left in it (bots alone do not play on)."""
        people = [s for s in self.seats if s.player is not None] + list(self.spectators)
        busy = self.match is not None and self.status == "playing" and any(s.leaving for s in self.seats)
        if not people and not self.closed and not busy:
            await self._close("empty")

    async def _close(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.deadlines.clear()
        self._bot_due = None
        await self._refund_round()
        await self._release_bots()
        self._broadcast({"event": "room_closed", "room": self.id, "reason": reason})
        self.lobby.room_closed(self)  # tells the lobby while the members are still here (no double news)
        members = [s.player for s in self.seats if s.player is not None] + list(self.spectators)
        for seat in self.seats:
            seat.player = None
        self.spectators.clear()
        for player in members:
            if player.room is self:
                player.room = None
                player.seat = None
                await self.lobby.release(player)
        log.info("room %s closed (%s)", self.id, reason)

    # -- pushing -----------------------------------------------------------------------

    def _names(self) -> list[str]:
        return [s.name or "" for s in self.seats]

    def _audience(self) -> list[tuple[Player, int | None]]:
        out: list[tuple[Player, int | None]] = [(s.player, s.index) for s in self.seats if s.player is not None]
        out += [(p, None) for p in self.spectators]
        return out

    def _broadcast(self, event: dict[str, Any]) -> None:
        """A server event (chat, joined, left...) to everyone in the room."""
        shared = SharedEvent({**event, "room": self.id}, self._names())
        for player, seat in self._audience():
            if player.session is not None:
                player.session.push_shared(shared, seat)

    def _publish(self, events: tuple[Any, ...]) -> None:
        """Engine events, each in the form its receiver may see; bots observe theirs."""
        if not events:
            return
        names = self._names()
        audience = self._audience()
        for ev in events:
            for seat in self.seats:
                if seat.bot is not None:
                    seen = ev.for_seat(seat.index)
                    if seen is not None:
                        with contextlib.suppress(Exception):
                            seat.bot.observe(seen)
            # one encoding per form of the event (public events: one for everybody), words per reader
            forms: dict[int | None, SharedEvent | None] = {}
            for player, seat_no in audience:
                if player.session is None:
                    continue
                if seat_no in forms:
                    shared = forms[seat_no]
                else:
                    seen = ev.for_seat(seat_no)
                    shared = None
                    if seen is not None:
                        shared = next((f for s, f in forms.items() if f is not None and seen is f.source), None)
                        if shared is None:
                            shared = SharedEvent({**seen.to_dict(), "room": self.id}, names)
                            shared.source = seen
                    forms[seat_no] = shared
                if shared is not None:
                    player.session.push_shared(shared, seat_no)

    def state_for(self, seat: int | None) -> dict[str, Any]:
        now = time.monotonic()
        state: dict[str, Any]
        if self.match is not None:
            state = dict(self.match.view(seat).to_dict())
        else:
            state = {"game": self.game, "rules": self.rules, "round": 0, "you": seat, "turn": None,
                     "seats": [{"seat": s.index, "cards": 0} for s in self.seats]}
            if self.game == "president":
                state.update(hand=[], trick=[], order="normal")
        if seat is None:
            state.pop("hand", None)  # a spectator sees no hand
        self._decorate_seats(state)
        pending = self.match.pending() if self.match is not None and self.status == "playing" else ()
        deadline = self._deadline(seat, pending, state.get("turn"), now)
        auction = state.get("auction")
        if isinstance(auction, dict):
            keys = [p.key for p in pending if p.kind == "auction" and p.key in self.deadlines]
            auction["deadline"] = round(max(0.0, self.deadlines[keys[0]] - now), 1) if keys else None
        state.update(room=self.id, status=self.status, deadline=deadline, spectators=len(self.spectators),
                     commitment=self.deal_commitment)
        if self.rules == "tdc":
            state["stake"] = self.opts.stake
            state["give"] = self._give_count(seat, pending)
        return state

    def _decorate_seats(self, state: dict[str, Any]) -> None:
        """The room's facts about each seat in a state: name, connection, bot, leaving."""
        for entry in state.get("seats", []):
            s = self.seats[entry["seat"]]
            entry["name"] = s.name
            entry["connected"] = s.connected and s.grace_until is None
            entry["bot"] = s.bot is not None and s.player is None
            if s.leaving:
                entry["leaving"] = True

    def _deadline(self, seat: int | None, pending: Any, turn: Any, now: float) -> float | None:
        """Seconds left on the decision ``seat`` cares about: its own, else the turn's, else any."""
        mine = [p for p in pending if seat is not None and p.seat == seat]
        chosen = mine or [p for p in pending if p.seat is not None and p.seat == turn] or list(pending)
        dues = [self.deadlines[p.key] for p in chosen if p.key in self.deadlines]
        return round(max(0.0, min(dues) - now), 1) if dues else None

    def _give_count(self, seat: int | None, pending: Any) -> int:
        """T12: how many cards ``seat`` must choose to give back now (0: none)."""
        if seat is None or not any(p.kind == "give" and p.seat == seat for p in pending):
            return 0
        for action in self.match.legal_actions(seat):
            cards = getattr(action, "cards", None)
            if cards is not None:
                return len(cards)
        return 0

    def _push_state(self, player: Player) -> None:
        if player.session is None:
            return
        seat = player.seat if player.room is self else None
        state = self.state_for(seat)
        self._last_state[player.key] = state
        player.session.push_state(state)

    def _push_states(self) -> None:
        """Everyone's own state. Président tables build the public part once for all (see
        :class:`_StateBatch`); each seat's state is built and encoded once, whoever receives it."""
        audience = [(p, seat) for p, seat in self._audience() if p.session is not None]
        if not audience:
            return
        batch = _StateBatch(self) if self.game == "president" and self.match is not None else None
        cache: dict[int | None, list[Any]] = {}  # seat -> [state, JSON line or None]
        for player, seat in audience:
            got = cache.get(seat)
            if got is None:
                got = cache[seat] = list(batch.state(seat) if batch is not None else (self.state_for(seat), None))
            session = player.session
            assert session is not None
            self._last_state[player.key] = got[0]
            if session.mode == "json":
                if got[1] is None:
                    got[1] = encode({"type": "state", **got[0]})
                session.push_state(got[0], got[1])
            else:
                session.push_state(got[0])


class _StateBatch:
    """Président states of one moment: the public part built and encoded once.

    Everything in a Président state but ``you``, ``hand``, ``cut``,
    ``exchange`` (the engine view's own fields, see
    :class:`engine.president.view.PresidentView`), ``deadline`` and ``give``
    is the same for every reader: the seats with their names and connection,
    the trick, the cards played, the room's facts. That part comes from the
    spectator's view, once; each seat's state is a copy with its own fields
    put in (same keys, same order as :meth:`Room.state_for`), and its JSON line
    is the shared encoding with the seat's values spliced in.
    """

    _SLOTS = ("you", "cut", "exchange", "hand", "deadline", "give")

    def __init__(self, room: Room) -> None:
        self.room = room
        match = room.match
        self.now = time.monotonic()
        self.pending = tuple(match.pending()) if room.status == "playing" else ()
        public = match.view(None).to_dict()
        room._decorate_seats(public)
        self.public = public
        self.tail = {"room": room.id, "status": room.status, "deadline": None, "spectators": len(room.spectators),
                     "commitment": room.deal_commitment}
        if room.rules == "tdc":
            self.tail["stake"] = room.opts.stake
        self._parts: list[str] | None = None

    def _template(self) -> list[str]:
        """The state's JSON line cut around the per-seat values (in :attr:`_SLOTS` order)."""
        if self._parts is None:
            marks = _MARKS
            tmpl = {"type": "state", **self.public, "you": marks["you"], "cut": marks["cut"],
                    "exchange": marks["exchange"], "hand": marks["hand"], **self.tail, "deadline": marks["deadline"]}
            if self.room.rules == "tdc":
                tmpl["give"] = marks["give"]
            text = encode(tmpl)
            parts = []
            for k in self._SLOTS:
                if k == "give" and self.room.rules != "tdc":
                    break
                head, sep, text = text.partition(_MARKS_JSON[k])
                if not sep:
                    raise ValueError(f"state template: no place for {k}")
                parts.append(head)
            parts.append(text)
            self._parts = parts
        return self._parts

    def state(self, seat: int | None) -> tuple[dict[str, Any], str | None]:
        """(``room.state_for(seat)``, its JSON line or None)."""
        room = self.room
        view = room.match.view(seat) if seat is not None else None
        if view is None or view.hand is None:
            return room.state_for(seat), None
        state = dict(self.public)
        state["you"] = seat
        state["cut"] = None if view.cut is None else format_cards(view.cut)
        state["exchange"] = [{"from": g, "to": r, "cards": format_cards(c)} for g, r, c in view.exchange]
        state["hand"] = format_cards(view.hand)
        state.update(self.tail)
        pending = self.pending
        state["deadline"] = room._deadline(seat, pending, state.get("turn"), self.now)
        values = [seat, state["cut"], state["exchange"], state["hand"], state["deadline"]]
        if room.rules == "tdc":
            state["give"] = room._give_count(seat, pending)
            values.append(state["give"])
        parts = self._template()
        out = [parts[0]]
        for value, part in zip(values, parts[1:], strict=True):
            out.append(_json_value(value))
            out.append(part)
        return state, "".join(out)


_MARKS = {k: f"\x00{k}\x00" for k in _StateBatch._SLOTS}  # placeholders: no name or card contains them
_MARKS_JSON = {k: encode(v)[:-1] for k, v in _MARKS.items()}
_encode_value = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode


def _json_value(value: Any) -> str:
    """``value`` as :func:`server.jsonmode.encode` writes it inside an object (fast for the usual ones)."""
    if value is None:
        return "null"
    cls = value.__class__
    if cls is int:
        return int.__repr__(value)
    if cls is float and math.isfinite(value):
        return float.__repr__(value)
    if cls is list:
        if not value:
            return "[]"
        if all(v.__class__ is str for v in value):
            joined = "".join(value)
            if joined.isascii() and joined.isalnum():  # card codes
                return '["' + '","'.join(value) + '"]'
    return _encode_value(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value
