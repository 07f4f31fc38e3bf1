"""What commands read of an event (server/lobby/tournaments/views.py): the list's summary, standings
with the asker's own line when below the first fifty."""

from __future__ import annotations

from server.lobby.tournaments.shell import EventShell
from server.lobby.tournaments.views import STANDINGS_LINES, standings, stored_summary, summary
from server.storage.api_tournaments import StoredTournament
from server.tournaments import Join, SwissConfig, SwissDirector, record_of


class Host:
    async def write(self, tid: str, ops: object) -> list[object]:
        return []

    async def perform(self, shell: EventShell, effect: object) -> None:
        return None

    def finished(self, shell: EventShell) -> None:
        return None


def _shell(entrants: int) -> EventShell:
    director = SwissDirector(SwissConfig(id="e3", seats=4, rounds=3, starts_at=100.0, seed="ab"))
    for i in range(entrants):
        director.handle(0.0, Join(f"p{i:03d}", rating=float(i)))
    return EventShell(director, Host(), lambda: 0.0, organiser="org")  # type: ignore[arg-type]


def test_a_swiss_event_as_the_list_shows_it() -> None:
    shell = _shell(5)
    s = summary(shell, "P001")  # (names are compared by their key)
    assert (s["id"], s["kind"], s["phase"], s["entrants"], s["seats"]) == ("e3", "swiss", "waiting", 5, 4)
    assert s["round"] == 0 and s["rounds"] == 3 and s["joined"] is True and "ends_at" not in s
    assert summary(shell, "nobody")["joined"] is False and summary(shell, None)["joined"] is False
    assert s["bots"] is False


def test_the_list_says_whether_bots_fill_the_tables_live_and_from_the_journal() -> None:
    director = SwissDirector(SwissConfig(id="e3", seats=4, rounds=3, starts_at=100.0, seed="ab", bots=True))
    director.handle(0.0, Join("ana", rating=0.0))
    shell = EventShell(director, Host(), lambda: 0.0, organiser="org")  # type: ignore[arg-type]
    assert summary(shell, "ana")["bots"] is True
    entries = record_of(director).to_dict()["entries"]
    assert isinstance(entries, list)
    kept = StoredTournament(tournament_id="e3", config=director.config.to_dict(), organiser="org", status="open",
                            created_at=0.0, entries=[e for e in entries if isinstance(e, dict)])
    assert (stored_summary(kept, "ana") or {})["bots"] is True


def test_the_first_fifty_lines_and_the_askers_own() -> None:
    shell = _shell(STANDINGS_LINES + 10)
    reply = standings(shell, "p059")
    lines = reply["lines"]
    assert isinstance(lines, list) and len(lines) == STANDINGS_LINES + 1
    assert lines[-1]["name"] == "p059" and reply["final"] is False  # type: ignore[index]
    assert len(standings(shell, "p001")["lines"]) == STANDINGS_LINES  # type: ignore[arg-type]


def test_an_open_event_of_a_silent_node_is_listed_as_its_journal_leaves_it() -> None:
    shell = _shell(5)
    record = record_of(shell.director).to_dict()
    entries = record["entries"]
    assert isinstance(entries, list)
    kept = StoredTournament(tournament_id="e3", config=shell.director.config.to_dict(), organiser="org",
                            status="open", created_at=0.0, entries=[e for e in entries if isinstance(e, dict)])
    assert stored_summary(kept, "p001") == {**summary(shell, "p001"), "as_stored": True}
    broken = StoredTournament(tournament_id="e3", config={"kind": "swiss"}, organiser="org", status="open",
                              created_at=0.0)
    assert stored_summary(broken, "p001") is None  # (a record that does not replay: not listed)
