"""Seat claims: one account holds at most one seat in the whole server; a refused join gives back its
claim; leaving gives it back at once, also from a round a bot plays to its end on the leaver's stake
(T1/S11)."""

from __future__ import annotations

from server.storage.api import NoSuchAccount
from server.table import Balance, Claim, Gone, Placed, Released
from tests.server.table.harness import Harness, simple_president


def test_one_account_cannot_hold_two_seats_at_one_table() -> None:
    h = Harness("classic", seats=4)
    h.join("alice")
    refused = h.refused("alice", "join")
    assert (refused.code, dict(refused.params)) == ("not_allowed", {"reason": "already_seated"})
    # the same account from another connection (another member key)
    h.member("alice-2", account="alice", name="Alice")
    refused = h.refused("alice-2", "join")
    assert (refused.code, dict(refused.params)) == ("already_in_room", {"room": "t1"})
    # the claim that was refused was not ours to give back: alice still holds her seat
    assert h.items_of(Released) == [] and h.claims.holder("alice") == "t1"
    assert h.items_of(Placed) == [Placed("alice", 0)]
    assert [s.member for s in h.table.seats] == ["alice", None, None, None]


def test_two_tables_sharing_the_registry_give_one_account_one_seat() -> None:
    one = Harness("classic", seats=3, table_id="t1")
    two = Harness("tdc", seats=3, stake=2, table_id="t2", claims=one.claims, ledger=one.ledger, clock=one.clock)
    one.join("alice")
    two.member("alice")
    refused = two.refused("alice", "join")
    assert (refused.code, dict(refused.params)) == ("already_in_room", {"room": "t1"})
    assert two.items_of(Placed) == [] and two.items_of(Released) == []
    assert all(s.empty for s in two.table.seats) and two.events("alice") == []
    assert not two.effects_of(Balance)  # refused before anything else was asked
    # leaving a table that has not started gives the claim back at once
    one.ok("alice", "leave")
    assert one.released == ["alice"] and one.claims.holder("alice") is None
    two.join("alice")
    assert one.claims.holder("alice") == "t2"


def test_a_join_refused_for_its_chips_gives_its_claim_back() -> None:
    h = Harness("tdc", seats=3, stake=500)
    h.member("alice", chips=100)
    refused = h.refused("alice", "join")
    assert (refused.code, dict(refused.params)) == ("insufficient_chips", {"need": 500, "chips": 100})
    assert h.effects_of(Claim) == [Claim("alice", "t1")] and h.released == ["alice"]
    assert h.claims.holder("alice") is None and h.where == {}
    assert all(s.empty for s in h.table.seats)
    # the store failing to read the balance: refused with the store's code, the claim given back too
    h.member("bob")
    h.refuse(Balance, NoSuchAccount("bob"))
    refused = h.refused("bob", "join")
    assert refused.code == "no_such_account" and h.released == ["alice", "bob"] and len(h.claims) == 0
    # and nothing stays half done: bob can sit now
    h.join("bob")
    assert h.claims.holder("bob") == "t1" and h.items_of(Placed) == [Placed("bob", 0)]


def test_watching_claims_no_seat() -> None:
    h = Harness("classic", seats=3)
    h.ok("zoe", "watch")
    assert h.effects_of(Claim) == [] and h.claims.holder("zoe") is None
    h.ok("zoe", "leave")
    assert h.released == [] and Gone("zoe") in h.items


def test_classic_leaving_mid_match_gives_the_claim_back_at_once() -> None:
    h = Harness("classic", seats=3, turn_seconds=60)
    h.join("alice", "bob", "carol")
    h.ok("bob", "leave")  # P16: a bot plays his seat, he is free now
    assert h.released == ["bob"] and h.claims.holder("bob") is None
    assert h.events("alice", "replaced")[0]["name"] == "Bob"


def test_tdc_leaving_mid_round_frees_the_person_at_once() -> None:
    """T1, T13: a bot plays the seat a person left to the end of the round on their stake; the person
    is free at once (they may sit elsewhere), the chips at stake stay in the round's escrow until it
    settles, and no chip is created or lost."""
    h = Harness("tdc", seats=4, stake=2, turn_seconds=20)
    other = Harness("tdc", seats=3, stake=2, bots=2, table_id="t2", claims=h.claims, ledger=h.ledger,
                    clock=h.clock)
    keys = ["alice", "bob", "carol", "dave"]
    h.join(*keys)
    total = h.ledger.total()
    h.run(lambda: h.ledger.escrowed() > 0, act=simple_president(keys))
    ok = h.ok("dave", "leave")
    assert ok["until"] == "round_end" and ok["at_stake"] == 2
    assert Gone("dave") in h.items and h.released == ["dave"] and h.claims.holder("dave") is None
    held = h.ledger.escrowed()
    # free: he sits at another staked table while his seat here plays on with his stake
    other.join("dave")
    assert h.claims.holder("dave") == "t2"
    # not at this table again before the round ends (his account's chips here settle per account)
    h.member("dave-2", account="dave", name="Dave")
    refused = h.refused("dave-2", "join")
    assert (refused.code, dict(refused.params)) == ("not_allowed", {"reason": "left_here"})
    assert h.ledger.escrowed() >= held  # his stake stayed in t1's escrow
    h.run(lambda: bool(h.events("alice", "round_over")), act=simple_president(keys[:3]))
    # the round settled: his claim at t2 is untouched, and the chips add up
    assert h.released == ["dave"] and h.claims.holder("dave") == "t2"
    assert h.ledger.total() == total
    # between rounds a leaver is free at once
    h.ok("carol", "leave")
    assert h.released == ["dave", "carol"]


def test_speculation_leaving_mid_deal_frees_the_person_at_once() -> None:
    h = Harness("speculation", seats=4, turn_seconds=5, settings={"flip_seconds": 2})
    h.join("alice", "bob", "carol", "dave")
    total = h.ledger.total()
    h.ok("dave", "leave")
    assert h.released == ["dave"] and h.claims.holder("dave") is None
    h.run(lambda: bool(h.events("alice", "deal_over")))  # the clock plays every seat (S12f, S7)
    assert h.released == ["dave"] and h.claims.holder("dave") is None
    assert h.ledger.total() == total


def test_leaving_after_the_match_gives_the_claim_back_at_once() -> None:
    h = Harness("classic", seats=3, bots=2)
    h.join("alice")
    h.run(lambda: h.table.status == "over", act=simple_president(["alice"]))
    assert h.claims.holder("alice") == "t1"
    h.ok("alice", "leave")
    assert h.released == ["alice"] and h.claims.holder("alice") is None
    assert h.closed == "empty"  # nobody left in the room
