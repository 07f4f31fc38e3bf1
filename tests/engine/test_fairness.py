"""engine.fairness: player entropy, the Président record, committed Speculation deals, the verifiers.

Deals are built with the real engines (``PresidentMatch``, ``SpeculationMatch`` played to the end
by the random bots), so a record is checked against what the engine actually dealt (RULES P3,
S2, S4, S5, S8, S9, S10, S12a, S12h). ``president_case``/``speculation_case`` are shared with
tests/engine/test_fairness_script.py.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from engine import fairness as F
from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.cards import CARDS
from engine.errors import BadArgument
from engine.president import PresidentMatch
from engine.president.actions import Deal as PresidentDeal
from engine.seeds import seed_from_int
from engine.speculation import Deal, SpeculationMatch, Turn, action_from_dict

SEED = seed_from_int(1)

# -- building real deals -------------------------------------------------------------------------

_WORDS = ["", "abc", "Zoé", "ñandú 🎲", "Trou du cul", "x" * 64, "é" * 32, "42", "seat", "  padded  "]


def random_contribution(rng: random.Random) -> str | None:
    """None, an empty text, a word, random hex or random letters: always normalised, never a card code."""
    kind = rng.randrange(5)
    if kind == 0:
        return None
    if kind == 1:
        text = rng.choice(_WORDS)
    elif kind == 2:
        text = rng.randbytes(rng.randint(1, 32)).hex()
    else:
        text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzAÉ€ 😀") for _ in range(rng.randint(0, 16)))
    text = F.normalize_contribution(text)
    return text + "!" if len(text) == 2 else text  # "Qh" would confuse the privacy scans


def _contributions(rng: random.Random, n: int, present: list[int], commitment: str) -> tuple[list[str | None], list[int]]:
    bots = sorted(s for s in present if rng.random() < 0.3)
    cs = [None if s not in present else random_contribution(rng) for s in range(n)]
    for s in bots:
        cs[s] = F.bot_contribution(commitment, s)
    return cs, bots


def president_case(i: int) -> dict[str, Any]:
    """A Président first round (or one with the dealer given, as in later rounds) and its record."""
    rng = random.Random(f"president-{i}")
    rules = rng.choice(["classic", "tdc"])
    n = rng.randint(3, 8)
    m = PresidentMatch(rules, seats=n)
    present = list(range(n)) if rules == "classic" or n == 3 else sorted(rng.sample(range(n), rng.randint(3, n)))
    server_seed = rng.randbytes(32)
    commitment = F.president_commitment(server_seed)
    cs, bots = _contributions(rng, n, present, commitment)
    shuffle_seed = F.deal_seed(server_seed, cs)
    drawn = rng.random() < 0.5
    if drawn:
        action = m.deal_action(shuffle_seed, present=present)
    else:
        action = PresidentDeal(shuffle_seed, present=tuple(present), dealer=rng.choice(present))
    dealt = m.apply(action)[0]
    record = F.president_reveal(
        server_seed, cs, round=1, dealer=dealt.dealer, present=dealt.present, dealer_drawn=drawn, bots=bots
    )
    viewer = rng.choice(present)
    seen: dict[str, Any] = {"commitment": commitment, "seat": viewer, "hands": dealt.for_seat(viewer).to_dict()["hands"]}
    if viewer not in bots:
        sent = cs[viewer]
        seen["contribution"] = sent if sent is None or rng.random() < 0.5 else f" {sent}\t"
    return {"record": record, "seen": seen, "dealt": dealt.to_dict(), "server_seed": server_seed, "contributions": cs}


def speculation_case(i: int) -> dict[str, Any]:
    """A Speculation deal with contributions, played to its end by random bots, and its record."""
    rng = random.Random(f"speculation-{i}")
    while True:
        n = rng.randint(3, 9)
        ante = rng.choice([0, 1, 1, 2])
        chips = [rng.choice([0, 1, 2, 3, 5, 20, 100]) for _ in range(n)]
        present = list(range(n)) if rng.random() < 0.6 else sorted(rng.sample(range(n), rng.randint(3, n)))
        first_dealer = None if rng.random() < 0.7 else rng.randrange(n)
        m = SpeculationMatch(seats=n, chips=chips, ante=ante, deals=1, first_dealer=first_dealer)
        server_seed = rng.randbytes(32)
        if m.can(m.deal_action(server_seed, present=present)):  # S3/S12a: a deal is possible
            break
    commit = F.speculation_commit(server_seed)
    commitment = commit.root.hex()
    cs, bots = _contributions(rng, n, present, commitment)
    action = m.deal_action(server_seed, present=present, contributions=cs)
    fair = F.speculation_deal(commit, cs)
    events = [e.to_dict() for e in m.apply(action)]
    bots_ = [make_bot("speculation", "random", s, seed_from_int(i * 10 + s)) for s in range(n)]
    play_match(m, bots_, seed_from_int(i), lambda a, evs: events.extend(e.to_dict() for e in evs))
    dealt = next(e for e in events if e["event"] == "dealt")
    order = dealt["players"][1:] + dealt["players"][:1]
    record = F.speculation_reveal(
        fair,
        round=1,
        dealer=dealt["dealer"],
        order=order,
        shown=m.shown_positions(),
        dealer_drawn=first_dealer is None,
        chips=chips,
        ante=ante,
        bots=bots,
    )
    viewer = rng.choice(order)
    seen: dict[str, Any] = {"commitment": commitment, "seat": viewer, "events": events}
    if viewer not in bots:
        seen["contribution"] = cs[viewer]
    return {
        "record": record,
        "seen": seen,
        "match": m,
        "log": [action.to_dict()],
        "server_seed": server_seed,
        "contributions": cs,
        "fair": fair,
        "commitment_message": {"event": "commitment", "round": 1, "commitment": commitment},
    }


def results(report: F.Report) -> dict[str, str]:
    return {s.code: s.result for s in report.steps}


def failed(report: F.Report) -> list[str]:
    return [s.code for s in report.steps if s.result == F.FAIL]


# -- contributions -------------------------------------------------------------------------------


def test_normalize_contribution_strips_composes_and_bounds() -> None:
    assert F.normalize_contribution("  abc \t") == "abc"
    assert F.normalize_contribution("e\u0301") == "\u00e9"  # NFC: the same bytes whatever the terminal sent
    assert F.normalize_contribution("") == ""
    assert F.normalize_contribution("é" * 32) == "é" * 32  # 64 bytes of UTF-8: the limit
    assert F.normalize_contribution("Việt 日本") == "Việt 日本"  # two marks on a letter, wide characters
    for bad, reason in [
        ("é" * 32 + "x", "contribution_too_long"),
        ("x" * 65, "contribution_too_long"),
        ("a\x1b[2Jb", "contribution_characters"),
        ("a\nb", "contribution_characters"),
        ("\ud800", "contribution_characters"),
        ("seed\u202egnp.exe", "contribution_invisible"),  # a direction override, shown in the record
        ("a\u200db\u200bc", "contribution_invisible"),  # zero-width joiner and space
        ("\ufeffx", "contribution_invisible"),
        ("e" + "\u0301" * 4, "contribution_marks"),  # accents piled over the lines around it
        ("\u0301x", "contribution_marks"),  # a mark on nothing
        (b"abc", "contribution"),
        (None, "contribution"),
    ]:
        with pytest.raises(BadArgument) as exc:
            F.normalize_contribution(bad)
        assert exc.value.params["reason"] == reason, bad


def test_encoding_is_length_prefixed_and_none_is_not_empty() -> None:
    assert F.encode_contributions([None, "", "ab"]) == bytes([3, 0, 1, 0, 0, 1, 0, 2]) + b"ab"
    assert F.encode_contributions(["é"]) == bytes([1, 1, 0, 2]) + "é".encode()
    for bad in [[], "abc", [" a"], ["x" * 65], [3], [None] * 256]:
        with pytest.raises(BadArgument):
            F.encode_contributions(bad)  # type: ignore[arg-type]


def test_deal_seed_depends_on_every_contribution_and_its_seat() -> None:
    base = ["alpha", None, "", "delta", "alpha"]
    seed = F.deal_seed(SEED, base)
    root = F.speculation_commit(SEED).root
    mix = F.speculation_mix(root, base)
    variants: list[list[str | None]] = []
    for s in range(len(base)):
        for other in ["alphb", None, "", "x", "alpha "[:5] + "!"]:
            if other != base[s]:
                variants.append([*base[:s], other, *base[s + 1 :]])
    for a in range(len(base)):
        for b in range(a + 1, len(base)):
            if base[a] != base[b]:
                v = list(base)
                v[a], v[b] = v[b], v[a]
                variants.append(v)
    variants += [[*base, None], base[:-1], ["alph", "a", "", "delta", "alpha"]]
    variants = [list(v) for v in dict.fromkeys(tuple(v) for v in variants)]
    seeds = {F.deal_seed(SEED, v) for v in variants}
    assert seed not in seeds and len(seeds) == len(variants)
    mixes = {F.speculation_mix(root, v) for v in variants}
    assert mix not in mixes and len(mixes) == len(variants)
    assert F.deal_seed(seed_from_int(2), base) != seed  # and on the server seed
    assert F.deal_seed(SEED, base) == seed  # a pure function


def test_deal_seed_refuses_bad_seeds_and_contributions() -> None:
    for bad_seed in [b"short", SEED + b"x", "00" * 32]:
        with pytest.raises(BadArgument):
            F.deal_seed(bad_seed, [None])  # type: ignore[arg-type]
    with pytest.raises(BadArgument):
        F.deal_seed(SEED, ["not normalised "])


def test_bot_contribution_is_a_public_function_of_the_commitment() -> None:
    c = F.president_commitment(SEED)
    assert F.bot_contribution(c, 1) == F.bot_contribution(c, 1) != F.bot_contribution(c, 2)
    assert F.bot_contribution(c, 1) != F.bot_contribution(F.president_commitment(seed_from_int(2)), 1)
    assert F.normalize_contribution(F.bot_contribution(c, 1)) == F.bot_contribution(c, 1)


# -- Président -------------------------------------------------------------------------------------


def test_president_record_is_the_engines_deal_and_verifies() -> None:
    for i in range(40):
        case = president_case(i)
        record, seen = case["record"], case["seen"]
        assert record["hands"] == case["dealt"]["hands"], "P3: the record deals what the engine dealt"
        assert record["deal_seed"] == F.deal_seed(case["server_seed"], case["contributions"]).hex()
        report = F.verify(record, seen)
        assert report.ok, report.to_dict()
        assert results(report)["hands_seen"] == F.PASS and results(report)["commitment"] == F.PASS


def test_president_tamper_is_detected() -> None:
    case = president_case(3)
    record, seen = case["record"], case["seen"]
    assert F.verify(record, seen).ok

    # the server changed its seed after the commitment, and reveals the new one
    other = seed_from_int(99)
    swapped = F.president_reveal(
        other, case["contributions"], round=1, dealer=record["dealer"], present=record["present"],
        dealer_drawn=False, bots=record["bots"],
    )
    assert failed(F.verify(swapped, seen))[:1] == ["commitment_seen"]
    assert "hands_seen" in failed(F.verify(swapped, seen))
    # ... or reveals the committed seed although it dealt from another one
    liar = dict(record, hands=swapped["hands"], deal_seed=swapped["deal_seed"])
    assert set(failed(F.verify(liar, seen))) >= {"deal_seed", "hands"}
    # a contribution changed
    t = copy.deepcopy(record)
    s = next(s for s in record["present"] if s not in record["bots"])
    t["contributions"][s] = "changed" if record["contributions"][s] != "changed" else "other"
    assert set(failed(F.verify(t))) >= {"deal_seed", "hands"}
    # a contribution dropped: the player who sent it sees it
    sender = {"seat": s, "contribution": "mine"}
    assert failed(F.verify(record, sender)) == ["own_contribution"]
    # a bot contribution chosen after the window
    if record["bots"]:
        t = copy.deepcopy(record)
        t["contributions"][record["bots"][0]] = "steered"
        assert "bots" in failed(F.verify(t))
    # a hand, the seed, the commitment
    t = copy.deepcopy(record)
    seat = record["present"][0]
    t["hands"][seat][0], t["hands"][record["present"][1]][0] = t["hands"][record["present"][1]][0], t["hands"][seat][0]
    assert failed(F.verify(t)) == ["hands"]
    t = dict(record, server_seed=other.hex())
    assert set(failed(F.verify(t, seen))) >= {"commitment", "deal_seed", "hands", "hands_seen"}
    t = dict(record, commitment=F.president_commitment(other))
    assert set(failed(F.verify(t, seen))) >= {"commitment_seen", "commitment"}


def test_president_malformed_records_are_refused_cleanly() -> None:
    record = president_case(5)["record"]
    for key, value in [
        ("v", 2), ("v", True), ("game", "poker"), ("seats", 0), ("server_seed", "zz" * 32), ("server_seed", "00"),
        ("contributions", [None]), ("present", [2, 1, 0]), ("present", []), ("dealer", 99), ("hands", [["Xx"]]),
        ("bots", [0, 0]), ("dealer_drawn", 1), ("commitment", None),
    ]:
        report = F.verify(dict(record, **{key: value}))
        assert not report.ok and report.steps[0].code == "format", (key, value)
    assert not F.verify({}).ok and not F.verify([]).ok  # type: ignore[arg-type]
    t = copy.deepcopy(record)
    t["contributions"][0] = 7
    assert failed(F.verify(t)) == ["contributions"]


# -- Speculation: the engine deals from the committed deck ------------------------------------------


def test_speculation_deals_the_committed_composition() -> None:
    """S4/S5: one card at a time from the dealer's left, three rounds, then the trump: in the order D∘P."""
    cs = ["one", None, "three", ""]
    m = SpeculationMatch(seats=4)
    m.apply(m.deal_action(SEED, contributions=cs))
    fair = F.speculation_deal(F.speculation_commit(SEED), cs)
    deck = fair.commit.decks[fair.chosen].cards
    assert fair.dealt == tuple(deck[p] for p in fair.permutation)
    assert sorted(fair.dealt) == list(range(52)) and sorted(fair.permutation) == list(range(52))
    dealer = m._dealer
    assert dealer is not None
    order = [(dealer + i) % 4 for i in range(1, 5)]
    for i, s in enumerate(order):
        assert m._stacks[s] == [fair.dealt[level * 4 + i] for level in range(3)]
    assert m._faceup[dealer] == [fair.dealt[12]]
    assert sorted(m._undealt) == sorted(fair.dealt[13:])
    start = fair.dealer_draw(4)
    assert dealer == start, "S2: the first dealer comes from the mix, not from the server seed alone"


