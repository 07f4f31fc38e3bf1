"""A table closed by its room for a reason of its own (nobody came to play): the reason reaches the people
in it, the seats and their claims end, the bots' chips go back to the house."""

from __future__ import annotations

from server.table import Closed, Gone, Shutdown
from tests.server.table.harness import Harness


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
