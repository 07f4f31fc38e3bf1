"""Who sits at a table: joining, watching, leaving, disconnections and their grace, bots' seats.

One account holds at most one seat in the whole server: a seat is claimed
(:class:`~server.table.io.Claim`) before anyone sits and released
(:class:`~server.table.io.Released`) when the person leaves it — also in the middle
of a staked round, where a bot plays the seat to the round's end on their stake
(T1, S11): the person is free at once, the chips stay in the round's escrow until it
settles.

:class:`Seating` is a part of its :class:`~server.table.core.Table`, reaching the
others (the match, the clocks, the sender, the round cycle) through the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.bots import LEVELS, make_bot
from engine.errors import Refusal
from engine.seeds import derive
from server.protocol import Args, CommandError, JSONObject, JSONValue, Result
from server.storage.api import FundBot, StorageError, bot_account
from server.storage.names import name_key
from server.table.host import TableHost
from server.table.io import Balance, Claim, Gone, Member, Placed, Released
from server.table.seats import Seat
from server.table.steps import Step, log


class Seating:
    """Who sits at its table, and who watches (see the module's documentation)."""

    __slots__ = ("t",)

    def __init__(self, table: TableHost) -> None:
        self.t = table

    def arrival(self) -> int:
        """A player sits down: their number among the table's arrivals (a substitute bot is none)."""
        self.t.arrivals += 1
        return self.t.arrivals

    def newcomers(self, present: Sequence[int] | None) -> list[int]:
        """The seats of ``present`` whose player sat down since the last deal of the match (T12)."""
        since = self.t.dealt_arrivals
        if since is None or not present:
            return []
        return [s for s in present if self.t.seats[s].arrived > since]

    def join(self, member: Member, args: Args) -> Step[Result]:
        t = self.t
        seat_no = t.seat_of(member.key)
        if seat_no is not None:
            raise CommandError("not_allowed", reason="already_seated")
        if t.status == "over":
            raise CommandError("not_allowed", reason="over")
        if any(s.leaving and s.account is not None and name_key(s.account) == name_key(member.account)
               for s in t.seats):
            # the seat they left is still played to the end of its round on their stake: one seat of
            # an account at a table (its chips settle per account)
            raise CommandError("not_allowed", reason="left_here")
        joinable = (t.status == "waiting" and t.game.match is None) or t.adapter.joins_between_rounds
        planned = tournament_seat(t.opts.extra, member.account)
        if planned is not None:  # a tournament's table: each of its people at the seat the event gave them
            if planned < 0:
                raise CommandError("not_allowed", reason="tournament")
            args = {**args, "seat": planned}
        free = [s for s in t.seats if s.empty]
        if not joinable or not free:
            raise CommandError("room_full", room=t.id)
        wanted = args.get("seat")
        if wanted is not None:
            if isinstance(wanted, bool) or not isinstance(wanted, int) or not 0 <= wanted < len(t.seats):
                raise CommandError("bad_argument", arg="seat")
            if not t.seats[wanted].empty:
                raise CommandError("room_full", room=t.id)
            seat = t.seats[wanted]
        else:
            seat = free[0]
        elsewhere = yield Claim(member.account, t.id)
        if elsewhere is not None:
            raise CommandError("already_in_room", room=elsewhere)
        try:
            need = t.adapter.chips_to_sit(t.opts)
            if need > 0:
                chips = yield Balance(member.account)
                if chips < need:
                    raise CommandError("insufficient_chips", need=need, chips=chips)
        except BaseException:
            t.out.out.items.append(Released(member.account))
            raise
        t.spectators.pop(member.key, None)
        seat.clear()
        seat.member, seat.name, seat.account = member.key, member.name, member.account
        seat.present = True
        seat.prefs = dict(member.prefs)
        seat.seed = member.seed
        seat.hidden = member.hidden
        seat.proof = member.proof
        seat.arrived = self.arrival()
        t.out.out.items.append(Placed(member.key, seat.index))
        t.out.broadcast({"event": "joined", "room": t.id, "name": member.name, "seat": seat.index})
        if t.status == "waiting" and t.game.match is None:
            yield from self.fill_bots()
            if all(not s.empty for s in t.seats):
                yield from self.start_match()
        elif t.status == "waiting":
            t.status = "playing"  # enough players again (T1)
            t.clocks.next_deal_at = t.now + t.settings.round_pause
            t.clocks.over_at = None
        t.out.defer(t.out.push_states)
        return {"seat": seat.index}

    def seat_bot(self, seat: Seat) -> Step[None]:
        t = self.t
        options = t.bot_options if LEVELS.get(t.opts.bot_level, t.opts.bot_level) == "search" else {}
        bot = make_bot(t.opts.game, t.opts.bot_level, seat.index,
                       derive(t.bot_seed, f"bot-{seat.index}"), **options)
        if t.adapter.funded_bots:
            display = f"{t.id}-{t.uid}-{seat.index}"
            yield FundBot(display, t.settings.bot_chips)  # may refuse: the seat stays free
            seat.bot_display = display
            seat.account = bot_account(display)
        seat.bot = bot
        seat.name = f"bot{seat.index}"
        seat.member = None
        seat.arrived = self.arrival()

    def fill_bots(self) -> Step[None]:
        """Bots take their seats at once: the last ``bots`` seats (one the house cannot fund stays free)."""
        t = self.t
        have = sum(1 for s in t.seats if s.bot is not None)
        last_empty = [s for s in reversed(t.seats) if s.empty][:max(0, t.opts.bots - have)]
        for seat in reversed(last_empty):  # seated in seat order: bot1, bot2, bot3
            try:
                yield from self.seat_bot(seat)
            except StorageError as exc:
                log.warning("table %s: no bot for seat %d (%s); the next join tries again", t.id,
                            seat.index, exc)
                return
            t.out.broadcast({"event": "joined", "room": t.id, "name": seat.name, "seat": seat.index,
                             "bot": True})

    def start_match(self) -> Step[None]:
        t = self.t
        chips = []
        if t.adapter.chips_in_match:
            for s in t.seats:
                chips.append((yield Balance(t.chips.account(s.index))))
        t.game.start(t.adapter.new_match(t.opts, chips))
        t.clocks.bank.reset()  # every time bank full again
        t.dealt_arrivals = None  # a new match: no title to exchange yet
        t.status = "playing"
        t.clocks.next_deal_at = t.now
        t.out.broadcast({"event": "match_started", "room": t.id})

    def rematch(self, member: Member) -> Step[Result]:
        """A new match at this finished table: the same options, the people still seated, fresh bots."""
        t = self.t
        if t.seat_of(member.key) is None:
            raise CommandError("not_allowed", reason="not_seated")
        if t.status != "over":
            raise CommandError("not_allowed", reason="not_over")
        if TOURNAMENT in t.opts.extra:  # one table game is one match of the event
            raise CommandError("not_allowed", reason="tournament")
        for seat in t.seats:
            if seat.member is None:
                seat.clear()  # bots (their chips went back to the house at the end) and seats left
        t.game.clear()
        t.status = "waiting"
        t.clocks.over_at = None
        t.matches += 1  # a new match: new round ids and bot accounts (a round id is used once)
        t.uid = f"{t.first_uid}.{t.matches}"
        t.fair.commitment = None
        t.clocks.deadlines.clear()
        t.clocks.window = None
        t.out.broadcast({"event": "rematch", "room": t.id, "name": member.name})
        yield from self.fill_bots()
        if all(not s.empty for s in t.seats):
            yield from self.start_match()
        t.out.defer(t.out.push_states)
        return {"room": t.id}

    def chips_in_play(self, seat_no: int) -> bool:
        """Chips of that seat's person are, or may be, in play at this table (stakes, antes, a match
        made with chips, an open escrow)."""
        t = self.t
        return bool(t.adapter.chips_in_match or t.adapter.chips_to_sit(t.opts) > 0
                    or t.adapter.deal_stake(t.opts) > 0 or t.chips.escrow.get(seat_no))

    def become(self, member: Member, args: Args) -> Step[Result]:
        """A guest seated here becomes an account (``register``, or ``login`` from the guest's session):
        the seat goes on under the account's key, name and ledger account, the points with it.

        Only where no chip of the guest's is or will be at this table (a table with no stakes nor
        antes; the guest's chips are retired when it becomes the account): elsewhere
        ``not_allowed`` with ``reason`` ``at_stake``. The account must hold no other seat."""
        t = self.t
        seat_no = t.seat_of(member.key)
        if seat_no is None:
            raise CommandError("not_in_room")
        seat = t.seats[seat_no]
        key, name, account = str(args["key"]), str(args["name"]), str(args["account"])
        if self.chips_in_play(seat_no):
            raise CommandError("not_allowed", reason="at_stake")
        old_account = seat.account
        if account != old_account:
            elsewhere = yield Claim(account, t.id)
            if elsewhere is not None:
                raise CommandError("already_in_room", room=elsewhere)
        old_name = seat.name
        seat.member, seat.name, seat.account, seat.proof = key, name, account, None
        if old_account is not None and old_account != account:
            t.out.out.items.append(Released(old_account))
        if key != member.key:
            t.out.out.items.append(Placed(key, seat_no))
        if old_name != name:
            t.out.broadcast({"event": "renamed", "room": t.id, "name": old_name, "to": name, "seat": seat_no})
        t.out.defer(t.out.push_states)
        return {"room": t.id, "seat": seat_no}

    def watch(self, member: Member) -> Result:
        t = self.t
        if t.seat_of(member.key) is not None:
            raise CommandError("not_allowed", reason="already_seated")
        t.spectators[member.key] = member
        t.out.out.items.append(Placed(member.key, None))
        t.out.broadcast({"event": "joined", "room": t.id, "name": member.name, "seat": None, "watch": True})
        t.out.defer(lambda: t.out.push_state(member.key))
        return {"room": t.id}

    def leave(self, member: Member) -> Step[Result]:
        t = self.t
        seat_no = t.seat_of(member.key)
        if seat_no is None and member.key not in t.spectators:
            raise CommandError("not_in_room")
        result: JSONObject = {"room": t.id}
        if seat_no is None:
            del t.spectators[member.key]
        else:
            seat = t.seats[seat_no]
            at_stake = t.chips.escrow.get(seat_no, 0)
            yield from self.release_promises(seat)
            self.free_seat(seat)
            if seat.leaving:  # a bot plays on with the stake; the person hears how the round ends
                result.update(until="round_end", at_stake=at_stake)
        t.out.out.items.append(Gone(member.key))
        t.out.broadcast({"event": "left", "room": t.id, "name": member.name})
        t.out.push_states()
        yield from self.maybe_close()
        return result

    def release_promises(self, seat: Seat) -> Step[None]:
        """A person leaving during a round: what they promised lapses first (their open offers, S9),
        so no chip of theirs stays promised at a table they left."""
        t = self.t
        if t.game.match is None or t.status != "playing":
            return
        for action in t.adapter.on_leave(t.game.match, seat.index):
            try:
                events = t.game.apply(action)
            except Refusal:
                continue
            if (yield from t.cycle.money(events, refuse=False)):
                t.out.publish(events)

    def free_seat(self, seat: Seat) -> None:
        """A person leaves their seat (command, or grace expired).

        In a match whose seats are fixed (P16) a built-in bot takes the seat for good; in a
        round where the person has chips at stake (T1, T13, S11) a bot plays the seat to the end
        of that round with their stake, and the seat (and its claim) ends with the round; the
        person is told how it ended. Otherwise the seat is free at once.
        """
        t = self.t
        account = seat.account
        if t.game.match is not None and t.adapter.replace_leaver and t.status == "playing":
            # P16: a built-in bot takes over; the points stay with the seat
            seat.substitute = True
            seat.bot = make_bot(t.opts.game, "normal", seat.index, derive(t.bot_seed, f"sub-{seat.index}"))
            seat.member = None
            seat.present = False
            seat.grace_until = None
            seat.prefs = {}
            t.out.broadcast({"event": "replaced", "room": t.id, "name": seat.name, "seat": seat.index})
            t.cycle.schedule_bots()
        elif t.in_round(seat):
            # a bot plays the seat to the end of this round or deal, on the person's stake; it makes
            # only the moves the table waits for (no offer, no bid with someone else's chips)
            seat.leaving = True
            seat.departed = seat.member
            seat.substitute = True
            seat.bot = make_bot(t.opts.game, "normal", seat.index, derive(t.bot_seed, f"sub-{seat.index}"))
            seat.member = None
            seat.present = False
            seat.grace_until = None
            seat.prefs = {}
            t.out.broadcast({"event": "replaced", "room": t.id, "name": seat.name, "seat": seat.index,
                             "until": "round_end", "game": t.opts.game})
            t.cycle.schedule_bots()
            # the person is free at once: their claim ends now (they may sit or open a table elsewhere);
            # the chips at stake stay in this round's escrow until it settles, paid to seat.account
            if account is not None:
                t.out.out.items.append(Released(account))
            return
        else:
            seat.clear()
        if account is not None:
            t.out.out.items.append(Released(account))

    def vacate_leavers(self) -> Step[None]:
        t = self.t
        for seat in t.seats:
            if seat.leaving and not t.in_round(seat):
                seat.clear()  # its claim ended when the person left (_free_seat)
        if t.status == "playing" and not any(s.human for s in t.seats) and not self.match_ending():
            yield from t.cycle.close("empty")

    def match_ending(self) -> bool:
        """The round that just ended was the match's last: its ``match_over`` comes next (record, bots
        freed), and the room closes after it ("over"), not before it with the log already shut."""
        t = self.t
        return t.game.match is not None and bool(getattr(t.game.match, "over", False))

    def on_disconnected(self, member: Member) -> Step[None]:
        t = self.t
        seat_no = t.seat_of(member.key)
        if seat_no is None:
            if t.spectators.pop(member.key, None) is not None:
                t.out.out.items.append(Gone(member.key))
            return
        seat = t.seats[seat_no]
        if t.game.match is None:
            self.free_seat(seat)
            t.out.out.items.append(Gone(member.key))
            t.out.broadcast({"event": "left", "room": t.id, "name": member.name})
            t.out.push_states()
            yield from self.maybe_close()
            return
        if t.status == "over":
            if seat.account is not None:
                t.out.out.items.append(Released(seat.account))
            seat.member = None
            seat.present = False
            t.out.out.items.append(Gone(member.key))
            yield from self.maybe_close()
            return
        seat.present = False
        seat.grace_until = t.now + t.settings.grace_seconds
        t.out.broadcast({"event": "disconnected", "room": t.id, "name": member.name, "seat": seat.index,
                         "grace": t.settings.grace_seconds})
        t.out.push_states()

    def on_connected(self, member: Member) -> None:
        t = self.t
        seat_no = t.seat_of(member.key)
        if seat_no is not None:
            seat = t.seats[seat_no]
            seat.present = True
            seat.hidden = member.hidden  # (a table rebuilt after a restart learns it again here)
            if seat.grace_until is not None:
                seat.grace_until = None
                t.out.broadcast({"event": "reconnected", "room": t.id, "name": member.name, "seat": seat.index})
            t.back_if_all_here()  # a table rebuilt after a restart: everyone back, the clocks start
            t.out.push_states()
        elif member.key in t.spectators:
            t.out.push_state(member.key)

    def expire_graces(self, now: float) -> Step[bool]:
        t = self.t
        changed = False
        for seat in t.seats:
            if seat.grace_until is not None and now >= seat.grace_until and seat.member is not None:
                key, name = seat.member, seat.name
                seat.grace_until = None
                yield from self.release_promises(seat)
                self.free_seat(seat)
                t.out.out.items.append(Gone(key))
                t.out.broadcast({"event": "left", "room": t.id, "name": name, "seat": seat.index})
                changed = True
        if changed:
            t.out.push_states()
            yield from self.maybe_close()
        return changed and not t.closed

    def maybe_close(self) -> Step[None]:
        """A room closes when no person is left in it (bots alone do not play on), and a finished one
        when nobody is seated: its spectators have nothing left to watch (no rematch without players)
        and go back to the lobby, told why (``over``)."""
        t = self.t
        seated = any(s.member is not None for s in t.seats)
        over = t.status == "over"
        people = seated or (bool(t.spectators) and not over)
        busy = t.game.match is not None and t.status == "playing" and any(s.leaving for s in t.seats)
        if not people and not t.closed and not busy:
            yield from t.cycle.close("over" if over and t.spectators else "empty")


TOURNAMENT = "tournament"
"""``TableOptions.extra`` key of a tournament's table: its event's id (with ``table``, the event's name
of the table, and ``plan``: the names by seat, ``None`` for a bot)."""


def tournament_seat(extra: Mapping[str, JSONValue], account: str) -> int | None:
    """At a tournament's table, the seat planned for ``account`` (-1: none); None at any other table."""
    plan = extra.get("plan")
    if TOURNAMENT not in extra or not isinstance(plan, list):
        return None
    key = name_key(account)
    return next((i for i, name in enumerate(plan) if isinstance(name, str) and name_key(name) == key), -1)
