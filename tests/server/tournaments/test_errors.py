"""The tournaments' refusals: typed, with a stable code and their facts."""

import pytest

from server.tournaments.errors import CODES, TournamentError


def test_a_refusal_carries_its_code_and_facts_and_is_a_value_error() -> None:
    err = TournamentError("bad_result", table="e.1")
    assert isinstance(err, ValueError)
    assert err.code == "bad_result" and err.facts == {"table": "e.1"}
    assert str(TournamentError("full")) == "full"


def test_only_known_codes_exist() -> None:
    assert {"not_open", "already_entered", "not_entered", "full", "unknown_table", "bad_result",
            "bad_config"} == CODES
    with pytest.raises(ValueError):
        TournamentError("something_else")
