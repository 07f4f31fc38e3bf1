"""One card table, sans I/O: inputs and the time in, messages and effects out.

A :class:`Table` owns one engine match and everything around it: who sits where
(people, bots, a disconnected person's grace), the timers (decision time-outs,
bots' pauses, the pause between rounds, closing), the round and match cycle,
and the chips each round moves (RULES T13, S3, S7, S9), as effects for the
ledger. It never awaits, reads a clock or touches a socket: every call gets
``now`` and returns :class:`~server.table.io.Outputs`.

Inside, each input is handled by a generator that ``yield`` s the effects it
needs (a ledger operation, a balance, a seat claim, a slow bot's decision) and
receives their results, so the logic reads top to bottom while the caller does
the waiting: when :attr:`Outputs.effect` is set, perform it and call
:meth:`Table.resume` with its result (or the exception it raised). The first
valid cut to reach the table wins (T9) because inputs are handled one at a time.

A refused command changes nothing and sends nothing but its refusal. A refused
ledger operation refuses the action that caused it: the match is rebuilt from
its log without that action (the engine is deterministic, invariant 3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import Refusal
from server.protocol import AUTOMATIC, PLAY_COMMANDS, CommandError
from server.storage.api import StorageError
from server.table import io
from server.table.base import Step, TableSettings, log
from server.table.io import Command, Connected, Disconnected, Member, Outputs, Refused, Reply, Shutdown
from server.table.people import Seating
from server.table.resume import Resuming
from server.table.rounds import Rounds

__all__ = ["Table", "TableSettings"]


class Table(Seating, Rounds, Resuming):
    """One card table (see the module's documentation)."""

    # -- the caller's side -------------------------------------------------------------------------

    def handle(self, now: float, inp: io.Input) -> Outputs:
        """One input; then everything that is due."""
        return self._start(now, self._on_input(inp))

    def tick(self, now: float) -> Outputs:
        """Time passed: apply whatever is due (time-outs, bots, deals, graces, closing)."""
        return self._start(now, self._advance())

    def resume(self, now: float, result: Any = None, error: BaseException | None = None) -> Outputs:
        """The result of the effect the last call returned (or the exception performing it raised)."""
        if self._gen is None:
            raise RuntimeError("the table waits for no effect")
        self._now = now
        return self._step(result, error)

    def abort(self) -> None:
        """Forget the effect being waited for (the caller was cancelled): the next input starts afresh."""
        if self._gen is not None:
            self._gen.close()
            self._gen = None
            self._out = Outputs()

    @property
    def waiting(self) -> bool:
        """An effect is being performed: no other call until :meth:`resume`."""
        return self._gen is not None

    @property
    def wake(self) -> float | None:
        """When :meth:`tick` should next be called (None: only on input)."""
        if self.closed:
            return None
        # (asked before every input the room takes: the earliest of a few values, no list made)
        deadlines = self.deadlines
        best = min(deadlines.values()) if deadlines else None
        for seat in self.seats:
            due = seat.grace_until
            if due is not None and (best is None or due < best):
                best = due
        if self.status == "playing" and self.match is not None and self.match.needs_deal():
            due = self.next_deal_at
            if best is None or due < best:
                best = due
        window = self.window
        for due in (self.bot_due, self.over_at, None if window is None else window[1], self.auto_at,
                    self.answers.wake):
            if due is not None and (best is None or due < best):
                best = due
        return best

    def _start(self, now: float, gen: Step) -> Outputs:
        if self._gen is not None:
            raise RuntimeError("the table waits for an effect: resume() first")
        if self.closed:
            gen.close()
            return Outputs()
        self._now = now
        self._gen = gen
        return self._step(None, None)

    def _step(self, value: Any, error: BaseException | None) -> Outputs:
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
            self._out.effect = effect
        out, self._out = self._out, Outputs()
        return out

    def _closing(self, reason: str) -> Step:
        yield from self._close(reason)

    # -- inputs -------------------------------------------------------------------------------------

    def _on_input(self, inp: io.Input) -> Step:
        if isinstance(inp, Command):
            yield from self._on_command(inp)
        elif isinstance(inp, Connected):
            self._on_connected(inp.member)
        elif isinstance(inp, Disconnected):
            yield from self._on_disconnected(inp.member)
        elif isinstance(inp, Shutdown):
            yield from self._close(inp.reason)
            return
        yield from self._advance()

    def _on_command(self, c: Command) -> Step:
        try:
            result, events = yield from self._command(c)
        except CommandError as exc:
            self._deferred.clear()  # a refused command pushes nothing
            self._to_member(c.member.key, Refused(c.req, exc.code, exc.params))
            return
        except Refusal as exc:
            self._deferred.clear()
            self._to_member(c.member.key, Refused(c.req, exc.code, {**exc.params, "detail": exc.detail}))
            return
        except StorageError as exc:  # e.g. the house cannot fund a bot any more
            log.warning("table %s: %s refused by the store: %s", self.id, c.cmd, exc)
            self._deferred.clear()
            self._to_member(c.member.key, Refused(c.req, exc.code, {}))
            return
        self._to_member(c.member.key, Reply(c.req, result))
        deferred, self._deferred = self._deferred, []
        for push in deferred:
            push()
        if events is not None:
            yield from self._after(events, paid=True)

    def _command(self, c: Command) -> Step:
        """One command: returns (reply fields, engine events to publish or None)."""
        cmd, member = c.cmd, c.member
        if cmd == "join":
            return (yield from self._join(member, c.args)), None
        if cmd == "watch":
            return self._watch(member), None
        if cmd == "leave":
            return (yield from self._leave(member)), None
        if cmd == "rematch":
            return (yield from self._rematch(member)), None
        if cmd == "become":  # the server's own (a guest logs in or registers): never a player's
            return (yield from self._become(member, c.args)), None
        if cmd == "say":
            self._broadcast({"event": "chat", "room": self.id, "name": member.name, "message": c.args["text"]})
            return None, None
        if cmd == "entropy":
            return self._contribute(member, c.args), None
        if cmd == "seed":
            return self._set_seed(member, c.args), None
        if cmd == "state":
            self._deferred.append(lambda: self._push_state(member.key))
            return None, None
        if cmd == "hide":  # (the lobby's ``hide`` of a seated person: spectators' views follow at once)
            seat = self.seat_of(member.key)
            if seat is not None and self.seats[seat].hidden != member.hidden:
                self.seats[seat].hidden = member.hidden
                self._deferred.append(self._push_states)
            return None, None
        if cmd == "tricks":
            return self._tricks(member), None
        if cmd == "extend":
            return self._extend(member, c.args), None
        if cmd in AUTOMATIC:
            seat = self.seat_of(member.key)
            if seat is not None:
                self.seats[seat].prefs[cmd] = bool(c.args.get("on"))
            return None, ()  # _after runs the automatic moves
        if cmd in PLAY_COMMANDS:
            return (yield from self._play(member, cmd, c.args))
        raise CommandError("unknown_command", cmd=cmd)

    def _tricks(self, member: Member) -> dict[str, Any]:
        """The tricks of the round being played (or just played), as everyone at the table saw them:
        only cards played face up (the adapter's public form), for a player or a spectator."""
        if self.seat_of(member.key) is None and member.key not in self.spectators:
            raise CommandError("not_in_room")
        if self.match is None:
            raise CommandError("not_allowed", reason="not_started")
        last = self.log[-1] if self.log else None
        seen = self._tricks_seen
        # the same log (the same list, length and last entry object, held here): the same tricks
        if seen is None or seen[0] is not self.log or seen[1] != len(self.log) or seen[2] is not last:
            got = self.adapter.round_tricks(self.match.config, self.log)
            if got is None:
                raise CommandError("not_allowed", reason="no_tricks")
            seen = self._tricks_seen = (self.log, len(self.log), last, got)
        # a spectator reads no name for a person who hides where they sit (``hide``): null, "seat N"
        watching = self.seat_of(member.key) is None
        seats = [None if watching and s.hidden and s.member is not None else s.name for s in self.seats]
        return {"room": self.id, **seen[3], "seats": seats}

    def _play(self, member: Member, cmd: str, args: Mapping[str, Any]) -> Step:
        seat = self.seat_of(member.key)
        if seat is None:
            raise CommandError("not_allowed", reason="not_seated")
        if self.status == "over":  # not "has not begun": it has ended (rematch or leave)
            raise CommandError("not_allowed", reason="over")
        if self.match is None or self.status != "playing":
            raise CommandError("not_allowed", reason="not_started")
        action = self.match.action_from(seat, cmd, args)
        events = self._apply(action)
        yield from self._money(events, refuse=True)
        result: dict[str, Any] | None = None
        for ev in events:
            if ev.name == "offered":
                result = {"offer": ev.to_dict().get("offer")}
        return result, events
