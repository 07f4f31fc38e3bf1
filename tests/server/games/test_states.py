"""The TypedDicts of a reader's state (server/games/states.py) and of the table's own events
(server/table/events.py) say what the table sends: every state and every event of whole random games
of the three rule sets (with a spectator, a person who leaves, a bot) fits its type, key by key.

The types are annotations only (nothing checks a state when it is built); this is what keeps them
true: a key the table or an engine view adds, renames or fills otherwise fails here.
"""

from __future__ import annotations

import random
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, ForwardRef, Literal, NotRequired, Required, Union, get_args, get_origin

import pytest

import server.table.sender as base_mod
from server.games.states import State
from server.protocol import JSONValue
from server.table import events
from server.table.states import StateSet
from tests.server.table.harness import Harness
from tests.server.table.test_states_batch import PEOPLE, random_people


def misfits(value: object, kind: Any, where: str = "") -> list[str]:
    """Where ``value`` does not fit the type ``kind`` (a TypedDict, list, dict, union, literal, scalar)."""
    origin, args = get_origin(kind), get_args(kind)
    if isinstance(kind, ForwardRef):  # (the recursive JSONValue alias: any JSON)
        return misfits(value, JSONValue, where)
    if kind is typing.Any or kind is object:
        return []
    if origin in (Union, types.UnionType):
        tries = [misfits(value, option, where) for option in args]
        return [] if any(not t for t in tries) else [f"{where}: {value!r} is none of {kind}"]
    if origin is Literal:
        return [] if value in args else [f"{where}: {value!r} is not {kind}"]
    if typing.is_typeddict(kind):
        return typed_misfits(value, kind, where)
    if origin in (list, Sequence):
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        return [m for i, item in enumerate(value) for m in misfits(item, args[0], f"{where}[{i}]")]
    if origin in (dict, Mapping):
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not an object"]
        return [m for k, item in value.items() for m in misfits(item, args[1], f"{where}.{k}")]
    if kind is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    return [] if ok else [f"{where}: {value!r} is not {kind.__name__}"]


def typed_misfits(value: object, kind: Any, where: str) -> list[str]:
    if not isinstance(value, Mapping):
        return [f"{where}: {value!r} is not an object"]
    hints = typing.get_type_hints(kind, include_extras=True)
    out = [f"{where}.{key}: not in {kind.__name__}" for key in value if key not in hints]
    for key, hint in hints.items():
        required = (get_origin(hint) is not NotRequired and kind.__total__) or get_origin(hint) is Required
        if get_origin(hint) in (NotRequired, Required):
            hint = get_args(hint)[0]
        if key not in value:
            if required:
                out.append(f"{where}.{key}: missing from {kind.__name__}")
            continue
        out += misfits(value[key], hint, f"{where}.{key}")
    return out


EVENTS = {get_args(typing.get_type_hints(e)["event"])[0]: e for e in get_args(events.TableEvent)}
"""The table's own events by name."""


class Recorder:
    """Replaces the table's ``StateSet``: keeps the misfits of every reader's state, and of every event
    the table broadcasts."""

    def __init__(self) -> None:
        self.states = 0
        self.told: dict[str, int] = {}
        self.errors: list[str] = []

    def __call__(self, table: Any, now: float, seats: Any = ()) -> StateSet:
        got = StateSet(table, now, tuple(seats))
        for seat in tuple(seats):
            self.states += 1
            built = got.state(seat)
            self.errors += misfits(dict(built), State, f"state of {seat}")
            if table.status == "playing":  # a state being played has the table's fields and the engine's
                self.errors += [f"state of {seat}: no {key}" for key in ("room", "deadline", "window", "moves")
                                if key not in built]
        return got

    def broadcast(self, original: Any) -> Any:
        def told(sender: Any, event: Any) -> None:
            name = event["event"]
            self.told[name] = self.told.get(name, 0) + 1
            self.errors += misfits(event, EVENTS[name], f"event {name}")
            original(sender, event)
        return told


def play_to_the_end(h: Harness, rng: random.Random) -> None:
    h.run(lambda: h.table.status == "over", act=random_people(rng), limit=50_000)


@pytest.mark.parametrize("rules", ["classic", "tdc", "speculation"])
def test_every_state_and_table_event_of_random_games_fits_its_type(rules: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    monkeypatch.setattr(base_mod, "StateSet", recorder)
    monkeypatch.setattr(base_mod.Sender, "broadcast", recorder.broadcast(base_mod.Sender.broadcast))
    for seed in range(2):
        create: dict[str, Any] = {"seats": 4, "bots": 1 if seed else 0, "rounds": 2}
        if rules == "tdc":
            create["stake"] = 4
        h = Harness(rules, probe=False, **create)
        h.ok("zoe", "watch")
        people = PEOPLE[: 3 if seed else 4]
        h.join(*people)
        h.ok(people[1], "seed", text="a standing seed")  # (its seat contributes to every deal)
        play_to_the_end(h, random.Random(f"{rules}{seed}"))
        h.cmd(people[0], "leave")
        assert not recorder.errors, recorder.errors[:5]
    assert recorder.states > 100
    assert {"joined", "left", "commitment", "contributed"} <= set(recorder.told)


def test_a_misfit_is_found() -> None:
    """The check itself: a key the type lacks, a wrong value, a missing key are each found."""
    seat = {"seat": 0, "cards": 3}
    state = {"game": "president", "rules": "classic", "round": 1, "you": None, "turn": None, "seats": [seat]}
    assert misfits(state, State) == []
    assert misfits({**state, "colour": "red"}, State) == [".colour: not in State"]
    assert misfits({**state, "seats": [{**seat, "cards": "3"}]}, State) == [".seats[0].cards: '3' is not int"]
    assert misfits({k: v for k, v in state.items() if k != "seats"}, State) == [".seats: missing from State"]
    assert misfits({"event": "left", "room": "1", "name": "Zoé", "seat": "x"}, events.Left) == [
        ".seat: 'x' is not int"]
