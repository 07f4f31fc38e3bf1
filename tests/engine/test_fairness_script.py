"""docs/verify_deal.py, the stand-alone checker: it agrees with engine.fairness step for step.

1,000 deals of each game are checked by both (the script's functions, loaded from its file, on
all of them; the script run as a program on a few), tampered records fail in both, and the
Speculation records of 1,000 deals played to the end keep every undealt card and salt secret
(RULES S12h).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine import fairness as F
from engine.speculation import SpeculationMatch
from tests.engine.test_fairness import TAMPER, _tampered, president_case, speculation_case

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "verify_deal.py"
DEALS = 1000


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_deal", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vd = _load()


def both(record: Any, seen: Any = None) -> list[dict[str, Any]]:
    """The engine's steps, after checking the script reports exactly the same ones."""
    engine = F.verify(record, seen).to_dict()["steps"]
    script = vd.verify(json.loads(json.dumps(record)), json.loads(json.dumps(seen)) if seen else None)
    assert script == engine
    return engine


def fails(steps: list[dict[str, Any]]) -> set[str]:
    return {s["code"] for s in steps if s["result"] == "fail"}


def test_the_script_imports_nothing_of_the_project() -> None:
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported == {"hashlib", "hmac", "json", "sys", "unicodedata"}


def test_the_script_reimplements_the_shuffle_stream() -> None:
    from engine.seeds import SeedStream, derive, shuffled

    for i in range(200):
        seed = hashlib.sha256(str(i).encode()).digest()
        assert vd.shuffled(range(52), seed) == shuffled(list(range(52)), seed)
        ours, theirs = vd.Stream(seed), SeedStream(seed)
        for n in (1, 2, 9, 52, 255, 256, 300, 70000):
            assert ours.below(n) == theirs.below(n)
        assert vd.derive(seed, "dealer") == derive(seed, "dealer")
    assert list(F.CODES) == vd.CODES


def test_president_script_and_engine_agree_on_1000_deals() -> None:
    for i in range(DEALS):
        case = president_case(i)
        steps = both(case["record"], case["seen"])
        assert not fails(steps), (i, steps)
        assert {s["code"] for s in steps if s["result"] == "pass"} >= {"commitment", "deal_seed", "hands", "hands_seen"}


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in [k, *_strings(v)]]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def privacy_scan(case: dict[str, Any]) -> int:
    """No undealt card, no undealt salt, no seed of the dealt deck in what is published (S12h)."""
    record = case["record"]
    fair = case["fair"]
    deck = fair.commit.decks[fair.chosen]
    dealt = 3 * len(record["order"]) + 1
    hidden = [fair.permutation[k] for k in range(dealt, 52)]
    secrets = [deck.salts[q].hex() for q in hidden]
    secrets += [deck.seed.hex(), case["server_seed"].hex()]
    secrets += [F._hmac(deck.seed, F.TAG_SHUFFLE).hex(), F._hmac(deck.seed, F.TAG_SALT).hex()]
    assert case["match"]._dealt == fair.dealt[:dealt], "the engine dealt the committed composition"
    hidden_cards = {F.CODES[deck.cards[q]] for q in hidden}
    dealt_cards = {F.CODES[c] for c in fair.dealt[:dealt]}
    for message in (record, case["commitment_message"]):
        text = json.dumps(message, ensure_ascii=False).lower()
        assert not [s for s in secrets if s in text]
        assert not hidden_cards & set(_strings(message))
    assert dealt_cards == {s for s in _strings(record) if s in F.CODES}
    assert [o["index"] for o in record["shown"]] == list(range(dealt)), "S12h: every dealt card, nothing else"
    return len(hidden)


def test_speculation_script_and_engine_agree_and_keep_undealt_cards_secret_on_1000_deals() -> None:
    hidden = 0
    for i in range(DEALS):
        case = speculation_case(i)
        m: SpeculationMatch = case["match"]
        assert m.over and m.round == 1, "played to the end"
        steps = both(case["record"], case["seen"])
        assert not fails(steps), (i, steps)
        assert {s["code"] for s in steps if s["result"] == "pass"} >= {
            "decks", "hashes", "commitment", "mix", "openings", "cards_seen", "commitment_seen",
        }
        hidden += privacy_scan(case)
    assert hidden > 20 * DEALS  # the scans saw many undealt positions


def test_privacy_scan_catches_a_leak() -> None:
    case = speculation_case(5)
    record = case["record"]
    dealt = 3 * len(record["order"]) + 1
    fair = case["fair"]
    deck = fair.commit.decks[fair.chosen]
    q = fair.permutation[dealt]
    leak = dict(record, shown=[*record["shown"], {"index": dealt, "position": q, "card": F.CODES[deck.cards[q]], "salt": deck.salts[q].hex()}])
    with pytest.raises(AssertionError):
        privacy_scan(dict(case, record=leak))
    assert "openings" in fails(both(leak))  # and a verifier flags an undealt position opened


@pytest.mark.parametrize("change", sorted(TAMPER))
def test_the_script_detects_speculation_tampering(change: str) -> None:
    case = speculation_case(21)
    assert not fails(both(case["record"], case["seen"]))
    assert fails(both(_tampered(case["record"], change), case["seen"])) >= TAMPER[change]


