"""The registry of entrants."""

from server.tournaments.entrants import ACTIVE, LEFT, Entrant, Entrants


def test_free_means_active_and_at_no_table() -> None:
    reg = Entrants()
    for name in ("a", "b", "c"):
        reg.add(Entrant(name, 0.0))
    reg["b"].table = "t.1"
    reg["c"].status = LEFT
    assert [e.name for e in reg.free()] == ["a"]
    assert [e.name for e in reg.active()] == ["a", "b"]
    assert "a" in reg and len(reg) == 3 and reg.get("z") is None
    reg.remove("a")
    assert [e.name for e in reg] == ["b", "c"] and reg["b"].status == ACTIVE
