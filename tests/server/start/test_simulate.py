"""server/start/simulate.py: ``donne simulate`` end to end through server.start.cli.main, small counts."""

import json

import pytest

from server.start.cli import main

TIMINGS = {"seconds", "cpu_seconds", "rounds_per_s", "deals_per_s", "actions_per_s", "rounds_per_cpu_s", "deals_per_cpu_s"}


def run(capsys, *argv):
    code = main(["simulate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def figures(capsys, *argv):
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 1  # ONE JSON object
    return json.loads(lines[0])


def test_classic_figures(capsys):
    f = figures(
        capsys, "--game", "president", "--rules", "classic", "--players", "4", "--rounds", "23",
        "--bots", "greedy,greedy,random,random", "--seed", "1",
    )  # fmt: skip
    assert f["rounds"] == 23 and f["matches"] == 5  # P15: 5-round matches, the last one shorter
    for key in ("rounds_per_s", "actions_per_s", "mean_points_per_seat", "president_kept_title", "invariant_checks"):
        assert key in f
    assert len(f["mean_points_per_seat"]) == 4
    assert sum(f["mean_points_per_seat"]) == pytest.approx(6)  # P14: 3+2+1+0 per round
    assert 0 <= f["president_kept_title"] <= 1 and f["round_pairs"] == 23 - 5
    assert f["invariant_checks"] > f["actions"] > 0


def test_tdc_figures(capsys):
    f = figures(
        capsys, "--game", "president", "--rules", "tdc", "--players", "3", "--rounds", "60",
        "--bots", "greedy,greedy,greedy", "--seed", "7",
    )  # fmt: skip
    assert f["rounds"] == 60 and f["matches"] == 1 and f["stake"] == 10
    for key in ("chips_per_seat", "cuts", "revolutions", "forbidden_finishes", "president_kept_title"):
        assert key in f
    assert sum(f["chips_per_seat"]) == 0  # invariant 4
    assert f["cuts"] > 0


def test_speculation_figures(capsys):
    pytest.importorskip("engine.bots.speculation_greedy")
    f = figures(
        capsys, "--game", "speculation", "--players", "5", "--deals", "30",
        "--bots", "greedy,greedy,greedy,random,random", "--seed", "3",
    )  # fmt: skip
    for key in ("deals", "deals_per_s", "chips_per_seat", "auctions", "trades", "invariant_checks"):
        assert key in f
    assert f["deals"] == 30 and sum(f["chips_per_seat"]) == 0  # S11: chips never created or lost
    assert f["auctions"] > 0


def test_same_seed_same_figures(capsys, tmp_path):
    argv = ["--rules", "tdc", "--players", "4", "--rounds", "15", "--bots", "greedy,random,greedy,random", "--seed", "9"]
    a = figures(capsys, *argv)
    out = tmp_path / "figures.json"
    b = figures(capsys, *argv, "--out", str(out))
    c = json.loads(out.read_text())
    for d in (a, b, c):
        for key in TIMINGS:
            d.pop(key, None)
    assert a == b == c


def test_check_every(capsys):
    base = ["--players", "3", "--rounds", "10", "--seed", "2"]
    every = figures(capsys, *base)
    some = figures(capsys, *base, "--check-every", "7")
    never = figures(capsys, *base, "--check-every", "0")
    assert never["invariant_checks"] == 0 < some["invariant_checks"] < every["invariant_checks"]
    assert every["actions"] == some["actions"] == never["actions"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "4", "--bots", "greedy,random"],
        ["--players", "3", "--bots", "greedy,greedy,nonsense"],
        ["--players", "2"],
        ["--rounds", "0"],
        ["--rules", "tdc", "--stake", "3"],
    ],
)
def test_bad_arguments_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and "donne simulate" in err


def test_invariant_failure_exits_1(capsys, monkeypatch):
    from engine.president import PresidentMatch

    def broken(self):
        raise AssertionError("the 52 cards are not partitioned")

    monkeypatch.setattr(PresidentMatch, "check_invariants", broken)
    code, out, err = run(capsys, "--players", "3", "--rounds", "2")
    assert code == 1 and out == ""
    assert "partitioned" in err