def test_speculation_first_dealer_follows_the_contributions() -> None:
    dealers = set()
    for k in range(24):
        m = SpeculationMatch(seats=5)
        m.apply(m.deal_action(SEED, contributions=[str(k), None, None, None, None]))
        dealers.add(m._dealer)
    assert len(dealers) >= 4


def test_speculation_committed_deal_replays_byte_for_byte() -> None:
    case = speculation_case(7)
    m: SpeculationMatch = case["match"]
    log = []
    m2 = SpeculationMatch(**m.config)
    deal = action_from_dict(case["log"][0])
    assert isinstance(deal, Deal) and deal.contributions == tuple(case["contributions"])
    assert deal.to_dict() == case["log"][0] and "contributions" in case["log"][0]
    log.append(deal.to_dict())
    first = [e.to_dict() for e in m2.apply(deal)]
    again = SpeculationMatch.replay(m.config, log)
    assert again.view(None).to_dict() == m2.view(None).to_dict()
    assert first == case["seen"]["events"][: len(first)]


def test_speculation_refuses_bad_committed_deals_and_changes_nothing() -> None:
    m = SpeculationMatch(seats=3)
    before = m.view(None).to_dict()
    for kwargs in [
        {"contributions": ["a", None]},  # one per seat
        {"contributions": ["a", None, " b"]},  # not normalised
        {"contributions": ["a", None, "x" * 65]},
        {"contributions": ["a", None, None], "cards": [0, 1, 2]},
    ]:
        action = m.deal_action(SEED, **kwargs)
        assert not m.can(action)
        with pytest.raises(BadArgument):
            m.apply(action)
    with pytest.raises(BadArgument):
        m.apply(m.deal_action(b"short seed", contributions=[None, None, None]))
    assert m.view(None).to_dict() == before and m.round == 0
    with pytest.raises(BadArgument):
        action_from_dict({"cmd": "deal", "seat": None, "seed": SEED.hex(), "contributions": [1]})


