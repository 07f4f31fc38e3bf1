"""A person's time bank (``extend``), on the fake clock: seconds per match added on demand to every
clock that waits for the person, shown to everyone, refused when nothing waits or nothing is left."""

from __future__ import annotations

from tests.server.table.harness import Harness
from tests.server.table.test_cuts import _nobody_cuts_the_persons_lead, _window_table
from tests.server.table.test_timeouts import key_of

BANK = {"time_bank": 60.0, "time_bank_step": 15.0}


def _classic() -> tuple[Harness, str]:
    h = Harness("classic", seats=3, turn_seconds=30, settings=BANK)
    h.join("alice", "bob", "carol")
    return h, key_of(h, h.table.match.turn)


def test_P5_extend_adds_the_step_to_the_persons_turn_and_everyone_sees_the_bank() -> None:
    h, key = _classic()
    start = h.clock.now
    assert [s["bank"] for s in h.state("alice")["seats"]] == [60.0, 60.0, 60.0]
    assert h.ok(key, "extend") == {"seconds": 15.0, "bank": 45.0}
    seat = h.seat(key)
    assert h.state(key)["deadline"] == 45.0
    assert h.state("alice")["seats"][seat]["bank"] == 45.0  # the same for every reader
    assert h.events("alice", "extended")[-1] == {"event": "extended", "seat": seat, "seconds": 15.0, "bank": 45.0,
                                                 "room": "t1"}
    h.tick(start + 30)  # the turn's own 30 s: not yet
    assert h.table.match.turn == seat
    h.tick(start + 45)
    assert h.table.match.turn != seat  # the time-out came with the added seconds


def test_extend_empties_the_bank_then_is_refused_and_changes_nothing() -> None:
    h, key = _classic()
    for left in (45.0, 30.0, 15.0, 0.0):
        assert h.ok(key, "extend")["bank"] == left
    deadlines = dict(h.table.deadlines)
    refused = h.refused(key, "extend")
    assert (refused.code, refused.params["reason"]) == ("not_allowed", "no_time_left")
    assert h.table.deadlines == deadlines


def test_extend_with_nothing_waiting_for_the_person_is_refused() -> None:
    h, key = _classic()
    other = next(k for k in ("alice", "bob", "carol") if k != key)
    refused = h.refused(other, "extend")
    assert (refused.code, refused.params["reason"]) == ("not_allowed", "no_clock")
    assert h.table.bank.left(other) == 60.0 and not h.events("alice", "extended")


def test_T9_extend_during_the_cut_window_moves_the_window_and_the_turn_after_it() -> None:
    h = _window_table(_nobody_cuts_the_persons_lead)
    played_at = h.clock.now
    h.ok("alice", "play", cards=[str(h.table.match.hand(0)[0])])
    assert h.ok("bob", "extend")["seconds"] == 15.0  # bob plays in the round: the window is his too
    state = h.state("alice")
    assert state["window"] == {"kind": "cut", "left": 18.0} and h.state("bob")["deadline"] == 38.0
    h.tick_wake()
    assert h.clock.now == played_at + 18.0 and h.state("bob")["window"] is None


def test_S9_extend_gives_the_seller_more_time_to_answer_an_offer() -> None:
    from tests.server.table.test_answer_clocks import _turning

    h = Harness("speculation", seats=3, turn_seconds=10,
                settings={"flip_seconds": 5, "offer_seconds": 15, **BANK})
    seller, seller_key = _turning(h)
    h.ok(key_of(h, (seller + 1) % 3), "offer", to=seller, cards=1, price=2)
    h.ok(seller_key, "extend")
    assert h.state("alice")["offers"][0]["left"] == 30.0 and h.state(seller_key)["deadline"] == 30.0


def test_a_rematch_fills_every_bank_again() -> None:
    from tests.server.table.harness import simple_president

    h = Harness("classic", seats=3, rounds=1, bots=1, settings=BANK)
    h.join("alice", "bob")
    while h.table.match.turn is None or h.table.seats[h.table.match.turn].member is None:
        h.tick_wake()
    h.ok(key_of(h, h.table.match.turn), "extend")
    h.run(lambda: h.table.status == "over", act=simple_president(("alice", "bob")))
    h.ok("alice", "rematch")
    assert h.table.bank.left("alice") == h.table.bank.left("bob") == 60.0
