"""The state a reader of a table receives, shape by shape (docs/protocol.md "The state a player
receives").

One reader's state is the engine's view of it (``to_dict()``: the game's fields), the room's facts
about each seat, the table's own fields (:class:`TableFields`) and its adapter's
(``GameAdapter.decorate``). The table builds it (``server.table.states``), the adapters fill in
their game's part, the text presenters draw it (``server.presenters.text``). A key that one game
has and another has not, or that a state lacks before the first deal (the adapter's
``empty_state``), is ``NotRequired``: read it with ``.get``.

These are annotations only: nothing checks a state against them when it is built (the engine
and the table make it), and a state that crossed the sessions' layer, typed there as any JSON
object (``protocol.Push``), is read as one again with :func:`as_state`.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict, cast

from server.protocol import JSONValue, Push


class Window(TypedDict):
    """People's window in a state: its kind and the seconds left."""

    kind: str  # "cut" (T9) | "trade" (S9)
    left: float


class TableFields(TypedDict):
    """What the table says in every reader's state besides the engine's view of it; a seated
    reader's has ``at_stake`` too, after the adapter's own fields."""

    room: str
    status: str  # waiting | playing | over
    deadline: float | None  # seconds left on the decision the reader cares about
    spectators: int
    commitment: str | None  # the next deal's commitment (docs/fairness.md)
    window: Window | None
    moves: list[str]  # the commands of the game


class StateSeat(TypedDict):
    """One seat in a state: the engine's facts of it (``seat``, ``cards``, then each game's), then the
    room's (``name`` and after: ``server.table.states.decorate_seats``)."""

    seat: int
    cards: int  # cards held (Speculation: face down and face up)
    # Président
    place: NotRequired[int | None]  # going-out number this round
    title: NotRequired[str | None]  # title earned in the last round (P12)
    score: NotRequired[int]  # match points (P14)
    passive: NotRequired[bool]
    passed: NotRequired[bool]
    # both games
    playing: NotRequired[bool]  # plays this round or deal (T1, S3)
    chips: NotRequired[int]  # tdc: chips won or lost here (T13); Speculation: chips held
    # Speculation
    faceup: NotRequired[list[str]]  # cards turned face up, oldest first
    facedown: NotRequired[int]  # how many face-down cards (never which, S4)
    sitting_out: NotRequired[bool]
    # the room's
    name: NotRequired[str | None]  # None: a free seat, or a hidden person's seat read by a spectator
    connected: NotRequired[bool]
    bot: NotRequired[bool]
    bank: NotRequired[float]  # the person's time bank left in this match (extend)
    leaving: NotRequired[bool]
    hidden: NotRequired[bool]  # a person who hides where they sit, as a spectator reads the seat


Trick = TypedDict("Trick", {"seat": int, "cards": NotRequired[list[str]], "pass": NotRequired[bool]})
"""A play on the table (Président's ``trick``): ``{"seat": 2, "cards": ["7c"]}``, or a pass: ``{"seat": 2,
"pass": true}``."""


Exchange = TypedDict("Exchange", {"from": int, "to": int, "cards": list[str]})
"""A move of this round's exchange the reader took part in (T12)."""


class Best(TypedDict):
    """Speculation: who holds the best trump, and which card it is."""

    seat: int
    card: str


class Auction(TypedDict):
    """Speculation: the best trump on sale (S7); ``deadline``: the seconds left (the table's)."""

    seat: int  # its owner
    card: str
    best_bid: int
    bidder: int | None
    deadline: NotRequired[float | None]


Offer = TypedDict("Offer", {"offer": int, "from": int, "to": int, "cards": int, "price": int,
                            "left": NotRequired[float]})
"""Speculation: an open offer for face-down cards (S9); ``left``: its seller's time to answer."""


class State(TypedDict):
    """A reader's state (``you``: their seat, ``None`` for a spectator): the engine's view of it,
    then the table's fields (:class:`TableFields`, each a key of its own here: a state being built,
    or the adapter's ``empty_state``, has them not yet)."""

    room: NotRequired[str]
    status: NotRequired[str]
    deadline: NotRequired[float | None]
    spectators: NotRequired[int]
    commitment: NotRequired[str | None]
    window: NotRequired[Window | None]
    moves: NotRequired[list[str]]
    game: str
    rules: str
    round: int  # the round (deal) being played or last played; 0 before the first
    you: int | None
    turn: int | None
    seats: list[StateSeat]
    at_stake: NotRequired[int]  # a seated reader's chips in this round
    stake: NotRequired[int]  # tdc: each seat's stake per round (T13)
    decision: NotRequired[str | None]  # what is awaited from the reader now
    dealer: NotRequired[int | None]
    # Président
    phase: NotRequired[str]
    trick: NotRequired[list[Trick]]
    order: NotRequired[str]  # "normal" | "reversed" (T10)
    cut: NotRequired[list[str] | None]  # the cards the reader may cut with now (T9)
    legal: NotRequired[dict[str, JSONValue] | None]  # the reader's legal moves, compactly
    give: NotRequired[int]  # cards the reader must give back now (T12)
    must: NotRequired[str | None]  # the rank "ça ou rien" demands (P7, T6)
    played: NotRequired[list[str]]
    exchange: NotRequired[list[Exchange]]
    hand: NotRequired[list[str]]  # the reader's cards (never a spectator's)
    # Speculation
    trump: NotRequired[str | None]
    best: NotRequired[Best | None]
    pool: NotRequired[int]
    auction: NotRequired[Auction | None]
    offers: NotRequired[list[Offer]]
    in_deal: NotRequired[bool]
    unseen: NotRequired[int]
    deals: NotRequired[int]
    ante: NotRequired[int]
    over: NotRequired[bool]
    can: NotRequired[dict[str, JSONValue] | None]  # what the reader may do now, compactly


class SeatOwn(TypedDict, total=False):
    """The fields of a seat's state that differ from the spectator's, taken from the seat's view
    (``GameAdapter.private_fields``, put in a seat's state by ``server.table.states.StateSet``):
    each is the :class:`State` key of that name."""

    you: int | None
    turn: int | None
    decision: str | None
    cut: list[str] | None
    legal: dict[str, JSONValue] | None
    give: int
    exchange: list[Exchange]
    hand: list[str]
    can: dict[str, JSONValue] | None


def as_state(push: Push) -> State:
    """A state the table built, read again after it crossed a layer that types it as any JSON object
    (a session's last state, a cluster front's copy): its shape is the table's, nothing is checked."""
    return cast(State, push)
