"""The directory of one process: ``who``, who hides where they sit, the room list."""

from __future__ import annotations

from server.lobby.directory import Directory, masked
from tests.server.lobby.fakes import FakeRoom, online


def test_who_lists_the_people_online_and_hides_a_hidden_table_from_all_but_its_sitter():
    ana, bob, cy = online("Ana"), online("Bob"), online("Cy")
    room = FakeRoom("r1", ["Ana", "Bob"])
    for seat, p in enumerate((ana, bob)):
        p.room = room  # type: ignore[assignment]
        p.seat = seat
    bob.extra["hide_where"] = True
    gone = online("Dee")
    assert gone.session is not None
    gone.session.closed.set()  # not connected: not online
    players = {p.key: p for p in (ana, bob, cy, gone)}
    directory = Directory(players, {"r1": room})  # type: ignore[dict-item]
    assert directory.who(cy) == [{"name": "Ana", "guest": False, "room": "r1", "seat": 0},
                                 {"name": "Bob", "guest": False, "room": None, "seat": None},
                                 {"name": "Cy", "guest": False, "room": None, "seat": None}]
    assert directory.who(bob)[1] == {"name": "Bob", "guest": False, "room": "r1", "seat": 1}
    assert directory.hidden_names(cy) == {"Bob"} and directory.hidden_names(bob) == set()


def test_here_decides_who_counts_as_online():
    ana, bob = online("Ana"), online("Bob")
    directory = Directory({"ana": ana, "bob": bob}, {}, here=lambda p: p.name != "Bob")
    assert [p.name for p in directory.online()] == ["Ana"]
    assert [e["name"] for e in directory.who()] == ["Ana"]


def test_the_room_list_leaves_closed_rooms_out_and_says_whether_a_seat_is_free():
    rooms = {"r1": FakeRoom("r1", ["a", "b"], seats=2), "r2": FakeRoom("r2", [], closed=True),
             "r3": FakeRoom("r3", ["c"])}
    listed = Directory({}, rooms).room_list()  # type: ignore[arg-type]
    assert [(s["room"], free) for s, free in listed] == [("r1", False), ("r3", True)]


def test_masked_counts_hidden_players_without_naming_them():
    summary = {"room": "r1", "players": ["Ana", "Bob"]}
    assert masked(summary, {"Bob"})["players"] == ["Ana", None]
    assert masked(summary, set()) is summary and masked(summary, {"Zed"}) is summary
