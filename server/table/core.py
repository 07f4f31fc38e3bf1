"""One card table, sans I/O: inputs and the time in, messages and effects out.

A :class:`Table` owns one engine match and everything around it: who sits where
(people, bots, a disconnected person's grace), the timers (decision time-outs,
bots' pauses, the pause between rounds, closing), the round and match cycle,
and the chips each round moves (RULES T13, S3, S7, S9), as the store's own
operations. It never awaits, reads a clock or touches a socket: every call gets
``now`` and returns :class:`~server.table.io.Outputs`.

The table is a whole that owns its parts: the match and its log
(:class:`~server.table.matchlog.MatchLog`), what its readers receive
(:class:`~server.table.sender.Sender`), its clocks (:class:`~server.table.clocks.Clocks`),
the open round's chips (:class:`~server.table.chips.RoundChips`), fair deals
(:class:`~server.table.fair.FairDeals`), who sits and watches
(:class:`~server.table.people.Seating`) and the round cycle
(:class:`~server.table.rounds.RoundCycle`). It keeps its facts (options, seats,
spectators, status) and steps the generator of the call being made.

Inside, each input is handled by a generator that ``yield`` s the effects it
needs (a ledger operation, a balance, a seat claim, a slow bot's decision) and
receives their results, so the logic reads top to bottom while the caller does
the waiting: when :attr:`Outputs.effect` is set, perform it and call
:meth:`Table.resume` with its result (or the exception it raised). The first
valid cut to reach the table wins (T9) because inputs are handled one at a time.

A refused command changes nothing and sends nothing but its refusal. A refused
chip movement refuses the action that caused it: the match is rebuilt from
its log without that action (the engine is deterministic, invariant 3).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping

from engine.api import Event, Match
from engine.errors import Refusal
from server.games.base import GameAdapter, TableOptions
from server.games.states import State
from server.protocol import AUTOMATIC, PLAY_COMMANDS, Args, CommandError, JSONObject, Result
from server.storage.api import StorageError
from server.table import io
from server.table.answers import AnswerClocks
from server.table.bank import TimeBank
from server.table.chips import RoundChips
from server.table.clocks import Clocks
from server.table.fair import Entropy, ExplicitSeed, FairDeals
from server.table.io import Command, Connected, Disconnected, Member, Outputs, Refused, Reply, Shutdown
from server.table.matchlog import MatchLog
from server.table.people import TOURNAMENT, Seating
from server.table.rounds import RoundCycle
from server.table.seats import Seat
from server.table.sender import Sender
from server.table.states import Private, build_state
from server.table.steps import Step, TableSettings, log

__all__ = ["Table", "TableSettings"]


class Table:
    """One card table (see the module's documentation): its facts, and the parts that own the rest."""

    def __init__(self, table_id: str, adapter: GameAdapter, opts: TableOptions, settings: TableSettings, *,
                 owner: str, uid: str, draw_seed: Callable[[], bytes | ExplicitSeed], bot_seed: bytes,
                 bot_options: Mapping[str, object] | None = None) -> None:
        self.id = table_id
        self.uid = uid  # this match's part of round ids (a rematch gets its own)
        self.first_uid = uid
        self.matches = 1
        self.adapter = adapter
        self.opts = opts
        self.settings = settings
        self.owner = owner
        self.seats = [Seat(i) for i in range(opts.seats)]
        self.spectators: dict[str, Member] = {}
        self.status = "waiting"  # waiting | playing | over
        self.closed: str | None = None
        self.now = 0.0  # the time of the call being made
        self.arrivals = 0  # players (people and the table's bots) who sat down at this table so far
        self.dealt_arrivals: int | None = None  # ``arrivals`` at the last deal of this match (T12)
        self.state_memo: dict[int, Private] = {}  # seat -> its own fields of a state, kept (server.table.states)
        self.bot_seed = bot_seed
        self.bot_options: dict[str, object] = dict(bot_options or {})
        # the tricks last asked for, and of which log: (the log, its length, its last entry, the tricks)
        self._tricks_seen: tuple[list[JSONObject], int, JSONObject | None, JSONObject] | None = None
        self._gen: Step[None] | None = None
        # the parts
        self.game = MatchLog(adapter)  # the engine match and its log (a durable table's entries)
        self.out = Sender(self)  # what the readers receive from the call being made
        self.clocks = Clocks(settings, getattr(settings, "time_bank", 0.0))  # every moment the table waits for
        self.chips = RoundChips(table_id, adapter, self.seats, opts.stake)  # the open round's escrow
        self.fair = FairDeals(self, draw_seed)  # deals nobody can rig
        self.seating = Seating(self)  # who sits and who watches
        self.cycle = RoundCycle(self)  # deals, moves, time-outs, bots, the end of rounds and matches

    # -- the caller's side -------------------------------------------------------------------------

    def handle(self, now: float, inp: io.Input) -> Outputs:
        """One input; then everything that is due."""
        return self._start(now, self._on_input(inp))

    def tick(self, now: float) -> Outputs:
        """Time passed: apply whatever is due (time-outs, bots, deals, graces, closing)."""
        return self._start(now, self.cycle.advance())

    def resume(self, now: float, result: object = None, error: BaseException | None = None) -> Outputs:
        """The result of the effect the last call returned (or the exception performing it raised)."""
        if self._gen is None:
            raise RuntimeError("the table waits for no effect")
        self.now = now
        return self._step(result, error)

    def abort(self) -> None:
        """Forget the effect being waited for (the caller was cancelled): the next input starts afresh."""
        if self._gen is not None:
            self._gen.close()
            self._gen = None
            self.out.take()

    @property
    def waiting(self) -> bool:
        """An effect is being performed: no other call until :meth:`resume`."""
        return self._gen is not None

    @property
    def wake(self) -> float | None:
        """When :meth:`tick` should next be called (None: only on input)."""
        if self.closed:
            return None
        return self.clocks.wake(self.seats, self.status == "playing" and self.game.match is not None
                                and self.game.match.needs_deal())

    # -- the table's face ------------------------------------------------------------------------------

    def summary(self) -> JSONObject:
        match = self.game.match
        summary: JSONObject = {
            "room": self.id,
            "game": self.opts.game,
            "rules": self.opts.rules,
            "seats": self.opts.seats,
            "players": [s.name for s in self.seats if not s.empty],
            "bots": sum(1 for s in self.seats if s.bot is not None and s.member is None),
            "spectators": len(self.spectators),
            "status": self.status,
            "stake": self.opts.stake,
            "ante": self.opts.ante,
            "rounds": self.opts.rounds,
            "turn_seconds": self.opts.turn_seconds,
            "round": match.round if match is not None else 0,
        }
        tournament = self.opts.extra.get(TOURNAMENT)
        if isinstance(tournament, str):  # a tournament's table: its people are seated by the event
            summary[TOURNAMENT] = tournament
        return summary

    def state_for(self, seat: int | None, now: float) -> State:
        return build_state(self, seat, now)

    def seat_of(self, key: str) -> int | None:
        for seat in self.seats:
            if seat.member == key:
                return seat.index
        return None

    def people(self) -> list[str]:
        """Members in the room: seated people, then spectators."""
        return [s.member for s in self.seats if s.member is not None] + list(self.spectators)

    def chips_in_play(self, seat_no: int) -> bool:
        return self.seating.chips_in_play(seat_no)

    def can_answer(self, seat: int) -> bool:
        """A connected person sits on ``seat``: a question put to them gets a clock to answer it
        (``server.table.answers``; someone away would only hold the table up)."""
        return 0 <= seat < len(self.seats) and self.seats[seat].member is not None and self.seats[seat].present

    def in_round(self, seat: Seat) -> bool:
        """The seat holds cards or stakes in the round or deal being played."""
        match = self.game.match
        if match is None or self.status != "playing" or match.needs_deal():
            return False
        return seat.index in self.chips.stakes or self.adapter.in_round(match, seat.index)

    def timer_seconds(self, kind: str) -> float:
        return self.adapter.timer_seconds(kind, self.opts, self.settings)

    def back_if_all_here(self) -> None:
        """Someone came back to a table rebuilt after a restart: once everyone seated is here, the
        clocks start now (:meth:`Clocks.back`)."""
        self.clocks.back(self.now, self, lambda: all(s.present for s in self.seats if s.member is not None))

    # -- what the parts own, as the table's readers know it (states, logs, tests) ----------------------

    @property
    def match(self) -> Match | None:
        return self.game.match

    @property
    def log(self) -> list[JSONObject]:
        return self.game.log

    @property
    def journal(self) -> list[JSONObject] | None:
        return self.game.journal

    @property
    def deadlines(self) -> dict[Hashable, float]:
        return self.clocks.deadlines

    @property
    def window(self) -> tuple[str, float] | None:
        return self.clocks.window

    @property
    def next_deal_at(self) -> float:
        return self.clocks.next_deal_at

    @property
    def over_at(self) -> float | None:
        return self.clocks.over_at

    @property
    def bot_due(self) -> float | None:
        return self.clocks.bot_due

    @property
    def auto_at(self) -> float | None:
        return self.clocks.auto_at

    @property
    def answers(self) -> AnswerClocks:
        return self.clocks.answers

    @property
    def bank(self) -> TimeBank:
        return self.clocks.bank

    @property
    def resume_until(self) -> float | None:
        return self.clocks.resume_until

    @property
    def round_id(self) -> str | None:
        return self.chips.round_id

    @property
    def round_stakes(self) -> dict[int, str]:
        return self.chips.stakes

    @property
    def round_escrow(self) -> dict[int, int]:
        return self.chips.escrow

    @property
    def commitment(self) -> str | None:
        return self.fair.commitment

    @property
    def entropy(self) -> Entropy | None:
        return self.fair.entropy

    @property
    def fair_record(self) -> JSONObject | None:
        return self.fair.record

    # -- one call at a time ------------------------------------------------------------------------------

    def _start(self, now: float, gen: Step[None]) -> Outputs:
        if self._gen is not None:
            raise RuntimeError("the table waits for an effect: resume() first")
        if self.closed:
            gen.close()
            return Outputs()
        self.now = now
        self._gen = gen
        return self._step(None, None)

    def _step(self, value: object, error: BaseException | None) -> Outputs:
        gen = self._gen
        assert gen is not None
        try:
            effect = gen.throw(error) if error is not None else gen.send(value)
        except StopIteration:
            self._gen = None
        except Exception:
            log.exception("table %s failed; closing it", self.id)
            self._gen = self._closing("error")
            return self._step(None, None)
        else:
            self.out.out.effect = effect
        return self.out.take()

    def _closing(self, reason: str) -> Step[None]:
        yield from self.cycle.close(reason)

    # -- inputs -------------------------------------------------------------------------------------

    def _on_input(self, inp: io.Input) -> Step[None]:
        if isinstance(inp, Command):
            yield from self._on_command(inp)
        elif isinstance(inp, Connected):
            self.seating.on_connected(inp.member)
        elif isinstance(inp, Disconnected):
            yield from self.seating.on_disconnected(inp.member)
        elif isinstance(inp, Shutdown):
            yield from self.cycle.close(inp.reason)
            return
        yield from self.cycle.advance()

    def _on_command(self, c: Command) -> Step[None]:
        try:
            result, events = yield from self._command(c)
        except CommandError as exc:
            self.out.drop_deferred()  # a refused command pushes nothing
            self.out.to_member(c.member.key, Refused(c.req, exc.code, exc.params))
            return
        except Refusal as exc:
            self.out.drop_deferred()
            self.out.to_member(c.member.key, Refused(c.req, exc.code, {**exc.params, "detail": exc.detail}))
            return
        except StorageError as exc:  # e.g. the house cannot fund a bot any more
            log.warning("table %s: %s refused by the store: %s", self.id, c.cmd, exc)
            self.out.drop_deferred()
            self.out.to_member(c.member.key, Refused(c.req, exc.code, {}))
            return
        self.out.to_member(c.member.key, Reply(c.req, result))
        self.out.run_deferred()
        if events is not None:
            yield from self.cycle.after(events, paid=True)

    def _command(self, c: Command) -> Step[tuple[Result | None, tuple[Event, ...] | None]]:
        """One command: returns (reply fields, engine events to publish or None)."""
        cmd, member = c.cmd, c.member
        if cmd == "join":
            return (yield from self.seating.join(member, c.args)), None
        if cmd == "watch":
            return self.seating.watch(member), None
        if cmd == "leave":
            return (yield from self.seating.leave(member)), None
        if cmd == "rematch":
            return (yield from self.seating.rematch(member)), None
        if cmd == "become":  # the server's own (a guest logs in or registers): never a player's
            return (yield from self.seating.become(member, c.args)), None
        if cmd == "say":
            self.out.broadcast({"event": "chat", "room": self.id, "name": member.name, "message": str(c.args["text"])})
            return None, None
        if cmd == "entropy":
            return self.fair.contribute(member, c.args), None
        if cmd == "seed":
            return self.fair.set_seed(member, c.args), None
        if cmd == "state":
            self.out.defer(lambda: self.out.push_state(member.key))
            return None, None
        if cmd == "hide":  # (the lobby's ``hide`` of a seated person: spectators' views follow at once)
            seat = self.seat_of(member.key)
            if seat is not None and self.seats[seat].hidden != member.hidden:
                self.seats[seat].hidden = member.hidden
                self.out.defer(self.out.push_states)
            return None, None
        if cmd == "tricks":
            return self._tricks(member), None
        if cmd == "extend":
            return self.cycle.extend(member, c.args), None
        if cmd in AUTOMATIC:
            seat = self.seat_of(member.key)
            if seat is not None:
                self.seats[seat].prefs[cmd] = bool(c.args.get("on"))
            return None, ()  # _after runs the automatic moves
        if cmd in PLAY_COMMANDS:
            return (yield from self._play(member, cmd, c.args))
        raise CommandError("unknown_command", cmd=cmd)

    def _tricks(self, member: Member) -> JSONObject:
        """The tricks of the round being played (or just played), as everyone at the table saw them:
        only cards played face up (the adapter's public form), for a player or a spectator."""
        if self.seat_of(member.key) is None and member.key not in self.spectators:
            raise CommandError("not_in_room")
        if self.game.match is None:
            raise CommandError("not_allowed", reason="not_started")
        last = self.game.log[-1] if self.game.log else None
        seen = self._tricks_seen
        # the same log (the same list, length and last entry object, held here): the same tricks
        if seen is None or seen[0] is not self.game.log or seen[1] != len(self.game.log) or seen[2] is not last:
            got = self.adapter.round_tricks(self.game.match.config, self.game.log)
            if got is None:
                raise CommandError("not_allowed", reason="no_tricks")
            seen = self._tricks_seen = (self.game.log, len(self.game.log), last, got)
        # a spectator reads no name for a person who hides where they sit (``hide``): null, "seat N"
        watching = self.seat_of(member.key) is None
        seats = [None if watching and s.hidden and s.member is not None else s.name for s in self.seats]
        return {"room": self.id, **seen[3], "seats": seats}

    def _play(self, member: Member, cmd: str, args: Args) -> Step[tuple[Result | None, tuple[Event, ...] | None]]:
        seat = self.seat_of(member.key)
        if seat is None:
            raise CommandError("not_allowed", reason="not_seated")
        if self.status == "over":  # not "has not begun": it has ended (rematch or leave)
            raise CommandError("not_allowed", reason="over")
        if self.game.match is None or self.status != "playing":
            raise CommandError("not_allowed", reason="not_started")
        action = self.game.match.action_from(seat, cmd, args)
        events = self.game.apply(action)
        yield from self.cycle.money(events, refuse=True)
        result: JSONObject | None = None
        for ev in events:
            if ev.name == "offered":
                result = {"offer": ev.to_dict().get("offer")}
        return result, events