def test_shown_positions_during_and_after_a_deal() -> None:
    """S5/S8: the trump and turned cards during the deal; S12h: every dealt card after it."""
    for k in range(20):  # a deal that does not end at once on a trump ace (S6)
        m = SpeculationMatch(seats=3, first_dealer=0)
        m.apply(m.deal_action(seed_from_int(k), contributions=[None, "x", None]))
        if not m.needs_deal():
            break
    assert m.shown_positions() == (9,)  # only the trump (index 3p)
    pending = m.pending()[0]
    if pending.kind == "auction":
        m.apply(pending.on_timeout)
    seat = m.pending()[0].seat
    assert seat is not None
    m.apply(Turn(seat))
    assert m.shown_positions() == (6 + seat - 1, 9)  # seat 1 (dealer's left) or 2 turned its top card
    bots = [make_bot("speculation", "random", s, seed_from_int(s)) for s in range(3)]
    play_match(m, bots, SEED)
    assert m.shown_positions() == tuple(range(10))


def test_shown_cards_follows_trades_and_agrees_with_the_engine() -> None:
    traded = 0
    for i in range(30):
        case = speculation_case(i)
        events = case["seen"]["events"]
        traded += sum(e["event"] == "traded" for e in events)
        shown = F.shown_cards(events)
        m: SpeculationMatch = case["match"]
        assert shown == {k: str(CARDS[c]) for k, c in enumerate(m._dealt)}
        assert F.shown_cards(events, round=1) == shown and F.shown_cards(events, round=2) == {}
    assert traded > 0, "the cases exercise S9 trades"


