"""engine/bots/search_*.py: the ``search`` strategy (level "hard").

Every search here runs with a small fixed number of rollouts (``rollouts=``),
so decisions are deterministic and the file stays fast. Strength is measured
by ``bench/bench_search.py``, never asserted here.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.bots.president_greedy import GreedyPresidentBot
from engine.bots.search_common import Budget, race
from engine.bots.search_president import (
    Knowledge,
    SearchPresidentBot,
    _policy,
    _Sim,
    sample_hands,
    sim_from_view,
)
from engine.cards import RANK_2, parse_cards
from engine.president import CLASSIC, TDC, Cut, Give, Pass, Play, PresidentMatch, PresidentRules
from engine.seeds import derive, seed_from_int

SEED = b"search-test"


def cards(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse_cards(text)))


def play(m: PresidentMatch, seat: int, text: str) -> None:
    m.apply(Play(seat, parse_cards(text)))


def decide(m: PresidentMatch, seat: int, rollouts: int = 48, seed: bytes = SEED) -> object:
    bot = SearchPresidentBot(seat, seed, rollouts=rollouts)
    return bot.decide(m.view(seat), m.legal_actions(seat))


def tdc_after_round_one(hands2: list[str]) -> PresidentMatch:
    """A tdc match in round 2: round 1 made seat 0 Président, 1 VP, 2 vice-last, 3 last (T11)."""
    m = PresidentMatch.from_hands("tdc", ["Ac", "Kc", "Qc", "3c 4c"], leader=0)
    play(m, 0, "Ac")  # T7c: closes, the next seat leads
    play(m, 1, "Kc")
    play(m, 2, "Qc")
    assert m.last_titles == ("president", "vice_president", "vice_last", "last")
    m.deal_hands(hands2)
    assert m.phase == "exchange"
    return m


# ------------------------------------------------------------------ the rules model


MIXED = replace(CLASSIC, name="mixed", cut=True, revolution=True, close_on_four_of_rank=True, forbidden_last=True)
"""A third rule set: classic passing (P8), P9b/P9 Decision, with the tdc cut, revolution, T7b and T8."""


def _sim_of(m: PresidentMatch, forbidden: list[int]) -> object:
    hands = [[int(c) for c in m.hand(s)] for s in range(m.seats)]
    return sim_from_view(m.view(0), hands, forbidden, rules=m.rules)


@pytest.mark.parametrize("rules", [CLASSIC, TDC, MIXED], ids=lambda r: r.name)
def test_rollout_model_follows_the_engine_move_for_move(rules: PresidentRules) -> None:
    """The rollout model plays P5–P11 / T3–T9, T15 exactly as the engine does (random legal games),
    under each rule set's switches: the two tables and a mixed one."""
    rng = random.Random(7)
    moves = forced = 0
    for game in range(6):
        n = 3 + game % 3
        m = PresidentMatch(rules, seats=n, stake=2, rounds=2)
        forbidden: list[int] = []
        while not m.over:
            if m.needs_deal():
                table = {"present": tuple(range(n)), "stake": 2} if rules.seats_change else {}
                m.apply(m.deal_action(seed_from_int(100 * game + m.round), **table))
                forbidden = []
                continue
            if m.phase == "exchange":
                seat = m.pending()[0].seat
                assert seat is not None
                m.apply(rng.choice(m.legal_actions(seat)))
                continue
            sim: object = _sim_of(m, forbidden)
            cuts = m.cut_options()
            assert sim.cutter() == (next(iter(cuts)) if cuts else -1)  # type: ignore[attr-defined]
            if cuts and rng.random() < 0.5:
                seat, cut_cards = next(iter(cuts.items()))
                action: object = Cut(seat, cut_cards)
            else:
                assert sim.turn == m.turn  # type: ignore[attr-defined]
                action = rng.choice(m.legal_actions(m.turn))  # type: ignore[arg-type]
            events = m.apply(action)  # type: ignore[arg-type]
            forbidden += [e.seat for e in events if e.name == "out" and e.forbidden]  # type: ignore[attr-defined]
            forced += sum(e.name == "passed" and e.auto for e in events)  # type: ignore[attr-defined]
            if isinstance(action, Pass):
                sim.pass_(action.seat)  # type: ignore[attr-defined]
            else:
                c = action.cards  # type: ignore[attr-defined]
                sim.play(action.seat, int(c[0]) >> 2, len(c), cut=isinstance(action, Cut))  # type: ignore[attr-defined]
            moves += 1
            over = [e for e in events if e.name == "round_over"]
            assert sim.done == bool(over)  # type: ignore[attr-defined]
            if over:
                assert tuple(sim.ranking()) == over[0].ranking  # type: ignore[attr-defined]
            else:
                fresh = _sim_of(m, forbidden)
                for field in ("turn", "top_rank", "top_count", "rev", "holders", "hands", "remaining"):
                    assert getattr(sim, field) == getattr(fresh, field), field
    assert moves > 500
    assert forced > 0 or not rules.forced_passes  # the P9 Decision was met


