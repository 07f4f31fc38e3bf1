"""What a table's readers receive (server/table/sender.py): each event in the form its reader may
see, one message per form; a spectator never reads the name of a person who hides where they sit;
a command's pushes after its reply, none for a refused command."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.protocol import Shared
from server.table.io import Member, Send
from server.table.seats import Seat
from server.table.sender import Sender


@dataclass
class Room:
    id: str = "t1"
    seats: list[Seat] = field(default_factory=lambda: [
        Seat(0, name="Ann", member="ann"), Seat(1, name="Bob", member="bob"), Seat(2, name="bot2", bot=Bot())])
    spectators: dict[str, Member] = field(default_factory=lambda: {"zoe": Member("zoe", "Zoe", "zoe")})
    now: float = 10.0

    def seat_of(self, key: str) -> int | None:
        return next((s.index for s in self.seats if s.member == key), None)


@dataclass
class Bot:
    seen: list[Any] = field(default_factory=list)

    def observe(self, event: Any) -> None:
        self.seen.append(event)


@dataclass(frozen=True)
class Dealt:
    """An event whose hands only their seat may see (a spectator and the others: the public form)."""

    name: str = "dealt"
    seat: int | None = None

    def for_seat(self, seat: int | None) -> Dealt:
        return HANDS.get(seat, PUBLIC)

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.name, "hand": self.seat}


@dataclass(frozen=True)
class Played(Dealt):
    """A public event: the same form for everybody."""

    name: str = "played"

    def for_seat(self, seat: int | None) -> Played:
        return self


PUBLIC = Dealt()
HANDS = {0: Dealt(seat=0), 1: Dealt(seat=1), 2: Dealt(seat=2)}


def sends(box: Sender) -> list[tuple[tuple[tuple[str, int | None], ...], Mapping[str, Any]]]:
    out = box.take()
    assert out.effect is None and box.out.items == []
    got = []
    for item in out.items:
        assert isinstance(item, Send) and isinstance(item.msg, Shared)
        got.append((item.recipients, dict(item.msg.event)))
    return got


def test_each_reader_gets_its_form_of_an_event_and_bots_observe_theirs() -> None:
    room = Room()
    box = Sender(room)
    box.publish((Dealt(),), {"dealt": {"fair": 1}})
    assert sends(box) == [((("ann", 0),), {"event": "dealt", "hand": 0, "fair": 1, "room": "t1"}),
                          ((("bob", 1),), {"event": "dealt", "hand": 1, "fair": 1, "room": "t1"}),
                          ((("zoe", None),), {"event": "dealt", "hand": None, "fair": 1, "room": "t1"})]
    bot = room.seats[2].bot
    assert isinstance(bot, Bot) and bot.seen == [HANDS[2]]


def test_a_spectator_reads_the_seat_of_a_person_who_hides() -> None:
    room = Room()
    room.seats[0].hidden = True
    box = Sender(room)
    box.broadcast({"event": "joined", "name": "Ann", "seat": 0})
    (seated, to_them), (watching, to_zoe) = sends(box)
    assert seated == (("ann", 0), ("bob", 1)) and to_them["name"] == "Ann"
    assert watching == (("zoe", None),) and to_zoe == {"event": "joined", "name": None, "seat": 0, "room": "t1"}
    box.publish((Played(),))
    items = box.take().items
    assert [i.recipients for i in items if isinstance(i, Send)] == [(("ann", 0), ("bob", 1)), (("zoe", None),)]
    assert [i.msg.names for i in items if isinstance(i, Send) and isinstance(i.msg, Shared)] == [
        ("Ann", "Bob", "bot2"), ("", "Bob", "bot2")]


def test_a_commands_pushes_wait_for_its_reply_and_a_refused_one_pushes_nothing() -> None:
    room = Room()
    box = Sender(room)
    box.defer(lambda: box.broadcast({"event": "later"}))
    box.drop_deferred()
    box.run_deferred()
    assert box.take().items == []
    box.defer(lambda: box.broadcast({"event": "later"}))
    box.to_member("ann", Shared({"event": "first"}))
    box.run_deferred()
    assert [dict(m.event)["event"] for m in (i.msg for i in box.take().items if isinstance(i, Send))
            if isinstance(m, Shared)] == ["first", "later"]
    room.seats, room.spectators = [Seat(0)], {}
    box.broadcast({"event": "nobody"})
    box.push_states()
    assert box.take().items == []  # nobody in the room: nothing to send
