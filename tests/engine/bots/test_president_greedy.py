"""engine/bots/president_greedy.py and engine/bots/driver.py: decisions in explicit deals, whole games."""

import pytest

from engine.bots import make_bot
from engine.bots.driver import DriverError, play_match
from engine.bots.president_greedy import _LOW, GreedyPresidentBot
from engine.cards import parse_cards
from engine.president import Cut, Give, Pass, Play, PresidentMatch
from engine.seeds import derive, seed_from_int


def decide(m: PresidentMatch, seat: int, **opts):
    bot = GreedyPresidentBot(seat, b"test", **opts)
    return bot.decide(m.view(seat), m.legal_actions(seat))


def cards(text: str):
    return tuple(sorted(parse_cards(text)))


def play(m: PresidentMatch, seat: int, text: str) -> None:
    m.apply(Play(seat, parse_cards(text)))


# ---------------------------------------------------------------- classic


def test_P5_leads_weakest_set_whole():
    m = PresidentMatch.from_hands("classic", ["4c 4d 7s 2c Kd", "5c 6c 8c", "9c Tc Jc"], leader=0)
    a = decide(m, 0)
    assert isinstance(a, Play) and a.cards == cards("4c 4d")


def test_P6_prefers_natural_single_over_splitting_a_pair():
    m = PresidentMatch.from_hands("classic", ["5c 3c 3d", "6c 6d 9s Kc Kd", "8c Tc Jc"], leader=0)
    play(m, 0, "5c")
    a = decide(m, 1)
    assert isinstance(a, Play) and a.cards == cards("9s")


def test_P9_keeps_twos_on_a_low_trick():
    hand = "2c 5d 5h 8c 8d 9c 9d Jc Jd"
    m = PresidentMatch.from_hands("classic", ["Qc 3c 3d", hand, "4c 4d 6c"], leader=0)
    play(m, 0, "Qc")
    assert isinstance(decide(m, 1), Pass)


def test_P9_plays_a_two_to_win_a_high_trick():
    m = PresidentMatch.from_hands("classic", ["Ac 3c 3d", "2c 5d 5h 8c 8d 9c 9d", "4c 4d 6c"], leader=0)
    play(m, 0, "Ac")
    a = decide(m, 1)
    assert isinstance(a, Play) and a.cards == cards("2c")


def test_P9_control_first_then_out_on_the_lead():
    m = PresidentMatch.from_hands("classic", ["2c 9d", "5c 6c 8c", "Tc Jc Qc"], leader=0)
    a = decide(m, 0)
    assert isinstance(a, Play) and a.cards == cards("2c")


def test_P7_ca_ou_rien_blocks_when_nobody_else_can_follow():
    # the other 9 is in the trick and we hold the three others: an equal 9 blocks everyone
    m = PresidentMatch.from_hands("classic", ["9c 3c 3d", "9d 9h 9s Tc Kd", "4c 4d 6c"], leader=0)
    play(m, 0, "9c")
    a = decide(m, 1)
    assert isinstance(a, Play) and len(a.cards) == 1 and a.cards[0].rank_symbol == "9"
    # without the block (the fourth 9 is unseen) it follows with its natural single
    m = PresidentMatch.from_hands("classic", ["9c 3c 3d", "9d 9h Tc Kd Kh", "4c 9s 6c"], leader=0)
    play(m, 0, "9c")
    a = decide(m, 1)
    assert isinstance(a, Play) and a.cards == cards("Tc")


def test_P7_follows_the_forced_rank_or_passes():
    m = PresidentMatch.from_hands("classic", ["9c 3c", "9d 4c", "Kc Kd 5c", "9h 9s 6c"], leader=0)
    play(m, 0, "9c")
    play(m, 1, "9d")  # ça ou rien: 9 or nothing
    assert isinstance(decide(m, 2), Pass)
    m.apply(Pass(2))
    a = decide(m, 3)
    assert isinstance(a, Play) and a.cards[0].rank_symbol == "9"


def test_P6_breaks_a_low_pair_but_not_a_high_one_early():
    m = PresidentMatch.from_hands(
        "classic", ["5c 3c 3d", "7c 7d Kc Kd Ac Ad Qc Qd", "4c 4d 6c"], leader=0
    )
    play(m, 0, "5c")
    a = decide(m, 1)
    assert isinstance(a, Play) and a.cards[0].rank_symbol == "7"
    m = PresidentMatch.from_hands(
        "classic", ["Jc 3c 3d", "7c 7d Kc Kd Ac Ad Qc Qd", "4c 4d 6c"], leader=0
    )
    play(m, 0, "Jc")
    assert isinstance(decide(m, 1), Pass)


