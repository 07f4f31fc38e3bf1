"""A step's states made the short way (``StateSet``) say, byte for byte, what the long way says.

:class:`server.table.states.StateSet` builds one seat's state whole, cuts its JSON line around
the values that differ from seat to seat and puts each other seat's values in; the state dict of
a seat is made only when read. Over whole random games of the three rule sets (classic, tdc,
Speculation), with a spectator, every set a table makes is checked at the moment it is made
against :func:`server.table.states.build_state` and :func:`server.protocol.encode` for every
reader: the line, the dict (keys in the same order), the mapping a JSON session keeps (read only
after the table played on). And no reader's line holds a card of another seat's hand (RULES
invariant 2), nor any face-down card in Speculation (S4).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import server.table.sender as base_mod
from engine.cards import format_cards
from server.protocol import encode
from server.table.states import StateSet, build_state
from tests.server.table.harness import Harness, command_of
from tests.server.table.test_privacy import cards_in

PEOPLE = ["alice", "bob", "carol", "dave"]


def random_people(rng: random.Random) -> Any:
    """People who, when something is theirs to decide, choose any legal move."""

    def act(h: Harness) -> bool:
        match = h.table.match
        if match is None or h.table.status != "playing" or match.needs_deal():
            return False
        awaited = sorted({p.seat for p in match.pending() if p.seat is not None})
        rng.shuffle(awaited)
        for seat in awaited:
            key = next((k for k in PEOPLE if h.table.seat_of(k) == seat), None)
            legal = list(match.legal_actions(seat)) if key is not None else []
            if legal:
                cmd, args = command_of(rng.choice(legal))
                return not hasattr(h.cmd(key, cmd, **args), "code")
        return False

    return act


def hidden_from(match: Any, seat: int | None) -> set[str]:
    """The cards ``seat`` may not read now: the other seats' hands (Président), every face-down card
    (Speculation)."""
    if hasattr(match, "hand"):
        return {c for s in range(match.seats) if s != seat for c in format_cards(match.hand(s))}
    return {c for stack in match._stacks for c in format_cards(stack)}


class Checker:
    """Replaces the table's ``StateSet``: checks every set made against the long way, at once."""

    def __init__(self) -> None:
        self.sets = 0
        self.lines = 0
        self.later: list[tuple[Any, int | None, dict[str, Any]]] = []
        self.errors: list[str] = []

    def run(self, h: Harness, rng: random.Random) -> None:
        try:
            h.run(lambda: h.table.status == "over", act=random_people(rng), limit=50_000)
        finally:
            assert not self.errors, self.errors[0]

    def __call__(self, table: Any, now: float, seats: Any = ()) -> StateSet:
        try:
            return self._check(table, now, tuple(seats))
        except AssertionError as exc:  # the table would catch it and close: kept for the test to say
            self.errors.append(f"{exc!r}")
            raise

    def _check(self, table: Any, now: float, seats: tuple[int | None, ...]) -> StateSet:
        got = StateSet(table, now, seats)
        mine = StateSet(table, now, seats)  # another, read as JSON sessions read it (the line only)
        self.sets += 1
        if table.match is not None:  # the engine's shared spectator dict is left as it was made
            view = table.match.view(None)
            assert view.to_dict() == view._dict() and "name" not in str(view.to_dict())
        for seat in seats:
            slow = build_state(table, seat, now)
            line = encode({"type": "state", **slow})
            assert mine.line(seat) == line, seat
            assert got.line(seat) == line, seat
            fast = got.state(seat)
            assert list(fast) == list(slow) and fast == slow, seat
            self.later.append((mine.reader(seat), seat, slow))
            self.lines += 1
            read = json.loads(line)
            if table.match is not None and table.status == "playing":
                hidden = hidden_from(table.match, seat)
                seen = cards_in({k: v for k, v in read.items() if k != "exchange"})  # (its own moves)
                assert not seen & hidden, f"seat {seat} reads {seen & hidden}"
                if hasattr(table.match, "hand"):
                    assert ("hand" in read) == (seat is not None)
                    if seat is not None:
                        assert read["hand"] == format_cards(table.match.hand(seat))
        return got

    def settled(self) -> None:
        """The mappings kept, read now that the table played on: still their moment's state."""
        for reader, seat, slow in self.later:
            assert list(reader) == list(slow) and dict(reader) == slow, seat
            assert reader.get("hand") == slow.get("hand") and len(reader) == len(slow)


