"""The tournament commands' reading of an event (server/commands/tournaments.py): defaults from the
table kind's adapter, the tables' options kept as given, refusals naming the option, and no event
on a cluster node."""

from __future__ import annotations

from typing import Any

import pytest

from server.commands.tournaments import event_config
from server.config import load_config
from server.protocol import CommandError
from server.tournaments import ArenaConfig, SwissConfig

SETTINGS = load_config(None)


def _config(**args: Any) -> Any:
    return event_config("e1", "ab", 1000.0, args, SETTINGS)


def test_P14_classic_events_are_scored_by_place_and_tdc_and_speculation_by_chips() -> None:
    assert _config(kind="arena", game="president", seats=4).scoring.mode == "place"
    assert _config(kind="arena", game="president", rules="tdc", seats=4, stake=10).scoring.mode == "chips"
    assert _config(kind="swiss", game="speculation", seats=5).scoring.mode == "chips"
    assert _config(kind="swiss", game="president", seats=4, scoring="chips", streak=True).scoring.streak


def test_an_arena_and_a_swiss_event_as_asked() -> None:
    arena = _config(kind="arena", game="president", seats=3, rounds=2, start=30, length=600, bots=True,
                    bot_wait=5, rematch_wait=0, rated=False, turn_seconds=20)
    assert isinstance(arena, ArenaConfig) and (arena.starts_at, arena.length, arena.bots) == (1030.0, 600.0, True)
    assert (arena.bot_wait, arena.rematch_wait) == (5.0, 0.0)
    assert dict(arena.options) == {"game": "president", "rules": "classic", "rounds": 2, "turn_seconds": 20,
                                   "rated": False}
    swiss = _config(kind="swiss", game="president", seats=5, min_seats=3, event_rounds=4, late="zero",
                    round_pause=0, max_entrants=40)
    assert isinstance(swiss, SwissConfig) and (swiss.rounds, swiss.min_seats, swiss.late_points) == (4, 3, "zero")
    assert swiss.starts_at == 1060.0 and swiss.max_entrants == 40 and swiss.options["rated"] is True


@pytest.mark.parametrize(("args", "name"), [
    ({"kind": "cup"}, "kind"), ({"seats": 2}, "seats"), ({"rules": "tdc", "stake": 3}, "stake"),
    ({"scoring": "style"}, "scoring"), ({"start": -1}, "start"), ({"length": 0}, "length"),
    ({"event_rounds": 3}, "event_rounds"), ({"kind": "swiss", "length": 60}, "length"),
    ({"kind": "swiss", "min_seats": 2}, "min_seats"), ({"kind": "swiss", "event_rounds": 100}, "event_rounds"),
    ({"kind": "swiss", "late": "all"}, "late"), ({"bots": "lots"}, "bots"), ({"max_entrants": 0}, "max_entrants"),
])
def test_a_refused_option_is_named(args: dict[str, Any], name: str) -> None:
    with pytest.raises(CommandError) as err:
        _config(**{"kind": "arena", "game": "president", "seats": 4, **args})
    assert err.value.code == "bad_option" and err.value.params == {"name": name}
