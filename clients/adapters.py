"""JSON state -> the engine's view and the seat's legal actions, for the wire bots.

A wire bot sees only what the server sends. :class:`PresidentAdapter` and
:class:`SpeculationAdapter` turn a pushed ``state`` back into
:class:`engine.president.view.PresidentView` /
:class:`engine.speculation.view.SpeculationView` and compute the seat's legal
actions from that view alone by the rules (RULES P5–P9, T4–T12, S7–S9),
exactly as ``match.legal_actions(seat)`` lists them
(``tests/clients/test_adapters.py`` checks this against the engine).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from clients.framing import Message
from clients.jsontypes import JSONObject, JSONValue, int_of, objects_in, strings_in
from engine.api import Action
from engine.cards import CARDS, Card

if TYPE_CHECKING:
    from engine.president.view import PresidentView
    from engine.speculation.view import SpeculationView

R = TypeVar("R")
View = TypeVar("View")


def build(cls: type[R], values: Mapping[str, object]) -> R:
    """An instance of the engine's record class ``cls`` (dataclass or named tuple) from ``values``.

    Only the fields ``cls`` declares are passed, so the adapter survives the
    engine adding or regrouping fields; a field it cannot fill is an error.
    """
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = getattr(cls, "_fields", None) or tuple(getattr(cls, "__dataclass_fields__", ()))
    make: Callable[..., R] = cls
    try:
        return make(**{n: values[n] for n in names})
    except KeyError:
        missing = [n for n in names if n not in values]
        if not missing:
            raise
        raise RuntimeError(f"cannot rebuild {cls.__name__} from the state: no {', '.join(missing)}") from None


_FIELDS: dict[type, tuple[str, ...]] = {}
"""The field names of each record class :func:`build` made (read once per class)."""


class GameAdapter(Protocol[View]):
    """A game's side of a wire bot: the seat's view of a pushed state, its legal actions."""

    game: str

    def view(self, s: Message) -> View | None: ...

    @staticmethod
    def may_act(s: Message) -> bool: ...

    def legal(self, s: Message, v: View) -> list[Action]: ...

    def fallback(self, s: Message, v: View | None) -> tuple[str, JSONObject] | None: ...


_CARD: dict[str, Card] = {str(c): c for c in CARDS}
"""The codes the server writes (``str(card)``), to the deck's own objects (what ``Card.parse`` returns)."""


def _card(code: str) -> Card:
    try:
        return _CARD[code]
    except (KeyError, TypeError):
        return Card.parse(code)  # another spelling ("10h", "th"), or an error


def _cards(value: JSONValue) -> tuple[Card, ...]:
    codes = strings_in(value)
    if not codes:
        return ()
    try:
        return tuple(sorted([_CARD[c] for c in codes]))
    except (KeyError, TypeError):
        return tuple(sorted(map(_card, codes)))