# ---------------------------------------------------------------- tdc


def test_T8_plays_the_two_before_the_last_card():
    m = PresidentMatch.from_hands("tdc", ["5c 3c 3d", "2c 7d", "4c 4d 6c"], leader=0)
    play(m, 0, "5c")
    a = decide(m, 1)
    # following with 7d would leave only the 2: a forbidden finish later
    assert isinstance(a, Play) and a.cards == cards("2c")


def test_T8_never_goes_out_on_a_two_when_it_can_pass():
    m = PresidentMatch.from_hands("tdc", ["5c 3c 3d", "2c", "4c 4d 6c"], leader=0)
    play(m, 0, "5c")
    assert isinstance(decide(m, 1), Pass)


def test_T8_leads_the_two_first():
    m = PresidentMatch.from_hands("tdc", ["2c 9d", "5c 6c 8c", "Tc Jc Qc"], leader=0)
    a = decide(m, 0)
    assert isinstance(a, Play) and a.cards == cards("2c")


def test_T8_in_revolution_the_three_is_forbidden():
    m = PresidentMatch.from_hands("tdc", ["6c 6d 6h 6s 9c 9d", "3c", "4c 4d Ac"], leader=0)
    play(m, 0, "6c 6d 6h 6s")  # T10: reversed
    assert m.view(0).reversed
    play(m, 0, "9c")
    # seat 1 holds only 3c, the strongest and forbidden card in revolution: it passes
    assert isinstance(decide(m, 1), Pass)


def test_T9_cuts_out_of_turn():
    m = PresidentMatch.from_hands("tdc", ["8c 3c 3d", "5c 6c 7c", "8d 8h 8s Kc"], leader=0)
    play(m, 0, "8c")
    options = [a for a in m.legal_actions(2) if isinstance(a, Cut)]
    assert options and m.turn == 1
    bot = GreedyPresidentBot(2, b"")
    a = bot.decide(m.view(2), options)
    assert isinstance(a, Cut) and a.cards == cards("8d 8h 8s")


def test_T9_no_cut_that_strands_it_with_a_two():
    m = PresidentMatch.from_hands("tdc", ["8c 3c 3d", "5c 6c 7c", "8d 8h 8s 2c"], leader=0)
    play(m, 0, "8c")
    options = [a for a in m.legal_actions(2) if isinstance(a, Cut)]
    assert options
    assert GreedyPresidentBot(2, b"").decide(m.view(2), options) is None


def test_T10_revolution_with_a_weak_hand():
    m = PresidentMatch.from_hands("tdc", ["4c 4d 4h 4s 3c 5d 6h Ks", "9c Tc Jc", "Qc Qd Ac"], leader=0)
    a = decide(m, 0)
    assert isinstance(a, Play) and a.cards == cards("4c 4d 4h 4s")


def test_T10_no_revolution_with_a_strong_hand():
    m = PresidentMatch.from_hands("tdc", ["4c 4d 4h 4s 3s Qh Kd Ac", "9c Tc Jc", "Qc Qd 5c"], leader=0)
    a = decide(m, 0)
    assert isinstance(a, Play) and a.cards == cards("3s")


def _tdc_exchange(president_hand: str) -> PresidentMatch:
    """Round 1: seat 0 goes out first (Président), seat 2 is last; round 2 deals ``president_hand``."""
    m = PresidentMatch.from_hands("tdc", ["4c", "5c", "6c 7c"], leader=0)
    play(m, 0, "4c")  # out first
    play(m, 1, "5c")  # out: round over, seat 2 last
    assert m.needs_deal() and m.last_titles is not None and m.last_titles[0] == "president"
    m.deal_hands([president_hand, "3h 5h 6h", "Ah As 8h"])
    assert m.phase == "exchange"
    return m


def test_T12_gives_weakest_singles_never_twos():
    m = _tdc_exchange("2c 2d 3c 4d 7c 7d Kc")
    a = decide(m, 0)
    assert isinstance(a, Give) and a.cards == cards("3c 4d")


def test_T12_gives_a_low_pair_rather_than_high_singles():
    m = _tdc_exchange("2c 2d 4c 4d Qc Kd 9s 9h")
    a = decide(m, 0)
    assert isinstance(a, Give) and a.cards == cards("4c 4d")


def test_T12_never_gives_a_two_even_with_only_twos_and_pairs():
    m = _tdc_exchange("2c 2d 2h 9c 9d")
    a = decide(m, 0)
    assert isinstance(a, Give) and all(c.rank_symbol != "2" for c in a.cards)


