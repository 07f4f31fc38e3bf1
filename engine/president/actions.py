"""Actions of Président: frozen records, each with ``seat`` and ``to_dict()``.

The list of ``action.to_dict()`` of a match is its log; :func:`action_from_dict`
reads one back (``PresidentMatch.replay``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.cards import CARDS, Card, CardError, format_cards, parse_cards
from engine.errors import BadArgument
from engine.seeds import commitment


@dataclass(frozen=True, slots=True)
class Deal:
    """Chance step (P3): the seed deals the cards and, in round 1, draws the dealer.

    ``present``: the seats playing this round (T1; ``None`` = every seat).
    ``stake``: this round's stake (T13; ``None`` = the match's).
    ``hands``/``leader``/``dealer``: overrides for tests and puzzles (explicit
    deal, see ``PresidentMatch.from_hands``); ``hands`` is indexed by seat and
    may hold fewer than 52 cards in all (the rest stays undealt).
    ``newcomers``: seats whose player joined since the last round (T12: they
    exchange nothing; only the table knows who sits where).
    """

    seed: bytes
    present: tuple[int, ...] | None = None
    stake: int | None = None
    hands: tuple[tuple[Card, ...], ...] | None = None
    leader: int | None = None
    dealer: int | None = None
    newcomers: tuple[int, ...] = ()
    cmd: ClassVar[str] = "deal"

    @property
    def seat(self) -> int | None:
        return None

    @property
    def commitment(self) -> str:
        """SHA-256 of the seed, publishable before the deal."""
        return commitment(self.seed)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "cmd": "deal",
            "seat": None,
            "seed": self.seed.hex(),
            "commitment": commitment(self.seed),
            "present": None if self.present is None else list(self.present),
            "stake": self.stake,
        }
        if self.hands is not None:
            d["hands"] = [format_cards(h) for h in self.hands]
        if self.leader is not None:
            d["leader"] = self.leader
        if self.dealer is not None:
            d["dealer"] = self.dealer
        if self.newcomers:
            d["newcomers"] = list(self.newcomers)
        return d


@dataclass(frozen=True, slots=True)
class Play:
    """Play cards of one rank on one's turn (P5, P6)."""

    seat: int
    cards: tuple[Card, ...]
    cmd: ClassVar[str] = "play"

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "play", "seat": self.seat, "cards": format_cards(self.cards)}


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass on one's turn (P8, T5)."""

    seat: int
    cmd: ClassVar[str] = "pass"

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "pass", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Cut:
    """The cut, out of turn (T9): all the remaining cards of the top play's rank."""

    seat: int
    cards: tuple[Card, ...]
    cmd: ClassVar[str] = "cut"

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "cut", "seat": self.seat, "cards": format_cards(self.cards)}


@dataclass(frozen=True, slots=True)
class Give:
    """The exchange choice of the Président / Vice-président (T12)."""

    seat: int
    cards: tuple[Card, ...]
    cmd: ClassVar[str] = "give"

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "give", "seat": self.seat, "cards": format_cards(self.cards)}


@dataclass(frozen=True, slots=True)
class Timeout:
    """The room's clock ran out on ``seat``'s decision (STYLE 8: time is an input).

    classic: pass, or play the weakest single when leading; tdc turn: pass and
    become passive (T14); tdc give: the weakest cards go (T12).
    """

    seat: int
    cmd: ClassVar[str] = "timeout"

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "timeout", "seat": self.seat}


Action = Deal | Play | Pass | Cut | Give | Timeout


def _cards(value: Any) -> tuple[Card, ...]:
    if isinstance(value, str):
        value = value.replace(",", " ")
    elif not isinstance(value, list | tuple):
        raise BadArgument("cards must be a list of card codes", reason="cards")
    try:
        return parse_cards(value)
    except (CardError, AttributeError, TypeError):
        raise BadArgument("not a card", reason="cards") from None


def action_from_dict(d: dict[str, Any]) -> Action:
    """The action of a log entry (``to_dict()`` of an action)."""
    try:
        cmd = d["cmd"]
        if cmd == "deal":
            hands = d.get("hands")
            present = d.get("present")
            return Deal(
                seed=bytes.fromhex(d["seed"]),
                present=None if present is None else tuple(int(s) for s in present),
                stake=d.get("stake"),
                hands=None if hands is None else tuple(parse_cards(h) for h in hands),
                leader=d.get("leader"),
                dealer=d.get("dealer"),
                newcomers=tuple(int(s) for s in d.get("newcomers") or ()),
            )
        seat = int(d["seat"])
        if cmd == "play":
            return Play(seat, _cards(d["cards"]))
        if cmd == "pass":
            return Pass(seat)
        if cmd == "cut":
            return Cut(seat, _cards(d["cards"]))
        if cmd == "give":
            return Give(seat, _cards(d["cards"]))
        if cmd == "timeout":
            return Timeout(seat)
    except (KeyError, ValueError, TypeError) as exc:
        raise BadArgument(f"bad log entry: {exc}", reason="log") from None
    raise BadArgument(f"unknown command {cmd!r}", reason="unknown_command")


# Precomputed action objects for the hot path (legal actions are shared, never rebuilt).
MAX_SEATS = 8
PASSES: tuple[Pass, ...] = tuple(Pass(s) for s in range(MAX_SEATS))
TIMEOUTS: tuple[Timeout, ...] = tuple(Timeout(s) for s in range(MAX_SEATS))
RANK_CARDS: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(tuple(CARDS[r * 4 + s] for s in range(4) if nib >> s & 1) for nib in range(16)) for r in range(13)
)
"""``RANK_CARDS[rank][nibble]``: the cards of ``rank`` whose suit bits are set in ``nibble``, weakest first."""
PLAYS: tuple[tuple[Play, ...], ...] = tuple(
    tuple(Play(s, RANK_CARDS[r][nib]) for nib in range(16)) for s in range(MAX_SEATS) for r in range(13)
)
"""``PLAYS[seat * 13 + rank][nibble]``: the shared :class:`Play` of those cards."""