class PresidentAdapter:
    """Président: :class:`PresidentView` and legal actions from the pushed JSON state."""

    game = "president"

    def __init__(self) -> None:
        from engine.president import actions as A
        from engine.president import view as V

        self.A = A
        self.view_module = V
        self.View = V.PresidentView

    def view(self, s: Message) -> PresidentView | None:
        seats = objects_in(s.get("seats"))
        if not seats:
            return None
        trick: list[tuple[int, tuple[Card, ...] | None]] = []
        plays: list[tuple[Card, ...]] = []
        for entry in objects_in(s.get("trick")):
            if entry.get("pass"):
                trick.append((int_of(entry.get("seat")), None))
            else:
                cards = _cards(entry.get("cards"))
                trick.append((int_of(entry.get("seat")), cards))
                plays.append(cards)
        played_mask = 0
        for c in map(_card, strings_in(s.get("played"))):
            played_mask |= 1 << c
        # the seats' facts in one pass (a view is built for every decision)
        passive_mask = passed_mask = 0
        counts: list[int] = []
        present: list[bool] = []
        places: list[JSONValue] = []
        titles: list[JSONValue] = []
        scores: list[int] = []
        for i, seat in enumerate(seats):
            get = seat.get
            if get("passive"):
                passive_mask |= 1 << i
            if get("passed"):
                passed_mask |= 1 << i
            counts.append(int_of(get("cards")))
            present.append(bool(get("playing", True)))
            places.append(get("place"))
            titles.append(get("title"))
            scores.append(int_of(get("score")))
        must_rank = None
        if len(plays) >= 2 and plays[-1][0].rank == plays[-2][0].rank:  # P7 / T6
            must_rank = plays[-1][0].rank
        chips = tuple(int_of(x.get("chips")) for x in seats) if "chips" in seats[0] else None
        hand = s.get("hand")
        values: dict[str, object] = {
            "game": "president",
            "rules": str(s.get("rules")),
            "round": int_of(s.get("round")),
            "phase": str(s.get("phase") or ""),
            "you": s.get("you"),
            "hand": None if hand is None else _cards(hand),
            "counts": tuple(counts),
            "present": tuple(present),
            "places": tuple(places),
            "titles": tuple(titles),
            "scores": tuple(scores),
            "chips": chips,
            "passive_mask": passive_mask,
            "passed_mask": passed_mask,
            "turn": s.get("turn"),
            "trick": tuple(trick),
            "reversed": s.get("order") == "reversed",
            "dealer": s.get("dealer"),
            "cut": None if s.get("cut") is None else _cards(s.get("cut")),
            "played_mask": played_mask,
            "exchange": tuple((int_of(e.get("from")), int_of(e.get("to")), _cards(e.get("cards")))
                              for e in objects_in(s.get("exchange")) if "cards" in e),
            "must_rank": must_rank,
            "stake": int_of(s.get("stake")),
        }
        table_cls = getattr(self.view_module, "TableState", None)
        if table_cls is not None:  # public facts shared by the views of one moment
            values["table"] = build(table_cls, values)
        return build(self.View, values)

    @staticmethod
    def may_act(s: Message) -> bool:
        """Cheap test before building the view: the seat's turn, a cut on offer, or the exchange."""
        return s.get("turn") == s.get("you") or bool(s.get("cut")) or s.get("phase") == "exchange"

    def legal(self, s: Message, v: PresidentView) -> list[Action]:
        """The seat's legal actions, as ``PresidentMatch.legal_actions`` lists them.

        Plays: one representative per (rank, count), the weakest suits (P5);
        following: the top play's count, a rank at least as strong in the order
        in force (P6, T4, T2), only the top's rank under "ça ou rien" (P7/T6),
        or a pass. A cut (T9) when the state offers one (``cut``). The tdc
        exchange choice (T12): every set of 2 (Président) or 1 (Vice) cards,
        until this seat has given.
        """
        you = v.you
        if you is None or v.hand is None:
            return []
        A = self.A
        out: list[Action] = []
        if v.phase == "play":
            if v.turn == you:
                by_rank: dict[int, list[Card]] = {}
                for c in v.hand:
                    by_rank.setdefault(c.rank, []).append(c)
                top = v.top
                if top is None:
                    for r in sorted(by_rank):
                        cards = by_rank[r]
                        for k in range(1, len(cards) + 1):
                            out.append(A.Play(you, tuple(cards[:k])))
                else:
                    tc, tr = len(top), top[0].rank
                    if v.must_rank is not None:
                        ranks: Sequence[int] = (tr,)
                    elif v.reversed:
                        ranks = range(tr, -1, -1)
                    else:
                        ranks = range(tr, 13)
                    for r in ranks:
                        cards = by_rank.get(r, [])
                        if len(cards) >= tc:
                            out.append(A.Play(you, tuple(cards[:tc])))
                    out.append(A.Pass(you))
            if v.cut:
                out.append(A.Cut(you, tuple(v.cut)))
        elif v.phase == "exchange":
            if "give" in s:  # the server says how many cards this seat must give back now
                k = int_of(s.get("give"))
            else:  # from the titles (T12): the Président 2, the Vice-président 1, until given
                title = v.titles[you] if you < len(v.titles) else None
                k = {"president": 2, "vice_president": 1}.get(str(title), 0)
                if any(g == you for g, _, _ in v.exchange):
                    k = 0
            if k:
                k = min(k, len(v.hand))
                out.extend(A.Give(you, combo) for combo in itertools.combinations(v.hand, k))
        return out

    def fallback(self, s: Message, v: PresidentView | None) -> tuple[str, JSONObject] | None:
        """The command to send after a refusal: pass when allowed, else the weakest single."""
        if v is None or v.turn != v.you or not v.hand:
            return None
        if v.top is None:
            return "play", {"cards": [str(v.hand[0])]}
        return "pass", {}


