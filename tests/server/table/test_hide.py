"""``hide``: a person who hides where they sit is seen by name by the people at their table only; a
spectator reads their seat ("seat 0"), in states, in the room's news and in the words of moves."""

from __future__ import annotations

from server.table import Command
from server.table.io import Member
from tests.server.table.harness import Harness, simple_president


def hidden_member(h: Harness, key: str) -> Member:
    plain = h.member(key)
    h.members[key] = Member(plain.key, plain.name, plain.account, {}, None, True)
    return h.members[key]


def test_a_spectator_never_reads_the_name_of_someone_who_hides() -> None:
    h = Harness("classic", seats=3, bots=1)
    hidden_member(h, "alice")
    h.join("alice")
    h.ok("zoe", "watch")
    h.join("bob")
    h.run(lambda: bool(h.events("zoe", "round_over")), act=simple_president(["alice", "bob"]))
    seat = h.seat("alice")
    zoe = h.inbox["zoe"].items
    assert all(r.body["seats"][seat]["name"] is None and r.body["seats"][seat]["hidden"]
               for r in zoe if r.kind == "state")
    assert all("Alice" not in (r.line or "") for r in zoe)
    assert all("Alice" not in str(r.body) and "Alice" not in (r.names or ()) for r in zoe if r.kind == "event")
    assert any(r.kind == "event" and r.body.get("event") == "played" and r.body.get("seat") == seat for r in zoe)
    joined = [e for e in h.events("zoe", "joined") if e.get("seat") == h.seat("bob")]
    assert joined and joined[0]["name"] == "Bob"  # the others are named as before
    # the people at the table see her name
    assert h.state("bob")["seats"][seat]["name"] == "Alice"
    assert any("Alice" in (r.names or ()) for r in h.inbox["bob"].items if r.kind == "event")


def test_hiding_while_seated_reaches_the_spectators_view_at_once() -> None:
    h = Harness("classic", seats=3, bots=2)
    h.join("alice")
    h.ok("zoe", "watch")
    seat = h.seat("alice")
    assert h.state("zoe")["seats"][seat]["name"] == "Alice"
    hidden = Member("alice", "Alice", "alice", {}, None, True)
    h.members["alice"] = hidden
    h.handle(Command(hidden, "hide", {}, 999))
    assert h.state("zoe")["seats"][seat]["name"] is None
    shown = Member("alice", "Alice", "alice", {}, None, False)
    h.members["alice"] = shown
    h.handle(Command(shown, "hide", {}, 1000))
    assert h.state("zoe")["seats"][seat]["name"] == "Alice"


def test_the_tricks_a_spectator_asks_for_name_no_one_who_hides() -> None:
    h = Harness("classic", seats=3, bots=1)
    hidden_member(h, "alice")
    h.join("alice", "bob")
    h.ok("zoe", "watch")
    h.run(lambda: len(h.events("alice", "trick_closed")) >= 1, act=simple_president(["alice", "bob"]))
    seat = h.seat("alice")
    seen = h.ok("zoe", "tricks")
    assert seen["seats"][seat] is None and "Alice" not in str(seen)
    assert seen["seats"][h.seat("bob")] == "Bob"
    assert h.ok("bob", "tricks")["seats"][seat] == "Alice"  # the people at the table see her name


def test_a_hidden_seat_in_the_tricks_reads_as_its_seat() -> None:
    from server.messages.terminal import TermStyle
    from server.presenters.text.tricks import render_tricks

    reply = {"round": 1, "seats": [None, "Bob", "bot1"], "tricks": [],
             "trick": [{"seat": 0, "cards": ["3c"]}, {"seat": 1, "pass": True}]}
    for lang, seat in (("en", "seat 0"), ("fr", "place 0"), ("es", "plaza 0")):
        text = render_tricks(reply, lang, TermStyle(width=80, color=False))
        assert seat in text and "?" not in text
