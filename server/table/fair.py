"""Deals nobody can rig (docs/fairness.md): the commitment, the contribution window, the record.

Before every deal the table draws a secret server seed, publishes the adapter's commitment to it
(``commitment`` event) and opens a short window (``[timers] entropy_window``) in which every
player of the deal may send a contribution (``entropy``, or a person's standing ``seed``). Bots
contribute at once with :func:`engine.fairness.bot_contribution`; the window closes early once
every seat has given one. The deal is then made from the seed and the contributions, in seat
order; at the round's end (``adapter.round_end``) the adapter's record is published with that
event (``fairness``) and stored with the round, so ``verify`` can check it later.

During the window nobody learns anything but *that* a seat contributed (``contributed``: the seat,
never the text); the texts are published with the record. A contribution that comes late, twice,
from someone not seated, or malformed (:func:`engine.fairness.normalize_contribution`) is
refused and changes nothing.

Tests that need explicit deals give the table :class:`ExplicitSeed` from its ``draw_seed`` hook:
the engine deals from that seed as given (the window still runs, the contributions are ignored,
no record is made: such a deal cannot be verified).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from engine.api import Action, Event
from engine.errors import BadArgument
from engine.fairness import bot_contribution, normalize_contribution
from engine.seeds import commitment as sha_commitment
from server.protocol import Args, CommandError, JSONObject, JSONValue, Result
from server.table.host import TableHost
from server.table.io import Member
from server.table.logged import copied, integer, listed


@dataclass(frozen=True, slots=True)
class ExplicitSeed:
    """Tests only: deal from ``seed`` exactly as the engine takes it (an unverifiable deal)."""

    seed: bytes


@dataclass(slots=True)
class Entropy:
    """The open contribution window of the next deal (and, once dealt, the deal being played)."""

    round: int
    server_seed: bytes
    commitment: str
    secret: object  # the adapter's private side of the commitment, passed back to it (Speculation: the decks)
    explicit: bool
    until: float
    given: dict[int, str] = field(default_factory=dict)  # seat -> normalised text (people)
    contributions: tuple[str | None, ...] = ()  # once dealt: per seat, in seat order
    bots: tuple[int, ...] = ()  # once dealt: the seats that contributed as bots
    chips: tuple[int, ...] = ()  # once dealt: every seat's chips before the deal
    dealt: Mapping[str, JSONValue] | None = None  # once dealt: the full form of the deal's ``dealt`` event
    first: bool = False  # the first deal of the match (a dealer drawn from the deal)
    not_before: float = 0.0  # the deal waits for this too (the pause after the last round)


class FairDeals:
    """The fairness of its table's deals (see the module's documentation)."""

    __slots__ = ("_draw_seed", "commitment", "entropy", "record", "t")

    def __init__(self, table: TableHost, draw_seed: Callable[[], bytes | ExplicitSeed]) -> None:
        self.t = table
        self._draw_seed = draw_seed
        self.entropy: Entropy | None = None
        """The window being open (``dealt`` None) or the deal being played; None between them."""
        self.record: JSONObject | None = None
        """The record of the last finished round (published with its end, stored with it)."""
        self.commitment: str | None = None
        """Published with the deal; the seed after it."""

    def open(self, not_before: float | None = None) -> None:
        """Draw the seed, publish its commitment, open the window; standing seeds contribute.
        ``not_before``: the window opens during the pause after a round, which it does not shorten."""
        t = self.t
        drawn = self._draw_seed()
        explicit = isinstance(drawn, ExplicitSeed)
        seed = drawn.seed if isinstance(drawn, ExplicitSeed) else drawn
        round_no = t.game.current.round + 1
        if explicit or len(seed) != 32:
            commit, secret, explicit = sha_commitment(seed), None, True
        else:
            commit, secret = t.adapter.commit(seed)
        length = max(0.0, float(t.settings.entropy_window))
        start = t.now if not_before is None else max(t.now, not_before)
        self.entropy = Entropy(round_no, seed, commit, secret, explicit, t.now + length, not_before=start)
        self.commitment = commit
        t.clocks.next_deal_at = max(self.entropy.until, start)
        for seat in t.seats:
            if seat.member is not None and not seat.leaving and seat.seed is not None:
                self.entropy.given[seat.index] = seat.seed
        given = sorted(self.entropy.given)
        t.out.broadcast({"event": "commitment", "round": round_no, "commitment": commit, "window": length,
                         "given": given, "game": t.opts.game})
        for i in given:
            t.out.broadcast({"event": "contributed", "round": round_no, "seat": i})
        if self.complete():
            t.clocks.next_deal_at = start

    def open_between_rounds(self) -> None:
        """After a round: the next deal's window opens now and runs during the pause."""
        t = self.t
        if t.settings.entropy_window > 0 and not t.closed and t.game.match is not None and not t.game.match.over:
            self.open(not_before=t.clocks.next_deal_at)

    def forget_seed(self) -> None:
        """The next deal gets a fresh commitment."""
        self.entropy = None

    def is_open(self) -> bool:
        return self.entropy is not None and self.entropy.dealt is None

    def complete(self) -> bool:
        """Every person who may play the deal has contributed (bots always have)."""
        t = self.t
        e = self.entropy
        return e is not None and all(s.index in e.given for s in t.seats if s.member is not None and not s.leaving)

    def contribute(self, member: Member, args: Args) -> Result:
        """``entropy``: this deal's contribution of a seated person, during the window only."""
        t = self.t
        seat_no = t.seat_of(member.key)
        if seat_no is None or t.seats[seat_no].leaving:
            raise CommandError("not_allowed", reason="not_seated")
        text = _normalized(args.get("text"))
        e = self.entropy
        if e is None or e.dealt is not None or t.now > e.until:
            raise CommandError("entropy_closed")
        if seat_no in e.given:
            raise CommandError("entropy_given", round=e.round)
        self.accept(seat_no, text)
        return {"round": e.round, "seat": seat_no}

    def accept(self, seat_no: int, text: str) -> None:
        t = self.t
        e = self.entropy
        assert e is not None
        e.given[seat_no] = text
        t.out.broadcast({"event": "contributed", "round": e.round, "seat": seat_no})
        if self.complete():
            t.clocks.next_deal_at = max(t.now, e.not_before)  # everybody has spoken: deal now

    def set_seed(self, member: Member, args: Args) -> Result:
        """``seed``: a person's standing contribution (``text`` None: none), used at every deal; in an
        open window where the seat gave nothing yet it is this deal's contribution too."""
        t = self.t
        seat_no = t.seat_of(member.key)
        raw = args.get("text")
        text = None if raw is None else _normalized(raw)
        if seat_no is None:
            return {"seed": text}
        seat = t.seats[seat_no]
        seat.seed = text
        e = self.entropy
        if (text is not None and e is not None and e.dealt is None and t.now <= e.until
                and seat_no not in e.given and not seat.leaving):
            self.accept(seat_no, text)
            return {"seed": text, "round": e.round}
        return {"seed": text}

    def final_contributions(self, present: list[int] | None) -> None:
        """Close the window: each seat of the deal gives its text, its bot's, or none."""
        t = self.t
        e = self.entropy
        assert e is not None
        playing = set(present) if present is not None else {s.index for s in t.seats if not s.empty}
        out: list[str | None] = []
        bots: list[int] = []
        for seat in t.seats:
            i = seat.index
            if i not in playing:
                out.append(None)
            elif seat.member is None and seat.bot is not None:
                out.append(bot_contribution(e.commitment, i))
                bots.append(i)
            else:
                if i not in e.given and seat.seed is not None and seat.member is not None:
                    e.given[i] = seat.seed  # sat down with a standing seed after the window opened
                    t.out.broadcast({"event": "contributed", "round": e.round, "seat": i})
                out.append(e.given.get(i))
        e.contributions, e.bots = tuple(out), tuple(bots)
        e.chips = tuple(getattr(t.game.match, "chips", ()) or ())
        e.first = t.game.current.round == 0

    def deal_action(self, facts: Mapping[str, object]) -> Action:
        t = self.t
        e = self.entropy
        assert e is not None
        if e.explicit:
            return t.game.current.deal_action(e.server_seed, **facts)
        action: Action = t.adapter.fair_deal_action(t.game.current, e.server_seed, e.secret, e.contributions, facts)
        return action

    def dealt(self, events: tuple[Event, ...]) -> None:
        e = self.entropy
        if e is not None:
            e.dealt = next((ev.to_dict() for ev in events if ev.name == "dealt"), {})

    def round_record(self, events: tuple[Event, ...]) -> JSONObject | None:
        """At the round's end: the record to publish with it and to store (None: nothing to prove)."""
        t = self.t
        e = self.entropy
        if e is None or e.dealt is None or not any(ev.name == t.adapter.round_end for ev in events):
            return None
        self.entropy = None
        if e.explicit:
            self.record = None
            return None
        self.record = t.adapter.fair_record(
            t.game.current, server_seed=e.server_seed, secret=e.secret, contributions=e.contributions, bots=e.bots,
            round=e.round, dealt=e.dealt, chips=e.chips, first=e.first, ante=t.opts.ante)
        return self.record


    # -- durable tables: what a restart needs to reveal the deal being played ----------------------

    def facts(self) -> JSONObject | None:
        """The deal being played, as JSON facts for a durable table's log (it holds the server seed:
        the log is private, as the deal action's seed already is). An open window is not kept: after
        a restart the next deal gets a fresh commitment, nothing having been dealt from the old one."""
        return fairness_facts_of(self.key())

    def key(self) -> FairKey | None:
        """What :meth:`fairness_facts` is made of, copied as deep as it copies (equal keys: equal
        facts), in a tuple cheaper to make and compare (a durable table compares it every step)."""
        e = self.entropy
        if e is None or e.dealt is None:
            return None
        return (e.round, e.server_seed, e.explicit, e.commitment, e.contributions, e.bots, e.chips, dict(e.dealt),
                e.first)

    def restore(self, facts: Mapping[str, JSONValue] | None) -> None:
        """The deal being played back from :meth:`facts` (the match itself is replayed from
        its log, whose deal action carries what the engine dealt from)."""
        t = self.t
        if not facts:
            self.entropy = None
            return
        seed = bytes.fromhex(str(facts["seed"]))
        explicit = bool(facts["explicit"])
        secret = None if explicit else t.adapter.commit(seed)[1]
        self.entropy = Entropy(integer(facts["round"]), seed, str(facts["commitment"]), secret, explicit, t.now,
                               contributions=tuple(c if c is None else str(c) for c in listed(facts["contributions"])),
                               bots=tuple(integer(b) for b in listed(facts["bots"])),
                               chips=tuple(integer(c) for c in listed(facts["chips"])), dealt=copied(facts["dealt"]),
                               first=bool(facts["first"]))
        self.commitment = self.entropy.commitment


def _normalized(text: object) -> str:
    try:
        return normalize_contribution(text)
    except BadArgument as exc:
        raise CommandError("bad_entropy", **exc.params) from None


FairKey: TypeAlias = tuple[int, bytes, bool, str, tuple[str | None, ...], tuple[int, ...], tuple[int, ...],
                          dict[str, JSONValue], bool]
"""What :meth:`FairDeals.facts` is made of: round, server seed, explicit, commitment, contributions, bots, chips,
the ``dealt`` event, first."""


def fairness_facts_of(key: FairKey | None) -> JSONObject | None:
    """:meth:`FairDeals.facts` from its :meth:`FairDeals.key`."""
    if key is None:
        return None
    round_no, seed, explicit, commitment, contributions, bots, chips, dealt, first = key
    return {"round": round_no, "seed": seed.hex(), "explicit": explicit, "commitment": commitment,
            "contributions": list(contributions), "bots": list(bots), "chips": list(chips), "dealt": dealt,
            "first": first}
