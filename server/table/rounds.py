"""A table's round cycle: deals, time-outs, bots, automatic moves, chips, the end of rounds and matches.

Chips move through ledger effects: a staked round's stakes are escrowed before
its deal (T13), Speculation's antes with the deal (S3); the escrow is paid out from
the round's end (T13, S10), sale and trade prices are payments of the round (S7,
S9). A refused ledger operation undoes the action that caused it; a round that
cannot finish is voided (every chip movement of it undone).
"""

from __future__ import annotations

from typing import Any

from engine.bots import LEVELS
from engine.errors import Refusal
from server.games.base import Payment, Payout, Reserve, RoundMoney, Stakes, Unreserve
from server.protocol import CommandError, Shared, arg_number
from server.storage.api import (
    FundBot,
    Hold,
    OpenRound,
    RefundRound,
    ReleaseBot,
    ReleaseHold,
    RoundOpened,
    RoundRecord,
    SettleRound,
    StorageError,
    Transfer,
    UnknownRound,
)
from server.table.base import Step, log
from server.table.fair import FairDeals
from server.table.io import Closed, Gone, Pause, Record, Released, Send, Think

MAX_OPTIONAL_BOT_ACTIONS = 12  # per bot and round: offers, cuts... that nobody waits for


class Rounds(FairDeals):
    def _advance(self) -> Step:
        for turn in range(500):  # everything due now; bounded so a bug cannot spin forever
            if turn:
                yield Pause()  # after a move of its own: a table of fast bots must not hold everybody else up
            now = self._now
            if self.closed:
                return
            if self.over_at is not None and now >= self.over_at:
                yield from self._close("over")
                return
            if (yield from self._expire_graces(now)):
                continue
            if self.status != "playing" or self.match is None:
                self.bot_due = self.auto_at = None
                return
            if self.match.needs_deal():
                # no bot and no automatic move has anything to do between deals; the deal schedules them
                self.bot_due = self.auto_at = None
                if self.match.over or now < self.next_deal_at:
                    return
                if not (yield from self._deal()):
                    return
                continue
            if self.window is not None and now >= self.window[1]:
                self.window = None  # people's time is up: show it (a turn held back is prompted now)
                self._push_states()
            if self.auto_at is not None and now >= self.auto_at:
                self.auto_at = None
                if (yield from self._automatic_move(delayed=True)):
                    continue
            if (yield from self._unanswered(now)):
                continue
            if (yield from self._timeouts(now)):
                continue
            if self.bot_due is not None and now >= self.bot_due:
                self.bot_due = None
                if (yield from self._bots_act()):
                    continue
                if self.window is not None:  # the moves a window allows were not made: the rest wait for its end
                    self.bot_due = self.window[1]
            return

    def _timeouts(self, now: float) -> Step:
        for pending in self.match.pending():
            due = self.deadlines.get(pending.key)
            if due is not None and now >= due:
                self.deadlines.pop(pending.key, None)
                try:
                    events = self._apply(pending.on_timeout)
                except Refusal as exc:  # an engine bug: log it, try again later rather than stall silently
                    log.error("table %s: time-out action refused (%s)", self.id, exc.code)
                    self.deadlines[pending.key] = now + self._timer_seconds(pending.kind)
                    continue
                if not (yield from self._money(events, refuse=False)):
                    yield from self._void_and_close()
                    return True
                yield from self._after(events, paid=True)
                return True
        return False

    def _extend(self, member: Any, args: Any) -> dict[str, Any]:
        """``extend``: seconds from the person's time bank (server.table.bank) on every clock that
        waits for them: their decisions, the offers put to them, and — when they play in the round —
        the clocks everyone shares (an auction, people's window, with what starts after it)."""
        seat = self.seat_of(member.key)
        if seat is None:
            raise CommandError("not_allowed", reason="not_seated")
        if self.match is None or self.status != "playing":
            raise CommandError("not_allowed", reason="not_started")
        pending = self.match.pending()
        playing = self._in_round(self.seats[seat])
        mine = [p.key for p in pending if p.key in self.deadlines and (p.seat == seat or (p.seat is None and playing))]
        window = self.window if playing else None
        asked = self.answers.held_until(seat) is not None
        if not mine and window is None and not asked:
            raise CommandError("not_allowed", reason="no_clock")
        want = arg_number(args, "seconds", default=self.settings.time_bank_step, lo=1, hi=600)
        got = self.bank.take(member.key, want)
        if got <= 0:
            raise CommandError("not_allowed", reason="no_time_left")
        if window is not None:
            # the window and every clock that starts after it (the next turn's) move on together
            self.window = (window[0], window[1] + got)
            for key in self.deadlines:
                self.deadlines[key] += got
            if self.bot_due is not None and self.bot_due >= window[1]:
                self.bot_due += got
        else:
            for key in mine:
                self.deadlines[key] += got
        self.answers.extend(seat, got)
        self._refresh_deadlines()  # a decision held for an answer stays held
        left = self.bank.left(member.key)
        self._broadcast({"event": "extended", "seat": seat, "seconds": got, "bank": left})
        self._deferred.append(self._push_states)
        return {"seconds": got, "bank": left}

    def _unanswered(self, now: float) -> Step:
        """A question put to a person whose time to answer ran out: the table answers for them."""
        if not self.answers:
            return False
        for question, seat in self.answers.expired(now):
            try:
                events = self._apply(self.adapter.question_timeout(self.match, question, seat))
            except Refusal:  # no longer open (it ended in this very moment): nothing to answer
                continue
            if (yield from self._money(events, refuse=False)):
                # the answer the table gave says so (``timeout``), as a kept auction's does (S7)
                yield from self._after(events, paid=True, also={ev.name: {"timeout": True} for ev in events[:1]})
            return True
        return False

    def _bots_act(self) -> Step:
        """Ask the bots, the awaited ones first; apply the first action one of them chooses."""
        match = self.match
        awaited = [p.seat for p in match.pending() if p.seat is not None]
        order = [s for s in self.seats if s.bot is not None and s.index in awaited]
        order += [s for s in self.seats if s.bot is not None and s.index not in awaited and not s.leaving
                  and s.optional_actions < MAX_OPTIONAL_BOT_ACTIONS]
        allowed = None if self.window is None else self.adapter.window_bot_moves(self.window[0])
        for seat in order:
            legal = match.legal_actions(seat.index)
            if allowed is not None:  # a window is open: only the moves it allows (a cut, T9)
                legal = [a for a in legal if a.cmd in allowed]
            if not legal:
                continue
            view = match.view(seat.index)
            try:
                if LEVELS.get(self.opts.bot_level, self.opts.bot_level) == "search":
                    action = yield Think(seat.bot, view, legal)
                else:
                    action = seat.bot.decide(view, legal)
            except Exception:
                log.exception("table %s: bot %d failed", self.id, seat.index)
                action = None
            if action is None:
                continue
            try:
                events = self._apply(action)
            except Refusal as exc:
                log.warning("table %s: bot %d chose a refused action (%s)", self.id, seat.index, exc.code)
                continue
            if not (yield from self._money(events, refuse=False)):
                continue
            if seat.index not in awaited:
                seat.optional_actions += 1
            yield from self._after(events, paid=True)
            return True
        return False

    def _automatic(self, *, delayed: bool = False) -> Any:
        """The first move a person asked the server to make for them now (``autocut`` at once;
        ``autopass`` after a short pause: asked with ``delayed``), or ``None``. A move that waits
        for its pause sets :attr:`auto_at`."""
        if self.match is None or self.status != "playing":
            return None
        for seat in self.seats:
            if seat.member is not None and seat.prefs:
                got = self.adapter.automatic(self.match, seat.index, seat.prefs)
                if got is None:
                    continue
                action, at_once = got
                if at_once != delayed:
                    return action
                if not at_once and self.auto_at is None:
                    self.auto_at = self._now + self.settings.autopass_delay
        return None

    def _automatic_move(self, *, delayed: bool) -> Step:
        action = self._automatic(delayed=delayed)
        if action is None:
            return False
        try:
            events = self._apply(action)
        except Refusal:
            return False
        if (yield from self._money(events, refuse=False)):
            yield from self._after(events, paid=True)
        return True

    def _update_window(self, events: tuple[Any, ...]) -> None:
        """Open or close people's window after these events (a cut may follow; time to trade)."""
        change = self.adapter.window_after(events, self.match)
        if change == "close":
            self.window = None
        elif change is not None and any(s.human for s in self.seats):
            length = self.adapter.window_seconds(change, self.opts, self.settings)
            if length > 0:
                until = self._now + length
                self.window = (change, until)
                if self.bot_due is not None and not self._bots_may_move_in_window():
                    self.bot_due = max(self.bot_due, until)  # no bot acts until it has passed

    def _refresh_deadlines(self) -> None:
        pending = self.match.pending() if self.match is not None else ()
        keys = {p.key for p in pending}
        for key in list(self.deadlines):
            if key not in keys:
                del self.deadlines[key]
        start = self._now if self.window is None else max(self._now, self.window[1])  # full time after it
        for p in pending:
            if p.key not in self.deadlines:
                self.deadlines[p.key] = start + self._timer_seconds(p.kind)
            held = None if p.seat is None or not self.answers else self.answers.held_until(p.seat)
            if held is not None and self.deadlines[p.key] < held:
                self.deadlines[p.key] = held  # a question waits for its answer: no decision times out first

    def _refresh_answers(self) -> bool:
        """The clocks of the questions put to people (server.table.answers); whether one started."""
        if self.match is None or self.status != "playing":
            self.answers.clear()
            return False
        open_now = self.adapter.questions(self.match)
        if not open_now and not self.answers:
            return False
        return self.answers.refresh(open_now, self._can_answer,
                                    self._now, self.settings.offer_seconds)

    def _bots_may_move_in_window(self) -> bool:
        """A bot has a move the open window allows (a cut), made after the bots' usual pause."""
        if self.window is None or self.match is None:
            return False
        allowed = self.adapter.window_bot_moves(self.window[0])
        return bool(allowed) and any(
            a.cmd in allowed for s in self.seats if s.bot is not None for a in self.match.legal_actions(s.index))

    def _schedule_bots(self) -> None:
        if any(s.bot is not None for s in self.seats) and self.status == "playing":
            due = self._now + self.settings.bot_delay
            if self.window is not None and not self._bots_may_move_in_window():
                due = max(due, self.window[1])
            if self.bot_due is None or due < self.bot_due:
                self.bot_due = due

    def _after(self, events: tuple[Any, ...], *, paid: bool = False,
               also: dict[str, dict[str, Any]] | None = None) -> Step:
        """Chips, pushes, round and match ends, deadlines, automatic moves, bots. ``also``: the
        table's own fields to add to these events, by name (not to the automatic moves after them)."""
        for _ in range(64):
            if not paid and not (yield from self._money(events, refuse=False)):
                break
            paid = False
            record = self._round_record(events)
            extra: dict[str, dict[str, Any]] = dict(also or {})
            also = None
            if record is not None:
                extra[self.adapter.round_end] = {"fairness": record}
            if self._refresh_answers():  # a question put to a person: its clock, said with it
                extra[self.adapter.question_event] = {"answer_seconds": self.settings.offer_seconds}
            self._publish(events, extra or None)
            for ev in events:
                if ev.name == self.adapter.round_end:
                    yield from self._round_end(ev, record)
                elif ev.name == "match_over":
                    yield from self._record(ev.to_dict(), f"{self.id}-{self.uid}-match")  # the match's own line
                    yield from self._match_over()
            self._update_window(events)
            self._refresh_deadlines()
            action = self._automatic()
            if action is None:
                break
            try:
                events = self._apply(action)
            except Refusal:
                break
        self._push_states()  # once the automatic moves are made: a state is one moment of the match
        self._schedule_bots()

    def _money(self, events: tuple[Any, ...], *, refuse: bool) -> Step:
        """The ledger effects of the events of the last action. If the ledger refuses one, the action
        is undone: ``refuse`` raises the refusal (a person's command), else the table logs it."""
        money = self.adapter.money
        now = RoundMoney(self.opts.stake, list(self.round_stakes))
        moves = [m for ev in events for m in money(ev, now)]
        if not moves:
            return True
        try:
            for move in moves:
                if isinstance(move, Stakes):
                    self.round_stakes = {s: self._account(s) for s in self._ante_seats(events)}
                    self.round_escrow = dict(move.amounts)
                    if move.amounts and self.round_id is not None:
                        yield OpenRound(self.round_id, {self._account(s): a for s, a in move.amounts.items()},
                                        table=self.id)
                elif isinstance(move, Payout):
                    assert self.round_id is not None
                    payouts: dict[str, int] = {}
                    for s, amount in move.amounts.items():
                        account = self._account(s)
                        payouts[account] = payouts.get(account, 0) + amount
                    yield SettleRound(self.round_id, payouts)
                    self.round_stakes, self.round_escrow = {}, {}
                elif isinstance(move, Payment):
                    hold = None if move.reserved is None else f"{self.round_id}-{move.reserved}"
                    yield Transfer(self._account(move.payer), self._account(move.payee), move.amount, move.reason,
                                   round_id=self.round_id, hold_id=hold)
                elif isinstance(move, Reserve):
                    yield Hold(f"{self.round_id}-{move.key}", self._account(move.seat), move.amount,
                                   round_id=self.round_id)
                elif isinstance(move, Unreserve):
                    yield ReleaseHold(f"{self.round_id}-{move.key}")
        except Exception as exc:
            code = getattr(exc, "code", "not_allowed")
            log.warning("table %s: the ledger refused %s (%s); the action is undone", self.id,
                        type(moves[0]).__name__, exc)
            self._revert_last()
            if refuse:
                raise CommandError(code) from None
            return False
        return True

    def _ante_seats(self, events: tuple[Any, ...]) -> list[int]:
        for ev in events:
            if ev.name == "ante":
                return [p["seat"] for p in ev.to_dict()["payments"]]
        return []

    def _deal(self) -> Step:
        """Start a round or a deal: the commitment and the contribution window (server.table.fair),
        then who plays, the stakes, the deal from the seed and the contributions."""
        if not self._entropy_open():
            self._open_entropy()
            if self._now < self.next_deal_at:
                return False  # the window is open: the deal comes when it closes (or everyone gave)
        match, adapter = self.match, self.adapter
        yield from self._vacate_leavers()
        if self.closed:
            return False
        self.round_id = f"{self.id}-{self.uid}-{match.round + 1}"
        present: list[int] | None = None
        if adapter.presence_per_deal:
            present = [s.index for s in self.seats if not s.empty and not s.leaving]
            if adapter.funded_bots and not adapter.chips_in_match:  # the match counts its bots' chips (S11)
                for s in self.seats:
                    if s.index in present and s.bot is not None and s.bot_display is not None:
                        yield FundBot(s.bot_display, self.settings.bot_chips)
            stake = adapter.deal_stake(self.opts)
            if stake > 0 and len(present) >= adapter.min_players:
                wanted = {self._account(s): stake for s in present}
                try:
                    opened: RoundOpened = yield OpenRound(self.round_id, wanted, table=self.id, partial=True)
                except StorageError:
                    # a balance moved since it was read: this round waits, the next deal checks again
                    log.info("table %s: the stakes could not be escrowed; the round waits", self.id)
                    self.round_id = None
                    self.next_deal_at = self._now + max(self.settings.round_pause, 1.0)
                    return False
                present = [s for s in present if self._account(s) in opened.covered]
                self.round_stakes = {s: self._account(s) for s in present}
                self.round_escrow = dict.fromkeys(present, stake)
            if len(present) < adapter.min_players:
                self.entropy = None  # the next deal gets a fresh commitment
                if self.round_stakes:
                    yield from self._void_round()
                if adapter.too_few_ends_match:
                    yield from self._end_early()  # seats are not refilled mid-match (S11): the match ends here
                else:
                    self._pause("waiting")
                return False
        for s in self.seats:
            s.optional_actions = 0
        self._round_chips = tuple(getattr(match, "chips", ()) or ())
        self._final_contributions(present)
        try:
            events = self._apply(self._fair_deal_action(adapter.deal_table(self.opts, present,
                                                                            self.newcomers(present))))
        except Refusal as exc:
            log.info("table %s: no deal possible (%s)", self.id, exc.code)
            self.entropy = None
            yield from self._void_round()
            if adapter.too_few_ends_match:
                yield from self._end_early()
            else:
                self._pause("waiting")
            return False
        self._dealt(events)
        self.dealt_arrivals = self.arrivals  # who sits now has played a round of this match (T12)
        if match.round == 1:
            log.info("table %s: match started (%s, %d seats)", self.id, self.opts.rules, len(self.seats))
        if not (yield from self._money(events, refuse=False)):
            yield from self._void_and_close()
            return False
        yield from self._after(events, paid=True)
        return True

    def _pause(self, status: str) -> None:
        """Not enough players for a round: wait for someone to join."""
        self.status = status
        self.round_id = None
        if not any(s.human for s in self.seats):
            self.over_at = self._now
        self._push_states()

    def _round_end(self, ev: Any, fair: dict[str, Any] | None = None) -> Step:
        self._tell_departed()
        yield from self._record(ev.to_dict(), fair=fair)
        self.round_stakes, self.round_escrow = {}, {}
        self.round_id = None
        self.next_deal_at = self._now + self.settings.round_pause
        yield from self._vacate_leavers()
        self._open_between_rounds()

    def _tell_departed(self) -> None:
        """People who left during the round hear how it ended for them (their chips' change)."""
        before = self._round_chips
        after = tuple(getattr(self.match, "chips", ()) or ())
        for seat in self.seats:
            if seat.leaving and seat.departed is not None:
                i = seat.index
                change = after[i] - before[i] if i < len(after) and i < len(before) else 0
                self._out.items.append(Send(((seat.departed, None),), Shared(
                    {"event": "round_result", "room": self.id, "round": self.match.round, "seat": i,
                     "chips": change, "game": self.opts.game})))

    def _record(self, result: dict[str, Any], round_id: str | None = None, *, fair: dict[str, Any] | None = None) -> Step:
        record = RoundRecord(
            round_id=round_id or self.round_id or f"{self.id}-{self.uid}-{self.match.round}",
            game=self.opts.game,
            rules=self.opts.rules,
            seats=[s.name or "" for s in self.seats],
            config={**self.opts.to_dict(), "match": _jsonable(getattr(self.match, "config", {}))},
            log=list(self.log),
            result=result,
            commitment=self.commitment or "",
            finished_at=0.0,
            extra={"room": self.id} if fair is None else {"room": self.id, "fairness": fair},
        )
        try:
            yield Record(record)
        except Exception:
            log.exception("table %s: could not record round %s", self.id, record.round_id)

    def _match_over(self) -> Step:
        self.status = "over"
        self.deadlines.clear()
        self.answers.clear()
        self.bot_due = None
        log.info("table %s: match over", self.id)
        yield from self._release_bots()
        if not any(s.human and s.present for s in self.seats):
            self.over_at = self._now
        else:
            self.over_at = self._now + self.settings.close_after_over

    def _end_early(self) -> Step:
        """Fewer than three players can go on (S3, S12a): the match ends with the chips as they are."""
        self._broadcast({"event": "notice", "code": "not_enough_players"})
        yield from self._match_over()
        self._push_states()

    def _void_round(self) -> Step:
        """The open round will not finish: every chip movement of it is undone."""
        round_id, self.round_id = self.round_id, None
        self.round_stakes, self.round_escrow = {}, {}
        if round_id is None:
            return
        try:
            yield RefundRound(round_id)
        except UnknownRound:
            pass  # no chip ever moved in it (a classic round, a round nobody could stake): nothing to undo
        except Exception:
            log.exception("table %s: could not void round %s", self.id, round_id)

    def _void_and_close(self) -> Step:
        log.error("table %s: a round could not settle; voided, table closed", self.id)
        yield from self._close("error")

    def _release_bots(self) -> Step:
        staked = self._staked_bots()
        for seat in self.seats:
            if seat.bot_display is not None and seat.bot_display not in staked:
                try:
                    yield ReleaseBot(seat.bot_display)
                except Exception:
                    log.exception("table %s: could not release bot %s", self.id, seat.bot_display)

    def _staked_bots(self) -> set[str]:
        if self.round_id is None:
            return set()
        return {s.bot_display for s in self.seats if s.bot_display and s.index in self.round_stakes}

    def _close(self, reason: str) -> Step:
        if self.closed:
            return
        self.closed = reason
        self.deadlines.clear()
        self.answers.clear()
        self.bot_due = None
        yield from self._void_round()
        yield from self._release_bots()
        self._broadcast({"event": "room_closed", "room": self.id, "reason": reason})
        self._out.items.append(Closed(reason))
        self._out.closed = reason
        for seat in self.seats:
            if seat.member is not None or seat.leaving:
                if seat.account is not None and not seat.leaving:  # a leaver's claim ended as they left
                    self._out.items.append(Released(seat.account))
                if seat.member is not None:
                    self._out.items.append(Gone(seat.member))
                seat.member = None
        for key in self.spectators:
            self._out.items.append(Gone(key))
        self.spectators.clear()
        log.info("table %s closed (%s)", self.id, reason)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value