def test_the_model_refuses_rule_switches_it_does_not_play() -> None:
    """A rule set the round model cannot play is refused when the model (or the bot) is built."""
    odd = replace(TDC, name="odd", pass_leaves_trick=False)  # T14 passivity without T5
    with pytest.raises(ValueError, match="passive_on_timeout"):
        _Sim(4, odd)
    with pytest.raises(ValueError, match="passive_on_timeout"):
        SearchPresidentBot(0, SEED, rules=odd)
    with pytest.raises(ValueError, match="first_lead"):
        _Sim(4, replace(CLASSIC, name="odd", first_lead="7h"))
    with pytest.raises(ValueError, match="unknown"):
        _Sim(4, "nonsense")
    assert isinstance(SearchPresidentBot(0, SEED, rules=MIXED), SearchPresidentBot)


def test_search_bots_play_a_mixed_rule_set() -> None:
    """Given its rule set, the search bot plays legal actions at a table of neither standard kind."""
    match = PresidentMatch(MIXED, seats=4, rounds=2)
    seed = seed_from_int(77)
    bots = [
        SearchPresidentBot(s, derive(seed, f"bot-{s}"), rollouts=6, rules=MIXED) if s % 2 == 0 else GreedyPresidentBot(s)
        for s in range(4)
    ]
    stats = play_match(match, bots, seed)  # raises on any refused action
    assert match.over and stats.checks > 0


@pytest.mark.parametrize("rules", ["classic", "tdc"])
def test_rollout_policy_is_the_greedy_bot(rules: str) -> None:
    """The rollout policy makes the greedy bot's decisions (so rollouts model the "normal" level)."""
    agree = 0
    for game in range(3):
        n = 4
        m = PresidentMatch(rules, seats=n, stake=2, rounds=2)
        greedy = [GreedyPresidentBot(s) for s in range(n)]
        while not m.over:
            if m.needs_deal():
                table = {"present": tuple(range(n)), "stake": 2} if rules == "tdc" else {}
                m.apply(m.deal_action(seed_from_int(10 * game + m.round), **table))
                continue
            seat = m.pending()[0].seat
            assert seat is not None
            view = m.view(seat)
            action = greedy[seat].decide(view, m.legal_actions(seat))
            assert action is not None
            if isinstance(action, Play | Pass):
                hands = [[int(c) for c in m.hand(s)] for s in range(n)]
                move = _policy(sim_from_view(view, hands), seat, lambda: 0.5)
                expected = -1 if isinstance(action, Pass) else (int(action.cards[0]) >> 2) * 8 + len(action.cards)
                assert move == expected
                agree += 1
            m.apply(action)
    assert agree > 100


# ------------------------------------------------------------------ the search loop


def test_race_keeps_the_better_candidate_and_respects_fixed_rollouts() -> None:
    rng = random.Random(3)

    def evaluate(world: int, alive: object) -> list[float]:
        noise = rng.random()
        return [noise + (0.3 if c == 2 else 0.0) for c in alive]  # type: ignore[attr-defined]

    budget = Budget.make(200, rollouts=60)
    result = race(4, evaluate, budget)
    assert result.best == 2
    assert result.rollouts <= 60


