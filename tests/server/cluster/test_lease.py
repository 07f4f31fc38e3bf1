"""Lease timing (server/cluster/lease.py): when to renew, when a lease is surely held."""

from __future__ import annotations

import pytest

from server.cluster.lease import LeaseBook, parse


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lease_renewal_is_due_every_third_and_lost_before_it_may_expire():
    clock = Clock()
    book = LeaseBook("n1", ttl=3.0, clock=clock)
    held = book.took("r1", 7)
    assert held.value("n1") == "n1 7" and parse("n1 7") == ("n1", 7)
    assert book.due() == [] and book.lost() == []
    clock.now += 1.0
    assert [h.rid for h in book.due()] == ["r1"]
    book.renewed("r1", clock.now)
    clock.now += 0.5
    assert book.due() == []
    clock.now += 1.9  # 2.4 s after the last renewal: 3 s - 0.6 s margin
    assert book.lost() == ["r1"]
    book.renewed("r1", clock.now - 3.0)  # an answer to an old renewal does not extend it
    assert book.lost() == ["r1"]
    assert book.dropped("r1") is held and book.lost() == []
    assert parse(None) is None and parse("n1") is None and parse("a b c 3") == ("a b c", 3)
    with pytest.raises(ValueError):
        LeaseBook("n1", ttl=0, clock=clock)


def test_a_lease_is_surely_held_only_within_its_margin_by_the_node_s_own_clock():
    """A process paused past the margin (the clock jumps forward as a monotonic clock does after
    SIGSTOP) holds no lease it may act on, until a renewal sent after the pause succeeds."""
    clock = Clock()
    book = LeaseBook("n1", ttl=3.0, clock=clock)
    assert not book.surely("r1")  # never taken
    book.took("r1", 4)
    clock.now += 2.39
    assert book.surely("r1")
    clock.now += 0.01 + 6.0  # a pause of twice the lease
    assert not book.surely("r1") and book.lost() == ["r1"]
    book.renewed("r1", clock.now - 7.0)  # the answer to a renewal sent before the pause
    assert not book.surely("r1")
    book.renewed("r1", clock.now)
    assert book.surely("r1")
    book.dropped("r1")
    assert not book.surely("r1")