# ---------------------------------------------------------------- the driver


def _bots(names, seed):
    return [make_bot("president", n, s, derive(seed, f"bot-{s}")) for s, n in enumerate(names)]


def test_driver_plays_full_classic_matches_with_invariants():
    for i in range(5):
        seed = seed_from_int(100 + i)
        m = PresidentMatch("classic", seats=4)
        stats = play_match(m, _bots(["greedy", "greedy", "random", "random"], seed), seed)
        assert m.over and m.round == 5  # P15
        assert stats.deals == 5 and stats.checks > stats.actions  # checked after every action
        assert sum(m.totals) == 5 * 6  # P14: 3+2+1+0 a round


def test_driver_plays_tdc_rounds_with_cuts_and_chips_conserved():
    seed = seed_from_int(7)
    m = PresidentMatch("tdc", seats=4, stake=10, rounds=40)
    seen = []
    stats = play_match(m, _bots(["greedy", "random", "greedy", "random"], seed), seed, lambda a, ev: seen.extend(ev))
    assert m.over and stats.deals == 40
    names = {e.name for e in seen}
    assert {"cut", "exchange", "round_over"} <= names
    # cuts come out of turn (driver reactions) or as the turn's own action (T9 Decision)
    assert 0 < stats.reactions <= sum(1 for e in seen if e.name == "cut")
    assert sum(m.chips) == 0  # invariant 4


def test_driver_is_deterministic():
    logs = []
    for _ in range(2):
        seed = seed_from_int(3)
        m = PresidentMatch("tdc", seats=5, stake=10, rounds=6)
        play_match(m, _bots(["greedy", "random", "greedy", "random", "random"], seed), seed)
        logs.append(m.log())
    assert logs[0] == logs[1]


def test_driver_check_every():
    seed = seed_from_int(5)
    m = PresidentMatch("classic", seats=3)
    every = play_match(m, _bots(["greedy"] * 3, seed), seed, check_every=0)
    assert every.checks == 0
    m = PresidentMatch("classic", seats=3)
    some = play_match(m, _bots(["greedy"] * 3, seed), seed, check_every=10)
    assert some.checks > 0 and some.actions == every.actions


def test_driver_checks_after_every_nth_action_and_at_the_end():
    class Counted(PresidentMatch):
        __slots__ = ("checked_at",)

        def check_invariants(self):
            self.checked_at.append(self.version)  # one version per applied action
            return super().check_invariants()

    seed = seed_from_int(5)
    for every in (1, 7, 10):
        m = Counted("classic", seats=4)
        m.checked_at = []
        stats = play_match(m, _bots(["greedy"] * 4, seed), seed, check_every=every)
        n = stats.actions
        expected = list(range(every, n + 1, every))
        if n % every:
            expected.append(n)
        assert m.checked_at == expected
        assert stats.forced > 0  # the turn loop's forced moves are counted and checked too


def test_driver_bounds_the_actions_of_a_match():
    seed = seed_from_int(5)
    for every in (0, 1, 7):
        m = PresidentMatch("classic", seats=4)
        with pytest.raises(DriverError, match="not over after 90 actions"):
            play_match(m, _bots(["greedy"] * 4, seed), seed, check_every=every, max_actions=90)
        assert len(m.log()) == 91  # the action beyond the bound was applied, then refused to go on


def test_driver_refused_turn_view_decision_is_an_error():
    class Cheater(GreedyPresidentBot):
        def decide(self, view, legal):
            return Pass(self.seat)

        def decide_turn(self, turn):
            return Pass(self.seat)  # illegal when leading (P5)

    seed = seed_from_int(1)
    m = PresidentMatch("classic", seats=3)
    with pytest.raises(DriverError, match=r"bot of seat 2 chose .* illegal_play the leader must play"):
        play_match(m, [Cheater(s, b"") for s in range(3)], seed)


def test_driver_refused_bot_action_is_an_error():
    class Cheater(GreedyPresidentBot):
        def decide(self, view, legal):
            return Pass(self.seat)  # illegal when leading (P5)

    seed = seed_from_int(1)
    m = PresidentMatch("classic", seats=3)
    with pytest.raises(DriverError, match=r"must_lead|illegal_play"):
        play_match(m, [Cheater(s, b"") for s in range(3)], seed)


def test_driver_invariant_failure_propagates():
    class Broken(PresidentMatch):
        __slots__ = ()

        def check_invariants(self):
            if self.round == 2:
                raise AssertionError("cards not conserved")
            return 1

    seed = seed_from_int(1)
    with pytest.raises(AssertionError, match="conserved"):
        play_match(Broken("classic", seats=3), _bots(["greedy"] * 3, seed), seed)


