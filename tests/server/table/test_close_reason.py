"""A table closed by its room for a reason of its own (nobody came to play): the reason reaches the people
in it, the seats and their claims end, the bots' chips go back to the house."""

from __future__ import annotations

from server.storage.api import ReleaseBot
from server.table import Closed, Gone, Shutdown
from tests.server.table.harness import Harness, simple_president


def test_a_room_closed_because_nobody_came_says_so_and_frees_everything() -> None:
    h = Harness("tdc", seats=4, bots=2, stake=2)
    h.join("alice")
    h.ok("zoe", "watch")
    assert h.table.status == "waiting" and h.claims.holder("alice") == "t1"
    h.handle(Shutdown("waited"))
    assert h.table.closed == "waited" and h.items_of(Closed) == [Closed("waited")]
    assert [e["reason"] for e in h.events("alice", "room_closed")] == ["waited"]
    assert [e["reason"] for e in h.events("zoe", "room_closed")] == ["waited"]
    assert Gone("alice") in h.items and Gone("zoe") in h.items
    assert h.released == ["alice"] and h.claims.holder("alice") is None
    funded = set(h.ledger.bots_funded)
    assert len(funded) == 2 and set(h.ledger.bots_released) == funded  # tdc bots play on house chips: back
    assert all(h.ledger.balance("bot:" + d) == 0 for d in funded)


def test_the_server_stopping_is_still_a_shutdown() -> None:
    h = Harness("classic", seats=3)
    h.join("alice")
    h.shutdown()
    assert h.table.closed == "shutdown" and [e["reason"] for e in h.events("alice", "room_closed")] == ["shutdown"]


def test_S11_the_last_person_leaving_the_last_deal_ends_the_match_before_the_room_closes() -> None:
    """The last person leaves during the match's last deal of a Speculation table with bots: a bot plays
    their stake to the end of the deal (S11); that deal's end is the match's end, which is recorded and
    frees the bots, and only then does the room close ("over") — never the other way round, which
    asked for the bots' release after the table's log was closed."""
    h = Harness("speculation", seats=3, bots=2, rounds=2, turn_seconds=5, settings={"flip_seconds": 2})
    h.join("alice")
    h.run(lambda: h.table.match is not None and h.table.match.round == 2 and h.table.status == "playing"
          and not h.table.match.needs_deal())
    h.ok("alice", "leave")
    assert any(s.leaving for s in h.table.seats)  # a bot plays alice's seat to the end of the deal
    h.run(lambda: h.closed is not None)  # (the harness: no chip, bot or record after the close)
    assert h.closed == "over"
    bots = {s.bot_display for s in h.table.seats if s.bot_display is not None}
    assert len(bots) == 2 and {r.display for r in h.effects_of(ReleaseBot)} == bots
    assert all(h.ledger.balances["bot:" + d] == 0 for d in bots)
    assert any(r.result.get("event") == "match_over" for r in h.ledger.records)


def test_a_finished_room_nobody_sits_at_sends_its_spectators_back_to_the_lobby() -> None:
    """A tournament's table, or any: once the match is over and its last player has left, there is
    nothing left to watch (no rematch without players). The room closes ("over") at once instead of
    keeping its spectators ``close_after_over`` seconds in a dead room, out of the lobby's news."""
    h = Harness("classic", seats=3, bots=2, rounds=1)
    h.join("alice")
    h.ok("zoe", "watch")
    h.run(lambda: h.table.status == "over", act=simple_president(["alice"]))
    assert h.closed is None  # alice is still seated: the room waits for her
    h.ok("alice", "leave")
    assert h.closed == "over" and Gone("zoe") in h.items
    assert [e["reason"] for e in h.events("zoe", "room_closed")] == ["over"]


def test_spectators_keep_a_room_open_while_it_may_still_play() -> None:
    h = Harness("classic", seats=3)
    h.join("alice")
    h.ok("zoe", "watch")
    h.ok("alice", "leave")  # before the match: someone may still sit down
    assert h.closed is None and h.table.status == "waiting"