def test_budget_modes() -> None:
    assert Budget.make(100, rollouts=5).rollouts == 5
    b = Budget.make(10, None)
    assert b.rollouts is None and not b.exhausted()
    b.used_steps = b.steps
    assert b.exhausted()
    ticks = iter([0.0, 0.5])
    timed = Budget.make(100, None, clock=lambda: next(ticks))
    assert timed.exhausted()  # 0.5 s > 100 ms on that clock


# ------------------------------------------------------------------ decisions


def test_same_seed_same_rollouts_same_decision() -> None:
    m = PresidentMatch("classic", seats=4)
    m.apply(m.deal_action(seed_from_int(5)))
    seat = m.turn
    assert seat is not None
    a = decide(m, seat, rollouts=64)
    b = decide(m, seat, rollouts=64)
    assert a == b and a in m.legal_actions(seat)


def test_no_peeking_hidden_cards_do_not_change_the_decision() -> None:
    """Two matches equal for seat 0 but for the other seats' hidden cards: the same decision."""
    mine = "4c 4d 7s 9h Jd Qc Ks As 2d"
    a = PresidentMatch.from_hands("classic", [mine, "5c 6c 8c Tc", "5d 6d 8d Td", "3c 3d 3h 3s"], leader=1)
    b = PresidentMatch.from_hands("classic", [mine, "3c 3d 8c Tc", "5d 6d 3h Td", "5c 6c 8d 3s"], leader=1)
    for m in (a, b):  # the same public history: seat 1 leads the Tc, seats 2 and 3 pass
        play(m, 1, "Tc")
        m.apply(Pass(2))
        m.apply(Pass(3))
    assert a.view(0) == b.view(0)
    for seed in (b"x", b"y", b"z"):
        assert decide(a, 0, 40, seed) == decide(b, 0, 40, seed)


def test_P9_takes_the_winning_two() -> None:
    """Classic: with 2s and one low card left, win the trick with the 2 and go out first."""
    m = PresidentMatch.from_hands(
        "classic", ["Kc 5c 6c 8c", "2s 3c", "5d 6d 8d 9d", "5h 6h 8h 9h"], leader=0
    )
    play(m, 0, "Kc")
    assert decide(m, 1) == Play(1, cards("2s"))


def test_T9_cuts_to_go_out() -> None:
    """tdc: holding the three other 7s and a last card, the cut wins the lead and the round."""
    m = PresidentMatch.from_hands(
        "tdc", ["7s 9c Jc Kd", "7c 7d 7h 4c", "5d 6d 8d Qh", "5h 6h 8h 9h"], leader=0
    )
    play(m, 0, "7s")
    legal = [a for a in m.legal_actions(1) if isinstance(a, Cut)]
    assert legal  # seat 1 may cut out of turn (T9)
    bot = SearchPresidentBot(1, SEED, rollouts=32)
    assert bot.decide(m.view(1), legal) == Cut(1, cards("7c 7d 7h"))


def test_T8_leads_the_two_before_the_last_card() -> None:
    """tdc: 2s + one card on the lead: the 2 first (it closes, T7a), then out on the other card."""
    m = PresidentMatch.from_hands("tdc", ["2s 9c", "5d 6d 8d Qh", "5h 6h 8h Kh"], leader=0)
    assert decide(m, 0) == Play(0, cards("2s"))


def test_T8_never_goes_out_on_a_two_when_it_can_pass() -> None:
    m = PresidentMatch.from_hands("tdc", ["9c 5c Jc", "2s", "5h 6h 8h Qh"], leader=0)
    play(m, 0, "9c")
    assert decide(m, 1) == Pass(1)


def test_T12_gives_never_a_two_when_avoidable() -> None:
    # the Président receives the last's two strongest and gives back two of his choice
    m = tdc_after_round_one(["2c 2d 2h 3d 9d Td", "4d 5d 6d", "7d 8d Jd", "Ac Ad Kc Kd Qh"])
    bot = SearchPresidentBot(0, SEED, rollouts=48)
    a = bot.decide(m.view(0), m.legal_actions(0))
    assert isinstance(a, Give) and len(a.cards) == 2
    assert all(c.rank != RANK_2 for c in a.cards)
    m.apply(a)
    vp = SearchPresidentBot(1, SEED, rollouts=32).decide(m.view(1), m.legal_actions(1))
    assert isinstance(vp, Give) and len(vp.cards) == 1 and vp.cards[0].rank != RANK_2


