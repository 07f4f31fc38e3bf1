"""Whole matches of the three tables, driven only by inputs and the fake clock.

Every call is checked by the harness (chips conserved, nothing due left behind,
nothing happening before ``wake``); these tests check what the rules say a match
is: five rounds and winners (P15), stakes escrowed and settled once a round
(T13), antes, a sale and a trade moving chips between players (S3, S7, S9).
"""

from __future__ import annotations

from typing import Any

from server.storage.api import HOUSE, FundBot, OpenRound, ReleaseBot, SettleRound, Transfer
from server.table import Closed, Gone, Record, Released
from tests.server.table.harness import Harness, simple_president

PEOPLE = ["alice", "bob"]


def test_P15_classic_plays_five_rounds_and_names_the_winners() -> None:
    h = Harness("classic", seats=4, bots=2)
    h.join(*PEOPLE)
    h.run(lambda: h.table.status == "over", act=simple_president(PEOPLE))
    rounds = h.events("alice", "round_over")
    assert [r["round"] for r in rounds] == [1, 2, 3, 4, 5]  # P15: five rounds
    totals = [0, 0, 0, 0]
    for r in rounds:
        assert sorted(r["scores"]) == [0, 1, 2, 3]  # P14: N-1 ... 0
        for rank, seat in enumerate(r["ranking"]):
            assert r["scores"][seat] == 3 - rank
            totals[seat] += r["scores"][seat]
        assert r["totals"] == totals
    over = h.events("alice", "match_over")
    assert len(over) == 1 and over == h.events("bob", "match_over")
    assert over[0]["totals"] == totals
    assert over[0]["winners"] == [s for s in range(4) if totals[s] == max(totals)]  # P15 (ties share)
    assert h.state("alice")["status"] == "over" and h.state("bob")["status"] == "over"
    # every round went to the history, with its log
    *records, match = [e.record for e in h.effects_of(Record)]
    assert [r.result["round"] for r in records] == [1, 2, 3, 4, 5]
    assert all(r.rules == "classic" and r.seats[:2] == ["Alice", "Bob"] for r in records)
    # and the match its own record, last: the match_over event, under the match's id
    assert match.round_id == "t1-u1-match" and match.result == {k: over[0][k] for k in ("event", "winners", "totals")}
    assert match.rules == "classic" and list(match.seats) == list(records[-1].seats)
    assert not h.effects_of(OpenRound) and not h.effects_of(Transfer)  # classic moves no chips
    # the room closes close_after_over later; everyone's seat claim ends then, not before
    assert h.claims.holder("alice") == "t1" and h.claims.holder("bob") == "t1"
    over_at = h.clock.now
    h.run(lambda: h.closed is not None)
    assert h.closed == "over" and h.clock.now == over_at + h.settings.close_after_over
    assert sorted(h.released) == PEOPLE and len(h.claims) == 0
    assert {i.member for i in h.items_of(Gone)} == set(PEOPLE) and h.where == {}
    assert h.table.wake is None


