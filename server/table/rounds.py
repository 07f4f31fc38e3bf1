"""A table's round cycle: deals, time-outs, bots, automatic moves, chips, the end of rounds and matches.

Chips move through the store's operations (:mod:`server.table.chips`): a staked
round's stakes are escrowed before its deal (T13), Speculation's antes with the
deal (S3); the escrow is paid out from the round's end (T13, S10), sale and trade
prices are payments of the round (S7, S9). A refused operation undoes the action
that caused it; a round that cannot finish is voided (every chip movement of it
undone).

:class:`RoundCycle` is a part of its :class:`~server.table.core.Table`: it ties the
others together (the match, the clocks, the chips, fair deals, the seating, the
sender), reaching them through the table.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.api import Action, Event
from engine.bots import LEVELS
from engine.errors import Refusal
from server.protocol import Args, CommandError, JSONObject, JSONValue, Result, Shared, arg_number
from server.storage.api import (
    FundBot,
    OpenRound,
    RefundRound,
    ReleaseBot,
    RoundOpened,
    RoundRecord,
    StorageError,
    UnknownRound,
)
from server.table.events import RoundResult, pushed
from server.table.host import TableHost
from server.table.io import Closed, Gone, Member, Pause, Record, Released, Send, Think
from server.table.steps import Step, log

MAX_OPTIONAL_BOT_ACTIONS = 12  # per bot and round: offers, cuts... that nobody waits for


class RoundCycle:
    """The round and match cycle of its table (see the module's documentation)."""

    __slots__ = ("t",)

    def __init__(self, table: TableHost) -> None:
        self.t = table

    def advance(self) -> Step[None]:
        t = self.t
        for turn in range(500):  # everything due now; bounded so a bug cannot spin forever
            if turn:
                yield Pause()  # after a move of its own: a table of fast bots must not hold everybody else up
            now = t.now
            if t.closed:
                return
            if t.clocks.over_at is not None and now >= t.clocks.over_at:
                yield from self.close("over")
                return
            if (yield from t.seating.expire_graces(now)):
                continue
            if t.status != "playing" or t.game.match is None:
                t.clocks.bot_due = t.clocks.auto_at = None
                return
            if t.game.match.needs_deal():
                # no bot and no automatic move has anything to do between deals; the deal schedules them
                t.clocks.bot_due = t.clocks.auto_at = None
                if t.game.match.over or now < t.clocks.next_deal_at:
                    return
                if not (yield from self.deal()):
                    return
                continue
            if t.clocks.window is not None and now >= t.clocks.window[1]:
                t.clocks.window = None  # people's time is up: show it (a turn held back is prompted now)
                t.out.push_states()
            if t.clocks.auto_at is not None and now >= t.clocks.auto_at:
                t.clocks.auto_at = None
                if (yield from self.automatic_move(delayed=True)):
                    continue
            if (yield from self.unanswered(now)):
                continue
            if (yield from self.timeouts(now)):
                continue
            if t.clocks.bot_due is not None and now >= t.clocks.bot_due:
                t.clocks.bot_due = None
                if (yield from self.bots_act()):
                    continue
                if t.clocks.window is not None:  # the moves a window allows were not made: the rest wait for its end
                    t.clocks.bot_due = t.clocks.window[1]
            return

    def timeouts(self, now: float) -> Step[bool]:
        t = self.t
        for pending in t.game.current.pending():
            due = t.clocks.deadlines.get(pending.key)
            if due is not None and now >= due:
                t.clocks.deadlines.pop(pending.key, None)
                try:
                    events = t.game.apply(pending.on_timeout)
                except Refusal as exc:  # an engine bug: log it, try again later rather than stall silently
                    log.error("table %s: time-out action refused (%s)", t.id, exc.code)
                    t.clocks.deadlines[pending.key] = now + t.timer_seconds(pending.kind)
                    continue
                if not (yield from self.money(events, refuse=False)):
                    yield from self.void_and_close()
                    return True
                yield from self.after(events, paid=True)
                return True
        return False

    def extend(self, member: Member, args: Args) -> Result:
        """``extend``: seconds from the person's time bank (server.table.bank) on every clock that
        waits for them: their decisions, the offers put to them, and — when they play in the round —
        the clocks everyone shares (an auction, people's window, with what starts after it)."""
        t = self.t
        seat = t.seat_of(member.key)
        if seat is None:
            raise CommandError("not_allowed", reason="not_seated")
        if t.game.match is None or t.status != "playing":
            raise CommandError("not_allowed", reason="not_started")
        pending = t.game.match.pending()
        playing = t.in_round(t.seats[seat])
        mine = [p.key for p in pending if p.key in t.clocks.deadlines and (p.seat == seat or (p.seat is None and playing))]
        window = t.clocks.window if playing else None
        asked = t.clocks.answers.held_until(seat) is not None
        if not mine and window is None and not asked:
            raise CommandError("not_allowed", reason="no_clock")
        want = arg_number(args, "seconds", default=t.settings.time_bank_step, lo=1, hi=600)
        got = t.clocks.bank.take(member.key, want)
        if got <= 0:
            raise CommandError("not_allowed", reason="no_time_left")
        # the window and every clock that starts after it (the next turn's) move on together
        t.clocks.move_on(mine, got, window=window is not None)
        t.clocks.answers.extend(seat, got)
        self.refresh_deadlines()  # a decision held for an answer stays held
        left = t.clocks.bank.left(member.key)
        t.out.broadcast({"event": "extended", "seat": seat, "seconds": got, "bank": left})
        t.out.defer(t.out.push_states)
        return {"seconds": got, "bank": left}

    def unanswered(self, now: float) -> Step[bool]:
        """A question put to a person whose time to answer ran out: the table answers for them."""
        t = self.t
        if not t.clocks.answers:
            return False
        for question, seat in t.clocks.answers.expired(now):
            try:
                events = t.game.apply(t.adapter.question_timeout(t.game.current, question, seat))
            except Refusal:  # no longer open (it ended in this very moment): nothing to answer
                continue
            if (yield from self.money(events, refuse=False)):
                # the answer the table gave says so (``timeout``), as a kept auction's does (S7)
                yield from self.after(events, paid=True, also={ev.name: {"timeout": True} for ev in events[:1]})
            return True
        return False

    def bots_act(self) -> Step[bool]:
        """Ask the bots, the awaited ones first; apply the first action one of them chooses."""
        t = self.t
        match = t.game.current
        awaited = [p.seat for p in match.pending() if p.seat is not None]
        order = [s for s in t.seats if s.bot is not None and s.index in awaited]
        order += [s for s in t.seats if s.bot is not None and s.index not in awaited and not s.leaving
                  and s.optional_actions < MAX_OPTIONAL_BOT_ACTIONS]
        allowed = None if t.clocks.window is None else t.adapter.window_bot_moves(t.clocks.window[0])
        for seat in order:
            bot = seat.bot
            assert bot is not None
            legal = match.legal_actions(seat.index)
            if allowed is not None:  # a window is open: only the moves it allows (a cut, T9)
                legal = [a for a in legal if a.cmd in allowed]  # type: ignore[attr-defined]
            if not legal:
                continue
            view = match.view(seat.index)
            try:
                if LEVELS.get(t.opts.bot_level, t.opts.bot_level) == "search":
                    action = yield Think(bot, view, legal)
                else:
                    action = bot.decide(view, legal)
            except Exception:
                log.exception("table %s: bot %d failed", t.id, seat.index)
                action = None
            if action is None:
                continue
            try:
                events = t.game.apply(action)
            except Refusal as exc:
                log.warning("table %s: bot %d chose a refused action (%s)", t.id, seat.index, exc.code)
                continue
            if not (yield from self.money(events, refuse=False)):
                continue
            if seat.index not in awaited:
                seat.optional_actions += 1
            yield from self.after(events, paid=True)
            return True
        return False

    def automatic(self, *, delayed: bool = False) -> Action | None:
        """The first move a person asked the server to make for them now (``autocut`` at once;
        ``autopass`` after a short pause: asked with ``delayed``), or ``None``. A move that waits
        for its pause sets :attr:`auto_at`."""
        t = self.t
        if t.game.match is None or t.status != "playing":
            return None
        for seat in t.seats:
            if seat.member is not None and seat.prefs:
                got = t.adapter.automatic(t.game.match, seat.index, seat.prefs)
                if got is None:
                    continue
                action: Action = got[0]
                at_once = got[1]
                if at_once != delayed:
                    return action
                if not at_once and t.clocks.auto_at is None:
                    t.clocks.auto_at = t.now + t.settings.autopass_delay
        return None

    def automatic_move(self, *, delayed: bool) -> Step[bool]:
        t = self.t
        action = self.automatic(delayed=delayed)
        if action is None:
            return False
        try:
            events = t.game.apply(action)
        except Refusal:
            return False
        if (yield from self.money(events, refuse=False)):
            yield from self.after(events, paid=True)
        return True

    def update_window(self, events: tuple[Event, ...]) -> None:
        """Open or close people's window after these events (a cut may follow; time to trade)."""
        t = self.t
        change = t.adapter.window_after(events, t.game.current)
        if change == "close":
            t.clocks.window = None
        elif change is not None and any(s.human for s in t.seats):
            length = t.adapter.window_seconds(change, t.opts, t.settings)
            if length > 0:
                until = t.now + length
                t.clocks.window = (change, until)
                if t.clocks.bot_due is not None and not self.bots_may_move_in_window():
                    t.clocks.bot_due = max(t.clocks.bot_due, until)  # no bot acts until it has passed

    def refresh_deadlines(self) -> None:
        t = self.t
        pending = t.game.match.pending() if t.game.match is not None else ()
        keys = {p.key for p in pending}
        for key in list(t.clocks.deadlines):
            if key not in keys:
                del t.clocks.deadlines[key]
        start = t.now if t.clocks.window is None else max(t.now, t.clocks.window[1])  # full time after it
        for p in pending:
            if p.key not in t.clocks.deadlines:
                t.clocks.deadlines[p.key] = start + t.timer_seconds(p.kind)
            held = None if p.seat is None or not t.clocks.answers else t.clocks.answers.held_until(p.seat)
            if held is not None and t.clocks.deadlines[p.key] < held:
                t.clocks.deadlines[p.key] = held  # a question waits for its answer: no decision times out first

    def refresh_answers(self) -> bool:
        """The clocks of the questions put to people (server.table.answers); whether one started."""
        t = self.t
        if t.game.match is None or t.status != "playing":
            t.clocks.answers.clear()
            return False
        open_now = t.adapter.questions(t.game.match)
        if not open_now and not t.clocks.answers:
            return False
        return t.clocks.answers.refresh(open_now, t.can_answer,
                                    t.now, t.settings.offer_seconds)

    def bots_may_move_in_window(self) -> bool:
        """A bot has a move the open window allows (a cut), made after the bots' usual pause."""
        t = self.t
        if t.clocks.window is None or t.game.match is None:
            return False
        allowed = t.adapter.window_bot_moves(t.clocks.window[0])
        return bool(allowed) and any(
            a.cmd in allowed for s in t.seats if s.bot is not None  # type: ignore[attr-defined]
            for a in t.game.current.legal_actions(s.index))

    def schedule_bots(self) -> None:
        t = self.t
        if any(s.bot is not None for s in t.seats) and t.status == "playing":
            due = t.now + t.settings.bot_delay
            if t.clocks.window is not None and not self.bots_may_move_in_window():
                due = max(due, t.clocks.window[1])
            if t.clocks.bot_due is None or due < t.clocks.bot_due:
                t.clocks.bot_due = due

    def after(self, events: tuple[Event, ...], *, paid: bool = False,
               also: Mapping[str, JSONObject] | None = None) -> Step[None]:
        """Chips, pushes, round and match ends, deadlines, automatic moves, bots. ``also``: the
        table's own fields to add to these events, by name (not to the automatic moves after them)."""
        t = self.t
        for _ in range(64):
            if not paid and not (yield from self.money(events, refuse=False)):
                break
            paid = False
            record = t.fair.round_record(events)
            extra: dict[str, JSONObject] = dict(also or {})
            also = None
            if record is not None:
                extra[t.adapter.round_end] = {"fairness": record}
            if self.refresh_answers():  # a question put to a person: its clock, said with it
                extra[t.adapter.question_event] = {"answer_seconds": t.settings.offer_seconds}
            t.out.publish(events, extra or None)
            for ev in events:
                if ev.name == t.adapter.round_end:
                    yield from self.round_end(ev, record)
                elif ev.name == "match_over":
                    yield from self.record(ev.to_dict(), f"{t.id}-{t.uid}-match")  # the match's own line
                    yield from self.match_over()
            self.update_window(events)
            self.refresh_deadlines()
            action = self.automatic()
            if action is None:
                break
            try:
                events = t.game.apply(action)
            except Refusal:
                break
        t.out.push_states()  # once the automatic moves are made: a state is one moment of the match
        self.schedule_bots()

    def money(self, events: tuple[Event, ...], *, refuse: bool) -> Step[bool]:
        """The chips the events of the last action move (:meth:`RoundChips.moves`). If the store refuses
        one, the action is undone: ``refuse`` raises the refusal (a person's command), else the table
        logs it."""
        t = self.t
        moves = t.chips.moves(events)
        try:
            yield from moves
        except Exception as exc:
            code = getattr(exc, "code", "not_allowed")
            log.warning("table %s: the store refused a chip movement (%s); the action is undone", t.id, exc)
            t.game.revert_last()
            if refuse:
                raise CommandError(code) from None
            return False
        return True

    def deal(self) -> Step[bool]:
        """Start a round or a deal: the commitment and the contribution window (server.table.fair),
        then who plays, the stakes, the deal from the seed and the contributions."""
        t = self.t
        if not t.fair.is_open():
            t.fair.open()
            if t.now < t.clocks.next_deal_at:
                return False  # the window is open: the deal comes when it closes (or everyone gave)
        match, adapter = t.game.current, t.adapter
        yield from t.seating.vacate_leavers()
        if t.closed:
            return False
        t.chips.round_id = f"{t.id}-{t.uid}-{match.round + 1}"
        present: list[int] | None = None
        if adapter.presence_per_deal:
            present = [s.index for s in t.seats if not s.empty and not s.leaving]
            if adapter.funded_bots and not adapter.chips_in_match:  # the match counts its bots' chips (S11)
                for s in t.seats:
                    if s.index in present and s.bot is not None and s.bot_display is not None:
                        yield FundBot(s.bot_display, t.settings.bot_chips)
            stake = adapter.deal_stake(t.opts)
            if stake > 0 and len(present) >= adapter.min_players:
                wanted = {t.chips.account(s): stake for s in present}
                try:
                    opened: RoundOpened = yield OpenRound(t.chips.round_id, wanted, table=t.id, partial=True)
                except StorageError:
                    # a balance moved since it was read: this round waits, the next deal checks again
                    log.info("table %s: the stakes could not be escrowed; the round waits", t.id)
                    t.chips.round_id = None
                    t.clocks.next_deal_at = t.now + max(t.settings.round_pause, 1.0)
                    return False
                present = [s for s in present if t.chips.account(s) in opened.covered]
                t.chips.staked(present, stake)
            if len(present) < adapter.min_players:
                t.fair.forget_seed()  # the next deal gets a fresh commitment
                if t.chips.stakes:
                    yield from self.void_round()
                if adapter.too_few_ends_match:
                    yield from self.end_early()  # seats are not refilled mid-match (S11): the match ends here
                else:
                    self.pause("waiting")
                return False
        for s in t.seats:
            s.optional_actions = 0
        t.chips.start = tuple(getattr(match, "chips", ()) or ())
        t.fair.final_contributions(present)
        try:
            events = t.game.apply(t.fair.deal_action(adapter.deal_table(t.opts, present,
                                                                            t.seating.newcomers(present))))
        except Refusal as exc:
            log.info("table %s: no deal possible (%s)", t.id, exc.code)
            t.fair.forget_seed()
            yield from self.void_round()
            if adapter.too_few_ends_match:
                yield from self.end_early()
            else:
                self.pause("waiting")
            return False
        t.fair.dealt(events)
        t.dealt_arrivals = t.arrivals  # who sits now has played a round of this match (T12)
        if match.round == 1:
            log.info("table %s: match started (%s, %d seats)", t.id, t.opts.rules, len(t.seats))
        if not (yield from self.money(events, refuse=False)):
            yield from self.void_and_close()
            return False
        yield from self.after(events, paid=True)
        return True

    def pause(self, status: str) -> None:
        """Not enough players for a round: wait for someone to join."""
        t = self.t
        t.status = status
        t.chips.round_id = None
        if not any(s.human for s in t.seats):
            t.clocks.over_at = t.now
        t.out.push_states()

    def round_end(self, ev: Event, fair: JSONObject | None = None) -> Step[None]:
        t = self.t
        self.tell_departed()
        yield from self.record(ev.to_dict(), fair=fair)
        t.chips.forget()
        t.clocks.next_deal_at = t.now + t.settings.round_pause
        yield from t.seating.vacate_leavers()
        t.fair.open_between_rounds()

    def tell_departed(self) -> None:
        """People who left during the round hear how it ended for them (their chips' change)."""
        t = self.t
        before = t.chips.start
        after = tuple(getattr(t.game.match, "chips", ()) or ())
        for seat in t.seats:
            if seat.leaving and seat.departed is not None:
                i = seat.index
                change = after[i] - before[i] if i < len(after) and i < len(before) else 0
                told: RoundResult = {"event": "round_result", "room": t.id, "round": t.game.current.round, "seat": i,
                                     "chips": change, "game": t.opts.game}
                t.out.out.items.append(Send(((seat.departed, None),), Shared(pushed(told))))

    def record(self, result: JSONObject, round_id: str | None = None, *, fair: JSONObject | None = None) -> Step[None]:
        t = self.t
        record = RoundRecord(
            round_id=round_id or t.chips.round_id or f"{t.id}-{t.uid}-{t.game.current.round}",
            game=t.opts.game,
            rules=t.opts.rules,
            seats=[s.name or "" for s in t.seats],
            config={**t.opts.to_dict(), "match": _jsonable(getattr(t.game.match, "config", {}))},
            log=list(t.game.log),
            result=result,
            commitment=t.fair.commitment or "",
            finished_at=0.0,
            extra={"room": t.id} if fair is None else {"room": t.id, "fairness": fair},
        )
        try:
            yield Record(record)
        except Exception:
            log.exception("table %s: could not record round %s", t.id, record.round_id)

    def match_over(self) -> Step[None]:
        t = self.t
        t.status = "over"
        t.clocks.stop()
        log.info("table %s: match over", t.id)
        yield from self.release_bots()
        if not any(s.human and s.present for s in t.seats):
            t.clocks.over_at = t.now
        else:
            t.clocks.over_at = t.now + t.settings.close_after_over

    def end_early(self) -> Step[None]:
        """Fewer than three players can go on (S3, S12a): the match ends with the chips as they are."""
        t = self.t
        t.out.broadcast({"event": "notice", "code": "not_enough_players"})
        yield from self.match_over()
        t.out.push_states()

    def void_round(self) -> Step[None]:
        """The open round will not finish: every chip movement of it is undone."""
        t = self.t
        round_id = t.chips.forget()
        if round_id is None:
            return
        try:
            yield RefundRound(round_id)
        except UnknownRound:
            pass  # no chip ever moved in it (a classic round, a round nobody could stake): nothing to undo
        except Exception:
            log.exception("table %s: could not void round %s", t.id, round_id)

    def void_and_close(self) -> Step[None]:
        t = self.t
        log.error("table %s: a round could not settle; voided, table closed", t.id)
        yield from self.close("error")

    def release_bots(self) -> Step[None]:
        t = self.t
        staked = t.chips.staked_bots()
        for seat in t.seats:
            if seat.bot_display is not None and seat.bot_display not in staked:
                try:
                    yield ReleaseBot(seat.bot_display)
                except Exception:
                    log.exception("table %s: could not release bot %s", t.id, seat.bot_display)

    def close(self, reason: str) -> Step[None]:
        t = self.t
        if t.closed:
            return
        t.closed = reason
        t.clocks.stop()
        yield from self.void_round()
        yield from self.release_bots()
        t.out.broadcast({"event": "room_closed", "room": t.id, "reason": reason})
        t.out.out.items.append(Closed(reason))
        t.out.out.closed = reason
        for seat in t.seats:
            if seat.member is not None or seat.leaving:
                if seat.account is not None and not seat.leaving:  # a leaver's claim ended as they left
                    t.out.out.items.append(Released(seat.account))
                if seat.member is not None:
                    t.out.out.items.append(Gone(seat.member))
                seat.member = None
        for key in t.spectators:
            t.out.out.items.append(Gone(key))
        t.spectators.clear()
        log.info("table %s closed (%s)", t.id, reason)


def _jsonable(value: object) -> JSONValue:
    """A match's configuration as JSON: keys as text, tuples as lists, bytes in hex (anything else the
    engine never puts there: as text, which the encoder would have written)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)
