"""Events of Président: frozen records of what changed, with protocol names.

``event.to_dict()`` is the complete record (the room's log and replays);
``event.for_seat(seat)`` is what ``seat`` (``None``: a spectator) may learn:
the deal shows each seat only its own hand, an exchange shows its cards only
to the two players of the pair (P13, T12). Cards are codes in ``to_dict()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import Card, format_cards


@dataclass(frozen=True, slots=True)
class Dealt:
    """A round starts (P3): dealer, who plays, hand sizes; each seat's own hand in its form."""

    name: ClassVar[str] = "dealt"
    round: int
    dealer: int
    present: tuple[int, ...]
    counts: tuple[int, ...]
    hands: tuple[tuple[Card, ...] | None, ...]
    """Per seat; ``None`` where the viewer may not see it (every seat but its own)."""
    commitment: str
    stake: int

    def for_seat(self, seat: int | None) -> Dealt:
        hands = tuple(h if i == seat else None for i, h in enumerate(self.hands))
        return Dealt(self.round, self.dealer, self.present, self.counts, hands, self.commitment, self.stake)

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": "dealt",
            "round": self.round,
            "dealer": self.dealer,
            "present": list(self.present),
            "counts": list(self.counts),
            "hands": [None if h is None else format_cards(h) for h in self.hands],
            "commitment": self.commitment,
            "stake": self.stake,
        }


@dataclass(frozen=True, slots=True)
class Exchange:
    """Cards moving from one seat to another (P13, T12); ``cards`` is ``None`` for outsiders."""

    name: ClassVar[str] = "exchange"
    giver: int
    receiver: int
    count: int
    cards: tuple[Card, ...] | None
    chosen: bool = False
    """T12: the giver chose these cards (otherwise they were computed)."""

    def for_seat(self, seat: int | None) -> Exchange:
        if seat == self.giver or seat == self.receiver:
            return self
        return Exchange(self.giver, self.receiver, self.count, None, self.chosen)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"event": "exchange", "from": self.giver, "to": self.receiver, "count": self.count}
        if self.cards is not None:
            d["cards"] = format_cards(self.cards)
        if self.chosen:
            d["chosen"] = True
        return d


class _Public:
    """Mixin: a public event is the same for everyone."""

    __slots__ = ()

    def for_seat(self, seat: int | None) -> Any:
        return self


@dataclass(frozen=True, slots=True)
class Played(_Public):
    """A play in turn (P5, P6); ``auto`` when the clock played it."""

    name: ClassVar[str] = "played"
    seat: int
    cards: tuple[Card, ...]
    remaining: int
    auto: bool = False

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "event": "played",
            "seat": self.seat,
            "cards": format_cards(self.cards),
            "remaining": self.remaining,
        }
        if self.auto:
            d["auto"] = True
        return d


@dataclass(frozen=True, slots=True)
class Passed(_Public):
    """A pass (P8, T5); ``auto`` when the clock passed; ``forced`` (with ``auto``) when nobody could
    play: "ça ou rien" demands a rank whose four cards are out (P9 Decision)."""

    name: ClassVar[str] = "passed"
    seat: int
    auto: bool = False
    forced: bool = False

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"event": "passed", "seat": self.seat}
        if self.auto:
            d["auto"] = True
        if self.forced:
            d["forced"] = True
        return d


@dataclass(frozen=True, slots=True)
class CutEvent(_Public):
    """A cut out of turn (T9)."""

    name: ClassVar[str] = "cut"
    seat: int
    cards: tuple[Card, ...]
    remaining: int

    def to_dict(self) -> dict[str, Any]:
        return {"event": "cut", "seat": self.seat, "cards": format_cards(self.cards), "remaining": self.remaining}


@dataclass(frozen=True, slots=True)
class TrickClosed(_Public):
    """The trick closed; ``by`` made its last play, ``leader`` leads next (``None``: nobody can).

    ``reason``: ``"twos"`` (P9a), ``"quad"`` (P9b), ``"all_passed"`` (P9c, T7d),
    ``"strongest"`` (T7a), ``"four_of_rank"`` (T7b), ``"emptied"`` (T7c), ``"cut"`` (T9).
    """

    name: ClassVar[str] = "trick_closed"
    by: int
    leader: int | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"event": "trick_closed", "by": self.by, "leader": self.leader, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Out(_Public):
    """A seat played its last card (P11); ``place`` is its going-out number.

    ``forbidden``: its emptying play held a forbidden last card (T8).
    """

    name: ClassVar[str] = "out"
    seat: int
    place: int
    forbidden: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"event": "out", "seat": self.seat, "place": self.place, "forbidden": self.forbidden}


@dataclass(frozen=True, slots=True)
class Revolution(_Public):
    """A quad reversed the order (T10); ``order`` is the order now in force."""

    name: ClassVar[str] = "revolution"
    seat: int
    order: str

    def to_dict(self) -> dict[str, Any]:
        return {"event": "revolution", "seat": self.seat, "order": self.order}


@dataclass(frozen=True, slots=True)
class TimeoutEvent(_Public):
    """A decision timed out (T14); ``passive``: the seat is now passive; ``kind``: ``turn``/``give``."""

    name: ClassVar[str] = "timeout"
    seat: int
    passive: bool
    kind: str = "turn"

    def to_dict(self) -> dict[str, Any]:
        return {"event": "timeout", "seat": self.seat, "passive": self.passive, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class RoundOver(_Public):
    """The round ended (P11, P12, P14, T13, T15). Lists are indexed by seat.

    ``ranking``: seats first to last; ``titles``/``scores``: ``None`` for seats
    that sat the round out; ``totals``: match points; ``chips``: net chip
    change of the round (tdc, T13), ``None`` in classic; ``hands``: the cards
    still held, shown to everyone; ``seed``: the round's seed, revealed.
    """

    name: ClassVar[str] = "round_over"
    round: int
    ranking: tuple[int, ...]
    titles: tuple[str | None, ...]
    scores: tuple[int | None, ...]
    totals: tuple[int, ...]
    chips: tuple[int, ...] | None
    hands: tuple[tuple[Card, ...], ...]
    stake: int
    seed: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": "round_over",
            "round": self.round,
            "ranking": list(self.ranking),
            "titles": list(self.titles),
            "scores": list(self.scores),
            "totals": list(self.totals),
            "chips": None if self.chips is None else list(self.chips),
            "hands": [format_cards(h) for h in self.hands],
            "stake": self.stake,
            "seed": self.seed,
        }


@dataclass(frozen=True, slots=True)
class MatchOver(_Public):
    """The match ended (P15): the highest total wins, ties share."""

    name: ClassVar[str] = "match_over"
    winners: tuple[int, ...]
    totals: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"event": "match_over", "winners": list(self.winners), "totals": list(self.totals)}


Event = Dealt | Exchange | Played | Passed | CutEvent | TrickClosed | Out | Revolution | TimeoutEvent | RoundOver | MatchOver
