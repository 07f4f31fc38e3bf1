"""The state every part of a table shares, and how it speaks to its readers.

:class:`TableBase` holds a table's facts (options, seats, spectators, the match and
its log, the open round, the timers) and the helpers every part uses: applying an
engine action, the account of a seat, and the messages — engine events in the form
each reader may see, the table's own events, every reader's state. The seating
(:mod:`server.table.people`) and the round cycle (:mod:`server.table.rounds`) build
on it; :class:`server.table.core.Table` puts them together.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any, Protocol

from server.games.base import GameAdapter, TableOptions
from server.protocol import Shared
from server.table.answers import AnswerClocks
from server.table.bank import TimeBank
from server.table.io import Effect, Member, Outputs, Send
from server.table.seats import Seat
from server.table.states import StateSet, build_state

log = logging.getLogger("server.table")

Step = Generator[Effect, Any, Any]
"""A step of the table's logic: yields the effects it waits for, receives their results."""


class TableSettings(Protocol):
    """The server settings a table reads (a subset of :class:`server.config.Config`)."""

    @property
    def turn_seconds(self) -> float: ...
    @property
    def auction_seconds(self) -> float: ...
    @property
    def flip_seconds(self) -> float: ...
    @property
    def default_stake(self) -> int: ...
    @property
    def default_ante(self) -> int: ...
    @property
    def grace_seconds(self) -> float: ...
    @property
    def round_pause(self) -> float: ...
    @property
    def bot_delay(self) -> float: ...
    @property
    def close_after_over(self) -> float: ...
    @property
    def bot_chips(self) -> int: ...
    @property
    def cut_window(self) -> float: ...
    @property
    def trade_window(self) -> float: ...
    @property
    def autopass_delay(self) -> float: ...
    @property
    def entropy_window(self) -> float: ...
    @property
    def offer_seconds(self) -> float: ...
    @property
    def time_bank(self) -> float: ...
    @property
    def time_bank_step(self) -> float: ...