# ---------------------------------------------------------------- strength


def _mean_points(rules, names, rounds, seed_n):
    totals = [0] * len(names)
    per_match = 5 if rules == "classic" else rounds
    played = 0
    i = 0
    while played < rounds:
        seed = derive(seed_from_int(seed_n), f"match-{i}")
        m = PresidentMatch(rules, seats=len(names), stake=10, rounds=per_match)
        play_match(m, _bots(names, seed), seed, check_every=0)
        for s, t in enumerate(m.totals):
            totals[s] += t
        played += per_match
        i += 1
    return [t / played for t in totals]


def test_greedy_beats_random_classic():
    pts = _mean_points("classic", ["greedy", "random", "greedy", "random"], 300, 11)
    assert min(pts[0], pts[2]) > max(pts[1], pts[3]) + 0.5


def test_greedy_beats_random_tdc():
    pts = _mean_points("tdc", ["random", "greedy", "random", "greedy"], 300, 12)
    assert min(pts[1], pts[3]) > max(pts[0], pts[2]) + 0.5


def test_driver_forced_moves_skip_only_the_asking():
    logs, forced = [], []
    for ask in (False, True):
        seed = seed_from_int(4)
        m = PresidentMatch("classic", seats=4)
        stats = play_match(m, _bots(["greedy"] * 4, seed), seed, ask_forced=ask)
        logs.append(m.log())
        forced.append(stats.forced)
    assert logs[0] == logs[1]  # the greedy bot's answer when it has no choice is that one action
    assert forced[0] > 0 and forced[1] == 0


# ---------------------------------------------------------------- the driver on a Speculation table


def test_driver_plays_speculation_with_out_of_turn_actions():
    pytest.importorskip("engine.bots.speculation_greedy")
    from engine.speculation import SpeculationMatch

    seed = seed_from_int(3)
    names = ["greedy", "greedy", "random", "random", "greedy"]
    m = SpeculationMatch(seats=5, chips=[1000] * 5, deals=40)
    bots = [make_bot("speculation", n, s, derive(seed, f"bot-{s}")) for s, n in enumerate(names)]
    seen = []
    stats = play_match(m, bots, seed, lambda a, ev: seen.extend(e.name for e in ev))
    assert m.over and stats.deals == 40 and sum(m.chips) == 5000  # S11 / invariant 4
    assert stats.reactions > 0 and {"auction", "bid", "offered"} <= set(seen)


def test_driver_bounds_a_bidding_war():
    pytest.importorskip("engine.speculation")
    from engine.speculation import Bid, SpeculationMatch

    class Bidder:
        observes = False

        def __init__(self, seat):
            self.seat = seat

        def decide(self, view, legal):
            bids = [a for a in legal if isinstance(a, Bid)]
            if bids:
                return bids[0]  # always outbid, forever
            turns = [a for a in legal if type(a).__name__ == "Turn"]
            return turns[0] if turns else None  # the owner never sells nor keeps

        def observe(self, event):
            pass

    seed = seed_from_int(8)
    m = SpeculationMatch(seats=3, chips=[10**6] * 3, deals=3)
    stats = play_match(m, [Bidder(s) for s in range(3)], seed)
    assert m.over and stats.timeouts > 0  # the auctions were closed by their time-out (S7)


def test_driver_applies_the_time_out_when_a_bot_does_not_answer():
    class Sleeper(GreedyPresidentBot):
        def decide(self, view, legal):
            return None  # lets its clock run out every time

    seed = seed_from_int(6)
    m = PresidentMatch("classic", seats=3, rounds=2)
    stats = play_match(m, [Sleeper(s, b"") for s in range(3)], seed, ask_forced=True)
    # classic time-out: pass, or the weakest single when leading; the match still ends
    assert m.over and stats.timeouts == stats.actions - stats.deals > 0


# ---------------------------------------------------------------- the driver's fast path


