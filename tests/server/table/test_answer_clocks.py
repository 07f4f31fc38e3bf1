"""Time a person needs at a Speculation table, on the fake clock (S8, S9, S12d, S12f).

An offer put to a person waits for the answer on its own clock: the seller's top card is not
turned for them meanwhile (that would make the offer lapse, S12d), everyone sees the seconds
left, and when they run out the table declines for the person. Offers to bots have no clock.
"""

from __future__ import annotations

from server.config import load_config
from tests.server.table.harness import Harness
from tests.server.table.test_timeouts import _spec, key_of


def _turning(h: Harness) -> tuple[int, str]:
    """Three people; the auction is kept and turning starts: the seat on turn and its key."""
    dealer = _spec(h)
    h.ok(key_of(h, dealer), "keep")
    turn = h.state("alice")["turn"]
    return turn, key_of(h, turn)


def test_S9_an_offer_to_the_person_on_turn_waits_for_the_answer_and_their_card_is_not_turned_meanwhile() -> None:
    h = Harness("speculation", seats=3, turn_seconds=10, settings={"flip_seconds": 5, "offer_seconds": 15})
    seller, seller_key = _turning(h)
    buyer = (seller + 1) % 3
    buyer_key = key_of(h, buyer)
    offered_at = h.clock.now
    h.ok(buyer_key, "offer", to=seller, cards=1, price=2)
    offered = h.events(seller_key, "offered")[-1]
    assert offered["answer_seconds"] == 15  # said with the offer: the seller's time to answer
    for key in ("alice", "bob", "carol"):  # everyone sees the same clock (S9 offers are public)
        assert [o.get("left") for o in h.state(key)["offers"]] == [15.0]
    assert h.state(seller_key)["deadline"] == 15.0  # the seller's own flip waits for the answer
    h.tick(offered_at + 5)  # the flip time alone has passed: the card is not turned, the offer stands
    assert not h.events("alice", "turned") and not h.events("alice", "lapsed")
    assert h.table.state_for(None, h.clock.now)["offers"][0]["left"] == 10.0
    h.tick(offered_at + 15)  # no answer: declined for the seller (not lapsed), the buyer's chips free
    assert [(e["offer"], e.get("timeout")) for e in h.events("alice", "declined")] == [(offered["offer"], True)]
    assert not h.events("alice", "lapsed")
    assert not h.ledger.holds


def test_S9_the_seller_answers_in_time() -> None:
    h = Harness("speculation", seats=3, turn_seconds=10, settings={"flip_seconds": 5, "offer_seconds": 15})
    seller, seller_key = _turning(h)
    buyer_key = key_of(h, (seller + 1) % 3)
    h.ok(buyer_key, "offer", to=seller, cards=1, price=2)
    h.advance(12)
    h.ok(seller_key, "accept", offer=h.events(seller_key, "offered")[-1]["offer"])
    assert len(h.events("alice", "traded")) == 1 and h.table.answers.wake is None
    assert "left" not in str(h.state("alice")["offers"])


def test_S9_an_offer_to_a_bot_has_no_clock() -> None:
    h = Harness("speculation", seats=3, bots=2, turn_seconds=10, settings={"flip_seconds": 5, "offer_seconds": 15})
    h.seed_for_next_deal(lambda m, events: events[-1].name != "deal_over")
    h.join("alice")
    h.run(lambda: h.state("alice").get("turn") is not None and not h.state("alice").get("auction"))
    bot = next(s.index for s in h.table.seats if s.bot is not None and h.table.match.view(None).seats[s.index].facedown)
    h.ok("alice", "offer", to=bot, cards=1, price=1)
    assert "answer_seconds" not in h.events("alice", "offered")[-1]
    assert h.table.answers.wake is None


def test_S8_S9_the_default_times_are_sized_for_a_person() -> None:
    """A person's top card is not turned for them before they can read the table and offer (S8,
    S12f); an offer waits long enough to be read and answered (S9); a cut window leaves time to
    read "a cut may follow" and type the cut (T9)."""
    cfg = load_config(None)
    assert cfg.flip_seconds >= 10 and cfg.offer_seconds >= 15 and cfg.cut_window >= 5


def test_S9_an_offer_to_a_person_who_is_away_has_no_clock_so_nobody_can_hold_the_table_with_offers() -> None:
    h = Harness("speculation", seats=3, turn_seconds=10, settings={"flip_seconds": 5, "offer_seconds": 15})
    seller, seller_key = _turning(h)
    h.disconnected(seller_key)  # the seat is kept (grace) while the clocks run
    turned_by = h.clock.now + 5
    h.ok(key_of(h, (seller + 1) % 3), "offer", to=seller, cards=1, price=2)
    assert "answer_seconds" not in h.events("alice" if seller_key != "alice" else "bob", "offered")[-1]
    assert h.table.answers.wake is None
    h.tick(turned_by)  # the seller's card is turned by the clock as before: the offer lapses (S12d)
    assert h.events(key_of(h, (seller + 1) % 3), "lapsed")
