"""The ``tricks`` command: the round's earlier tricks as everyone saw them, never a hidden card.

Only cards played face up (RULES P5, T9 cuts) appear, in order and trick by trick; a spectator gets
the same; a game without tricks (Speculation) says so; the answer is rebuilt from the table's log,
so it is the same after a restart.
"""

from __future__ import annotations

from typing import Any

from server.games.tricks import public_tricks
from tests.server.table.harness import Harness, simple_president

KEYS = ["alice", "bob", "carol"]


def _played(h: Harness) -> list[list[str]]:
    """The cards each play and cut of the current round put face up, from the events alice received."""
    out: list[list[str]] = []
    for ev in h.events("alice"):
        if ev.get("event") == "dealt":
            out = []
        elif ev.get("event") in ("played", "cut"):
            out.append(list(ev["cards"]))
    return out


def _cards(tricks: dict[str, Any]) -> list[list[str]]:
    plays = [p for t in tricks["tricks"] for p in t["plays"]] + list(tricks["trick"])
    return [p["cards"] for p in plays if not p.get("pass")]


def test_the_tricks_so_far_are_the_plays_everyone_saw() -> None:
    h = Harness("tdc", seats=3, stake=2, turn_seconds=30)
    h.join(*KEYS)
    h.ok("zoe", "watch")
    h.run(lambda: len(h.events("alice", "trick_closed")) >= 3, act=simple_president(KEYS))
    got = h.ok("alice", "tricks")
    assert got["round"] == 1 and len(got["tricks"]) == len(h.events("alice", "trick_closed"))
    assert got["seats"] == [h.table.seats[i].name for i in range(3)]
    assert _cards(got) == _played(h)  # every play, in order, and nothing else
    closed = [e["by"] for e in h.events("alice", "trick_closed")]
    assert [t["by"] for t in got["tricks"]] == closed
    # never a card still in someone's hand, nor an exchanged card
    held = {c for s in range(3) for c in h.table.match.hand(s)} if hasattr(h.table.match, "hand") else set()
    assert not held & {c for cards in _cards(got) for c in cards}
    assert h.ok("zoe", "tricks") == got  # a spectator sees what the players saw
    assert h.ok("alice", "tricks") is not got and h.ok("alice", "tricks") == got  # asked again: the same


def test_a_stranger_and_a_table_not_started_are_refused() -> None:
    h = Harness("classic", seats=3)
    h.join("alice")
    assert (h.refused("alice", "tricks").code, h.refused("alice", "tricks").params.get("reason")) == (
        "not_allowed", "not_started")
    h.member("mallory")
    assert h.refused("mallory", "tricks").code == "not_in_room"


def test_speculation_has_no_tricks() -> None:
    h = Harness("speculation", seats=3, turn_seconds=5, settings={"flip_seconds": 2})
    h.join(*KEYS)
    refused = h.refused("alice", "tricks")
    assert (refused.code, refused.params.get("reason")) == ("not_allowed", "no_tricks")


def test_public_tricks_keeps_only_the_last_round_and_marks_passes_and_cuts() -> None:
    events = [
        {"event": "dealt", "round": 1, "hands": [["3c"], None, None]},
        {"event": "played", "seat": 0, "cards": ["3c"]},
        {"event": "trick_closed", "by": 0, "leader": 0, "reason": "all_passed"},
        {"event": "dealt", "round": 2, "hands": [None, None, None]},
        {"event": "played", "seat": 1, "cards": ["7c"]},
        {"event": "cut", "seat": 2, "cards": ["7d", "7h", "7s"]},
        {"event": "trick_closed", "by": 2, "leader": 2, "reason": "cut"},
        {"event": "played", "seat": 2, "cards": ["4c"]},
        {"event": "passed", "seat": 0},
    ]
    assert public_tricks(events) == {
        "round": 2,
        "tricks": [{"plays": [{"seat": 1, "cards": ["7c"]}, {"seat": 2, "cards": ["7d", "7h", "7s"], "cut": True}],
                    "by": 2, "reason": "cut"}],
        "trick": [{"seat": 2, "cards": ["4c"]}, {"seat": 0, "pass": True}],
    }
