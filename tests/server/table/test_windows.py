"""People's windows, the moves the server makes for them, and rematches, on the fake clock.

A Speculation table where a person sits leaves a trade window after every auction
(S9: time to offer before the next card turns); autopass passes for a person after a
short pause when passing is all they can do; a finished table plays again on `rematch`.
"""

from __future__ import annotations

from engine.president import Pass
from tests.server.table.harness import Harness
from tests.server.table.test_timeouts import _spec, key_of


def test_S9_a_trade_window_follows_every_auction_before_any_turn() -> None:
    h = Harness("speculation", seats=3, turn_seconds=10, settings={"flip_seconds": 4, "trade_window": 6})
    dealer = _spec(h)
    owner = key_of(h, dealer)
    h.ok(owner, "keep")
    state = h.state("alice")
    assert state["window"] == {"kind": "trade", "left": 6.0}
    # the turner's own time starts once the window has passed: 6 + 4 s
    turner = key_of(h, state["turn"])
    assert h.state(turner)["deadline"] == 10.0
    kept_at = h.clock.now
    # a person offers during the window: the window stays open
    seller = next(s for s in range(3) if s != state["turn"])
    h.ok(turner, "offer", to=seller, cards=1, price=1)
    assert h.state("alice")["window"]["kind"] == "trade"
    h.tick_wake()  # the window ends: shown, the turn is now the turner's alone
    assert h.clock.now == kept_at + 6 and h.state("alice")["window"] is None
    assert not h.events("alice", "turned")
    h.tick_wake()  # then the flip time
    assert h.clock.now == kept_at + 10 and len(h.events("alice", "turned")) == 1


def test_S9_the_person_on_turn_may_turn_at_once_and_the_window_closes() -> None:
    h = Harness("speculation", seats=3, turn_seconds=10, settings={"flip_seconds": 4, "trade_window": 6})
    dealer = _spec(h)
    h.ok(key_of(h, dealer), "keep")
    turner = key_of(h, h.state("alice")["turn"])
    h.ok(turner, "turn")
    assert h.state("alice")["window"] is None and len(h.events("alice", "turned")) == 1


def test_autopass_passes_after_the_pause_when_passing_is_all_one_can_do() -> None:
    h = Harness("classic", seats=3, turn_seconds=30, settings={"autopass_delay": 2.0})
    h.join("alice", "bob", "carol")
    match = h.table.match
    # play until someone on turn can only pass, with autopass asked by everyone
    for key in ("alice", "bob", "carol"):
        h.ok(key, "autopass", on=True)
    for _ in range(200):
        turn = match.turn
        if turn is None:
            h.tick_wake()
            continue
        legal = match.legal_actions(turn)
        if len(legal) == 1 and isinstance(legal[0], Pass):
            break
        key = key_of(h, turn)
        # the strongest play: the others soon have nothing to follow with
        plays = [a for a in legal if not isinstance(a, Pass)]
        h.ok(key, "play", cards=[str(c) for c in plays[-1].cards])
    else:
        raise AssertionError("nobody was ever left with a pass only")
    # the server waits the pause, then passes for the seat (it asked for it)
    stuck = match.turn
    asked_at = h.clock.now
    assert h.table.auto_at == asked_at + 2.0
    before = len(h.events("alice", "passed"))
    h.tick(asked_at + 1.9)
    assert match.turn == stuck  # not before the pause
    h.tick(h.table.auto_at)
    passed = h.events("alice", "passed")[before:]
    assert passed and passed[0]["seat"] == stuck


def test_autopass_off_by_default_the_clock_decides() -> None:
    h = Harness("classic", seats=3, turn_seconds=30, settings={"autopass_delay": 2.0})
    h.join("alice", "bob", "carol")
    assert h.table.auto_at is None
    assert all(not s.prefs.get("autopass") for s in h.table.seats)


def test_rematch_plays_a_new_match_at_the_same_table_with_fresh_bots() -> None:
    from tests.server.table.harness import simple_president

    h = Harness("classic", seats=3, rounds=1, bots=1)
    h.join("alice", "bob")
    h.run(lambda: h.table.status == "over", act=simple_president(("alice", "bob")))
    # a move at a finished table is told the match is over (not that it has not begun)
    refused = h.refused("alice", "play", cards=["3c"])
    assert (refused.code, refused.params["reason"]) == ("not_allowed", "over")
    first, first_rounds = h.table.match, [r.round_id for r in h.ledger.records]
    h.ok("alice", "rematch")
    assert h.table.status == "playing" and h.table.match is not first and h.table.match.round == 1
    assert [s.member for s in h.table.seats[:2]] == ["alice", "bob"] and h.table.seats[2].bot is not None
    assert h.events("bob", "rematch")[-1]["name"] == "Alice"
    # a rematch is for a finished match only, and for its players
    assert h.refused("bob", "rematch").params["reason"] == "not_over"
    # its rounds are new rounds: their ids are not the first match's (a round id is recorded once)
    h.run(lambda: h.table.status == "over", act=simple_president(("alice", "bob")))
    second = [r.round_id for r in h.ledger.records if r.round_id not in first_rounds]
    assert len(second) == 2 and not set(second) & set(first_rounds)  # a round and the match


def test_a_pending_autopass_is_dropped_between_deals_so_the_table_never_waits_for_a_time_gone_by() -> None:
    """An autopass waiting for its pause when the round ends has nothing left to pass: the table
    forgets it, and its next wake is the next deal (before, the wake stayed in the past until the
    deal, and the room asked the table again and again). The harness checks after every input that
    the wake is not due already; seeded matches where everyone has autopass on and plays the weakest
    play end rounds with one pending."""
    from tests.server.table.harness import simple_president

    for rules in ("classic", "tdc"):
        h = Harness(rules, seats=3, rounds=3, turn_seconds=30, settings={"autopass_delay": 2.0, "round_pause": 3.0})
        h.join("alice", "bob", "carol")
        for key in ("alice", "bob", "carol"):
            h.ok(key, "autopass", on=True)
        table = h.table
        h.run(lambda table=table: table.status == "over", act=simple_president(("alice", "bob", "carol")))