class SpeculationAdapter:
    """Speculation: :class:`SpeculationView` and legal actions from the pushed JSON state."""

    game = "speculation"

    def __init__(self) -> None:
        from engine.speculation import actions as A
        from engine.speculation import view as V

        self.A = A
        self.V = V
        self.View = V.SpeculationView

    def view(self, s: Message) -> SpeculationView | None:
        V = self.V
        trump = s.get("trump")
        best = s.get("best")
        auction = s.get("auction")
        seats = tuple(
            build(V.SeatView, {"seat": int_of(x.get("seat")), "chips": int_of(x.get("chips")),
                               "faceup": tuple(map(_card, strings_in(x.get("faceup")))),
                               "facedown": int_of(x.get("facedown")), "playing": bool(x.get("playing", True))})
            for x in objects_in(s.get("seats"))
        )
        faceup = sum(len(x.faceup) for x in seats)
        values: dict[str, object] = {
            "round": int_of(s.get("round")),
            "you": s.get("you"),
            "dealer": s.get("dealer"),
            "turn": s.get("turn"),
            "trump": None if not trump else "cdhs".index(str(trump)),
            "best": None if not isinstance(best, Mapping) or not best
            else (int_of(best.get("seat")), Card.parse(str(best.get("card")))),
            "pool": int_of(s.get("pool")),
            "auction": None if not isinstance(auction, Mapping) or not auction else build(V.AuctionView, {
                "seat": int_of(auction.get("seat")), "card": Card.parse(str(auction.get("card"))),
                "best_bid": int_of(auction.get("best_bid")), "bidder": auction.get("bidder")}),
            "offers": tuple(build(V.OfferView, {"offer": int_of(o.get("offer")), "buyer": int_of(o.get("from")),
                                                "seller": int_of(o.get("to")), "cards": int_of(o.get("cards")),
                                                "price": int_of(o.get("price"))})
                            for o in objects_in(s.get("offers"))),
            "seats": seats,
            "in_deal": bool(s.get("in_deal", s.get("turn") is not None or bool(auction))),
            "unseen": int_of(s.get("unseen", 52 - faceup), 52 - faceup),
            "deals": int_of(s.get("deals")),
            "ante": int_of(s.get("ante")) or 1,
            "over": bool(s.get("over", False)),
        }
        return build(self.View, values)

    @staticmethod
    def may_act(s: Message) -> bool:
        return s.get("in_deal", True) is not False

    def legal(self, s: Message, v: SpeculationView) -> list[Action]:
        """As ``SpeculationMatch.legal_actions``: bids and offers in representative form (S7, S9, S12c)."""
        A = self.A
        you = v.you
        if you is None or not v.in_deal or not 0 <= you < len(v.seats) or not v.seats[you].playing:
            return []
        out: list[Action] = []
        a = v.auction
        chips = v.seats[you].chips
        if a is not None:
            if you == a.seat:
                out.append(A.Keep(you))
                if a.bidder is not None:
                    out.append(A.Sell(you))
            elif chips > a.best_bid:
                out.append(A.Bid(you, a.best_bid + 1))
        else:
            if v.turn == you:
                out.append(A.Turn(you))
            if chips >= 1:
                out.extend(A.Offer(you, x.seat, 1, 1) for x in v.seats if x.facedown and x.seat != you)
        for o in v.offers:
            if o.seller == you:
                if a is None:
                    out.append(A.Accept(you, o.offer))
                out.append(A.Decline(you, o.offer))
            elif o.buyer == you:
                out.append(A.Withdraw(you, o.offer))
        return out

    def fallback(self, s: Message, v: SpeculationView | None) -> tuple[str, JSONObject] | None:
        if v is not None and v.turn == v.you and v.auction is None:
            return "turn", {}
        return None


ADAPTERS: dict[str, Callable[[], GameAdapter[PresidentView] | GameAdapter[SpeculationView]]] = {
    "president": PresidentAdapter, "speculation": SpeculationAdapter}
"""Each game's adapter, by the game's name in the state."""
