"""Speculation actions: frozen records of one decision each (RULES S7–S9).

``to_dict()`` gives the protocol form (``{"cmd": ..., "seat": ...}``) that a
match log stores; :func:`action_from_dict` reads it back for replays.
Table actions (:class:`Deal`, :class:`CloseAuction`) have ``seat = None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.cards import Card, CardError
from engine.errors import BadArgument


@dataclass(frozen=True, slots=True)
class Deal:
    """Chance step (S2–S5): shuffle with ``seed``, ante, deal, turn up the trump.

    ``present``: the seats at the table for this deal (``None``: all); the
    others sit it out. ``cards`` is the **test hook** for explicit deals: the
    order in which cards leave the deck (one at a time from the dealer's
    left, three rounds, then the trump card, S4/S5); a prefix is enough, the
    rest of the deck follows in card order and is never shown. Without it the
    deck is ``engine.seeds.shuffled(deck, derive(seed, "deck"))``.

    ``contributions``: the players' entropy, one text or ``None`` per seat
    (docs/fairness.md). With it ``seed`` is the server seed (32 bytes) and the
    deck is the committed deal :func:`engine.fairness.speculation_deal`, which
    also draws the first dealer; it excludes ``cards``.
    """

    seed: bytes
    cards: tuple[int, ...] | None = None
    present: tuple[int, ...] | None = None
    contributions: tuple[str | None, ...] | None = None

    @property
    def seat(self) -> None:
        return None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"cmd": "deal", "seat": None, "seed": self.seed.hex()}
        if self.cards is not None:
            d["cards"] = [str(Card(c)) for c in self.cards]
        if self.present is not None:
            d["present"] = list(self.present)
        if self.contributions is not None:
            d["contributions"] = list(self.contributions)
        return d


@dataclass(frozen=True, slots=True)
class CloseAuction:
    """The auction's time ran out (S7): the owner keeps the best trump."""

    @property
    def seat(self) -> None:
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "close", "seat": None}


@dataclass(frozen=True, slots=True)
class Turn:
    """S8: turn the top face-down card of one's stack (also the time-out action, S12f)."""

    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "turn", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Bid:
    """S7: bid ``amount`` chips for the best trump on auction."""

    seat: int
    amount: int

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "bid", "seat": self.seat, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class Sell:
    """S7: the owner sells the best trump to the best bid."""

    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "sell", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Keep:
    """S7: the owner keeps the best trump; the auction closes."""

    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "keep", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Offer:
    """S9: ``seat`` offers ``price`` chips for the top ``cards`` face-down cards of seat ``to``."""

    seat: int
    to: int
    cards: int
    price: int

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "offer", "seat": self.seat, "to": self.to, "cards": self.cards, "price": self.price}


@dataclass(frozen=True, slots=True)
class Accept:
    """S9: the seller accepts offer ``offer``; the trade happens at once."""

    seat: int
    offer: int

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "accept", "seat": self.seat, "offer": self.offer}


@dataclass(frozen=True, slots=True)
class Decline:
    """S9: the seller declines offer ``offer``."""

    seat: int
    offer: int

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "decline", "seat": self.seat, "offer": self.offer}


@dataclass(frozen=True, slots=True)
class Withdraw:
    """S9: the buyer withdraws his offer ``offer``."""

    seat: int
    offer: int

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": "withdraw", "seat": self.seat, "offer": self.offer}


SpeculationAction = Deal | CloseAuction | Turn | Bid | Sell | Keep | Offer | Accept | Decline | Withdraw


def _int(args: Mapping[str, Any], key: str) -> int:
    """An integer argument: a JSON int, or a string of digits (text commands)."""
    value = args.get(key)
    if isinstance(value, bool):
        raise BadArgument(f"{key} must be a number", reason="number", arg=key)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdigit() and len(text) <= 12:
            return int(text)
    raise BadArgument(f"{key} must be a number", reason="number", arg=key)


def action_from(seat: int, cmd: str, args: Mapping[str, Any]) -> SpeculationAction:
    """A protocol command of ``seat`` as an action; :class:`BadArgument` for unknown or malformed ones."""
    if cmd == "turn":
        return Turn(seat)
    if cmd == "bid":
        return Bid(seat, _int(args, "amount"))
    if cmd == "sell":
        return Sell(seat)
    if cmd == "keep":
        return Keep(seat)
    if cmd == "offer":
        return Offer(seat, _int(args, "to"), _int(args, "cards"), _int(args, "price"))
    if cmd == "accept":
        return Accept(seat, _int(args, "offer"))
    if cmd == "decline":
        return Decline(seat, _int(args, "offer"))
    if cmd == "withdraw":
        return Withdraw(seat, _int(args, "offer"))
    raise BadArgument(f"not a Speculation command: {cmd!r}", reason="unknown_command", cmd=cmd)


def action_from_dict(d: Mapping[str, Any]) -> SpeculationAction:
    """The inverse of ``to_dict()`` for every action (match logs, replays)."""
    cmd = d.get("cmd")
    if cmd == "deal":
        try:
            seed = bytes.fromhex(str(d.get("seed", "")))
            raw_cards = d.get("cards")
            cards = None if raw_cards is None else tuple(int(Card.parse(c)) for c in raw_cards)
        except (ValueError, CardError, TypeError) as exc:
            raise BadArgument(f"bad deal record: {exc}", reason="log") from None
        raw_present = d.get("present")
        present = None if raw_present is None else tuple(int(s) for s in raw_present)
        raw_contributions = d.get("contributions")
        contributions = None
        if raw_contributions is not None:
            if not isinstance(raw_contributions, list) or any(
                c is not None and not isinstance(c, str) for c in raw_contributions
            ):
                raise BadArgument("bad deal record: contributions", reason="contributions")
            contributions = tuple(raw_contributions)
        return Deal(seed, cards, present, contributions)
    if cmd == "close":
        return CloseAuction()
    seat = d.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise BadArgument("action record without a seat", reason="log")
    if not isinstance(cmd, str):
        raise BadArgument("action record without a command", reason="log")
    return action_from(seat, cmd, d)
