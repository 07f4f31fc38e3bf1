"""What one seat may know of a Président match (STYLE 7): :class:`PresidentView`.

A view is an immutable snapshot built cheaply (plain fields, bit masks);
``to_dict()`` turns it into the protocol's state fields only when asked.
It never holds another seat's cards: only ``hand`` (the viewer's own) and
what was played in public.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import CARDS, Card, format_cards


def cards_of_mask(mask: int) -> tuple[Card, ...]:
    """The cards of a 52-bit mask (bit ``i`` = card ``i``), weakest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PresidentView:
    """A seat's (``you``) or a spectator's (``you is None``) view of the match.

    Per-seat tuples are indexed by seat. ``trick`` entries are ``(seat, cards)``
    or ``(seat, None)`` for a pass. ``must_rank`` is the rank index a follower
    must play ("ça ou rien", P7/T6) or ``None``. ``played_mask`` holds every
    card played in public this round (bit ``i`` = card ``i``).
    """

    game: str
    rules: str
    round: int
    phase: str
    you: int | None
    hand: tuple[Card, ...] | None
    counts: tuple[int, ...]
    present: tuple[bool, ...]
    places: tuple[int | None, ...]
    titles: tuple[str | None, ...]
    scores: tuple[int, ...]
    chips: tuple[int, ...] | None
    passive_mask: int
    passed_mask: int
    turn: int | None
    trick: tuple[tuple[int, tuple[Card, ...] | None], ...]
    reversed: bool
    dealer: int | None
    cut: tuple[Card, ...] | None
    played_mask: int
    exchange: tuple[tuple[int, int, tuple[Card, ...]], ...]
    must_rank: int | None
    stake: int

    @property
    def order(self) -> str:
        """``"normal"`` or ``"reversed"`` (T10)."""
        return "reversed" if self.reversed else "normal"

    @property
    def top(self) -> tuple[Card, ...] | None:
        """The play to beat, or ``None`` on an empty table."""
        for _, cards in reversed(self.trick):
            if cards is not None:
                return cards
        return None

    @property
    def leading(self) -> bool:
        """The viewer must lead (play onto an empty table)."""
        return self.turn is not None and self.turn == self.you and self.top is None

    @property
    def played(self) -> tuple[Card, ...]:
        """Every card played in public this round, weakest first."""
        return cards_of_mask(self.played_mask)

    def passive(self, seat: int) -> bool:
        return bool(self.passive_mask >> seat & 1)

    def to_dict(self) -> dict[str, Any]:
        seats = []
        for s in range(len(self.counts)):
            entry: dict[str, Any] = {
                "seat": s,
                "cards": self.counts[s],
                "place": self.places[s],
                "title": self.titles[s],
                "score": self.scores[s],
                "passive": bool(self.passive_mask >> s & 1),
                "playing": self.present[s],
                "passed": bool(self.passed_mask >> s & 1),
            }
            if self.chips is not None:
                entry["chips"] = self.chips[s]
            seats.append(entry)
        d: dict[str, Any] = {
            "game": self.game,
            "rules": self.rules,
            "round": self.round,
            "phase": self.phase,
            "you": self.you,
            "seats": seats,
            "turn": self.turn,
            "trick": [
                {"seat": s, "pass": True} if c is None else {"seat": s, "cards": format_cards(c)}
                for s, c in self.trick
            ],
            "order": self.order,
            "dealer": self.dealer,
            "cut": None if self.cut is None else format_cards(self.cut),
            "played": format_cards(self.played),
            "exchange": [{"from": g, "to": r, "cards": format_cards(c)} for g, r, c in self.exchange],
            "stake": self.stake,
        }
        if self.hand is not None:
            d["hand"] = format_cards(self.hand)
        return d
