"""What the parser knows of a reader's situation, from the last state the reader received."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Command:
    """A protocol command: ``Command("play", {"cards": ["7c", "7h"]})``."""

    cmd: str
    args: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": self.cmd, **self.args}


@dataclass(frozen=True, slots=True)
class ParseError:
    """A line that cannot become a command; ``message`` is in the session's language."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class CommandContext:
    """What the parser knows of the player's situation (see :func:`context_from_state`).

    ``where``: ``"lobby"`` or ``"room"``; ``phase``: ``"play"`` (Président tricks),
    ``"give"`` (tdc exchange choice, T12), ``"auction"`` / ``"turning"`` (Speculation),
    ``"waiting"`` (before the start, between rounds), ``"over"``, or ``None``. ``hand``:
    the reader's cards (``None`` when unknown: spectators, Speculation). ``top``: the play
    to beat in the trick; ``must``: the rank "that or nothing" imposes (P7, T6);
    ``order``: ``"normal"`` or ``"reversed"`` (T10). ``names``: the seats' names, for
    offers by name; ``offers``/``auction``/``facedown``: Speculation facts.
    """

    where: str = "lobby"
    game: str | None = None
    rules: str | None = None
    phase: str | None = None
    hand: tuple[str, ...] | None = None
    your_turn: bool = False
    you: int | None = None
    names: tuple[str, ...] = ()
    top: tuple[str, ...] | None = None
    must: str | None = None
    order: str = "normal"
    give_count: int | None = None
    auction: Mapping[str, Any] | None = None
    offers: tuple[Mapping[str, Any], ...] = ()
    facedown: tuple[int, ...] = ()

    @property
    def spectator(self) -> bool:
        return self.where == "room" and self.you is None



# --------------------------------------------------------------------------- context


def context_from_state(state: Mapping[str, Any] | None, where: str | None = None) -> CommandContext:
    """A :class:`CommandContext` from the last ``state`` message sent to a player (or the lobby)."""
    if not state:
        return CommandContext(where=where or "lobby")
    you = state.get("you")
    seats = state.get("seats") or []
    names = tuple(str(s.get("name") or "") for s in seats)
    game = state.get("game")
    turn = state.get("turn")
    hand = state.get("hand")
    trick = state.get("trick") or []
    plays = [tuple(item["cards"]) for item in trick if item.get("cards") and not item.get("pass")]
    top = plays[-1] if plays else None
    # "that or nothing" (P7, T6): the top play covers one of the same rank
    must = plays[-1][0][0] if len(plays) >= 2 and plays[-1][0][0] == plays[-2][0][0] else None
    auction = state.get("auction")
    give = give_count(state)
    raw_phase = state.get("phase")
    phase: str | None
    if game == "speculation":
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
    facedown = tuple(int(s.get("facedown") or 0) for s in seats)
    return CommandContext(
        where=where or "room",
        game=game,
        rules=state.get("rules"),
        phase=phase,
        hand=tuple(hand) if hand is not None else None,
        your_turn=you is not None and turn == you,
        you=you,
        names=names,
        top=top,
        must=must,
        order=state.get("order") or "normal",
        give_count=give or None,
        auction=auction,
        offers=tuple(state.get("offers") or ()),
        facedown=facedown,
    )


def give_count(state: Mapping[str, Any]) -> int:
    """How many cards the viewer still has to give back in a tdc exchange (T12), from a state.

    The Président and the Vice-président choose 2 and 1 cards; once their exchange event
    lists a gift from them, nothing is due. A ``give`` field in the state, when the server
    adds one, wins.
    """
    if state.get("phase") != "exchange":
        return 0
    given = state.get("give")
    if isinstance(given, int):
        return given
    you = state.get("you")
    seats = state.get("seats") or []
    if not isinstance(you, int) or you >= len(seats):
        return 0
    title = seats[you].get("title")
    k = 2 if title == "president" else 1 if title == "vice_president" else 0
    if k and any(e.get("from") == you for e in state.get("exchange") or []):
        return 0
    return k