def test_T12_knowledge_of_the_exchange_shapes_the_sampled_hands() -> None:
    """The Président knows the last holds nothing stronger than what he gave, and what he got back."""
    m = tdc_after_round_one(["5c 6c 7c", "4d 5d 6d", "7d 8d Jd", "9h Td Ac Ad"])
    m.apply(Give(0, cards("5c 6c")))
    m.apply(Give(1, cards("4d")))
    view = m.view(0)
    k = Knowledge.from_view(view)
    assert k.below[3] == int(parse_cards("Ac")[0])
    assert k.located[3] == sum(1 << int(c) for c in cards("5c 6c"))
    rng = random.Random(1)
    for _ in range(20):
        hands = sample_hands(view, k, rng)
        assert hands is not None
        assert {int(c) for c in cards("5c 6c")} <= set(hands[3])
        assert all(c < int(parse_cards("Ac")[0]) for c in hands[3])
        assert [len(h) for h in hands] == list(view.counts)


@pytest.mark.parametrize("rules", ["classic", "tdc"])
def test_the_true_hands_explain_greedy_opponents_play(rules: str) -> None:
    """The tracker reads greedy opponents right: the real hands never contradict their recorded play."""
    checked = 0
    for game in range(2):
        m = PresidentMatch(rules, seats=4, stake=2, rounds=2)
        seed = seed_from_int(40 + game)
        bots: list[object] = [SearchPresidentBot(0, seed, rollouts=4)] + [GreedyPresidentBot(s) for s in (1, 2, 3)]

        def step(action: object, events: tuple[object, ...], m: PresidentMatch = m, bots: list[object] = bots) -> None:
            nonlocal checked
            tracker = bots[0].tracker  # type: ignore[attr-defined]
            if tracker.active and m.phase == "play":
                tracker.set_rules(rules)
                hands = [[int(c) for c in m.hand(s)] for s in range(4)]
                assert tracker.mismatches(hands, 99)[0] == 0
                checked += 1

        play_match(m, bots, seed, step)  # type: ignore[arg-type]
    assert checked > 50


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize("rules,seats", [("classic", 4), ("tdc", 3), ("tdc", 5)])
def test_search_bots_always_play_legal_actions(rules: str, seats: int) -> None:
    for game in range(3):
        match = PresidentMatch(rules, seats=seats, stake=2, rounds=2)
        seed = seed_from_int(100 * seats + game)
        bots = [
            SearchPresidentBot(s, derive(seed, f"bot-{s}"), rollouts=8) if (s + game) % 2 == 0 else GreedyPresidentBot(s)
            for s in range(seats)
        ]
        stats = play_match(match, bots, seed)  # raises on any refused action
        assert match.over and stats.checks > 0


def test_registry_and_levels_make_search_bots() -> None:
    bot = make_bot("president", "hard", 2, SEED, rollouts=4)
    assert isinstance(bot, SearchPresidentBot) and bot.seat == 2 and bot.rollouts == 4
    assert isinstance(make_bot("president", "search", 0, SEED), SearchPresidentBot)


# ------------------------------------------------------------------ Speculation


def spec_match(trump: str, facedown: str | None = None, ante: int = 1) -> object:
    """A 4-seat table, dealer 0, pool 5 × ante: ``facedown`` are the 12 dealt cards, then the trump (S4, S5)."""
    from engine.speculation import SpeculationMatch
    from engine.speculation.actions import Deal as SpecDeal

    m = SpeculationMatch(seats=4, chips=[50] * 4, ante=ante, deals=4, first_dealer=0)
    down = facedown or "3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac"
    order = [int(c) for c in parse_cards(down)] + [int(parse_cards(trump)[0])]
    m.apply(SpecDeal(b"explicit", tuple(order)))
    return m