# -- Speculation: record and verification ------------------------------------------------------------


def test_speculation_records_verify() -> None:
    notes = set()
    for i in range(30):
        case = speculation_case(i)
        report = F.verify(case["record"], case["seen"])
        assert report.ok, report.to_dict()
        r = results(report)
        assert r["openings"] == r["cards_seen"] == r["decks"] == r["hashes"] == r["mix"] == F.PASS
        notes |= {s.code for s in report.steps if s.result == F.NOTE}
    assert "dealer" in notes  # some cases have a first dealer set by the table


def test_speculation_reveal_refuses_undealt_positions() -> None:
    case = speculation_case(2)
    record = case["record"]
    dealt = 3 * len(record["order"]) + 1
    with pytest.raises(BadArgument):
        F.speculation_reveal(case["fair"], round=1, dealer=record["dealer"], order=record["order"], shown=[dealt])
    with pytest.raises(BadArgument):
        F.speculation_reveal(
            case["fair"], round=1, dealer=record["dealer"], order=record["order"], shown=[0], dealer_drawn=True
        )


def _tampered(record: dict[str, Any], change: str) -> dict[str, Any]:
    t = copy.deepcopy(record)
    shown = t["shown"]
    if change == "card":
        shown[0]["card"], shown[1]["card"] = shown[1]["card"], shown[0]["card"]
    elif change == "salt":
        shown[-1]["salt"] = "00" * F.SALT_BYTES
    elif change == "hash":
        t["hashes"][shown[0]["position"]] = "11" * 32
    elif change == "unused_hash":
        used = {o["position"] for o in shown}
        t["hashes"][next(p for p in range(52) if p not in used)] = "11" * 32
    elif change == "root":
        t["commitment"] = "22" * 32
    elif change == "deck_seed":
        k = next(k for k, s in enumerate(t["deck_seeds"]) if s is not None)
        t["deck_seeds"][k] = "33" * 32
    elif change == "contribution":
        s = next(s for s in range(t["seats"]) if s not in t["bots"])
        t["contributions"][s] = "changed" if t["contributions"][s] != "changed" else "other"
    elif change == "position":
        shown[0]["position"] = (shown[0]["position"] + 1) % 52
    elif change == "mix":
        t["mix"] = "44" * 32
    elif change == "undealt":
        shown.append(dict(shown[0], index=3 * len(t["order"]) + 1))
    return t


