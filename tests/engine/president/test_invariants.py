"""Random legal Président games check the invariants of RULES.md (seeded loops, deterministic).

1. the 52 cards are partitioned at every action; 2. no view or event a seat
receives holds another seat's hidden card; 3. replays are byte-identical;
4. chips are conserved (tdc, with joins, leaves and changing stakes);
every round ends; classic rounds give N(N−1)/2 points.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.bots.president_random import RandomPresidentBot
from engine.cards import RANKS, SUITS, Card, parse_cards
from engine.president import Cut, PresidentMatch
from engine.president.view import cards_of_mask
from engine.seeds import seed_from_int

CARD_CODES = {r + s for r in RANKS for s in SUITS}


def card_codes(obj: Any) -> set[str]:
    """Every card code inside a JSON-ready value."""
    out: set[str] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if x in CARD_CODES:
                out.add(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list | tuple):
            stack.extend(x)
    return out


def allowed(m: PresidentMatch, seat: int | None) -> set[str]:
    """What ``seat`` may know of: its hand, public plays, its own exchanges."""
    v = m.view(seat)
    # from the match's own state, not the view under test: a view that put another
    # seat's card among its "played" cards would otherwise allow it to itself
    out = {str(c) for c in cards_of_mask(m._played)}
    assert v.played_mask == m._played
    if seat is not None:
        out |= {str(c) for c in m.hand(seat)}
        for giver, taker, cs in v.exchange:
            assert seat in (giver, taker), (seat, giver, taker)  # only its own exchanges
            out |= {str(c) for c in cs}
    else:
        assert not v.exchange
    return out


def check_privacy(m: PresidentMatch, events: tuple[Any, ...]) -> None:
    for seat in [None, *range(m.seats)]:
        ok = allowed(m, seat)
        v = m.view(seat)
        d = v.to_dict()
        if seat is None:
            assert "hand" not in d and v.hand is None
        else:
            assert v.hand == m.hand(seat) and d["hand"] == [str(c) for c in m.hand(seat)]
        assert card_codes(d) <= ok, (seat, card_codes(d) - ok)
        for e in events:
            if e.name == "round_over":  # the remaining cards are shown to everyone (P11, T15)
                continue
            seen = e.for_seat(seat)
            if seen is not None:
                assert card_codes(seen.to_dict()) <= ok, (seat, e.name)


def drive(
    rules: str, seats: int, rounds: int, seed: int, *, privacy: bool = False, churn: bool = False
) -> tuple[PresidentMatch, list[Any], int]:
    rng = random.Random(seed)
    m = PresidentMatch(rules, seats=seats, stake=2, rounds=rounds)
    bots = [RandomPresidentBot(s, seed_from_int(seed * 100 + s)) for s in range(seats)]
    balances = [1000] * seats
    bank = sum(balances)
    escrow = 0
    events: list[Any] = []
    round_actions = 0
    played_rounds = 0
    while not m.over:
        if m.needs_deal():
            table: dict[str, Any] = {}
            if churn:
                table["present"] = tuple(sorted(rng.sample(range(seats), rng.randint(3, seats))))
                table["stake"] = rng.choice([0, 2, 4, 10])
            evs = m.apply(m.deal_action(seed_from_int(rng.getrandbits(40)), **table))
            dealt = evs[0].to_dict()
            for s in dealt["present"]:
                balances[s] -= dealt["stake"]  # T13: the stake is debited at the start
                escrow += dealt["stake"]
            round_actions = 0
        else:
            options = m.cut_options()
            if options and rng.random() < 0.4:
                seat = rng.choice(sorted(options))
                action: Any = Cut(seat, options[seat])
            else:
                pending = m.pending()
                must = m.view(None).must_rank
                if must is not None and m.rules.forced_passes:
                    # P9 Decision: nobody is asked about a "ça ou rien" that nobody can play
                    assert m._played >> (4 * must) & 15 != 15, "a turn on a dead ça ou rien"
                p = pending[rng.randrange(len(pending))]
                if rng.random() < 0.04:
                    action = p.on_timeout
                else:
                    action = bots[p.seat].decide(m.view(p.seat), m.legal_actions(p.seat))
                    assert action is not None
            evs = m.apply(action)
            round_actions += 1
            assert round_actions < 400, "a round that does not end"
        m.check_invariants()
        for s in range(seats):  # the hand cards kept up to date play by play (white-box)
            mask, held = m._hand_cache[s]
            assert mask != m._hands[s] or held == cards_of_mask(mask), s
        for e in evs:
            if e.name == "round_over":
                d = e.to_dict()
                n = len(d["ranking"])
                played_rounds += 1
                assert sum(x for x in d["scores"] if x is not None) == n * (n - 1) // 2  # P14
                if d["chips"] is not None:
                    assert sum(d["chips"]) == 0
                    for s in d["ranking"]:
                        balances[s] += d["stake"] + d["chips"][s]  # payout
                        escrow -= d["stake"]
                    assert escrow == 0
        assert sum(balances) + escrow == bank  # chips never created or lost
        if privacy:
            check_privacy(m, evs)
        events.extend(evs)
    return m, events, played_rounds


def assert_replays(m: PresidentMatch, events: list[Any]) -> None:
    m2, events2 = PresidentMatch.replay(json.loads(json.dumps(m.config)), json.loads(json.dumps(m.log())))
    assert json.dumps([e.to_dict() for e in events]) == json.dumps([e.to_dict() for e in events2])
    assert m2.totals == m.totals and m2.chips == m.chips and m2.log() == m.log()


@pytest.mark.parametrize("seats", [3, 4, 5, 8])
def test_classic_random_matches_keep_the_invariants(seats: int) -> None:
    total = 0
    for i in range(80):
        m, events, rounds = drive("classic", seats, 5, seed=seats * 1000 + i, privacy=i < 1)
        total += rounds
        assert m.over and rounds == 5
        assert sum(m.totals) == 5 * seats * (seats - 1) // 2
        if i < 6:
            assert_replays(m, events)
    assert total == 400


@pytest.mark.parametrize("seats", [3, 4, 6, 8])
def test_tdc_random_rounds_with_joins_leaves_and_cuts(seats: int) -> None:
    cuts = revolutions = 0
    for i in range(12):
        m, events, rounds = drive("tdc", seats, 20, seed=seats * 7000 + i, privacy=i < 1, churn=True)
        assert rounds == 20 and sum(m.chips) == 0
        cuts += sum(e.name == "cut" for e in events)
        revolutions += sum(e.name == "revolution" for e in events)
        if i < 2:
            assert_replays(m, events)
    assert cuts > 0 and revolutions > 0  # the random games do reach the tdc rules


def test_spectator_and_seat_views_never_show_other_hands_in_a_tdc_exchange() -> None:
    m = PresidentMatch.from_hands("tdc", ["Ac", "Kc", "Qc", "3c 4c"], leader=0)
    for s, c in ((0, "Ac"), (1, "Kc"), (2, "Qc")):
        m.apply(m.action_from(s, "play", {"cards": [c]}))
    evs = m.deal_hands(["3d 4d 5d", "5c 6c", "9c Tc", "3c 8d 8h Js"])
    check_privacy(m, evs)
    assert Card.parse("Js") in m.hand(0)
    for s in (1, 2):
        assert "Js" not in card_codes(m.view(s).to_dict())


def test_P3_fast_shuffle_is_the_specified_one() -> None:
    from engine.cards import deck
    from engine.president.match import shuffled_deck
    from engine.seeds import shuffled

    for i in range(300):
        seed = seed_from_int(i) if i % 2 else bytes([i % 256]) * (i % 37 + 1)
        assert shuffled_deck(seed) == [int(c) for c in shuffled(deck(), seed)]


def test_view_keys_and_helpers() -> None:
    m = PresidentMatch.from_hands("tdc", ["7c 9c", "Ks 4d", "7d 7h 7s 5h"], leader=0, stake=2)
    m.apply(m.action_from(0, "play", {"cards": ["7c"]}))
    v = m.view(1)
    d = v.to_dict()
    assert set(d) == {
        "game", "rules", "round", "phase", "you", "hand", "seats", "turn", "trick",
        "order", "dealer", "cut", "decision", "legal", "give", "must", "played", "exchange", "stake",
    }  # fmt: skip
    assert (d["decision"], d["legal"], d["give"], d["must"]) == ("follow", {"plays": [["K", 1]], "pass": True}, 0, None)
    assert set(d["seats"][0]) == {"seat", "cards", "place", "title", "score", "passive", "playing", "passed", "chips"}
    assert d["hand"] == ["4d", "Ks"] and d["trick"] == [{"seat": 0, "cards": ["7c"]}] and d["played"] == ["7c"]
    assert v.top == (Card.parse("7c"),) and not v.leading and v.turn == 1 and v.you == 1
    assert m.view(2).cut == parse_cards("7d 7h 7s") and m.view(2).to_dict()["cut"] == ["7d", "7h", "7s"]
    spectator = m.view(None)
    assert spectator.hand is None and "hand" not in spectator.to_dict() and spectator.cut is None
    classic = PresidentMatch.from_hands("classic", ["7c 9c", "Ks 4d", "7d 5h"], leader=0).view(0)
    assert classic.leading and classic.top is None and "chips" not in classic.to_dict()["seats"][0]


def test_random_bot_is_deterministic_and_covers_cuts_and_gives() -> None:
    kinds: set[str] = set()
    logs = []
    for _ in range(2):
        m, _events, _rounds = drive("tdc", 4, 6, seed=99)
        logs.append(m.log())
        kinds |= {entry["cmd"] for entry in m.log()}
    assert logs[0] == logs[1]
    assert {"deal", "play", "pass", "cut", "give", "timeout"} <= kinds
    bot = RandomPresidentBot(2, seed_from_int(1), cut_rate=0.0)
    m = PresidentMatch.from_hands("tdc", ["7c 9c", "Ks 4d", "7d 7h 7s 5h"], leader=0)
    m.apply(m.action_from(0, "play", {"cards": ["7c"]}))
    assert m.legal_actions(2) == [Cut(2, parse_cards("7d 7h 7s"))]
    assert bot.decide(m.view(2), m.legal_actions(2)) is None  # optional: may decline
    always = RandomPresidentBot(2, seed_from_int(1), cut_rate=1.0)
    assert always.decide(m.view(2), m.legal_actions(2)) == Cut(2, parse_cards("7d 7h 7s"))
