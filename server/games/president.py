"""Président's two tables: "classic" (RULES P1–P16) and "trou du cul" (T1–T15)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from engine.api import Action, Event, Match, Pending
from engine.president import Cut, Pass, PresidentMatch, RoundOver, action_from_dict
from engine.president.view import card_codes
from server.games import common
from server.games.base import GameAdapter, Money, Payout, RoundMoney, Settings, TableOptions
from server.games.states import SeatOwn, State
from server.games.tricks import TRICK_EVENTS, public_tricks
from server.protocol import Args, CommandError, JSONValue, arg_int

_CUT = frozenset({"cut"})


class PresidentAdapter(GameAdapter):
    game = "president"
    min_seats = 3
    max_seats = 8
    batch_states = True
    seed_published = True  # round_over reveals it (P3); Speculation's never is (S12h)

    def options(self, args: Args, settings: Settings) -> TableOptions:
        seats, bots = common.seats_and_bots(args, self.min_seats, self.max_seats)
        level = common.bot_level(args, self.game)
        turn = common.turn_seconds(args, settings.turn_seconds)
        stake = self._stake(args, settings)
        common.refuse_unless_absent(args, "ante")
        return TableOptions(self.game, self.name, seats, bots, level, turn, stake, 1, common.rounds(args),
                            {"rated": common.rated(args, bots, settings)})

    def _stake(self, args: Args, settings: Settings) -> int:
        common.refuse_unless_absent(args, "stake", 0)
        return 0

    def new_match(self, opts: TableOptions, chips: Sequence[int]) -> Match:
        return PresidentMatch(self.name, seats=opts.seats, stake=opts.stake, rounds=opts.rounds)

    def replay(self, config: Mapping[str, JSONValue], log: Sequence[Mapping[str, JSONValue]]) -> Match:
        match, _ = PresidentMatch.replay(config, log)
        return match

    def action_from_dict(self, entry: Mapping[str, JSONValue]) -> Action:
        return action_from_dict(dict(entry))

    def round_tricks(self, config: Mapping[str, JSONValue], log: Sequence[Mapping[str, JSONValue]]) -> dict[str, JSONValue] | None:
        _, events = PresidentMatch.replay(config, log)
        # the public form only: a spectator's events (no hand, no exchanged card)
        return public_tricks(ev.for_seat(None).to_dict() for ev in events if ev.name in TRICK_EVENTS | {"dealt"})

    # round_scores: the base's, from round_over's ranking (classic: the order out, P12; tdc: T15)

    def automatic(self, match: Match, seat: int, prefs: Mapping[str, bool]) -> tuple[Action, bool] | None:
        # autopass: passing is all the seat can do on its turn (nothing it holds can follow)
        if prefs.get("autopass"):
            legal = match.legal_actions(seat)
            if len(legal) == 1 and isinstance(legal[0], Pass):
                return legal[0], False
        return None

    def in_round(self, match: Match, seat: int) -> bool:
        view = match.view(None)
        return bool(view.present[seat]) and view.counts[seat] > 0  # type: ignore[attr-defined]

    def empty_state(self, opts: TableOptions, seat: int | None) -> State:
        state = super().empty_state(opts, seat)
        state.update({"hand": [], "trick": [], "order": "normal"})
        return state

    # A seat's state is the spectator's with its own view's fields put in (you, cut, decision,
    # legal, give, exchange, hand: same keys, same order as building it from the seat's view; see
    # server.table.states).

    def private_key(self, view: Any) -> tuple[object, ...] | None:  # a PresidentView
        # Kept only while the seat awaits nothing (legal None; give 0, see PresidentView.awaited):
        # then the fields are made of the seat, its hand, cut and exchange moves alone. A seat that
        # must decide has legal moves of the table's play to beat: made each time.
        hand = view.hand
        if hand is None or view.decision is not None:
            return None
        exchange = view.exchange
        return (view.you, hand, view.cut, exchange, view.give if exchange else 0)

    def private_fields(self, view: Any) -> SeatOwn | None:  # its own game's view
        hand = view.hand
        if hand is None:
            return None
        cut, exchange = view.cut, view.exchange
        decision = view.decision
        return {"you": view.you, "cut": None if cut is None else card_codes(cut),
                "decision": decision, "legal": None if decision is None else view.legal,
                "give": view.give if exchange else 0,  # (no exchange move yet: nothing to give back, T12)
                "exchange": [{"from": g, "to": r, "cards": card_codes(c)} for g, r, c in exchange] if exchange
                else [],
                "hand": card_codes(hand)}


class ClassicAdapter(PresidentAdapter):
    """RULES P: five rounds among fixed seats; a leaver is replaced by a bot (P16)."""

    name = "classic"
    replace_leaver = True
    moves = ("play", "pass", "autopass")
    scored_by = "points"  # P14


class TdcAdapter(PresidentAdapter):
    """RULES T: a stake every round (T13), people come and go between rounds (T1), the cut (T9)."""

    name = "tdc"
    moves = ("play", "pass", "cut", "give", "autocut", "autopass")
    funded_bots = True
    joins_between_rounds = True
    presence_per_deal = True

    def options(self, args: Args, settings: Settings) -> TableOptions:
        opts = super().options(args, settings)
        return dataclasses.replace(opts, extra={**opts.extra, **common.window_option(args, "cut_window")})

    def _stake(self, args: Args, settings: Settings) -> int:
        stake = arg_int(args, "stake", default=settings.default_stake, lo=0, hi=1_000_000)
        if stake % 2:
            raise CommandError("bad_argument", arg="stake")  # T13: an even number
        return stake

    def chips_to_sit(self, opts: TableOptions) -> int:
        return opts.stake

    def deal_stake(self, opts: TableOptions) -> int:
        return opts.stake

    def deal_table(self, opts: TableOptions, present: Sequence[int] | None,
                   newcomers: Sequence[int] = ()) -> dict[str, object]:
        facts: dict[str, object] = {"present": tuple(present or ()), "stake": opts.stake}
        if newcomers:  # T12: they exchange nothing (said only when there are: older logs read the same)
            facts["newcomers"] = tuple(newcomers)
        return facts

    def money(self, event: Event, round_money: RoundMoney) -> list[Money]:
        if not isinstance(event, RoundOver) or round_money.stake <= 0:
            return []
        chips = event.chips or ()
        return [Payout({s: round_money.stake + (chips[s] if s < len(chips) and chips[s] is not None else 0)
                        for s in round_money.staked})]

    def decorate(self, state: State, opts: TableOptions, match: Match | None, seat: int | None,
                 pending: Sequence[Pending]) -> None:
        state["stake"] = opts.stake

    def window_after(self, events: Sequence[Event], match: Match) -> str | None:
        # T9: after a single or a pair that did not close the trick a cut may follow; people get
        # time to type it before any bot moves on, and the next turn is prompted after it
        if any(ev.name in ("cut", "trick_closed", "round_over") for ev in events):
            return "close"
        if any(ev.name == "played" for ev in events):
            return "cut" if match.cut_open() else "close"  # type: ignore[attr-defined]
        return None

    def window_seconds(self, kind: str, opts: TableOptions, settings: Settings) -> float:
        return opts.seconds("cut_window", settings.cut_window) if kind == "cut" else 0.0

    def window_bot_moves(self, kind: str) -> frozenset[str]:
        # a bot that can cut does so inside the window, as a person would: only one seat can hold
        # the cards (T9), so it takes nobody's chance, and nobody is prompted for a turn it ends
        return _CUT if kind == "cut" else frozenset()

    def automatic(self, match: Match, seat: int, prefs: Mapping[str, bool]) -> tuple[Action, bool] | None:
        if prefs.get("autocut") and seat in match.cut_options():  # type: ignore[attr-defined]
            cut = next((a for a in match.legal_actions(seat) if isinstance(a, Cut)), None)
            if cut is not None:
                return cut, True
        return super().automatic(match, seat, prefs)
