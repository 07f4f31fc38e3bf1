"""The two play paths of ``PresidentMatch`` decide alike (P5–P11, P9 Decision, T8, T9, T13).

A table without T5, T7b, T7c and T10 (the classic one) plays and passes through its fast path
(``_plain_play``, ``_plain_pass``), every other through ``_do_play`` and ``_do_pass``; the fast path
drops the tests of those four rules and nothing else. Here random games (legal moves, time-outs,
and plays the rules refuse) of several such rule sets, at every table size, run twice, once through
each path: every answer (events or refusal), view and log must agree.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from engine.cards import Card
from engine.errors import Refusal
from engine.president import RULESETS, PresidentMatch, PresidentRules
from engine.president.actions import PASSES, PLAYS, TIMEOUTS, Play
from engine.seeds import derive, seed_from_int

PLAIN_RULES = {
    "classic": RULESETS["classic"],
    "no-quad-close": dataclasses.replace(RULESETS["classic"], name="no-quad-close", close_on_quad=False),
    "no-forced-passes": dataclasses.replace(RULESETS["classic"], name="no-forced-passes", forced_passes=False),
    "forbidden-last": dataclasses.replace(RULESETS["classic"], name="forbidden-last", forbidden_last=True),
    "cut-money": dataclasses.replace(RULESETS["classic"], name="cut-money", cut=True, money=True),
}


def test_which_tables_play_plain() -> None:
    assert PresidentMatch("classic")._plain
    assert not PresidentMatch("tdc")._plain
    for name in ("pass_leaves_trick", "close_on_four_of_rank", "close_on_empty", "revolution"):
        rules = dataclasses.replace(RULESETS["classic"], name=name, **{name: True})
        assert not PresidentMatch(rules)._plain, name


def _answer(m: PresidentMatch, action: Any) -> Any:
    try:
        return [json.dumps(e.to_dict(), sort_keys=True) for e in m.apply(action)]
    except Refusal as refusal:
        return (type(refusal).__name__, refusal.code, str(refusal))


def _state(m: PresidentMatch) -> Any:
    return [json.dumps(m.view(s).to_dict(), sort_keys=True) for s in [None, *range(m.seats)]], m.version


@pytest.mark.parametrize("name", sorted(PLAIN_RULES))
def test_plain_and_general_play_paths_agree(name: str) -> None:
    rules: PresidentRules = PLAIN_RULES[name]
    rng = random.Random(name)
    games = 0
    for g, seats in enumerate(range(rules.min_seats, rules.max_seats + 1)):  # every table size
        plain = PresidentMatch(rules, seats=seats, stake=10, rounds=3)
        general = PresidentMatch(rules, seats=seats, stake=10, rounds=3)
        general._plain = False
        assert plain._plain
        seed = derive(seed_from_int(g), name)
        while not plain.over:
            if plain.needs_deal():
                deal = plain.deal_action(derive(seed, f"round-{plain.round + 1}"))
                assert _answer(plain, deal) == _answer(general, deal)
                continue
            pending = plain.pending()
            assert pending
            seat = next((p.seat for p in pending if p.seat is not None), 0)
            legal = plain.legal_actions(seat)
            roll = rng.random()
            if roll < 0.15:  # a shared play the rules may refuse (not the seat's, too weak, ...)
                who = rng.randrange(seats)
                action: Any = PLAYS[who * 13 + rng.randrange(13)][rng.randrange(1, 16)]
            elif roll < 0.2 or not legal:
                action = TIMEOUTS[seat]
            elif roll < 0.25:
                action = PASSES[rng.randrange(seats)]
            else:
                action = rng.choice(legal)
            assert _answer(plain, action) == _answer(general, action)
            assert _state(plain) == _state(general)
        assert plain.log() == general.log()
        plain.check_invariants()
        games += 1
    assert games == 6


def _look_alikes(shared: Play) -> list[Any]:
    """Plays equal in value to ``shared`` (a single of PLAYS) but not it: its own tuple of the same
    cards, a new :class:`Card`, a plain ``int`` card, and where they exist a ``bool`` seat or card."""
    seat, (card,) = shared.seat, shared.cards
    looks: list[Any] = [Play(seat, tuple(list(shared.cards))), Play(seat, (Card(int(card)),)), Play(seat, (int(card),))]
    if seat in (0, 1):
        looks.append(Play(bool(seat), shared.cards))
    if card in (0, 1):
        looks.append(Play(seat, (bool(card),)))
    return looks


@pytest.mark.parametrize("rules", ["classic", "tdc"])
def test_plays_equal_to_a_shared_one_are_checked_whole(rules: str) -> None:
    """A play equal in value to a shared play of PLAYS but not it (another tuple, an ``int`` card, a
    ``bool`` seat or card) is checked whole before it is applied: a ``bool`` is refused, the others
    answer as the shared play does, with the same state."""
    kinds = set()
    for i in range(40):
        shared_match = PresidentMatch(rules, seats=4, stake=10)
        shared_match.apply(shared_match.deal_action(seed_from_int(i)))
        seat = shared_match.awaited_turn()
        assert seat is not None
        hand = shared_match._hands[seat]
        card = (hand & -hand).bit_length() - 1
        shared = PLAYS[seat * 13 + (card >> 2)][1 << (card & 3)]
        for look in _look_alikes(shared):
            m = PresidentMatch(rules, seats=4, stake=10)
            m.apply(m.deal_action(seed_from_int(i)))
            answer = _answer(m, look)
            if isinstance(look.seat, bool) or isinstance(look.cards[0], bool):
                assert answer[0] == "BadArgument", (look, answer)
                assert _state(m) == _state(shared_match)
                kinds.add("bool seat" if isinstance(look.seat, bool) else "bool card")
            else:
                fresh = PresidentMatch(rules, seats=4, stake=10)
                fresh.apply(fresh.deal_action(seed_from_int(i)))
                assert answer == _answer(fresh, shared)
                assert _state(m) == _state(fresh)
    assert kinds == {"bool seat", "bool card"}