TAMPER = {
    "card": {"openings", "cards_seen"},
    "salt": {"openings"},
    "hash": {"hashes", "openings"},
    "unused_hash": {"hashes"},
    "root": {"commitment_seen", "commitment", "mix"},
    "deck_seed": {"decks"},
    "contribution": {"mix"},
    "position": {"openings"},
    "mix": {"mix"},
    "undealt": {"openings"},
}


@pytest.mark.parametrize("change", sorted(TAMPER))
def test_speculation_tamper_is_detected(change: str) -> None:
    case = speculation_case(11)
    assert F.verify(case["record"], case["seen"]).ok
    report = F.verify(_tampered(case["record"], change), case["seen"])
    assert set(failed(report)) >= TAMPER[change], (change, report.to_dict())


def test_speculation_server_that_changed_its_seed_is_detected() -> None:
    """The server announced the root of one seed and dealt from another."""
    case = speculation_case(12)
    record, seen = case["record"], case["seen"]
    other = seed_from_int(12345)
    liar_seen = dict(seen, commitment=F.speculation_commitment(other))
    assert failed(F.verify(record, liar_seen)) == ["commitment_seen"]
    # ... or reveals the announced seed's deck for the deal it made with another
    honest = F.speculation_reveal(
        F.speculation_deal(F.speculation_commit(other), case["contributions"]), round=1, dealer=record["dealer"], order=record["order"],
        shown=[o["index"] for o in record["shown"]], bots=record["bots"],
    )
    report = F.verify(honest, dict(seen, commitment=honest["commitment"]))
    assert "cards_seen" in failed(report) and "openings" not in failed(report)


