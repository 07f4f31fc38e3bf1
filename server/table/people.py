"""Who sits at a table: joining, watching, leaving, disconnections and their grace, bots' seats.

One account holds at most one seat in the whole server: a seat is claimed
(:class:`~server.table.io.Claim`) before anyone sits and released
(:class:`~server.table.io.Released`) when the person leaves it — also in the middle
of a staked round, where a bot plays the seat to the round's end on their stake
(T1, S11): the person is free at once, the chips stay in the round's escrow until it
settles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.bots import LEVELS, make_bot
from engine.errors import Refusal
from engine.seeds import derive
from server.protocol import CommandError
from server.storage.api import FundBot, StorageError, bot_account
from server.storage.names import name_key
from server.table.base import Step, TableBase, log
from server.table.io import Balance, Claim, Gone, Member, Placed, Released
from server.table.seats import Seat


class Seating(TableBase):
    def _join(self, member: Member, args: Mapping[str, Any]) -> Step:
        seat_no = self.seat_of(member.key)
        if seat_no is not None:
            raise CommandError("not_allowed", reason="already_seated")
        if self.status == "over":
            raise CommandError("not_allowed", reason="over")
        if any(s.leaving and s.account is not None and name_key(s.account) == name_key(member.account)
               for s in self.seats):
            # the seat they left is still played to the end of its round on their stake: one seat of
            # an account at a table (its chips settle per account)
            raise CommandError("not_allowed", reason="left_here")
        joinable = (self.status == "waiting" and self.match is None) or self.adapter.joins_between_rounds
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
        elsewhere = yield Claim(member.account, self.id)
        if elsewhere is not None:
            raise CommandError("already_in_room", room=elsewhere)
        try:
            need = self.adapter.chips_to_sit(self.opts)
            if need > 0:
                chips = yield Balance(member.account)
                if chips < need:
                    raise CommandError("insufficient_chips", need=need, chips=chips)
        except BaseException:
            self._out.items.append(Released(member.account))
            raise
        self.spectators.pop(member.key, None)
        seat.clear()
        seat.member, seat.name, seat.account = member.key, member.name, member.account
        seat.present = True
        seat.prefs = dict(member.prefs)
        seat.seed = member.seed
        seat.hidden = member.hidden
        seat.proof = member.proof
        seat.arrived = self._arrival()
        self._out.items.append(Placed(member.key, seat.index))
        self._broadcast({"event": "joined", "room": self.id, "name": member.name, "seat": seat.index})
        if self.status == "waiting" and self.match is None:
            yield from self._fill_bots()
            if all(not s.empty for s in self.seats):
                yield from self._start_match()
        elif self.status == "waiting":
            self.status = "playing"  # enough players again (T1)
            self.next_deal_at = self._now + self.settings.round_pause
            self.over_at = None
        self._deferred.append(self._push_states)
        return {"seat": seat.index}

    def _seat_bot(self, seat: Seat) -> Step:
        options = self._bot_options if LEVELS.get(self.opts.bot_level, self.opts.bot_level) == "search" else {}
        bot = make_bot(self.opts.game, self.opts.bot_level, seat.index,
                       derive(self._bot_seed, f"bot-{seat.index}"), **options)
        if self.adapter.funded_bots:
            display = f"{self.id}-{self.uid}-{seat.index}"
            yield FundBot(display, self.settings.bot_chips)  # may refuse: the seat stays free
            seat.bot_display = display
            seat.account = bot_account(display)
        seat.bot = bot
        seat.name = f"bot{seat.index}"
        seat.member = None
        seat.arrived = self._arrival()

    def _fill_bots(self) -> Step:
        """Bots take their seats at once: the last ``bots`` seats (one the house cannot fund stays free)."""
        have = sum(1 for s in self.seats if s.bot is not None)
        last_empty = [s for s in reversed(self.seats) if s.empty][:max(0, self.opts.bots - have)]
        for seat in reversed(last_empty):  # seated in seat order: bot1, bot2, bot3
            try:
                yield from self._seat_bot(seat)
            except StorageError as exc:
                log.warning("table %s: no bot for seat %d (%s); the next join tries again", self.id,
                            seat.index, exc)
                return
            self._broadcast({"event": "joined", "room": self.id, "name": seat.name, "seat": seat.index,
                             "bot": True})

    def _start_match(self) -> Step:
        chips = []
        if self.adapter.chips_in_match:
            for s in self.seats:
                chips.append((yield Balance(self._account(s.index))))
        self.match = self.adapter.new_match(self.opts, chips)
        self.dealt_arrivals = None  # a new match: no title to exchange yet
        self._match_made()
        self.status = "playing"
        self.next_deal_at = self._now
        self._broadcast({"event": "match_started", "room": self.id})

    def _rematch(self, member: Member) -> Step:
        """A new match at this finished table: the same options, the people still seated, fresh bots."""
        if self.seat_of(member.key) is None:
            raise CommandError("not_allowed", reason="not_seated")
        if self.status != "over":
            raise CommandError("not_allowed", reason="not_over")
        for seat in self.seats:
            if seat.member is None:
                seat.clear()  # bots (their chips went back to the house at the end) and seats left
        self.match = None
        self.status = "waiting"
        self.over_at = None
        self.matches += 1  # a new match: new round ids and bot accounts (a round id is used once)
        self.uid = f"{self.first_uid}.{self.matches}"
        self.log = []
        self.commitment = None
        self.deadlines.clear()
        self.window = None
        self._broadcast({"event": "rematch", "room": self.id, "name": member.name})
        yield from self._fill_bots()
        if all(not s.empty for s in self.seats):
            yield from self._start_match()
        self._deferred.append(self._push_states)
        return {"room": self.id}

    def chips_in_play(self, seat_no: int) -> bool:
        """Chips of that seat's person are, or may be, in play at this table (stakes, antes, a match
        made with chips, an open escrow)."""
        return bool(self.adapter.chips_in_match or self.adapter.chips_to_sit(self.opts) > 0
                    or self.adapter.deal_stake(self.opts) > 0 or self.round_escrow.get(seat_no))

    def _become(self, member: Member, args: Mapping[str, Any]) -> Step:
        """A guest seated here becomes an account (``register``, or ``login`` from the guest's session):
        the seat goes on under the account's key, name and ledger account, the points with it.

        Only where no chip of the guest's is or will be at this table (a table with no stakes nor
        antes; the guest's chips are retired when it becomes the account): elsewhere
        ``not_allowed`` with ``reason`` ``at_stake``. The account must hold no other seat."""
        seat_no = self.seat_of(member.key)
        if seat_no is None:
            raise CommandError("not_in_room")
        seat = self.seats[seat_no]
        key, name, account = str(args["key"]), str(args["name"]), str(args["account"])
        if self.chips_in_play(seat_no):
            raise CommandError("not_allowed", reason="at_stake")
        old_account = seat.account
        if account != old_account:
            elsewhere = yield Claim(account, self.id)
            if elsewhere is not None:
                raise CommandError("already_in_room", room=elsewhere)
        old_name = seat.name
        seat.member, seat.name, seat.account, seat.proof = key, name, account, None
        if old_account is not None and old_account != account:
            self._out.items.append(Released(old_account))
        if key != member.key:
            self._out.items.append(Placed(key, seat_no))
        if old_name != name:
            self._broadcast({"event": "renamed", "room": self.id, "name": old_name, "to": name, "seat": seat_no})
        self._deferred.append(self._push_states)
        return {"room": self.id, "seat": seat_no}

    def _watch(self, member: Member) -> dict[str, Any]:
        if self.seat_of(member.key) is not None:
            raise CommandError("not_allowed", reason="already_seated")
        self.spectators[member.key] = member
        self._out.items.append(Placed(member.key, None))
        self._broadcast({"event": "joined", "room": self.id, "name": member.name, "seat": None, "watch": True})
        self._deferred.append(lambda: self._push_state(member.key))
        return {"room": self.id}

    def _leave(self, member: Member) -> Step:
        seat_no = self.seat_of(member.key)
        if seat_no is None and member.key not in self.spectators:
            raise CommandError("not_in_room")
        result: dict[str, Any] = {"room": self.id}
        if seat_no is None:
            del self.spectators[member.key]
        else:
            seat = self.seats[seat_no]
            at_stake = self.round_escrow.get(seat_no, 0)
            yield from self._release_promises(seat)
            self._free_seat(seat)
            if seat.leaving:  # a bot plays on with the stake; the person hears how the round ends
                result.update(until="round_end", at_stake=at_stake)
        self._out.items.append(Gone(member.key))
        self._broadcast({"event": "left", "room": self.id, "name": member.name})
        self._push_states()
        yield from self._maybe_close()
        return result

    def _release_promises(self, seat: Seat) -> Step:
        """A person leaving during a round: what they promised lapses first (their open offers, S9),
        so no chip of theirs stays promised at a table they left."""
        if self.match is None or self.status != "playing":
            return
        for action in self.adapter.on_leave(self.match, seat.index):
            try:
                events = self._apply(action)
            except Refusal:
                continue
            if (yield from self._money(events, refuse=False)):
                self._publish(events)

    def _free_seat(self, seat: Seat) -> None:
        """A person leaves their seat (command, or grace expired).

        In a match whose seats are fixed (P16) a built-in bot takes the seat for good; in a
        round where the person has chips at stake (T1, T13, S11) a bot plays the seat to the end
        of that round with their stake, and the seat (and its claim) ends with the round; the
        person is told how it ended. Otherwise the seat is free at once.
        """
        account = seat.account
        if self.match is not None and self.adapter.replace_leaver and self.status == "playing":
            # P16: a built-in bot takes over; the points stay with the seat
            seat.substitute = True
            seat.bot = make_bot(self.opts.game, "normal", seat.index, derive(self._bot_seed, f"sub-{seat.index}"))
            seat.member = None
            seat.present = False
            seat.grace_until = None
            seat.prefs = {}
            self._broadcast({"event": "replaced", "room": self.id, "name": seat.name, "seat": seat.index})
            self._schedule_bots()
        elif self._in_round(seat):
            # a bot plays the seat to the end of this round or deal, on the person's stake; it makes
            # only the moves the table waits for (no offer, no bid with someone else's chips)
            seat.leaving = True
            seat.departed = seat.member
            seat.substitute = True
            seat.bot = make_bot(self.opts.game, "normal", seat.index, derive(self._bot_seed, f"sub-{seat.index}"))
            seat.member = None
            seat.present = False
            seat.grace_until = None
            seat.prefs = {}
            self._broadcast({"event": "replaced", "room": self.id, "name": seat.name, "seat": seat.index,
                             "until": "round_end", "game": self.opts.game})
            self._schedule_bots()
            # the person is free at once: their claim ends now (they may sit or open a table elsewhere);
            # the chips at stake stay in this round's escrow until it settles, paid to seat.account
            if account is not None:
                self._out.items.append(Released(account))
            return
        else:
            seat.clear()
        if account is not None:
            self._out.items.append(Released(account))

    def _vacate_leavers(self) -> Step:
        for seat in self.seats:
            if seat.leaving and not self._in_round(seat):
                seat.clear()  # its claim ended when the person left (_free_seat)
        if self.status == "playing" and not any(s.human for s in self.seats) and not self._match_ending():
            yield from self._close("empty")

    def _match_ending(self) -> bool:
        """The round that just ended was the match's last: its ``match_over`` comes next (record, bots
        freed), and the room closes after it ("over"), not before it with the log already shut."""
        return self.match is not None and bool(getattr(self.match, "over", False))

    def _on_disconnected(self, member: Member) -> Step:
        seat_no = self.seat_of(member.key)
        if seat_no is None:
            if self.spectators.pop(member.key, None) is not None:
                self._out.items.append(Gone(member.key))
            return
        seat = self.seats[seat_no]
        if self.match is None:
            self._free_seat(seat)
            self._out.items.append(Gone(member.key))
            self._broadcast({"event": "left", "room": self.id, "name": member.name})
            self._push_states()
            yield from self._maybe_close()
            return
        if self.status == "over":
            if seat.account is not None:
                self._out.items.append(Released(seat.account))
            seat.member = None
            seat.present = False
            self._out.items.append(Gone(member.key))
            yield from self._maybe_close()
            return
        seat.present = False
        seat.grace_until = self._now + self.settings.grace_seconds
        self._broadcast({"event": "disconnected", "room": self.id, "name": member.name, "seat": seat.index,
                         "grace": self.settings.grace_seconds})
        self._push_states()

    def _on_connected(self, member: Member) -> None:
        seat_no = self.seat_of(member.key)
        if seat_no is not None:
            seat = self.seats[seat_no]
            seat.present = True
            seat.hidden = member.hidden  # (a table rebuilt after a restart learns it again here)
            if seat.grace_until is not None:
                seat.grace_until = None
                self._broadcast({"event": "reconnected", "room": self.id, "name": member.name, "seat": seat.index})
            self._back_if_all_here()  # a table rebuilt after a restart: everyone back, the clocks start
            self._push_states()
        elif member.key in self.spectators:
            self._push_state(member.key)

    def _expire_graces(self, now: float) -> Step:
        changed = False
        for seat in self.seats:
            if seat.grace_until is not None and now >= seat.grace_until and seat.member is not None:
                key, name = seat.member, seat.name
                seat.grace_until = None
                yield from self._release_promises(seat)
                self._free_seat(seat)
                self._out.items.append(Gone(key))
                self._broadcast({"event": "left", "room": self.id, "name": name, "seat": seat.index})
                changed = True
        if changed:
            self._push_states()
            yield from self._maybe_close()
        return changed and not self.closed

    def _maybe_close(self) -> Step:
        """A room closes when no person is left in it (bots alone do not play on)."""
        people = any(s.member is not None for s in self.seats) or bool(self.spectators)
        busy = self.match is not None and self.status == "playing" and any(s.leaving for s in self.seats)
        if not people and not self.closed and not busy:
            yield from self._close("empty")
