"""Deals nobody can rig, at the table (server.table.fair, docs/fairness.md), on the fake clock.

Before every deal: the commitment, then the contribution window; refusals change nothing; the
deal is the one the seed and the contributions give; the round's end publishes the record, which
``engine.fairness.verify`` accepts with what the player saw, and nothing before or after a
Speculation deal names an undealt card or its salt.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import fairness
from engine.seeds import seed_from_int
from server.table import durable
from tests.kits.servers import strings_in
from tests.server.table.harness import Harness

P3 = ("alice", "bob", "carol")
ROOT = Path(__file__).resolve().parents[3]


def _classic(window: float = 2.0, **kw: Any) -> Harness:
    return Harness("classic", seats=3, turn_seconds=20, fair=True, settings={"entropy_window": window}, **kw)


def _round_over(h: Harness, key: str = "alice", n: int = 1) -> dict[str, Any]:
    """The ``n``-th ``round_over`` (played to it by the clock)."""
    h.run(lambda: len(h.events(key, "round_over")) >= n)
    return h.events(key, "round_over")[n - 1]


def test_every_deal_is_announced_then_waits_for_the_window() -> None:
    h = _classic()
    h.join(*P3)
    start = h.clock.now
    (announced,) = h.events("alice", "commitment")
    seed = h.drawn[0]
    assert announced["commitment"] == fairness.president_commitment(seed) and announced["window"] == 2.0
    assert announced["round"] == 1 and not h.events("alice", "dealt")
    assert h.table.wake == start + 2.0
    h.tick_wake()  # nobody contributed: the deal comes when the window closes
    assert h.clock.now == start + 2.0 and len(h.events("alice", "dealt")) == 1
    dealt_from = fairness.deal_seed(seed, [None, None, None])
    assert h.table.log[0]["seed"] == dealt_from.hex()


def test_contributions_are_accepted_once_shown_by_seat_only_and_close_the_window_early() -> None:
    h = _classic()
    h.join(*P3)
    start = h.clock.now
    assert h.ok("alice", "entropy", text="  Zoé 42 ") == {"round": 1, "seat": 0}
    for key in P3:
        (note,) = h.events(key, "contributed")
        assert note == {"event": "contributed", "round": 1, "seat": 0, "room": "t1"}
    assert not any("Zoé" in json.dumps(r.body, default=str) for k in P3 for r in h.inbox[k].items if k != "alice")
    twice = h.refused("alice", "entropy", text="again")
    assert twice.code == "entropy_given"
    h.ok("bob", "entropy", text="")  # the empty text is a contribution too
    assert not h.events("alice", "dealt")
    h.ok("carol", "entropy", text="carol's")
    assert h.clock.now == start and len(h.events("alice", "dealt")) == 1  # everyone gave: dealt at once
    record = _round_over(h)["fairness"]
    assert record["contributions"] == ["Zoé 42", "", "carol's"] and record["bots"] == []
    assert record["server_seed"] == h.drawn[0].hex()


def test_late_malformed_and_unseated_contributions_are_refused_and_change_nothing() -> None:
    h = _classic()
    h.join(*P3)
    h.member("dave")
    h.ok("dave", "watch")
    cases = [
        ("alice", {"text": "a\x07b"}, "bad_entropy", "contribution_characters"),
        ("alice", {"text": "x" * 65}, "bad_entropy", "contribution_too_long"),
        ("alice", {"text": 12}, "bad_entropy", "contribution"),
        ("alice", {}, "bad_entropy", "contribution"),
        ("dave", {"text": "hi"}, "not_allowed", "not_seated"),
    ]
    for key, args, code, reason in cases:
        before = (dict(h.table.entropy.given), h.table.next_deal_at, len(h.inbox["bob"].items))
        refused = h.refused(key, "entropy", **args)
        assert (refused.code, refused.params.get("reason")) == (code, reason), args
        assert (dict(h.table.entropy.given), h.table.next_deal_at, len(h.inbox["bob"].items)) == before
    h.ok("alice", "entropy", text="x" * 64)  # exactly the limit
    h.tick_wake()
    late = h.refused("bob", "entropy", text="too late")
    assert late.code == "entropy_closed"
    record = _round_over(h)["fairness"]
    assert record["contributions"] == ["x" * 64, None, None]


def test_a_standing_seed_contributes_to_every_deal_until_cleared() -> None:
    h = _classic(window=5.0)
    h.member("alice", seed=None)
    h.join(*P3)
    h.ok("alice", "seed", text="my seed")  # in the open window: this deal's contribution too
    assert h.table.entropy.given == {0: "my seed"}
    h.ok("bob", "seed", text="b")
    h.ok("carol", "seed", text="c")
    assert len(h.events("alice", "dealt")) == 1
    first = _round_over(h)["fairness"]
    assert first["contributions"] == ["my seed", "b", "c"]
    # the next window opens with the round's end and runs during the pause (3 s), which it does not
    # shorten; every seat had its seed: the deal comes when the pause ends, not the 5 s window
    ended = h.clock.now
    assert len(h.events("alice", "commitment")) == 2 and h.table.entropy.given == {0: "my seed", 1: "b", 2: "c"}
    h.tick_wake()
    assert h.clock.now == ended + 3 and len(h.events("alice", "dealt")) == 2
    h.ok("carol", "seed", clear=True)  # cleared (the session's command sends no text)
    _round_over(h, n=2)
    ended = h.clock.now
    assert h.table.entropy.given == {0: "my seed", 1: "b"}
    h.tick_wake()
    assert h.clock.now == ended + 5 and len(h.events("alice", "dealt")) == 3  # carol gave nothing: the whole window
    bad = h.refused("alice", "seed", text="\x00")
    assert bad.params["reason"] == "contribution_characters" and h.table.seats[0].seed == "my seed"


def test_president_record_verifies_with_what_the_player_saw_and_tampering_fails() -> None:
    h = _classic()
    h.join(*P3)
    h.ok("bob", "entropy", text="bob's randomness")
    h.tick_wake()
    announced = h.events("bob", "commitment")[0]["commitment"]
    hands = h.events("bob", "dealt")[0]["hands"]
    record = _round_over(h, "bob")["fairness"]
    stored = h.ledger.records[-1]
    assert stored.extra["fairness"] == record and stored.commitment == announced
    seen = {"commitment": announced, "seat": 1, "contribution": "bob's randomness", "hands": hands}
    report = fairness.verify(record, seen)
    assert report.ok, report
    assert {s.code: s.result for s in report.steps}["hands_seen"] == "pass"
    forged = {**record, "server_seed": seed_from_int(7).hex()}
    assert not fairness.verify(forged, seen).ok


def test_explicit_seeds_deal_as_given_and_have_no_record() -> None:
    h = Harness("classic", seats=3, turn_seconds=20, settings={"entropy_window": 0.0})
    h.join(*P3)
    assert h.table.log[0]["seed"] == h.drawn[0].hex()
    assert "fairness" not in _round_over(h)


# -- Speculation: bots contribute, only shown cards are opened, nothing undealt leaks ---------------


def _undealt_secrets(h: Harness) -> tuple[set[str], set[str]]:
    """The undealt cards (codes) of the deal being played and every salt not opened by the reveal."""
    e = h.table.entropy
    deal = fairness.speculation_deal(e.secret, list(e.contributions))
    dealt = 3 * len(e.dealt["players"]) + 1
    deck = deal.commit.decks[deal.chosen]
    undealt = {fairness.CODES[c] for c in deal.dealt[dealt:]}
    salts = {deck.salts[p].hex() for p in deal.permutation[dealt:]}
    return undealt, salts | {e.server_seed.hex(), deal.commit.decks[deal.chosen].seed.hex()}


def test_speculation_with_bots_reveals_only_shown_cards_and_the_record_verifies(tmp_path: Path) -> None:
    h = Harness("speculation", seats=4, bots=3, turn_seconds=10, fair=True,
                settings={"entropy_window": 2.0, "flip_seconds": 1.0})
    h.join("alice")
    announced = h.events("alice", "commitment")[0]
    e = h.table.entropy
    assert announced["commitment"] == fairness.speculation_commitment(e.server_seed)
    h.ok("alice", "entropy", text="alice's own")
    assert h.events("alice", "dealt"), "bots contribute at once: the window closed with alice's text"
    undealt, secrets = _undealt_secrets(h)
    h.run(lambda: bool(h.events("alice", "deal_over")))
    over = h.events("alice", "deal_over")[-1]
    record = over["fairness"]
    assert record["contributions"][0] == "alice's own"
    assert record["bots"] == [1, 2, 3]
    assert record["contributions"][1] == fairness.bot_contribution(announced["commitment"], 1)
    events = h.events("alice")
    seen = {"commitment": announced["commitment"], "seat": 0, "contribution": "alice's own", "events": events}
    report = fairness.verify(record, seen)
    assert report.ok, report.steps
    assert {s.code: s.result for s in report.steps}["cards_seen"] == "pass"
    # privacy: nothing any reader received names an undealt card or carries a secret salt or seed
    for key, inbox in h.inbox.items():
        for item in inbox.items:
            body = item.body if item.kind in ("event", "state") else getattr(item.body, "result", None)
            text = item.line or json.dumps(body, default=str)
            assert not any(s in text for s in secrets), (key, item.kind)
            assert not undealt & set(strings_in(body)), (key, item.kind, undealt & set(strings_in(body)))
    # the stand-alone checker, which trusts nothing of the server's code, agrees
    path = tmp_path / "deal.json"
    path.write_text(json.dumps({"record": record, "seen": seen}), encoding="utf-8")
    checked = subprocess.run([sys.executable, str(ROOT / "docs" / "verify_deal.py"), str(path)],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0 and "OK" in checked.stdout, checked.stdout + checked.stderr
    tampered = json.loads(json.dumps(record))
    tampered["shown"][0]["card"] = next(c for c in fairness.CODES if c != tampered["shown"][0]["card"])
    assert not fairness.verify(tampered, seen).ok


def test_a_refused_deal_discards_the_window_and_the_next_gets_a_fresh_commitment() -> None:
    h = Harness("tdc", seats=3, bots=1, stake=10, turn_seconds=20, fair=True, settings={"entropy_window": 1.0})
    h.join("alice", "bob")
    first = h.events("alice", "commitment")
    assert len(first) == 1
    h.ok("alice", "leave")  # before the deal: two players left, the round cannot start
    h.tick_wake()
    assert not h.events("bob", "dealt") and h.table.entropy is None
    assert h.refused("bob", "entropy", text="late").code == "entropy_closed"


@pytest.mark.parametrize(("rules", "create"), [("classic", {"seats": 3}),
                                              ("speculation", {"seats": 4, "bots": 1, "flip_seconds": 1})])
def test_a_durable_table_restarted_mid_round_replays_the_deal_and_still_reveals_it(
        rules: str, create: dict[str, Any]) -> None:
    """The durable log (server/table/durable.py) brings the deal back byte for byte, and the facts
    beside it the record: the table rebuilt in the middle of the round ends it with a record that
    verifies against what a player saw before the restart."""
    create = dict(create)
    flip = create.pop("flip_seconds", None)
    settings = {"entropy_window": 2.0, **({"flip_seconds": flip} if flip else {})}
    h = Harness(rules, turn_seconds=20, fair=True, settings=settings, **create)
    durable.enable(h.table)
    stored: list[dict[str, Any]] = []
    journal = durable.Journal(h.table)

    def write(h: Harness) -> None:
        stored.extend(journal.take())
        journal.written()

    h.after_call.insert(0, write)
    h.join(*P3)
    h.ok("alice", "entropy", text="before the crash")
    h.ok("bob", "seed", text="bob's standing seed")
    h.run(lambda: bool(h.events("carol", "dealt")))
    for _ in range(3):  # a few moves into the round
        h.tick_wake()
    before = {s: h.table.match.view(s).to_dict() for s in range(h.table.opts.seats)}
    again = durable.restore(h.table.id, durable.table_config(h.table), list(stored), h.settings, now=h.clock.now,
                            resume_window=0.0, draw_seed=h._draw)
    assert {s: again.match.view(s).to_dict() for s in before} == before  # the same cards, byte for byte
    assert again.seats[1].seed == "bob's standing seed"
    h.table = again  # the server died; the rebuilt table plays on, its people back
    for key in P3:
        h.connected(key)
    end = h.table.adapter.round_end
    h.run(lambda: bool(h.events("carol", end)))
    record = h.events("carol", end)[0]["fairness"]
    assert record["contributions"][:3] == ["before the crash", "bob's standing seed", None]
    seen = {"commitment": h.events("carol", "commitment")[0]["commitment"], "seat": 2, "contribution": None,
            "hands": h.events("carol", "dealt")[0].get("hands"), "events": h.events("carol")}
    report = fairness.verify(record, seen)
    assert report.ok, report.steps


def test_every_round_of_a_tdc_match_with_a_bot_verifies() -> None:
    h = Harness("tdc", seats=4, bots=1, stake=10, turn_seconds=20, fair=True, settings={"entropy_window": 1.0})
    h.join("alice", "bob", "carol")
    for n in (1, 2, 3):
        over = _round_over(h, "bob", n)
        record = over["fairness"]
        dealt = h.events("bob", "dealt")[n - 1]
        commitment = h.events("bob", "commitment")[n - 1]["commitment"]
        seen = {"commitment": commitment, "seat": 1, "contribution": None, "hands": dealt["hands"]}
        report = fairness.verify(record, seen)
        assert report.ok, report.steps
        assert record["bots"] == [3] and record["dealer_drawn"] == (n == 1)
        assert h.ledger.records[-1].extra["fairness"] == record