def test_T13_tdc_rounds_escrow_and_settle_each_stake_once() -> None:
    stake = 10
    h = Harness("tdc", seats=4, bots=2, stake=stake, rounds=3)
    start = {k: h.balance(k) for k in PEOPLE}
    h.join(*PEOPLE)
    h.run(lambda: h.table.status == "over", act=simple_president(PEOPLE))
    rounds = h.events("alice", "round_over")
    assert len(rounds) == 3
    escrows, settles = h.effects_of(OpenRound), h.effects_of(SettleRound)
    assert [e.round_id for e in escrows] == [s.round_id for s in settles] == ["t1-u1-1", "t1-u1-2", "t1-u1-3"]
    accounts = [h.account(s) for s in range(4)]
    for escrow, settle, result in zip(escrows, settles, rounds, strict=True):
        # T13: S from every playing seat when the round starts...
        assert dict(escrow.stakes) == {a: stake for a in accounts}
        # ...and back by title: Président 2S, VP 1.5S, vice-last 0.5S, last 0; nothing created or lost
        by_title = {"president": 2 * stake, "vice_president": 3 * stake // 2, "vice_last": stake // 2, "last": 0}
        assert dict(settle.payouts) == {accounts[s]: by_title[result["titles"][s]] for s in range(4)}
        assert sum(result["chips"]) == 0
        assert all(settle.payouts[accounts[s]] - stake == result["chips"][s] for s in range(4))
    assert all(book.state == "settled" for book in h.ledger.rounds.values())
    assert set(h.ledger.settle_calls.values()) == {1}  # each round settled exactly once
    assert h.ledger.escrowed() == 0
    for i, key in enumerate(PEOPLE):
        assert h.balance(key) == start[key] + sum(r["chips"][i] for r in rounds)
    # T12: from round 2 on, the titles of the previous round exchanged cards
    exchanges = h.events("alice", "exchange")
    assert len(exchanges) == 2 * 4  # two rounds, two pairs, both ways
    # the bots sat on chips funded by the house (T13 like anyone) and gave them back at the end
    assert {e.display for e in h.effects_of(FundBot)} == {"t1-u1-2", "t1-u1-3"}
    assert sorted(e.display for e in h.effects_of(ReleaseBot)) == ["t1-u1-2", "t1-u1-3"]
    assert h.ledger.balances["bot:t1-u1-2"] == h.ledger.balances["bot:t1-u1-3"] == 0
    assert h.ledger.balances[HOUSE] == 1_000_000 - sum(h.balance(k) - start[k] for k in PEOPLE)
    h.run(lambda: h.closed is not None)
    assert h.closed == "over" and len(h.claims) == 0


def _spec_people(h: Harness, keys: list[str], *, keep: bool = True) -> Any:
    """Speculation people: turn when on turn; as owner of an auction keep (or wait for the clock)."""

    def act(h: Harness) -> bool:
        m = h.table.match
        if m is None or h.table.status != "playing" or m.needs_deal():
            return False
        for key in keys:
            seat = h.table.seat_of(key)
            auction = m.view(seat).auction
            if auction is not None:
                if keep and auction.seat == seat:
                    h.ok(key, "keep")
                    return True
                continue
            if m.view(seat).turn == seat:
                h.ok(key, "turn")
                return True
        return False

    return act


def test_S7_S9_speculation_with_a_sale_and_a_trade_conserves_chips() -> None:
    keys = ["alice", "bob", "carol"]
    h = Harness("speculation", seats=3, ante=2, rounds=3)
    h.after_call.append(_engine_chips_are_the_ledgers)
    h.join("alice", "bob")
    # the first deal: no trump ace (S6), so its auction opens (S7)
    h.seed_for_next_deal(lambda m, events: events[-1].name == "auction")
    h.join("carol")
    dealer = h.table.match.view(None).dealer
    assert h.table.match.round == 1
    owner = keys[dealer]
    buyer, other = (k for k in keys if k != owner)
    before = {k: h.balance(k) for k in keys}
    # S3: the antes (the dealer's double) went into the deal's escrow
    assert h.ledger.rounds["t1-u1-1"].stakes == {h.member(k).account: (4 if k == owner else 2) for k in keys}
    # S7: bids, the owner sells to the best
    h.ok(buyer, "bid", amount=3)
    assert h.refused(other, "bid", amount=3).code == "illegal_play"  # not above the best bid
    h.ok(other, "bid", amount=4)
    h.ok(buyer, "bid", amount=6)
    h.ok(owner, "sell")
    sold = h.events(owner, "sold")
    assert len(sold) == 1 and (sold[0]["seat"], sold[0]["to"], sold[0]["price"]) == (dealer, h.seat(buyer), 6)
    assert h.balance(owner) == before[owner] + 6 and h.balance(buyer) == before[buyer] - 6
    assert h.balance(other) == before[other]
    # S9: the holder buys the other's top card, unseen
    offer = h.ok(buyer, "offer", to=h.seat(other), cards=1, price=2)["offer"]
    assert h.balance(buyer) == before[buyer] - 6  # an offer moves nothing yet
    h.ok(other, "accept", offer=offer)
    assert h.balance(buyer) == before[buyer] - 8 and h.balance(other) == before[other] + 2
    traded = h.events(owner, "traded")
    assert len(traded) == 1 and "cards" in traded[0] and traded[0]["price"] == 2
    pays = [(p.reason, p.amount, p.round_id) for p in h.effects_of(Transfer)]
    assert pays == [("sold", 6, "t1-u1-1"), ("traded", 2, "t1-u1-1")]
    # the rest of the match: people turn, owners keep
    h.run(lambda: h.table.status == "over", act=_spec_people(h, keys))
    deals = h.events("alice", "deal_over")
    assert [d["round"] for d in deals] == [1, 2, 3]
    assert len(h.effects_of(SettleRound)) == 3 and h.ledger.escrowed() == 0
    over = h.events("alice", "match_over")[0]
    # S11: the match result is the chips each player won, and it is the ledger's
    for key in keys:
        seat = h.seat(key)
        assert over["totals"][seat] == h.balance(key)
        assert over["changes"][seat] == h.balance(key) - 1000
    assert sum(over["changes"]) == 0
    h.run(lambda: h.closed is not None)
    assert h.closed == "over" and sorted(h.released) == keys and len(h.claims) == 0
    assert [i for i in h.items if isinstance(i, Closed)] == [Closed("over")]
    assert len([i for i in h.items if isinstance(i, Released)]) == 3


def _engine_chips_are_the_ledgers(h: Harness) -> None:
    """S11: a person's chips in the match are the ledger's balance, the pool is the deal's escrow."""
    m = h.table.match
    if m is None:
        return
    view = m.view(None)
    for seat in h.table.seats:
        if seat.member is not None:
            assert view.seats[seat.index].chips == h.ledger.balance(seat.account), seat
    open_rounds = h.ledger.open_rounds()
    pool = sum(sum(h.ledger.rounds[r].stakes.values()) for r in open_rounds)
    assert view.pool == (pool if not m.needs_deal() else 0)


def test_S11_speculation_bots_play_on_the_chips_the_match_counts() -> None:
    """A bot's chips are the house's stake for the whole match: the ledger and the match agree on them
    after every deal (no top-up between deals behind the match's back), and its result is the ledger's."""
    h = Harness("speculation", seats=3, bots=1, rounds=6, turn_seconds=5, settings={"flip_seconds": 2})
    h.after_call.append(_every_seats_chips_are_the_ledgers)
    h.join("alice", "bob")
    h.run(lambda: h.table.status == "over")  # the clock plays for the people (S7 keep, S12f turn)
    over = h.events("alice", "match_over")[0]
    bot = next(s for s in h.table.seats if s.bot is not None)
    assert over["changes"][bot.index] != 0  # the bot's chips did move (a weaker test otherwise)
    released = h.effects_of(ReleaseBot)
    assert [r.display for r in released] == [bot.bot_display]
    assert h.ledger.bots_released[bot.bot_display] == 1
    assert h.ledger.balances[HOUSE] == 1_000_000 - over["changes"][h.seat("alice")] - over["changes"][h.seat("bob")]


def _every_seats_chips_are_the_ledgers(h: Harness) -> None:
    m = h.table.match
    if m is None or h.table.status != "playing":
        return
    view = m.view(None)
    for seat in h.table.seats:
        if seat.account is not None:
            assert view.seats[seat.index].chips == h.ledger.balance(seat.account), seat


def _simple_round(m: Any) -> Any:
    """The round ``simple_president`` people would play on this copy of the match: its round_over."""
    while True:
        pending = m.pending()
        if not pending:
            raise AssertionError("the round stopped")
        seat = pending[0].seat
        legal = [a for a in m.legal_actions(seat) if a.cmd != "cut"]
        action = next((a for a in legal if a.cmd in ("play", "give")), None) or next(a for a in legal if a.cmd == "pass")
        for ev in m.apply(action):
            if ev.name == "round_over":
                return ev


def test_T13_T12_a_player_who_cannot_cover_the_stake_sits_the_round_out_and_exchanges_nothing() -> None:
    keys = ["alice", "bob", "carol", "dave"]
    h = Harness("tdc", seats=4, stake=10, turn_seconds=20)
    h.member("alice", chips=10)  # one stake, no more
    for seat, key in enumerate(keys[1:], start=1):
        h.ok(key, "join", seat=seat)
    h.seed_for_next_deal(lambda m, events: _simple_round(m).ranking[-1] == 0, present=(0, 1, 2, 3))
    h.ok("alice", "join", seat=0)
    act = simple_president(keys)
    h.run(lambda: bool(h.events("bob", "round_over")), act=act)
    first = h.events("bob", "round_over")[0]
    assert first["titles"][0] == "last" and h.balance("alice") == 0
    h.tick_wake()  # round 2
    assert h.events("bob", "dealt")[-1]["present"] == [1, 2, 3]
    assert "alice" not in h.ledger.rounds["t1-u1-2"].stakes and len(h.ledger.rounds["t1-u1-2"].stakes) == 3
    assert h.table.seat_of("alice") == 0 and "alice" not in h.released  # still seated, just not playing
    assert h.state("alice")["seats"][0]["playing"] is False and h.state("alice")["hand"] == []
    h.run(lambda: len(h.events("bob", "round_over")) == 2, act=act)
    # T12: alice's pair (last -> Président) is skipped, the Vice pair still exchanged, both ways
    exchanges = [(e["from"], e["to"]) for e in h.events("bob", "exchange")]
    vp, vl = first["titles"].index("vice_president"), first["titles"].index("vice_last")
    assert exchanges == [(vl, vp), (vp, vl)]
    second = h.events("bob", "round_over")[1]
    assert second["titles"][0] is None and second["chips"][0] == 0 and sum(second["chips"]) == 0
    assert h.balance("alice") == 0


def test_T12_a_newcomer_on_the_seat_of_last_rounds_last_exchanges_nothing() -> None:
    keys = ["alice", "bob", "carol"]
    h = Harness("tdc", seats=3, stake=2, turn_seconds=20)
    h.join(*keys)
    h.run(lambda: bool(h.events("alice", "round_over")), act=simple_president(keys))
    titles = h.events("alice", "round_over")[0]["titles"]
    last = titles.index("last")
    leaver = h.table.seats[last].member
    assert leaver is not None
    h.ok(leaver, "leave")  # between rounds: gone at once (T1)
    h.tick_wake()
    assert h.table.status == "waiting"  # two players: the table waits
    h.ok("erin", "join", seat=last)
    h.tick_wake()
    assert h.events("erin", "dealt")[-1]["round"] == 2
    # "A player who joined since the last round exchanges nothing" (T12): erin keeps her cards
    assert h.events("erin", "exchange") == []
    assert h.state("erin")["phase"] == "play"