class TableBase:
    def __init__(self, table_id: str, adapter: GameAdapter, opts: TableOptions, settings: TableSettings, *,
                 owner: str, uid: str, draw_seed: Callable[[], Any], bot_seed: bytes,
                 bot_options: Mapping[str, Any] | None = None) -> None:
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
        self.match: Any = None
        self.status = "waiting"  # waiting | playing | over
        self.closed: str | None = None
        self.log: list[dict[str, Any]] = []
        self._tricks_seen: tuple[Any, int, Any, dict[str, Any]] | None = None  # (log, length, last, tricks)
        self.round_id: str | None = None  # open escrow (a staked round, a deal)
        self.round_stakes: dict[int, str] = {}  # seat -> account that staked this round
        self.round_escrow: dict[int, int] = {}  # seat -> chips it has in the round's escrow
        self.commitment: str | None = None  # published with the deal; the seed after it
        self.deadlines: dict[Any, float] = {}
        self.state_memo: dict[int, Any] = {}  # seat -> its own fields of a state, kept (server.table.states)
        self.next_deal_at = 0.0
        self.over_at: float | None = None
        self.bot_due: float | None = None
        self.window: tuple[str, float] | None = None  # (kind, until): people's time before bots or clocks move on
        self.auto_at: float | None = None  # when a delayed automatic move (autopass) is due
        self.answers = AnswerClocks()  # open questions put to people (offers to a seller): their clocks
        self.bank = TimeBank(getattr(settings, "time_bank", 0.0))  # each person's extra time this match (extend)
        self._draw_seed = draw_seed
        self._bot_seed = bot_seed
        self._bot_options = dict(bot_options or {})
        self._now = 0.0
        self._out = Outputs()
        self._gen: Step | None = None
        self._deferred: list[Callable[[], None]] = []
        self._round_chips: tuple[int, ...] = ()  # each seat's chips when the round began
        self.arrivals = 0  # players (people and the table's bots) who sat down at this table so far
        self.dealt_arrivals: int | None = None  # ``arrivals`` at the last deal of this match (T12)
        # durable tables (server.table.durable): what to write to the table's log before anything
        # of it leaves the server (None: the table is not durable); and until when a table rebuilt
        # after a restart waits for its people (None: it is not waiting)
        self.journal: list[dict[str, Any]] | None = None
        self.resume_until: float | None = None

    def _arrival(self) -> int:
        """A player sits down: their number among the table's arrivals (a substitute bot is none)."""
        self.arrivals += 1
        return self.arrivals

    def newcomers(self, present: Sequence[int] | None) -> list[int]:
        """The seats of ``present`` whose player sat down since the last deal of the match (T12)."""
        since = self.dealt_arrivals
        if since is None or not present:
            return []
        return [s for s in present if self.seats[s].arrived > since]

    # -- public face -------------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        return {
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
            "round": self.match.round if self.match is not None else 0,
        }

    def state_for(self, seat: int | None, now: float) -> dict[str, Any]:
        return build_state(self, seat, now)

    def seat_of(self, key: str) -> int | None:
        for seat in self.seats:
            if seat.member == key:
                return seat.index
        return None

    def people(self) -> list[str]:
        """Members in the room: seated people, then spectators."""
        return [s.member for s in self.seats if s.member is not None] + list(self.spectators)

    # -- the engine --------------------------------------------------------------------------------

    def _apply(self, action: Any) -> tuple[Any, ...]:
        """Apply one action to the match (raises Refusal, changing nothing)."""
        events = tuple(self.match.apply(action))
        entry = action.to_dict()
        self.log.append(entry)
        if self.journal is not None:
            self.journal.append({"k": "a", "a": entry})
        return events

    def _revert_last(self) -> None:
        """Undo the last action: the match rebuilt from its log without it (invariant 3)."""
        self.log.pop()
        self.match = self.adapter.replay(self.match.config, self.log)
        if self.journal is not None:
            self.journal.append({"k": "u"})

    def _match_made(self) -> None:
        """A new match (the first, or a rematch): the log starts again from its configuration."""
        self.bank.reset()
        if self.journal is not None:
            self.journal.append({"k": "m", "config": self.match.config})

    def _can_answer(self, seat: int) -> bool:
        """A connected person sits on ``seat``: a question put to them gets a clock to answer it
        (``server.table.answers``; someone away would only hold the table up)."""
        return 0 <= seat < len(self.seats) and self.seats[seat].member is not None and self.seats[seat].present

    def _account(self, seat: int) -> str:
        account = self.seats[seat].account or self.round_stakes.get(seat)
        if account is None:
            raise RuntimeError(f"seat {seat} has no account")
        return account

    def _in_round(self, seat: Seat) -> bool:
        """The seat holds cards or stakes in the round or deal being played."""
        if self.match is None or self.status != "playing" or self.match.needs_deal():
            return False
        return seat.index in self.round_stakes or self.adapter.in_round(self.match, seat.index)

    def _timer_seconds(self, kind: str) -> float:
        return self.adapter.timer_seconds(kind, self.opts, self.settings)

    # -- what people receive ---------------------------------------------------------------------

    def _audience(self) -> tuple[tuple[str, int | None], ...]:
        """Everyone in the room now, with the seat each reads as (spectators: ``None``)."""
        out: list[tuple[str, int | None]] = [(s.member, s.index) for s in self.seats if s.member is not None]
        out += [(key, None) for key in self.spectators]
        return tuple(out)

    def _to_member(self, key: str, msg: Any) -> None:
        self._out.items.append(Send(((key, self.seat_of(key)),), msg))

    def _names(self) -> tuple[str, ...]:
        return tuple(s.name or "" for s in self.seats)

    def _hidden(self) -> dict[str, int]:
        """The names of the people seated here who hide where they sit (``hide``), with their seats."""
        return {s.name: s.index for s in self.seats if s.hidden and s.member is not None and s.name}

    def _watchers_names(self) -> tuple[str, ...]:
        """:meth:`_names` as spectators read them: a hidden person's seat has no name ("seat 2")."""
        return tuple("" if s.hidden and s.member is not None else s.name or "" for s in self.seats)

    def _broadcast(self, event: dict[str, Any]) -> None:
        """A table event (chat, joined, left...) to everyone in the room; spectators are not told the
        name of a person who hides where they sit (:meth:`_hidden`): they read the seat."""
        audience = self._audience()
        if not audience:
            return
        shared = Shared({**event, "room": self.id}, self._names())
        hidden = self._hidden()
        if not hidden or all(seat is not None for _, seat in audience):
            self._out.items.append(Send(audience, shared))
            return
        seated = tuple(a for a in audience if a[1] is not None)
        if seated:
            self._out.items.append(Send(seated, shared))
        masked = {**event, "room": self.id}
        name = event.get("name")
        if isinstance(name, str) and name in hidden:
            masked["name"] = None
            masked.setdefault("seat", hidden[name])
        self._out.items.append(Send(tuple(a for a in audience if a[1] is None),
                                    Shared(masked, self._watchers_names())))

    def _publish(self, events: tuple[Any, ...], extra: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        """Engine events, each in the form its receiver may see; bots observe theirs. ``extra``: the
        table's own fields to add to events of these names (the round's fairness record)."""
        if not events:
            return
        names = self._names()
        audience = self._audience()
        watchers_names = self._watchers_names() if self.spectators and self._hidden() else None
        for ev in events:
            for seat in self.seats:
                if seat.bot is not None:
                    seen = ev.for_seat(seat.index)
                    if seen is not None:
                        try:
                            seat.bot.observe(seen)
                        except Exception:
                            log.debug("table %s: bot %d could not observe %s", self.id, seat.index, ev.name)
            # one message per form of the event (a public event: one for everybody)
            forms: dict[int | None, Any] = {}
            groups: list[tuple[Any, list[tuple[str, int | None]]]] = []
            for key, seat_no in audience:
                if seat_no in forms:
                    seen = forms[seat_no]
                else:
                    seen = forms[seat_no] = ev.for_seat(seat_no)
                if seen is None:
                    continue
                for form, readers in groups:
                    if form is seen:
                        readers.append((key, seat_no))
                        break
                else:
                    groups.append((seen, [(key, seat_no)]))
            more = extra.get(ev.name, {}) if extra else {}
            for seen, readers in groups:
                if watchers_names is not None and any(seat_no is None for _, seat_no in readers):
                    seated = [r for r in readers if r[1] is not None]  # (spectators: no hidden person's name)
                    if seated:
                        self._out.items.append(Send(tuple(seated), Shared(
                            {**seen.to_dict(), **more, "room": self.id}, names, source=seen)))
                    self._out.items.append(Send(tuple(r for r in readers if r[1] is None), Shared(
                        {**seen.to_dict(), **more, "room": self.id}, watchers_names, source=seen)))
                    continue
                self._out.items.append(Send(tuple(readers), Shared({**seen.to_dict(), **more, "room": self.id}, names,
                                                                    source=seen)))

    def _push_state(self, key: str) -> None:
        if key in self.spectators or self.seat_of(key) is not None:
            self._to_member(key, StateSet(self, self._now, (self.seat_of(key),)))

    def _push_states(self) -> None:
        """Everyone's own state, each built and encoded once (see :class:`StateSet`)."""
        audience = self._audience()
        if audience:
            self._out.items.append(Send(audience, StateSet(self, self._now, {seat for _, seat in audience})))

    # -- provided by the seating and the round cycle ---------------------------------------------

    def _close(self, reason: str) -> Step:
        raise NotImplementedError

    def _schedule_bots(self) -> None:
        raise NotImplementedError

    def _vacate_leavers(self) -> Step:
        raise NotImplementedError

    def _expire_graces(self, now: float) -> Step:
        raise NotImplementedError

    def _money(self, events: tuple[Any, ...], *, refuse: bool) -> Step:
        raise NotImplementedError

    def _back_if_all_here(self) -> None:
        raise NotImplementedError
