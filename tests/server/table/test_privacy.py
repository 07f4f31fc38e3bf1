"""No hidden card leaves the table towards someone not entitled to it (invariant 2).

Every event and every state each member received in whole matches is scanned
for card codes. What a reader may know is worked out apart from the table: the
match is replayed from its log (``engine`` events in full, unfiltered), and a
seat is entitled, for the round being played, to the hand it was dealt, the
cards of the exchanges it took part in (P13, T12) and what was shown to all
(plays, cuts, the hands shown at the round's end); a spectator to the shown cards
only. In Speculation nobody may read a face-down card until the deal's end (S4,
S12h). The timers are positive, so one call never spans the end of a round and
the next deal: each call's messages belong to the round it ends in.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from engine.president import PresidentMatch
from engine.president import action_from_dict as action_from_president
from engine.speculation import SpeculationMatch, action_from_dict
from tests.server.table.harness import Harness, Received, simple_president

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")


def cards_in(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj} if CARD.match(obj) else set()
    if isinstance(obj, dict):
        return set().union(*(cards_in(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(cards_in(v) for v in obj))
    return set()


class President:
    """Per seat (``None``: spectators), the cards it may read in the round being played, from the
    match replayed apart (kept up with the table's log as it grows, rebuilt when an action is undone)."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.match: Any = None
        self.own: dict[int, set[str]] = {}
        self.public: set[str] = set()

    def __call__(self, h: Harness) -> dict[int | None, set[str]]:
        table = h.table
        if table.match is None:
            return {None: set()}
        if self.match is None or table.log[: len(self.log)] != self.log:
            self.match, self.log, self.own, self.public = PresidentMatch(**_president_args(table)), [], {}, set()
        for record in table.log[len(self.log):]:
            for ev in self.match.apply(action_from_president(record)):
                self.see(ev.to_dict())
            self.log.append(record)
        out: dict[int | None, set[str]] = {s: cards | self.public for s, cards in self.own.items()}
        out[None] = set(self.public)
        return out

    def see(self, d: dict[str, Any]) -> None:
        name = d["event"]
        if name == "dealt":
            self.own = {s: set(hand or ()) for s, hand in enumerate(d["hands"])}
            self.public = set()
        elif name in ("played", "cut"):
            self.public |= set(d["cards"])
        elif name == "exchange":
            self.own[d["from"]] |= set(d["cards"])
            self.own[d["to"]] |= set(d["cards"])
        elif name == "round_over":
            self.public |= cards_in(d["hands"])


def _president_args(table: Any) -> dict[str, Any]:
    config = dict(table.match.config)
    return {"rules": config["rules"], "seats": config["seats"], "stake": config["stake"], "rounds": config["rounds"]}


class Speculation:
    """Everyone may read the cards turned face up in this deal, and every card once it is revealed."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.match: Any = None
        self.shown: set[str] = set()

    def __call__(self, h: Harness) -> dict[int | None, set[str]]:
        table = h.table
        if table.match is None:
            return {None: set()}
        if self.match is None or table.log[: len(self.log)] != self.log:
            self.match, self.log, self.shown = SpeculationMatch(**table.match.config), [], set()
        for record in table.log[len(self.log):]:
            for ev in self.match.apply(action_from_dict(record)):
                d = ev.to_dict()
                if d["event"] == "ante":
                    self.shown = set()  # a new deal
                elif d["event"] in ("trump", "turned"):
                    self.shown.add(d["card"])
                elif d["event"] == "revealed":
                    self.shown |= cards_in(d["stacks"])
            self.log.append(record)
        return {s: set(self.shown) for s in [None, *range(len(table.seats))]}


class Scanner:
    """Each message, as it is delivered, holds only cards its reader is entitled to then."""

    def __init__(self, entitled: Callable[[Harness], dict[int | None, set[str]]]) -> None:
        self.entitled = entitled
        self.cards_seen = 0  # card codes checked
        self.hidden_exchanges = 0  # exchange events seen without their cards
        self.spectator_states = 0
        self._last: dict[str, tuple[int, list[str]]] = {}  # each seated reader's last hand of the call

    def attach(self, h: Harness) -> None:
        h.on_deliver.append(self)
        h.after_call.append(self.settled)

    def settled(self, h: Harness) -> None:
        """After a call, the last state each player received shows the hand they hold now (a state
        is the moment it was built: within a call the table may move on before it is delivered)."""
        for key, (seat, hand) in self._last.items():
            if h.table.match is not None:
                assert hand == [str(c) for c in h.table.match.hand(seat)], f"{key}: not his hand"
        self._last.clear()

    def __call__(self, h: Harness, key: str, item: Received) -> None:
        if item.kind not in ("event", "state"):
            return
        allowed = self.entitled(h)
        seat = item.seat
        cards = cards_in(item.body)
        leaked = cards - allowed.get(seat, allowed[None])
        assert not leaked, f"{key} (seat {seat}) read {sorted(leaked)} in {item.body}"
        self.cards_seen += len(cards)
        body = item.body
        if item.kind == "state":
            if seat is None:
                assert "hand" not in body, f"spectator {key} got a hand"
                self.spectator_states += 1
            elif "hand" in body:
                assert body["you"] == seat, f"{key} got seat {body['you']}'s state"
                self._last[key] = (seat, body["hand"])
        elif body.get("event") == "exchange" and seat not in (body["from"], body["to"]):
            assert "cards" not in body
            self.hidden_exchanges += 1
        elif body.get("event") == "dealt" and "hands" in body:
            assert all(hand is None for s, hand in enumerate(body["hands"]) if s != seat)


def test_invariant_2_tdc_match_with_exchanges_and_a_spectator() -> None:
    scanner = Scanner(President())
    h = Harness("tdc", seats=5, bots=1, stake=4, rounds=3, turn_seconds=20)
    scanner.attach(h)
    people = ["alice", "bob", "carol", "dave"]
    h.ok("zoe", "watch")
    for key in people:
        h.member(key, autocut=True)  # cuts too, when the cards allow
    h.join(*people)
    act = simple_president(people[:3])  # dave lets the clock play for him (T14, T12 time-outs)
    h.run(lambda: h.table.status == "over", act=act)
    assert len(h.events("zoe", "round_over")) == 3
    # it did check something: hands, exchanges of others (cards hidden), the spectator's states
    assert scanner.cards_seen > 1000 and scanner.hidden_exchanges >= 2 * 2 * 3 and scanner.spectator_states > 50
    assert any(e.get("cards") for e in h.events("alice", "exchange"))  # her own exchanges show their cards
    assert all("cards" not in e for e in h.events("zoe", "exchange"))
    assert all(set(e["hands"]) == {None} for e in h.events("zoe", "dealt"))


def test_invariant_2_classic_match_spectator_gets_no_hand() -> None:
    scanner = Scanner(President())
    h = Harness("classic", seats=4, bots=2, rounds=2)
    scanner.attach(h)
    h.ok("zoe", "watch")
    h.join("alice", "bob")
    h.run(lambda: h.table.status == "over", act=simple_president(["alice", "bob"]))
    states = h.inbox["zoe"].states()
    assert states and all("hand" not in s for s in states)
    assert all(s["you"] is None for s in states)
    # round 2's automatic exchange (P13): zoe learns that it happened, not which cards
    assert h.events("zoe", "exchange") and all("cards" not in e for e in h.events("zoe", "exchange"))
    assert scanner.spectator_states == len(states)


def test_invariant_2_speculation_no_face_down_card_before_the_deal_ends() -> None:
    scanner = Scanner(Speculation())
    h = Harness("speculation", seats=4, bots=1, rounds=4, turn_seconds=5, settings={"flip_seconds": 2})
    scanner.attach(h)
    h.ok("zoe", "watch")
    h.join("alice", "bob", "carol")

    traded: set[int] = set()

    def trade(h: Harness) -> bool:
        """Once a deal alice buys bob's top card unseen and he accepts (S9); the clock does the rest."""
        m = h.table.match
        view = m.view(None)
        if m.needs_deal() or view.auction is not None or view.round in traded:
            return False
        bob = h.seat("bob")
        if not view.seats[bob].facedown or not view.seats[h.seat("alice")].playing:
            return False
        traded.add(view.round)
        offer = h.ok("alice", "offer", to=bob, cards=1, price=1)["offer"]
        h.ok("bob", "accept", offer=offer)
        return True

    h.run(lambda: h.table.status == "over", act=trade)
    assert len(h.events("zoe", "deal_over")) == 4 and h.events("zoe", "traded")
    assert scanner.cards_seen > 50 and scanner.spectator_states > 10