def test_the_script_detects_president_tampering() -> None:
    case = president_case(21)
    record, seen = case["record"], case["seen"]
    other = F.president_reveal(
        bytes(range(32)), case["contributions"], round=1, dealer=record["dealer"], present=record["present"],
        dealer_drawn=False, bots=record["bots"],
    )
    assert fails(both(other, seen)) >= {"commitment_seen", "hands_seen"}
    assert fails(both(dict(record, server_seed=bytes(range(32)).hex()), seen)) >= {"commitment", "deal_seed"}
    t = json.loads(json.dumps(record))
    s = next(s for s in record["present"] if s not in record["bots"])
    t["contributions"][s] = "tampered"
    assert fails(both(t, seen)) >= {"deal_seed", "hands"}
    assert fails(both(record, dict(seen, commitment="00" * 32))) == {"commitment_seen"}


def test_script_and_engine_refuse_the_same_malformed_records() -> None:
    pres, spec = president_case(8)["record"], speculation_case(8)["record"]
    for base, changes in [
        (pres, {"v": 2, "seats": 300, "server_seed": "ab", "present": [1, 0], "hands": None, "bots": [9], "dealer": True}),
        (spec, {"decks": 15, "chosen": -1, "hashes": ["00"] * 52, "order": [0] * 3, "shown": [{"index": 0, "position": 1}],
                "mix": 5, "dealer_drawn": "yes", "contributions": [None]}),
    ]:
        for key, value in changes.items():
            steps = both(dict(base, **{key: value}))
            assert steps[0]["code"] == "format" and steps[0]["result"] == "fail", (key, value)
    for bad in ({}, {"game": "poker"}, {"game": "speculation"}):
        assert fails(both(bad)) == {"format"}
    steps = both(spec, {"events": [{"event": "dealt", "round": 1, "players": [0, 1, 2]}, {"event": "traded", "from": 0, "to": 1, "cards": 9}]})
    assert fails(steps) == {"cards_seen"}


def test_the_script_runs_as_a_program(tmp_path: Path) -> None:
    for i, case in enumerate([president_case(1), president_case(2), speculation_case(1), speculation_case(2)]):
        path = tmp_path / f"deal-{i}.json"
        path.write_text(json.dumps({"record": case["record"], "seen": case["seen"]}), encoding="utf-8")
        run = subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stdout + run.stderr
        lines = run.stdout.splitlines()
        steps = F.verify(case["record"], case["seen"]).steps
        assert [line.split()[1] for line in lines[:-1]] == [s.code for s in steps]
        assert [line.split()[0].lower() for line in lines[:-1]] == [s.result for s in steps]
        assert lines[-1] == "OK: every check passed"
        # the same record and what was seen, in two files; then one card changed
        rec, seen = tmp_path / "r.json", tmp_path / "s.json"
        rec.write_text(json.dumps(case["record"]), encoding="utf-8")
        seen.write_text(json.dumps(case["seen"]), encoding="utf-8")
        assert subprocess.run([sys.executable, str(SCRIPT), str(rec), str(seen)], capture_output=True, check=False).returncode == 0
        tampered = json.loads(json.dumps(case["record"]))
        if tampered["game"] == "president":
            tampered["server_seed"] = "00" * 32
        else:
            tampered["shown"][0]["salt"] = "00" * F.SALT_BYTES
        rec.write_text(json.dumps(tampered), encoding="utf-8")
        run = subprocess.run([sys.executable, str(SCRIPT), str(rec), str(seen)], capture_output=True, text=True, check=False)
        assert run.returncode == 1 and run.stdout.splitlines()[-1].startswith("FAILED: ")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    for args in ([str(bad)], [], [str(tmp_path / "missing.json")]):
        run = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)
        assert run.returncode == 1 and run.stderr


def test_the_script_computes_the_worked_example() -> None:
    from tests.engine.test_fairness import VECTOR_CONTRIBUTIONS, VECTOR_SEED, VECTORS

    v = VECTORS
    assert vd.encode(VECTOR_CONTRIBUTIONS).hex() == v["encoding"]
    ds = vd.mac(VECTOR_SEED, b"donne/president/deal-seed/v1", vd.encode(VECTOR_CONTRIBUTIONS))
    assert ds.hex() == v["deal_seed"] and [vd.CODES[c] for c in vd.shuffled(range(52), ds)[:8]] == v["cards"]
    deck0_seed = vd.mac(VECTOR_SEED, b"donne/speculation/deck/v1", bytes([0]))
    cards, salts, hashes, root = vd.committed_deck(deck0_seed)
    assert deck0_seed.hex() == v["deck0_seed"] and [vd.CODES[c] for c in cards[:5]] == v["deck0_cards"]
    assert (salts[0].hex(), hashes[0].hex(), root.hex()) == (v["deck0_salt0"], v["deck0_h0"], v["deck0_root"])
    assert vd.bot_contribution(v["root"], 1) == v["bot1"]


def test_the_script_detects_a_speculation_server_that_changed_its_seed() -> None:
    case = speculation_case(22)
    record, seen = case["record"], case["seen"]
    other = F.speculation_commit(bytes(range(32)))
    assert fails(both(record, dict(seen, commitment=other.root.hex()))) == {"commitment_seen"}
    dealt_elsewhere = F.speculation_reveal(
        F.speculation_deal(other, case["contributions"]), round=1, dealer=record["dealer"], order=record["order"],
        shown=[o["index"] for o in record["shown"]], bots=record["bots"],
    )
    assert fails(both(dealt_elsewhere, seen)) >= {"commitment_seen", "cards_seen"}
    assert fails(both(record, [1, 2])) == set()  # a malformed "seen" is ignored, not a crash
