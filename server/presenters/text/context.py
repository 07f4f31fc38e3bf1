"""What the parser knows of a reader's situation, from the last state the reader received."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from server.messages.kit import text_of, to_int
from server.protocol import JSONValue, Push, objects_in, strings_in


@dataclass(frozen=True, slots=True)
class Command:
    """A protocol command: ``Command("play", {"cards": ["7c", "7h"]})``."""

    cmd: str
    args: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
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
    legal: Push | None = None
    must: str | None = None
    cut: tuple[str, ...] | None = None
    give: int = 0
    can: Push | None = None
    top: tuple[str, ...] | None = None
    order: str = "normal"
    auction: Push | None = None
    offers: tuple[Push, ...] = ()
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


def _object(value: JSONValue) -> Push | None:
    return value if isinstance(value, Mapping) else None


def context_from_state(state: Push | None, where: str | None = None) -> CommandContext:
    """A :class:`CommandContext` from the last ``state`` message sent to a player (or the lobby)."""
    if not state:
        return CommandContext(where=where or "lobby")
    raw_you = state.get("you")
    you = raw_you if isinstance(raw_you, int) else None
    seats = objects_in(state.get("seats"))
    names = tuple(str(s.get("name") or "") for s in seats)
    hand = state.get("hand")
    plays = [tuple(strings_in(item.get("cards"))) for item in objects_in(state.get("trick")) if item.get("cards")]
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
        moves=frozenset(strings_in(state.get("moves"))),
        phase=phase,
        hand=tuple(strings_in(hand)) if hand is not None else None,
        your_turn=you is not None and state.get("turn") == you,
        you=you,
        names=names,
        decision=text_of(state.get("decision")),
        legal=_object(state.get("legal")),
        must=text_of(state.get("must")),
        cut=tuple(strings_in(cut)) if cut else None,
        give=give,
        can=_object(state.get("can")),
        top=plays[-1] if plays else None,
        order=text_of(state.get("order")) or "normal",
        auction=_object(auction),
        offers=tuple(objects_in(state.get("offers"))),
        facedown=tuple(to_int(s.get("facedown") or 0) for s in seats),
    )


def give_count(state: Mapping[str, object]) -> int:
    """How many cards the reader must give back now (T12): the view's ``give``."""
    given = state.get("give")
    return given if isinstance(given, int) else 0
