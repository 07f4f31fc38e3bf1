"""Play a whole match between engine bots, in-process: the simulator's hot loop.

:func:`play_match` is game-generic and pure (no clock, no I/O, no global
random): the same match configuration, bots and seed give the same game.
It plays the part of a room:

* chance: when ``match.needs_deal()``, it applies ``match.deal_action`` with a
  seed derived from the match seed (``derive(seed, "round-<n>")``); for
  Président tdc tables every seat plays every round (T1/T13) at the match's
  stake;
* awaited decisions: every :class:`~engine.api.Pending` with a seat asks
  that seat's bot ``decide(view, legal)`` (unless its only legal action is
  one: then that action is applied without asking); a bot that answers
  ``None`` gets the pending time-out action, as a room would at its deadline.
  A Président turn of play goes to a bot that has ``decide_turn(turn_view)``
  (the greedy one) through the match's compact ``turn_view(seat)`` instead:
  the same decision without building a view and a legal list. When every bot
  decides from the turn view (and forced moves are not asked), one call to the
  match's ``next_turn()`` per turn of play gives either the seat's only legal
  action (applied without a turn view, still one action for the observers, the
  step hook and the checks) or its turn view's fields (a plain tuple, which
  ``decide_turn`` unpacks like a ``TurnView``);
* out-of-turn decisions (tdc cuts, T9; Speculation bids, sales and trades,
  S7/S9): after each applied action the other seats are offered their
  options in seat order starting after the last actor, and the first valid
  answer wins. Progress is guaranteed: at most ``reactions`` out-of-turn
  actions follow one another before the awaited seat must move, and an open
  auction that nobody acts on any more is closed with its ``on_timeout``
  action;
* every event goes to every bot as ``event.for_seat(bot.seat)``;
* ``match.check_invariants()`` runs every ``check_every`` actions (and once
  at the end), and the checks are counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.api import Action, Event, Pending
from engine.bots import Bot
from engine.errors import Refusal
from engine.seeds import derive

StepHook = Callable[[Action, tuple[Event, ...]], None]
"""``on_step(action, events)``: called after every applied action with its (global) events."""
EventsHook = Callable[[tuple[Event, ...]], None]
"""``on_events(events)``: called after every applied action with its (global) events, without the
action: a C-level callable such as ``list.extend`` costs a fraction of a Python hook per action."""
IdleHook = Callable[[Any], None]
"""``on_idle(match)``: called with the match whenever it awaits nothing (before each deal, and once
when it is over): a round's outcome read from the match once a round instead of from every
action's events."""


class DriverError(RuntimeError):
    """The match cannot go on: no decision awaited, or a bot chose an action the rules refuse."""


@dataclass(slots=True)
class DriverStats:
    """What one :func:`play_match` call did."""

    actions: int = 0
    """Actions applied, deals and time-outs included."""
    deals: int = 0
    checks: int = 0
    """Invariant checks run (the sum of ``check_invariants()`` results)."""
    timeouts: int = 0
    """Pending time-out actions applied (a bot answered ``None``, or an auction closed)."""
    reactions: int = 0
    """Out-of-turn actions applied (cuts, bids, trades...)."""
    forced: int = 0
    """Awaited decisions with a single legal action, applied without asking the bot."""


def default_table(match: Any) -> dict[str, Any]:
    """Table facts for the next deal: every seat plays every deal (tdc T1/T13, Speculation S12a).

    No ``stake``: the deal then uses the match's own (T13).
    """
    if getattr(match, "rules_name", None) == "classic":
        return {}
    return {"present": tuple(range(match.seats))}


