"""An event's record: JSON round trip, a director rebuilt from it, standings recomputed from it."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from server.tournaments import (
    ArenaConfig,
    ArenaDirector,
    EventRecord,
    Join,
    OpenTable,
    ReplayError,
    SwissConfig,
    SwissDirector,
    record_of,
    replay,
    standings,
)
from server.tournaments.record import step
from tests.server.tournaments.driver import Driver


def played_swiss() -> Driver:
    d = Driver(SwissDirector(SwissConfig(id="s", seats=4, min_seats=3, rounds=4, starts_at=10.0, seed="abc",
                                         round_pause=5.0)), random.Random(4))
    for i in range(11):
        d.send(Join(f"p{i}", rating=float(i * 7 % 11)))
    d.at(10.0)
    for _ in range(4):
        d.finish_all()
        d.at(d.now + 5.0)
    assert d.director.over
    return d


def played_arena() -> Driver:
    d = Driver(ArenaDirector(ArenaConfig(id="a", seats=3, starts_at=0.0, length=100.0, seed="abc", bots=True,
                                         bot_wait=4.0)), random.Random(9))
    for i in range(7):
        d.send(Join(f"p{i}"))
    rng = random.Random(1)
    while d.now < 100.0:
        d.at(d.now + rng.random() * 3)
        if d.under_way and rng.random() < 0.7:
            d.finish(rng.choice(sorted(d.under_way.values(), key=lambda t: t.table)))
    d.finish_all()
    assert d.director.over
    return d


@pytest.mark.parametrize("play", [played_swiss, played_arena])
def test_the_record_rebuilds_the_same_event(play: object) -> None:
    d: Driver = play()  # type: ignore[operator]
    record = record_of(d.director)
    text = json.dumps(record.to_dict())
    again = replay(EventRecord.from_dict(json.loads(text)))
    assert json.dumps(record_of(again).to_dict()) == text
    assert [e.item for e in again.event.journal if isinstance(e.item, OpenTable)] == d.opened
    assert again.standings() == d.director.standings() == standings(record)


def test_a_record_rebuilt_halfway_goes_on_as_the_original() -> None:
    d = played_swiss()
    record = record_of(d.director)
    half = EventRecord(record.config, record.entries[: len(record.entries) // 2])
    # cut at an input: the entries a call made are kept together
    while half.entries and not half.entries[-1].is_input:
        half = EventRecord(half.config, half.entries[:-1])
    director = replay(EventRecord(half.config, half.entries[:-1]))
    last = half.entries[-1]
    out = step(director, last)
    rest = record.entries[len(half.entries) - 1:]
    assert out.entries == tuple(rest[: len(out.entries)])


def test_a_record_its_director_does_not_reproduce_is_refused() -> None:
    record = record_of(played_swiss().director)
    i = next(i for i, e in enumerate(record.entries) if isinstance(e.item, OpenTable))
    table = record.entries[i].item
    assert isinstance(table, OpenTable)
    forged = replace(record.entries[i], item=replace(table, seats=tuple(reversed(table.seats))))
    bad = EventRecord(record.config, (*record.entries[:i], forged, *record.entries[i + 1:]))
    with pytest.raises(ReplayError):
        replay(bad)
    with pytest.raises(ReplayError):
        replay(EventRecord(record.config, (record.entries[i], *record.entries)))
