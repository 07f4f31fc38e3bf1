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
from collections.abc import Sequence
from typing import Any

from engine.cards import CARDS, Card


def build(cls: Any, values: dict[str, Any]) -> Any:
    """An instance of the engine's record class ``cls`` (dataclass or named tuple) from ``values``.

    Only the fields ``cls`` declares are passed, so the adapter survives the
    engine adding or regrouping fields; a field it cannot fill is an error.
    """
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = getattr(cls, "_fields", None) or tuple(cls.__dataclass_fields__)
    try:
        return cls(**{n: values[n] for n in names})
    except KeyError:
        missing = [n for n in names if n not in values]
        if not missing:
            raise
        raise RuntimeError(f"cannot rebuild {cls.__name__} from the state: no {', '.join(missing)}") from None


_FIELDS: dict[Any, tuple[str, ...]] = {}
"""The field names of each record class :func:`build` made (read once per class)."""


_CARD: dict[str, Card] = {str(c): c for c in CARDS}
"""The codes the server writes (``str(card)``), to the deck's own objects (what ``Card.parse`` returns)."""


def _card(code: str) -> Card:
    try:
        return _CARD[code]
    except (KeyError, TypeError):
        return Card.parse(code)  # another spelling ("10h", "th"), or an error


def _cards(codes: Sequence[str] | None) -> tuple[Card, ...]:
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

    def view(self, s: dict[str, Any]) -> Any:
        seats = s.get("seats") or []
        if not seats:
            return None
        trick: list[tuple[int, tuple[Card, ...] | None]] = []
        plays: list[tuple[Card, ...]] = []
        for entry in s.get("trick") or []:
            if entry.get("pass"):
                trick.append((int(entry["seat"]), None))
            else:
                cards = _cards(entry.get("cards"))
                trick.append((int(entry["seat"]), cards))
                plays.append(cards)
        played_mask = 0
        for c in map(_card, s.get("played") or ()):
            played_mask |= 1 << c
        # the seats' facts in one pass (a view is built for every decision)
        passive_mask = passed_mask = 0
        counts: list[int] = []
        present: list[bool] = []
        places: list[Any] = []
        titles: list[Any] = []
        scores: list[int] = []
        for i, seat in enumerate(seats):
            get = seat.get
            if get("passive"):
                passive_mask |= 1 << i
            if get("passed"):
                passed_mask |= 1 << i
            counts.append(int(get("cards", 0)))
            present.append(bool(get("playing", True)))
            places.append(get("place"))
            titles.append(get("title"))
            scores.append(int(get("score") or 0))
        must_rank = None
        if len(plays) >= 2 and plays[-1][0].rank == plays[-2][0].rank:  # P7 / T6
            must_rank = plays[-1][0].rank
        chips = tuple(int(x.get("chips", 0)) for x in seats) if "chips" in seats[0] else None
        hand = s.get("hand")
        values: dict[str, Any] = {
            "game": "president",
            "rules": str(s.get("rules")),
            "round": int(s.get("round") or 0),
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
            "exchange": tuple((int(e["from"]), int(e["to"]), _cards(e.get("cards")))
                              for e in s.get("exchange") or [] if "cards" in e),
            "must_rank": must_rank,
            "stake": int(s.get("stake") or 0),
        }
        table_cls = getattr(self.view_module, "TableState", None)
        if table_cls is not None:  # public facts shared by the views of one moment
            values["table"] = build(table_cls, values)
        return build(self.View, values)

    @staticmethod
    def may_act(s: dict[str, Any]) -> bool:
        """Cheap test before building the view: the seat's turn, a cut on offer, or the exchange."""
        return s.get("turn") == s.get("you") or bool(s.get("cut")) or s.get("phase") == "exchange"

    def legal(self, s: dict[str, Any], v: Any) -> list[Any]:
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
        out: list[Any] = []
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
                k = int(s.get("give") or 0)
            else:  # from the titles (T12): the Président 2, the Vice-président 1, until given
                title = v.titles[you] if you < len(v.titles) else None
                k = {"president": 2, "vice_president": 1}.get(str(title), 0)
                if any(g == you for g, _, _ in v.exchange):
                    k = 0
            if k:
                k = min(k, len(v.hand))
                out.extend(A.Give(you, combo) for combo in itertools.combinations(v.hand, k))
        return out

    def fallback(self, s: dict[str, Any], v: Any) -> tuple[str, dict[str, Any]] | None:
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

    def view(self, s: dict[str, Any]) -> Any:
        V = self.V
        trump = s.get("trump")
        best = s.get("best")
        auction = s.get("auction")
        seats = tuple(
            build(V.SeatView, {"seat": int(x["seat"]), "chips": int(x.get("chips") or 0),
                               "faceup": tuple(map(_card, x.get("faceup") or ())),
                               "facedown": int(x.get("facedown") or 0), "playing": bool(x.get("playing", True))})
            for x in s.get("seats") or ()
        )
        faceup = sum(len(x.faceup) for x in seats)
        values: dict[str, Any] = {
            "round": int(s.get("round") or 0),
            "you": s.get("you"),
            "dealer": s.get("dealer"),
            "turn": s.get("turn"),
            "trump": None if not trump else "cdhs".index(str(trump)),
            "best": None if not best else (int(best["seat"]), Card.parse(best["card"])),
            "pool": int(s.get("pool") or 0),
            "auction": None if not auction else build(V.AuctionView, {
                "seat": int(auction["seat"]), "card": Card.parse(auction["card"]),
                "best_bid": int(auction.get("best_bid") or 0), "bidder": auction.get("bidder")}),
            "offers": tuple(build(V.OfferView, {"offer": int(o["offer"]), "buyer": int(o["from"]), "seller": int(o["to"]),
                                                "cards": int(o["cards"]), "price": int(o["price"])})
                            for o in s.get("offers") or ()),
            "seats": seats,
            "in_deal": bool(s.get("in_deal", s.get("turn") is not None or bool(auction))),
            "unseen": int(s.get("unseen", 52 - faceup)),
            "deals": int(s.get("deals") or 0),
            "ante": int(s.get("ante") or 1),
            "over": bool(s.get("over", False)),
        }
        return build(V.SpeculationView, values)

    @staticmethod
    def may_act(s: dict[str, Any]) -> bool:
        return s.get("in_deal", True) is not False

    def legal(self, s: dict[str, Any], v: Any) -> list[Any]:
        """As ``SpeculationMatch.legal_actions``: bids and offers in representative form (S7, S9, S12c)."""
        A = self.A
        you = v.you
        if you is None or not v.in_deal or not 0 <= you < len(v.seats) or not v.seats[you].playing:
            return []
        out: list[Any] = []
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

    def fallback(self, s: dict[str, Any], v: Any) -> tuple[str, dict[str, Any]] | None:
        if v is not None and v.turn == v.you and v.auction is None:
            return "turn", {}
        return None


ADAPTERS: dict[str, type[Any]] = {"president": PresidentAdapter, "speculation": SpeculationAdapter}
