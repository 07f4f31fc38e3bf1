"""The match and its log (server/table/matchlog.py): every action applied is kept; the last one
undone rebuilds the match from the log without it (invariant 3); a durable table's entries."""

from __future__ import annotations

import pytest

from engine.errors import Refusal
from engine.seeds import seed_from_int
from server.config import load_config
from server.games import ADAPTERS, parse_options
from server.table.matchlog import MatchLog


def started(journal: bool) -> MatchLog:
    adapter = ADAPTERS["classic"]
    opts = parse_options({"game": "president", "rules": "classic", "seats": 3}, load_config(None))
    game = MatchLog(adapter)
    if journal:
        game.keep_journal()
    game.start(adapter.new_match(opts, []))
    return game


def test_actions_are_kept_and_the_last_one_undone_rebuilds_the_match() -> None:
    game = started(journal=False)
    match = game.current
    game.apply(match.deal_action(seed_from_int(1), **ADAPTERS["classic"].deal_table(
        parse_options({"game": "president", "rules": "classic", "seats": 3}, load_config(None)), None)))
    dealt = game.current.view(None).to_dict()
    seat = game.current.pending()[0].seat
    assert seat is not None
    play = game.current.legal_actions(seat)[0]
    events = game.apply(play)
    assert events and [e["cmd"] for e in game.log] == ["deal", play.to_dict()["cmd"]]
    game.revert_last()
    assert len(game.log) == 1 and game.current.view(None).to_dict() == dealt
    assert game.journal is None  # not durable: nothing kept for a log


def test_a_refused_action_changes_nothing() -> None:
    game = started(journal=True)
    with pytest.raises(Refusal):
        game.apply(game.current.action_from(0, "pass", {}))  # nothing dealt yet
    assert game.log == [] and game.journal == [{"k": "m", "config": game.current.config}]


def test_a_durable_tables_entries_and_no_match_without_one() -> None:
    game = started(journal=True)
    deal = game.current.deal_action(seed_from_int(2), present=None)
    game.apply(deal)
    game.revert_last()
    assert [e["k"] for e in game.journal or []] == ["m", "a", "u"]
    game.clear()
    assert game.match is None and game.log == []
    with pytest.raises(RuntimeError):
        game.current  # noqa: B018