def test_a_deck_that_is_not_a_shuffle_cannot_be_opened() -> None:
    """Each of the 15 decks not dealt must be the shuffle its seed defines: a forged deck (here with a
    card twice) commits fine, but whichever seed the server then publishes, the spot check fails."""
    case = speculation_case(13)
    record = copy.deepcopy(case["record"])
    k = next(k for k, s in enumerate(record["deck_seeds"]) if s is not None)
    deck = F.committed_deck(bytes.fromhex(record["deck_seeds"][k]))
    forged = list(deck.cards)
    forged[1] = forged[0]  # the same card at two positions
    hashes = [F.position_hash(i, deck.salts[i], c) for i, c in enumerate(forged)]
    record["deck_roots"][k] = F._sha(F.TAG_DECK_ROOT, b"".join(hashes)).hex()
    record["commitment"] = F._sha(F.TAG_ROOT, b"".join(bytes.fromhex(r) for r in record["deck_roots"])).hex()
    report = F.verify(record)
    assert "decks" in failed(report)
    assert report.steps[2].values == {"checked": 15, "wrong": [k]}


def test_speculation_malformed_records_are_refused_cleanly() -> None:
    record = speculation_case(14)["record"]
    chosen = record["chosen"]
    for key, value in [
        ("decks", 1), ("chosen", 16), ("deck_roots", record["deck_roots"][:3]),
        ("deck_seeds", [None] * 16), ("hashes", record["hashes"][:51]), ("mix", ""),
        ("order", []), ("order", [0, 0]), ("shown", [{"index": 0}]), ("shown", ["x"]),
        ("shown", [dict(record["shown"][0], card="10h")]), ("chips", None), ("dealer", -1),
    ]:
        if key == "chips" and not record["dealer_drawn"]:
            continue
        report = F.verify(dict(record, **{key: value}))
        assert not report.ok and report.steps[0].code == "format", (key, value)
    seeds = list(record["deck_seeds"])
    seeds[chosen] = seeds[(chosen + 1) % 16]
    assert F.verify(dict(record, deck_seeds=seeds)).steps[0].code == "format"
    report = F.verify(record, {"events": [{"event": "dealt", "round": 1, "players": [0]}, {"event": "turned", "seat": 5}]})
    assert failed(report) == ["cards_seen"]


