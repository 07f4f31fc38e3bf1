"""Event configurations: checked when made, JSON round trips."""

from __future__ import annotations

import json

import pytest

from server.tournaments.config import ArenaConfig, SwissConfig, config_from_dict
from server.tournaments.errors import TournamentError
from server.tournaments.scoring import Scoring


def test_arena_and_swiss_round_trip_through_json() -> None:
    arena = ArenaConfig(id="a", seats=4, starts_at=100.0, length=3600.0, seed="00ff",
                        options={"game": "president", "rules": "tdc", "stake": 10},
                        scoring=Scoring("chips", streak=True), bots=True, bot_wait=5.0, rematch_wait=2.0,
                        max_entrants=40)
    swiss = SwissConfig(id="s", seats=6, rounds=5, starts_at=0.0, seed="12", min_seats=4,
                        late_until=3, late_points="zero", round_pause=10.0)
    for config in (arena, swiss):
        again = config_from_dict(json.loads(json.dumps(config.to_dict())))
        assert again == config
    assert arena.ends_at == 3700.0


def test_swiss_defaults() -> None:
    s = SwissConfig(id="s", seats=4, rounds=5, starts_at=0.0, seed="1")
    assert s.smallest == 4  # tables of one size unless the organiser allows smaller
    assert s.last_late_round == 3  # half the rounds, rounded up
    assert SwissConfig(id="s", seats=8, rounds=4, starts_at=0.0, seed="1", min_seats=3).smallest == 3


@pytest.mark.parametrize("make", [
    lambda: ArenaConfig(id="a", seats=2, starts_at=0, length=10, seed="1"),
    lambda: ArenaConfig(id="a", seats=10, starts_at=0, length=10, seed="1"),
    lambda: ArenaConfig(id="a", seats=4, starts_at=0, length=0, seed="1"),
    lambda: ArenaConfig(id="a", seats=4, starts_at=0, length=10, seed=""),
    lambda: ArenaConfig(id="a", seats=4, starts_at=0, length=10, seed="1", bot_wait=-1),
    lambda: SwissConfig(id="s", seats=4, rounds=0, starts_at=0, seed="1"),
    lambda: SwissConfig(id="s", seats=4, rounds=3, starts_at=0, seed="1", min_seats=5),
    lambda: SwissConfig(id="s", seats=4, rounds=3, starts_at=0, seed="1", min_seats=2),
    lambda: SwissConfig(id="s", seats=4, rounds=3, starts_at=0, seed="1", late_until=4),
    lambda: SwissConfig(id="s", seats=4, rounds=3, starts_at=0, seed="1", max_entrants=0),
    lambda: SwissConfig.from_dict({"kind": "swiss", "id": "s", "seats": "four", "rounds": 3, "starts_at": 0,
                                   "seed": "1"}),
    lambda: SwissConfig.from_dict({"kind": "swiss", "id": "s", "seats": 4, "rounds": 3, "starts_at": 0,
                                   "seed": "1", "late_points": "all"}),
    lambda: ArenaConfig.from_dict({"kind": "swiss"}),
])
def test_a_configuration_that_cannot_run_is_refused(make: object) -> None:
    with pytest.raises(TournamentError) as err:
        make()  # type: ignore[operator]
    assert err.value.code == "bad_config"