def play_match(
    match: Any,
    bots: Sequence[Bot],
    seed: bytes,
    on_step: StepHook | None = None,
    *,
    check_every: int = 1,
    table: Callable[[Any], dict[str, Any]] = default_table,
    reactions: int | None = None,
    max_actions: int = 10_000_000,
    ask_forced: bool = False,
    on_events: EventsHook | None = None,
    on_idle: IdleHook | None = None,
) -> DriverStats:
    """Play ``match`` until it is over with ``bots[seat]`` deciding for each seat.

    ``check_every``: run ``match.check_invariants()`` after every N-th applied
    action (1: after each one; 0: never, not even at the end). Its
    ``AssertionError`` propagates. ``reactions``: the most out-of-turn actions
    in a row before the awaited seat must move (default ``2 * seats``).
    ``max_actions`` bounds the match (a :class:`DriverError` beyond it), so a
    rules bug cannot loop forever. An awaited seat whose only legal action is
    one (a Président pass when it cannot follow, about 40% of the turns of a
    classic round) gets it without its bot being asked, unless ``ask_forced``:
    the bot has no choice to make (a bot never lets its time run out on
    purpose), and the simulator saves building a view for it. The bot still
    observes the events. ``on_events`` (:data:`EventsHook`) gets every action's
    events too, right after ``on_step``. ``on_idle`` (:data:`IdleHook`) gets the match whenever it
    awaits nothing: before each deal (its first included) and once when it is over.
    """
    return _Driver(
        match, bots, seed, on_step, check_every, table, reactions, max_actions, ask_forced, on_events, on_idle
    ).run()


_ANSWERS_FOR_DECIDE: dict[type, bool] = {}
"""Per bot class: whether ``decide_turn`` and ``decide`` are defined by the same class (found once
per class: a simulator makes four bots a match)."""


def _turn_decider(bot: Bot) -> Callable[[Any], Action | None] | None:
    """``bot.decide_turn`` when it answers for the bot's own ``decide`` on a turn of play: both
    defined by the same class (a subclass that overrides ``decide`` alone is asked through it)."""
    decide_turn: Callable[[Any], Action | None] | None = getattr(bot, "decide_turn", None)
    if decide_turn is None:
        return None
    cls = type(bot)
    same = _ANSWERS_FOR_DECIDE.get(cls)
    if same is None:
        mro = cls.__mro__
        owner = next((k for k in mro if "decide" in vars(k)), None)
        same = owner is not None and owner is next((k for k in mro if "decide_turn" in vars(k)), None)
        _ANSWERS_FOR_DECIDE[cls] = same
    return decide_turn if same else None


def _seat_of(turn: Any) -> int:
    """The seat of what ``next_turn()`` answered: a turn view's fields or that seat's only legal action."""
    seat: int = turn[0] if turn.__class__ is tuple else turn.seat
    return seat


def _refused(seat: int, action: Action, refusal: Refusal) -> DriverError:
    """The error for a bot whose chosen action the rules refuse (a bot bug)."""
    return DriverError(f"bot of seat {seat} chose {action.to_dict()} which the rules refuse: {refusal.code} {refusal}")


