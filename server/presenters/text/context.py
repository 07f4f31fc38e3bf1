"""What the parser knows of a reader's situation, from the last state the reader received."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.protocol import JSONValue


@dataclass(frozen=True, slots=True)
class Command:
    """A protocol command: ``Command("play", {"cards": ["7c", "7h"]})``."""

    cmd: str
    args: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": self.cmd, **self.args}


@dataclass(frozen=True, slots=True)
class ParseError:
    """A line that cannot become a command; ``message`` is in the session's language."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class CommandContext:
    """What the parser knows of the player's situation (see :func:`context_from_state`): what the
    last state said, never worked out again from the rules.

    ``where``: ``"lobby"`` or ``"room"``; ``moves``: the commands a seat may send at this table
    (the state's ``moves``: ``play``/``cut``/``give``... at a Président table, ``bid``/``turn``...
    at a Speculation table); ``phase``: ``"play"`` (tricks), ``"give"`` (the reader's exchange
    choice, T12), ``"auction"`` / ``"turning"`` (Speculation), ``"waiting"`` (before the start,
    between rounds), ``"over"``, or ``None``. ``hand``: the reader's cards (``None`` when unknown:
    spectators, Speculation). From the reader's view: ``decision`` (what is awaited from them:
    ``lead``, ``follow``, ``give``, ``turn``, ``auction``), ``legal`` (their legal moves, compact),
    ``must`` (the rank "that or nothing" imposes, P7/T6), ``cut`` (the cards they may cut with
    now, T9), ``give`` (cards to give back, T12), ``can`` (Speculation). ``top``: the play to beat
    (the last one of the trick, for examples and help); ``names``: the seats' names, for offers by
    name; ``offers``/``auction``/``facedown``: Speculation facts.
    """

    where: str = "lobby"
    moves: frozenset[str] = frozenset()
    phase: str | None = None
    hand: tuple[str, ...] | None = None
    your_turn: bool = False
    you: int | None = None
    names: tuple[str, ...] = ()
    decision: str | None = None
    legal: Mapping[str, Any] | None = None
    must: str | None = None
    cut: tuple[str, ...] | None = None
    give: int = 0
    can: Mapping[str, Any] | None = None
    top: tuple[str, ...] | None = None
    order: str = "normal"
    auction: Mapping[str, Any] | None = None
    offers: tuple[Mapping[str, Any], ...] = ()
    facedown: tuple[int, ...] = ()

    @property
    def spectator(self) -> bool:
        return self.where == "room" and self.you is None

    @property
    def cards_table(self) -> bool:
        """Moves here are cards from a hand (Président): a line of cards is a move."""
        return "play" in self.moves

    @property
    def bids_table(self) -> bool:
        """Moves here are bids and turns (Speculation): a bare number is a bid."""
        return "bid" in self.moves


# --------------------------------------------------------------------------- context


def context_from_state(state: Mapping[str, Any] | None, where: str | None = None) -> CommandContext:
    """A :class:`CommandContext` from the last ``state`` message sent to a player (or the lobby)."""
    if not state:
        return CommandContext(where=where or "lobby")
    you = state.get("you")
    seats = state.get("seats") or []
    names = tuple(str(s.get("name") or "") for s in seats)
    hand = state.get("hand")
    plays = [tuple(item["cards"]) for item in state.get("trick") or [] if item.get("cards")]
    auction = state.get("auction")
    given = state.get("give")
    give = given if isinstance(given, int) else 0
    cut = state.get("cut")
    raw_phase = state.get("phase")
    phase: str | None
    if "auction" in state:  # a Speculation table: its phase is the deal's
        if state.get("over"):
            phase = "over"
        elif auction:
            phase = "auction"
        elif state.get("in_deal", True):
            phase = "turning"
        else:
            phase = "waiting"
    elif raw_phase == "exchange":
        phase = "give" if give else "waiting"
    elif raw_phase in ("deal", "round_over"):
        phase = "waiting"
    elif raw_phase == "match_over":
        phase = "over"
    else:
        phase = raw_phase if isinstance(raw_phase, str) else None
    return CommandContext(
        where=where or "room",
        moves=frozenset(state.get("moves") or ()),
        phase=phase,
        hand=tuple(hand) if hand is not None else None,
        your_turn=you is not None and state.get("turn") == you,
        you=you,
        names=names,
        decision=state.get("decision"),
        legal=state.get("legal"),
        must=state.get("must"),
        cut=tuple(cut) if cut else None,
        give=give,
        can=state.get("can"),
        top=plays[-1] if plays else None,
        order=state.get("order") or "normal",
        auction=auction,
        offers=tuple(state.get("offers") or ()),
        facedown=tuple(int(s.get("facedown") or 0) for s in seats),
    )


def give_count(state: Mapping[str, Any]) -> int:
    """How many cards the reader must give back now (T12): the view's ``give``."""
    given = state.get("give")
    return given if isinstance(given, int) else 0