# -- the worked example of docs/fairness.md ---------------------------------------------------------

VECTOR_SEED = bytes(range(32))
VECTOR_CONTRIBUTIONS = ["abc", None, "", "Zoé"]
VECTORS = {
    "encoding": "04010003616263000100000100045a6fc3a9",
    "commitment": "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
    "deal_seed": "4367023120eb2104c20f3e4ff5e9e758a78a23a37c660495baef504540dabff6",
    "cards": ["6s", "2c", "As", "3s", "6c", "8d", "Qd", "7s"],
    "deck0_seed": "90694f76797c6fb92ecadbfa2896181192245d735406bef06aa485466e270f95",
    "deck0_cards": ["4d", "4c", "As", "5h", "7d"],
    "deck0_salt0": "c45eea4d747f152ec8dab5fe39e9761c",
    "deck0_h0": "b438e124530ba7fe98d20ef27c891e0312fc7f48897c29a8aea37f60076ede13",
    "deck0_root": "9b7c580bc9e2ccdd5526329f1128b9b611af1fa4c7d210036e3b6971c945bc7c",
    "root": "b06fd1329fd9efb5321aa562e4c6c63d433d2075aedac6e9a3aaa3d1f1992c8c",
    "mix": "a5378400b094e30922f5613820fecf82b106afab154b5a80da19535295db2b16",
    "chosen": 15,
    "permutation": [51, 4, 37, 36, 32],
    "dealt": ["Qh", "9d", "Jd", "8s", "Jh"],
    "bot1": "bot:d1fbc1757f525d451265c9f99c06c499",
}


def test_the_worked_example_of_the_docs() -> None:
    """The algorithm is pinned: these values are printed in docs/fairness.md for re-implementers."""
    from pathlib import Path

    from engine.seeds import shuffled

    v = VECTORS
    assert F.encode_contributions(VECTOR_CONTRIBUTIONS).hex() == v["encoding"]
    assert F.president_commitment(VECTOR_SEED) == v["commitment"]
    ds = F.deal_seed(VECTOR_SEED, VECTOR_CONTRIBUTIONS)
    assert ds.hex() == v["deal_seed"]
    assert [F.CODES[c] for c in shuffled(list(range(52)), ds)[:8]] == v["cards"]
    commit = F.speculation_commit(VECTOR_SEED)
    d0 = commit.decks[0]
    assert d0.seed.hex() == v["deck0_seed"] and [F.CODES[c] for c in d0.cards[:5]] == v["deck0_cards"]
    assert (d0.salts[0].hex(), d0.hashes[0].hex(), d0.root.hex()) == (v["deck0_salt0"], v["deck0_h0"], v["deck0_root"])
    assert commit.root.hex() == v["root"]
    deal = F.speculation_deal(commit, VECTOR_CONTRIBUTIONS)
    assert (deal.mix.hex(), deal.chosen, list(deal.permutation[:5])) == (v["mix"], v["chosen"], v["permutation"])
    assert [F.CODES[c] for c in deal.dealt[:5]] == v["dealt"]
    assert F.bot_contribution(v["root"], 1) == v["bot1"]
    doc = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text(encoding="utf-8")
    for key, value in v.items():
        if isinstance(value, str):
            assert value in doc, key