def spec_decide(m: object, seat: int, rollouts: int = 400, seed: bytes = SEED) -> object:
    from engine.bots.search_speculation import SearchSpeculationBot

    bot = SearchSpeculationBot(seat, seed, rollouts=rollouts)
    return bot.decide(m.view(seat), m.legal_actions(seat))  # type: ignore[attr-defined]


def test_S7_owner_sells_a_weak_trump_for_a_good_bid() -> None:
    from engine.speculation.actions import Bid, Sell

    m = spec_match("3h")  # the dealer (seat 0) owns the 3 of trumps: almost any trump beats it
    assert m.view(0).auction is not None  # type: ignore[attr-defined]
    m.apply(Bid(1, 2))  # type: ignore[attr-defined]
    assert spec_decide(m, 0) == Sell(0)


def test_S7_owner_keeps_a_king_of_trumps_against_a_low_bid() -> None:
    from engine.speculation.actions import Bid

    m = spec_match("Kh")  # only the ace beats it
    m.apply(Bid(1, 1))  # type: ignore[attr-defined]
    assert spec_decide(m, 0) is None  # waits: the deadline keeps (S7)


def test_S7_bids_on_a_strong_trump_not_on_a_weak_one() -> None:
    from engine.speculation.actions import Bid

    assert spec_decide(spec_match("Kh"), 2) == Bid(2, 1)
    assert spec_decide(spec_match("3h"), 2) is None


def test_S9_holder_offers_to_buy_threatening_cards_and_sellers_weigh_offers() -> None:
    from engine.speculation.actions import Accept, Decline, Keep, Offer

    small = spec_match("Qh")  # pool 5: removing three of nine threatening cards is worth < 1 chip
    small.apply(Keep(0))  # type: ignore[attr-defined]
    assert spec_decide(small, 0) is None
    m = spec_match("Qh", ante=5)  # pool 25: it is worth paying for
    m.apply(Keep(0))  # type: ignore[attr-defined]
    offer = spec_decide(m, 0)
    assert isinstance(offer, Offer) and offer.seat == 0 and offer.to != 0 and offer.cards == 3
    assert 1 <= offer.price < 25
    # a non-holder's three unseen cards against a queen: worth little, a price of 5 is good
    m.apply(Offer(0, 2, 3, 5))  # type: ignore[attr-defined]
    oid = m.view(2).offers[-1].offer  # type: ignore[attr-defined]
    assert spec_decide(m, 2) == Accept(2, oid)
    # against a weak best trump the same cards are worth more than one chip
    w = spec_match("4h", ante=5)
    w.apply(Keep(0))  # type: ignore[attr-defined]
    w.apply(Offer(0, 2, 3, 1))  # type: ignore[attr-defined]
    wid = w.view(2).offers[-1].offer  # type: ignore[attr-defined]
    assert spec_decide(w, 2) == Decline(2, wid)


def test_speculation_no_peeking_and_determinism() -> None:
    """Face-down cards nobody sees cannot change a decision; same seed, same decision."""
    from engine.speculation.actions import Bid

    a = spec_match("Th", "3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac")
    b = spec_match("Th", "Ah Kh Qh 3d 4d 5d 6d 7d 8d 9d Td Jd")
    for m in (a, b):
        m.apply(Bid(1, 1))  # type: ignore[attr-defined]
    assert a.view(2) == b.view(2)  # type: ignore[attr-defined]
    for seat in (0, 2, 3):
        assert spec_decide(a, seat, 200) == spec_decide(b, seat, 200)
        assert spec_decide(a, seat, 200) == spec_decide(a, seat, 200)


def test_speculation_search_bots_play_legal_matches() -> None:
    from engine.speculation import SpeculationMatch

    match = SpeculationMatch(seats=4, chips=[30] * 4, ante=1, deals=6)
    seed = seed_from_int(11)
    bots = [
        make_bot("speculation", "search" if s % 2 == 0 else "greedy", s, derive(seed, f"bot-{s}"), rollouts=64)
        for s in range(4)
    ]
    stats = play_match(match, bots, seed)  # raises on any refused action
    assert match.over and stats.checks > 0
    assert type(make_bot("speculation", "hard", 1, SEED)).__name__ == "SearchSpeculationBot"