class _Driver:
    __slots__ = (
        "ask_forced",
        "bots",
        "check_at",
        "check_every",
        "cut_options",
        "match",
        "max_actions",
        "max_reactions",
        "observers",
        "on_events",
        "on_idle",
        "on_step",
        "open_seats",
        "seed",
        "stats",
        "table",
    )

    def __init__(
        self,
        match: Any,
        bots: Sequence[Bot],
        seed: bytes,
        on_step: StepHook | None,
        check_every: int,
        table: Callable[[Any], dict[str, Any]],
        reactions: int | None,
        max_actions: int,
        ask_forced: bool = False,
        on_events: EventsHook | None = None,
        on_idle: IdleHook | None = None,
    ) -> None:
        if len(bots) != match.seats:
            raise ValueError(f"{len(bots)} bots for {match.seats} seats")
        for seat, bot in enumerate(bots):
            if bot.seat != seat:
                raise ValueError(f"bot for seat {seat} plays seat {bot.seat}")
        self.match = match
        self.bots = list(bots)
        self.seed = seed
        self.on_step = on_step
        self.on_events = on_events
        self.on_idle = on_idle
        self.check_every = max(0, check_every)
        self.check_at = self.check_every
        """The count of applied actions after which the next check runs (0: never)."""
        self.table = table
        self.max_reactions = 2 * match.seats if reactions is None else reactions
        self.max_actions = max_actions
        self.ask_forced = ask_forced
        self.stats = DriverStats()
        # Bots whose observe() is not a no-op; skipping the others saves one
        # for_seat() per event and seat on the hot path.
        self.observers = [b for b in self.bots if getattr(b, "observes", True)]
        # Out-of-turn options: Président offers its cuts through cut_options()
        # (cheap: usually empty); other games with out-of-turn moves (Speculation)
        # are asked seat by seat through legal_actions().
        # Classic Président has none at all (P8: no cut).
        self.cut_options: Callable[[], Mapping[int, Any]] | None = None
        self.open_seats = False
        if getattr(match, "game", None) == "president":
            if getattr(match, "rules_name", None) != "classic":
                self.cut_options = match.cut_options
        else:
            self.open_seats = True

    # -- one action -------------------------------------------------------

    def apply(self, action: Action) -> tuple[Event, ...]:
        match = self.match
        events: tuple[Event, ...] = match.apply(action)
        stats = self.stats
        stats.actions += 1
        if stats.actions > self.max_actions:
            raise DriverError(f"match not over after {self.max_actions} actions")
        for bot in self.observers:
            seat = bot.seat
            for event in events:
                seen = event.for_seat(seat)
                if seen is not None:
                    bot.observe(seen)
        if self.on_step is not None:
            self.on_step(action, events)
        if self.on_events is not None:
            self.on_events(events)
        if stats.actions == self.check_at:
            self.check_at += self.check_every
            stats.checks += match.check_invariants()
        return events

    def stop(self) -> int:
        """The count of applied actions at which the hot loop leaves its common path: the next
        check, or the first action beyond ``max_actions``."""
        check_at = self.check_at
        return check_at if 0 < check_at <= self.max_actions else self.max_actions + 1

    def apply_bot_action(self, seat: int, action: Action) -> None:
        try:
            self.apply(action)
        except Refusal as refusal:
            raise _refused(seat, action, refusal) from refusal

    # -- the loop ---------------------------------------------------------

    def run(self) -> DriverStats:
        # The hot loop (profiled: the simulator's), one iteration per awaited decision: the common
        # work of apply() (counting, checks, hooks) written out in the loop, the match's methods in
        # locals. Its fast form (next_turn(), forced moves unasked) and the plain one (ask_forced or
        # per-action hooks) play the same games: tests/engine/bots/test_driver.py.
        match = self.match
        bots = self.bots
        stats = self.stats
        reactive = self.cut_options is not None or self.open_seats
        observers = self.observers
        on_step = self.on_step
        on_events = self.on_events
        on_idle = self.on_idle
        # per-action hooks other than on_events (none when simulating with bots that keep no memory)
        hooks = bool(observers) or on_step is not None
        check_every = self.check_every
        skip_forced = not self.ask_forced
        max_reactions = self.max_reactions
        max_actions = self.max_actions
        pending_of = match.pending
        # Optional fast form of pending() (Président): the seat whose turn is awaited, or None.
        turn_of = getattr(match, "awaited_turn", None)
        # Président turns of play for bots that decide from the compact turn view.
        turn_view_of = getattr(match, "turn_view", None)
        turn_deciders = [_turn_decider(bot) if turn_view_of is not None else None for bot in bots]
        view_of = match.view
        legal_of = match.legal_actions
        apply = match.apply
        check = match.check_invariants
        # Président with forced moves applied without asking and every bot deciding from the turn
        # view: one next_turn() call per turn of play gives the seat's only legal action or its
        # turn view (no awaited_turn(), no separate forced test).
        next_turn: Callable[[], Any] | None = None
        if skip_forced and all(d is not None for d in turn_deciders):
            next_turn = getattr(match, "next_turn", None)
        last_seat: int | None = None
        rounds = 0
        stuck_key: Any = None
        stuck = 0
        seatless = 0
        # The counters live in locals (stats.actions and self.check_at around the calls that use
        # them): one comparison per action against ``stop`` finds both the next check and the
        # action bound.
        actions = 0
        check_at = self.check_at
        stop = self.stop()
        forced = 0  # added to stats at the end
        checks = 0
        action: Action | None
        while True:
            if next_turn is not None:
                # The turns of play back to back (most actions of a round): the seat's only legal
                # action or its bot's choice, then the common work of the loop below.
                while (turn := next_turn()) is not None:
                    if turn.__class__ is tuple:  # the turn view's fields: the bot decides
                        action = turn_deciders[turn[0]](turn)  # type: ignore[misc]
                        if action is None:  # the bot lets its time run out
                            stats.timeouts += 1
                            action = next(p for p in pending_of() if p.seat == turn[0]).on_timeout
                    else:
                        action = turn
                        forced += 1
                    try:
                        events = apply(action)
                    except Refusal as refusal:
                        raise _refused(_seat_of(turn), action, refusal) from refusal
                    if hooks:
                        self.hooks(action, events)
                    if on_events is not None:
                        on_events(events)
                    actions += 1
                    if actions >= stop:
                        if actions > max_actions:
                            raise DriverError(f"match not over after {max_actions} actions")
                        check_at += check_every
                        checks += check()
                        stop = check_at if check_at <= max_actions else max_actions + 1  # as stop()
                    if reactive:
                        stats.actions = actions
                        self.check_at = check_at
                        last_seat = self.react(_seat_of(turn))
                        actions = stats.actions
                        if self.check_at != check_at:  # a check ran: the next one is further on
                            check_at = self.check_at
                            stop = self.stop()
            awaited: Pending | None = None
            # A turn of play (Président, awaited_turn()) always ends with the seat's action:
            # no Pending to build and no progress to check.
            seat = turn_of() if turn_of is not None and next_turn is None else None
            if seat is None:
                pending: Sequence[Pending] = pending_of()
                if not pending:
                    if on_idle is not None:
                        on_idle(match)
                    if match.over:
                        break
                    if not match.needs_deal():
                        raise DriverError("the match is not over but awaits nothing")
                    rounds += 1
                    stats.actions = actions
                    self.check_at = check_at
                    self.apply(match.deal_action(derive(self.seed, f"round-{rounds}"), **self.table(match)))
                    stats.deals += 1
                    last_seat = None
                    if reactive:
                        last_seat = self.react(last_seat)
                    actions = stats.actions
                    if self.check_at != check_at:  # a check ran: the next one is further on
                        check_at = self.check_at
                        stop = self.stop()
                    continue
                awaited = pending[0]
                seat = awaited.seat
                if seat is None:
                    for p in pending:
                        if p.seat is not None:
                            awaited = p
                            seat = p.seat
                            break
                    else:
                        # Only a seatless decision (a Speculation auction): the others
                        # may act; when nobody does, time runs out (S7). Each bid renews
                        # the decision's key, so a bidding war is bounded here too.
                        stats.actions = actions
                        self.check_at = check_at
                        seatless += 1
                        if seatless > 16 * max_reactions:
                            stats.timeouts += 1
                            self.apply(awaited.on_timeout)
                        else:
                            last_seat = self.react(last_seat, closing=awaited)
                        actions = stats.actions
                        if self.check_at != check_at:  # a check ran: the next one is further on
                            check_at = self.check_at
                            stop = self.stop()
                        continue
                # Progress: a seat that keeps acting without ending its decision
                # (a Speculation trade offer instead of turning) gets the time-out.
                key = awaited.key
                if key == stuck_key:
                    stuck += 1
                else:
                    stuck_key = key
                    stuck = 0
            seatless = 0
            if awaited is not None and stuck > max_reactions:
                action = None
            elif awaited is None and (decide_turn := turn_deciders[seat]) is not None:
                turn = turn_view_of(seat)  # type: ignore[misc]
                action = turn.forced if skip_forced else None
                if action is not None:
                    forced += 1
                else:
                    action = decide_turn(turn)
            else:
                legal = legal_of(seat)
                if len(legal) == 1 and skip_forced:
                    action = legal[0]
                    forced += 1
                else:
                    action = bots[seat].decide(view_of(seat), legal)
            if action is None:
                stats.timeouts += 1
                if awaited is None:
                    awaited = next(p for p in pending_of() if p.seat == seat)
                action = awaited.on_timeout
            try:
                events = apply(action)
            except Refusal as refusal:
                raise _refused(seat, action, refusal) from refusal
            if hooks:
                self.hooks(action, events)
            if on_events is not None:
                on_events(events)
            actions += 1
            if actions >= stop:
                if actions > max_actions:
                    raise DriverError(f"match not over after {max_actions} actions")
                check_at += check_every
                checks += check()
                stop = check_at if check_at <= max_actions else max_actions + 1  # as stop()
            last_seat = seat
            if reactive:
                stats.actions = actions
                self.check_at = check_at
                last_seat = self.react(last_seat)
                actions = stats.actions
                if self.check_at != check_at:  # a check ran: the next one is further on
                    check_at = self.check_at
                    stop = self.stop()
        stats.actions = actions
        stats.forced += forced
        stats.checks += checks
        if check_every and actions != check_at - check_every:  # actions since the last check
            self.check_at = actions + check_every
            stats.checks += check()
        return stats

    def hooks(self, action: Action, events: tuple[Event, ...]) -> None:
        """The observers' events (each as its seat sees it) and ``on_step``, after one action."""
        for bot in self.observers:
            s = bot.seat
            for event in events:
                seen = event.for_seat(s)
                if seen is not None:
                    bot.observe(seen)
        if self.on_step is not None:
            self.on_step(action, events)

    def react(self, last_seat: int | None, closing: Pending | None = None) -> int | None:
        """Offer out-of-turn options in seat order after ``last_seat``; first valid answer wins.

        Goes on while someone acts, at most ``max_reactions`` times. With
        ``closing`` (a seatless pending decision, the auction), applies its
        time-out when nobody acts any more or the bound is reached.
        """
        match = self.match
        n = match.seats
        done = 0
        while done < self.max_reactions and not match.over and not match.needs_deal():
            if closing is not None:
                # the auction may have been closed by a sale or keep
                keys = [p.key for p in match.pending()]
                if closing.key not in keys:
                    return last_seat
            actor = self.offer(last_seat, n)
            if actor is None:
                break
            last_seat = actor
            done += 1
            self.stats.reactions += 1
        if closing is not None and not match.over:
            for p in match.pending():
                if p.key == closing.key:
                    self.stats.timeouts += 1
                    self.apply(p.on_timeout)
                    break
        return last_seat

    def offer(self, last_seat: int | None, n: int) -> int | None:
        """One round of out-of-turn offers; the seat that acted, or ``None``."""
        match = self.match
        start = 0 if last_seat is None else last_seat + 1
        if self.cut_options is not None:
            # Président tdc (T9): seat -> cards it may cut with; usually empty.
            options = self.cut_options()
            if not options:
                return None
            for i in range(n):
                seat = (start + i) % n
                if seat in options:
                    # the seat on turn may cut too (T9 Decision): offer only the cut here
                    legal = [a for a in match.legal_actions(seat) if getattr(a, "cmd", None) == "cut"]
                    if legal:
                        action = self.bots[seat].decide(match.view(seat), legal)
                        if action is not None:
                            self.apply_bot_action(seat, action)
                            return seat
            return None
        awaited = {p.seat for p in match.pending()}
        for i in range(n):
            seat = (start + i) % n
            if seat in awaited:
                continue
            legal = match.legal_actions(seat)
            if legal:
                action = self.bots[seat].decide(match.view(seat), legal)
                if action is not None:
                    self.apply_bot_action(seat, action)
                    return seat
        return None