@pytest.mark.parametrize("rules", ["classic", "tdc", "speculation"])
def test_every_readers_state_and_line_is_the_long_ways_over_random_games(rules: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    checker = Checker()
    monkeypatch.setattr(base_mod, "StateSet", checker)
    for seed in range(2):
        create: dict[str, Any] = {"seats": 4, "bots": 1 if seed else 0, "rounds": 2}
        if rules == "tdc":
            create["stake"] = 4
        h = Harness(rules, probe=False, **create)
        h.ok("zoe", "watch")
        people = PEOPLE[: 3 if seed else 4]
        h.join(*people)
        checker.run(h, random.Random(f"{rules}{seed}"))
    checker.settled()
    assert checker.sets > 150 and checker.lines > 4 * 150


def test_a_name_holding_the_place_mark_gets_the_long_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The template's place mark (NUL) in a name: each line is then encoded whole, same bytes."""
    checker = Checker()
    monkeypatch.setattr(base_mod, "StateSet", checker)
    h = Harness("classic", probe=False, seats=4, bots=0, rounds=1)
    h.member("alice", name="A\x00lice")
    h.join(*PEOPLE)
    checker.run(h, random.Random(3))
    checker.settled()
    assert checker.sets > 50


def _long_way(table: Any, seat: int, now: float) -> str:
    return encode({"type": "state", **build_state(table, seat, now)})


def _all_long_way(h: Harness) -> None:
    table, now = h.table, h.clock.now
    states = StateSet(table, now, range(4))
    for s in range(4):
        assert states.line(s) == _long_way(table, s, now), s
        assert json.loads(states.line(s))["hand"] == format_cards(table.match.hand(s)), s


def test_a_seats_kept_fields_serve_no_other_seat_and_no_other_hand() -> None:
    """The table's ``state_memo`` holds each seat's own fields under the key of the view they were made
    of: moved to another seat, or left from before the seat played, they are not served (the lines are
    the long way's, each seat's hand its own, now); a seat whose facts did not change is served them."""
    h = Harness("classic", probe=False, seats=4, bots=0, rounds=1)
    h.join(*PEOPLE)
    table = h.table
    h.run(lambda: table.match is not None and table.status == "playing" and table.match.turn is not None)
    match, memo = table.match, table.state_memo
    memo.clear()
    StateSet(table, h.clock.now, range(4)).line(0)
    waiting = [s for s in range(4) if s != match.turn]
    assert sorted(memo) == waiting and all(memo[s].key[0] == s for s in waiting)  # (the seat on turn: not kept)
    kept = dict(memo)
    hands = {s: match.hand(s) for s in waiting}
    # another seat's fields under each seat: none of them is served
    memo.clear()
    memo.update({s: kept[waiting[(i + 1) % 3]] for i, s in enumerate(waiting)})
    _all_long_way(h)
    # those seats play: their fields of before (their old hands) are not served after
    rng = random.Random(5)
    act = random_people(rng)
    h.run(lambda: all(match.hand(s) != hands[s] for s in waiting) and match.turn is not None, act=act)
    memo.clear()
    memo.update(kept)
    _all_long_way(h)
    # a seat whose facts did not change is served its kept fields (the same objects)
    again = StateSet(table, h.clock.now, range(4))
    served = [s for s in range(4) if s in memo and again.state(s)["hand"] is memo[s].fields["hand"]]
    assert served and all(s != match.turn for s in served)