@pytest.mark.parametrize("rules", ["classic", "tdc"])
def test_decide_turn_is_decide_on_every_turn_of_play(rules):
    """The compact turn view (PresidentMatch.turn_view) gives the greedy bot's choice of
    decide(view, legal) on random states of both tables, cuts on one's turn included."""
    from engine.president import RULESETS
    from tests.engine.test_views import drive_president

    counted = {"turns": 0, "cuts": 0}

    def on_state(m):
        seat = m.awaited_turn()
        if seat is None:
            return
        for opts in ({}, {"break_below": 4, "control_hand": 8}):
            bot = GreedyPresidentBot(seat, b"", **opts)
            expected = bot.decide(m.view(seat), m.legal_actions(seat))
            fresh = GreedyPresidentBot(seat, b"", **opts)  # nothing cached from decide()
            assert fresh.decide_turn(m.turn_view(seat)) == expected
            counted["cuts"] += isinstance(expected, Cut)
        counted["turns"] += 1

    for i in range(12):
        seats = 3 + i % 4
        drive_president(RULESETS[rules], seats, 77 * seats + i, 3, on_state)
    assert counted["turns"] > 1000
    if rules == "tdc":
        assert counted["cuts"] > 5


def test_driver_asks_decide_of_a_bot_that_overrides_it_alone():
    """A subclass that overrides decide() but not decide_turn() is asked through decide()."""
    asked = []

    class Logged(GreedyPresidentBot):
        def decide(self, view, legal):
            asked.append(self.seat)
            return super().decide(view, legal)

    seed = seed_from_int(3)
    play_match(PresidentMatch("classic", seats=3, rounds=1), [Logged(s, b"") for s in range(3)], seed)
    assert len(asked) > 10


def test_classic_packed_paths_choose_as_the_rank_loops():
    """decide_turn's classic-order shortcuts on packed rank counts (its lead of the weakest set,
    its follow, _broken_or_control) choose what the rank loops (_lead, _follow) choose, on random
    hands and tables: every hand size, top play, cards already played and both bot options."""
    import random

    from engine.cards import RANK_2
    from engine.president.actions import PASSES, PLAYS

    def play(r: int, k: int, hand_mask: int):
        return PASSES[0] if r < 0 else PLAYS[r][_LOW[hand_mask >> 4 * r & 15][k]]

    rng = random.Random(2026)
    counted = {"lead": 0, "follow": 0, "pass": 0, "control": 0, "broken": 0}
    for i in range(40_000):
        deck = list(range(52))
        rng.shuffle(deck)
        n = rng.randint(1, 13)
        hand = deck[:n]
        hand_mask = sum(1 << c for c in hand)
        cnt = bytearray(13)
        for c in hand:
            cnt[c >> 2] += 1
        counts = int.from_bytes(cnt, "little")
        played = sum(1 << c for c in deck[n : n + rng.randint(0, 30)])
        opts = {} if i % 2 else {"break_below": rng.randint(0, 13), "control_hand": rng.randint(0, 9)}
        bot = GreedyPresidentBot(0, b"", **opts)
        if i % 3 == 0:
            expected = play(*bot._lead(bytes(cnt), n, RANK_2, -1, False, False), hand_mask)
            got = bot.decide_turn((0, "classic", hand_mask, counts, n, 0, 0, False, False, played, None, None))
            assert got is expected, (hand, opts)
            # the shortcut decides when two sets or more are neither 2s nor quads
            counted["lead"] += sum(1 for r in range(RANK_2) if 0 < cnt[r] < 4) >= 2
            continue
        k = rng.randint(1, 4)
        tr = rng.randint(0, 12)
        r = bot._follow(None, played, bytes(cnt), n, k, tr, RANK_2, -1, False, False)
        got = bot.decide_turn((0, "classic", hand_mask, counts, n, tr, k, False, False, played, None, None))
        assert got is play(r, k, hand_mask), (hand, k, tr, opts)
        counted["follow"] += 1
        counted["pass"] += r < 0
        counted["control"] += r == RANK_2
        counted["broken"] += r >= 0 and cnt[r] > k
    assert min(counted.values()) > 500, counted


@pytest.mark.parametrize(
    "game, strategies", [("classic", ["greedy"] * 4), ("classic", ["greedy", "random"] * 2), ("tdc", ["greedy"] * 4)]
)
def test_on_events_gets_every_actions_events_as_on_step_does(game, strategies):
    """play_match's on_events hook (the simulator's tally) sees the events on_step sees, in order,
    deals and out-of-turn cuts included, on every path of the driver's loop."""
    seed = seed_from_int(41)
    stepped, collected = [], []

    def on_step(action, events):
        stepped.extend(events)

    m = PresidentMatch(game, seats=4, stake=10, rounds=3)
    play_match(m, _bots(strategies, seed), seed, on_step, on_events=collected.extend)
    names = {e.name for e in stepped}
    assert {"dealt", "played", "passed", "round_over", "match_over"} <= names
    assert game == "classic" or "cut" in names
    assert collected == stepped and all(a is b for a, b in zip(collected, stepped, strict=True))
