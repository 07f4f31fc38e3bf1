"""Speculation (RULES S1–S12): antes, the auction of the best trump, trades of unseen cards."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from engine import fairness
from engine.api import Action, Event, Match
from engine.speculation import (
    Ante,
    Decline,
    Declined,
    Lapsed,
    Offered,
    PoolWon,
    Sold,
    SpeculationMatch,
    Traded,
    Withdraw,
    Withdrawn,
    action_from_dict,
)
from server.games import common
from server.games.base import (
    GameAdapter,
    Money,
    Payment,
    Payout,
    Reserve,
    RoundMoney,
    Settings,
    Stakes,
    TableOptions,
    Unreserve,
    ints,
)
from server.games.states import SeatOwn
from server.protocol import Args, JSONValue, arg_int, items_in


class SpeculationAdapter(GameAdapter):
    name = "speculation"
    game = "speculation"
    min_seats = 3
    max_seats = 9
    funded_bots = True
    chips_in_match = True
    presence_per_deal = True
    too_few_ends_match = True  # seats are not refilled mid-match (S11)
    round_end = "deal_over"
    moves = ("bid", "sell", "keep", "turn", "offer", "accept", "decline", "withdraw")
    batch_states = True
    question_event = "offered"  # an offer waits for its seller's answer (S9)

    # A seat's state is the spectator's with its own view's fields put in (you, decision, can: the
    # view holds no face-down card, S4: only what the seat may do now differs; see
    # server.table.states).
    def private_fields(self, view: Any) -> SeatOwn | None:  # its own game's view
        return {"you": view.you, "decision": view.decision, "can": view.can}

    def options(self, args: Args, settings: Settings) -> TableOptions:
        seats, bots = common.seats_and_bots(args, self.min_seats, self.max_seats)
        level = common.bot_level(args, self.game)
        turn = common.turn_seconds(args, settings.auction_seconds)
        common.refuse_unless_absent(args, "stake", 0)
        ante = arg_int(args, "ante", default=settings.default_ante, lo=1, hi=1_000_000)
        extra = {"rated": common.rated(args, bots, settings), **common.window_option(args, "trade_window")}
        return TableOptions(self.game, self.name, seats, bots, level, turn, 0, ante, common.rounds(args), extra)

    def chips_to_sit(self, opts: TableOptions) -> int:
        return opts.ante

    def match_totals(self, result: Mapping[str, JSONValue]) -> list[int]:
        # S11: the match ranks by what each seat gained or lost over it (``changes``)
        return ints(result.get("changes"))

    def match_chips(self, result: Mapping[str, JSONValue], rounds: Sequence[Mapping[str, JSONValue]],
                    seats: int) -> list[int]:
        return ints(result.get("changes"))[:seats]

    def timer_seconds(self, kind: str, opts: TableOptions, settings: Settings) -> float:
        return opts.turn_seconds if kind == "auction" else settings.flip_seconds

    def new_match(self, opts: TableOptions, chips: Sequence[int]) -> Match:
        return SpeculationMatch(seats=opts.seats, chips=list(chips), ante=opts.ante, deals=opts.rounds)

    def replay(self, config: Mapping[str, JSONValue], log: Sequence[Mapping[str, JSONValue]]) -> Match:
        return SpeculationMatch.replay(config, log)

    def deal_table(self, opts: TableOptions, present: Sequence[int] | None,
                   newcomers: Sequence[int] = ()) -> dict[str, object]:
        return {"present": tuple(present or ())}

    def action_from_dict(self, entry: Mapping[str, JSONValue]) -> Action:
        return action_from_dict(dict(entry))

    def round_scores(self, config: Mapping[str, JSONValue], log: Sequence[Mapping[str, JSONValue]],
                     result: Mapping[str, JSONValue]) -> dict[int, float]:
        """A deal ranks its players by the chips each won in it (S10; antes, sales and trades
        included): the chips after it (``deal_over``) less those before its deal."""
        after = result.get("chips")
        deals = [i for i, entry in enumerate(log) if entry.get("cmd") == "deal"]
        if not isinstance(after, list) or not deals:
            return {}
        match = self.replay(config, log[: deals[-1]])
        before = list(match.chips)  # type: ignore[attr-defined]
        events = match.apply(self.action_from_dict(log[deals[-1]]))
        players = next((list(getattr(ev, "players", ())) for ev in events if ev.name == "dealt"), [])
        return {s: float(after[s] - before[s]) for s in players if s < len(after) and s < len(before)}

    def money(self, event: Event, round_money: RoundMoney) -> list[Money]:
        # S3 antes into the pool, S10 the pool to its winner, S7 and S9 prices between players
        if isinstance(event, Ante):
            return [Stakes({seat: amount for seat, amount in event.payments if amount > 0})]
        if isinstance(event, PoolWon):
            return [Payout({event.seat: event.amount})] if event.amount > 0 else []
        if isinstance(event, Sold):
            return [Payment(event.to, event.seat, event.price, "sold")]
        # an open offer holds its price of the buyer's chips until it is taken up or lapses (S9, S12d)
        if isinstance(event, Offered):
            return [Reserve(_offer_key(event.offer), event.buyer, event.price)]
        if isinstance(event, Declined | Withdrawn | Lapsed):
            return [Unreserve(_offer_key(event.offer))]
        if isinstance(event, Traded):
            return [Payment(event.buyer, event.seller, event.price, "traded", reserved=_offer_key(event.offer))]
        return []

    def window_after(self, events: Sequence[Event], match: Match) -> str | None:
        # after an auction closes, people get time to offer before the next card turns (S9)
        names = {ev.name for ev in events}
        if names & {"turned", "auction", "deal_over", "dealt"}:
            return "close"
        if names & {"sold", "kept"}:
            return "trade"
        return None

    def window_seconds(self, kind: str, opts: TableOptions, settings: Settings) -> float:
        return opts.seconds("trade_window", settings.trade_window) if kind == "trade" else 0.0

    # fair deals: committed card by card, only the shown cards opened after the deal (S12h)

    def commit(self, server_seed: bytes) -> tuple[str, object]:
        commit = fairness.speculation_commit(server_seed)
        return commit.root.hex(), commit

    def fair_deal_action(self, match: Match, server_seed: bytes, secret: object,
                         contributions: Sequence[str | None], facts: Mapping[str, object]) -> Action:
        return match.deal_action(server_seed, **facts, contributions=tuple(contributions))

    def fair_record(self, match: Match, *, server_seed: bytes, secret: object, contributions: Sequence[str | None],
                    bots: Sequence[int], round: int, dealt: Mapping[str, JSONValue], chips: Sequence[int],
                    first: bool, ante: int) -> dict[str, JSONValue]:
        if not isinstance(secret, fairness.SpeculationCommitment):  # (what commit() gave the table)
            raise TypeError(f"not a Speculation commitment: {type(secret).__name__}")
        deal = fairness.speculation_deal(secret, list(contributions))
        players = [s for s in items_in(dealt["players"]) if isinstance(s, int)]
        dealer = dealt["dealer"]
        if not isinstance(dealer, int):
            raise TypeError(f"not a seat: {dealer!r}")
        drawn = first and match.config.get("first_dealer") is None
        return fairness.speculation_reveal(
            deal, round=round, dealer=dealer, order=players[1:] + players[:1],
            shown=match.shown_positions(),  # type: ignore[attr-defined]
            dealer_drawn=drawn, chips=list(chips) if drawn else None, ante=ante if drawn else None, bots=bots)

    def questions(self, match: Match) -> Mapping[Hashable, int]:
        offers = match.view(None).offers  # type: ignore[attr-defined]
        return {o.offer: o.seller for o in offers} if offers else {}

    def question_timeout(self, match: Match, question: Hashable, seat: int) -> Action:
        assert isinstance(question, int)  # an offer's id (questions)
        return Decline(seat, question)  # no answer in time: the offer is declined (S9)

    def on_leave(self, match: Match, seat: int) -> list[Action]:
        """A player who leaves withdraws his offers and declines those made to him."""
        out: list[Action] = []
        for offer in match.view(None).offers:  # type: ignore[attr-defined]
            if offer.buyer == seat:
                out.append(Withdraw(seat, offer.offer))
            elif offer.seller == seat:
                out.append(Decline(seat, offer.offer))
        return out


def _offer_key(offer: int) -> str:
    return f"offer{offer}"
