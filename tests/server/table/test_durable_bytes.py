"""The durable step's shortcuts write what the long way wrote (server/table/durable.py).

``Journal.take`` compares a key of the facts' values instead of the facts, and hashes the views'
bytes once for both hashes of a deal; the store writes a step's entries as one JSON text. Here:

- logs written by the code before those shortcuts (``tests/server/golden/durable_logs.json``: one whole match of
  each table kind, fair deals, contributions, standing seeds, automatic moves, a leaver replaced,
  a refused trade undone) still replay, every hash checked, and the same games played today write
  them again byte for byte;
- over seeded games of the three rule sets (classic, tdc, Speculation), at every step, the facts are
  written exactly when the long way (``facts()`` as it was, compared whole) says they changed, with
  the same JSON text, and both hashes are the long way's (each view's standard sorted JSON, one line
  each, hashed);
- the store's text of a step is the long way's (each entry's JSON, joined in brackets), and what it
  refused it still refuses.

The data file is made by this module run as a script (``python -m tests.server.table.test_durable_bytes``)
with the code whose logs it pins; it was made with main at 292d9b9, before the shortcuts. (An engine
change to what a view holds changes the hashes, as docs/restart.md says: then it is made again.)
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from server.storage.api import BadRecord, Transfer
from server.storage.sql import tables
from server.table import Table, durable
from tests.server.table.harness import Harness, command_of
from tests.server.table.test_durable import _pick

DATA = Path(__file__).parent.parent / "golden" / "durable_logs.json"
KINDS = ("classic", "tdc", "speculation")
SPECS: dict[str, dict[str, Any]] = {
    "classic": {"rules": "classic", "seats": 4, "bots": 1, "rounds": 2},
    "tdc": {"rules": "tdc", "seats": 4, "stake": 10, "rounds": 2, "turn_seconds": 20, "cut_window": 2},
    "speculation": {"rules": "speculation", "seats": 4, "bots": 1, "ante": 2, "rounds": 2, "trade_window": 3},
}
PEOPLE = {"classic": ["alice", "bob", "zoé"], "tdc": ["alice", "bob", "carol", "zoé"],
          "speculation": ["alice", "bob", "zoé"]}


# -- the long way: the code before the shortcuts, verbatim ------------------------------------------------

_std = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str).encode


def long_hash(match: Any, *, every_seat: bool = False) -> str:
    seats: list[int | None] = [None]
    if every_seat:
        seats += list(range(match.seats))
    text = "\n".join(_std(match.view(seat).to_dict()) for seat in seats)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def long_facts(table: Table) -> dict[str, Any]:
    seats: list[dict[str, Any] | None] = []
    for s in table.seats:
        if s.empty:
            seats.append(None)
            continue
        seats.append({"name": s.name, "account": s.account, "member": s.member,
                      "bot": None if s.bot is None else ("sub" if s.substitute else "table"),
                      "display": s.bot_display, "leaving": s.leaving, "departed": s.departed,
                      "prefs": dict(s.prefs), "seed": s.seed, "arrived": s.arrived})
    return {"uid": table.uid, "matches": table.matches, "status": table.status, "match": table.match is not None,
            "round_id": table.round_id, "stakes": sorted([s, a] for s, a in table.round_stakes.items()),
            "escrow": sorted([s, n] for s, n in table.round_escrow.items()), "commitment": table.commitment,
            "round_chips": list(table.chips.start), "window": None if table.window is None else table.window[0],
            "over": table.over_at is not None, "seats": seats,
            "arrivals": [table.arrivals, table.dealt_arrivals],
            "fair": table.fair.facts()}


def long_text(entries: list[dict[str, Any]]) -> str:
    texts = [json.dumps(dict(e), ensure_ascii=False, allow_nan=False, separators=(",", ":")) for e in entries]
    return texts[0] if len(texts) == 1 else "[" + ",".join(texts) + "]"


# -- the games ---------------------------------------------------------------------------------------------


def _people(h: Harness, keys: list[str], rng: random.Random) -> Any:
    """Seeded people: they contribute to deals now and then, set and drop a standing seed, turn their
    automatic cuts on and off, and play at random as test_durable's people do (cuts, quads, sales,
    bids, offers and answers)."""
    offers: dict[str, int] = {}

    def act(h: Harness) -> bool:
        table = h.table
        e = table.entropy
        key = rng.choice(keys)
        seat = table.seat_of(key)
        if seat is None:
            return False
        roll = rng.random()
        if e is not None and e.dealt is None and seat not in e.given and roll < 0.5:
            h.cmd(key, "entropy", text=f"{key} {rng.randrange(1000)}")
            return True
        if roll < 0.03:
            h.cmd(key, "seed", text=None if rng.random() < 0.4 else f"standing {key}")
            return True
        if roll < 0.06:  # (not autopass: a delayed one left due between rounds makes the harness fail)
            h.cmd(key, "autocut", on=rng.random() < 0.5)
            return True
        m = table.match
        if m is None or table.status != "playing" or m.needs_deal():
            return False
        for key in rng.sample(keys, len(keys)):
            seat = table.seat_of(key)
            if seat is None:
                continue
            choice = _pick(list(m.legal_actions(seat)), rng, offers, key, m)
            if choice is None:
                continue
            cmd, args = command_of(choice)
            h.cmd(key, cmd, **args)
            return True
        return False

    return act


def play(kind: str, seed: int, check: Any = None) -> tuple[Harness, list[dict[str, Any]], list[str]]:
    """One whole match of ``kind``, its table durable and its journal taken after every call (``check``
    sees the table and the entries of each take); the entries and each step's stored text."""
    spec = dict(SPECS[kind])
    h = Harness(spec.pop("rules"), fair=True, settings={"entropy_window": 2.0}, **spec)
    durable.enable(h.table)
    journal = durable.Journal(h.table)
    stored: list[dict[str, Any]] = []
    texts: list[str] = []

    def write(h: Harness) -> None:
        if check is not None:
            check(h.table, journal, None)
        entries = journal.take()
        if check is not None:
            check(h.table, journal, entries)
        if entries:
            texts.append(long_text(entries))
            stored.extend(entries)
            journal.written()

    h.after_call.insert(0, write)
    keys = PEOPLE[kind]
    if kind == "speculation":
        h.refuse(Transfer, when=lambda e: e.reason == "traded", times=1)  # a trade the ledger refuses: undone
    h.join(*keys)
    rng = random.Random(seed)
    act = _people(h, keys, rng)
    if kind == "classic":  # P16: a person who leaves mid-match is replaced by a bot for good
        h.run(lambda: h.table.match is not None and h.table.match.round >= 1 and len(h.table.log) > 20, act=act)
        h.ok("bob", "leave")
        act = _people(h, ["alice", "zoé"], rng)
    h.run(lambda: h.table.status == "over", act=act)
    return h, stored, texts


def make_data() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in KINDS:
        h, _, texts = play(kind, seed=5)
        out[kind] = {"config": durable.table_config(h.table), "rows": texts}
    return out


# -- the tests ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pinned() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def _entries(rows: list[str]) -> list[dict[str, Any]]:
    """The entries of stored rows (as ``stored()`` reads them back)."""
    out: list[dict[str, Any]] = []
    for row in rows:
        value = json.loads(row)
        out.extend(value if isinstance(value, list) else [value])
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_a_log_written_before_the_shortcuts_replays_every_hash_checked(kind: str, pinned: dict[str, Any]) -> None:
    log = pinned[kind]
    entries = _entries(log["rows"])
    assert sum("hh" in e for e in entries) >= 2 and sum("f" in e for e in entries) > 10
    match, actions, _ = durable.replay(log["config"], entries, check=True)
    assert match is not None and match.over and actions
    # a wrong hash anywhere is caught: the check is real
    broken = [dict(e) for e in entries]
    at = max(i for i, e in enumerate(broken) if "h" in e)
    broken[at]["h"] = "0" * 16
    with pytest.raises(durable.Unreplayable):
        durable.replay(log["config"], broken, check=True)


@pytest.mark.parametrize("kind", KINDS)
def test_the_same_game_writes_the_same_log_byte_for_byte(kind: str, pinned: dict[str, Any]) -> None:
    h, stored, texts = play(kind, seed=5)
    log = pinned[kind]
    assert durable.table_config(h.table) == log["config"]
    assert texts == log["rows"]  # each step's row, as the store wrote it before
    assert [tables._step_text(_entries([t])) for t in texts] == texts  # and as it writes it now
    assert json.loads(json.dumps(stored)) == _entries(log["rows"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_facts_are_written_exactly_when_they_change_and_the_hashes_are_the_long_ways(kind: str, seed: int) -> None:
    state: dict[str, Any] = {"written": None, "long": None, "steps": 0, "facts": 0, "deals": 0, "fair": 0}

    def check(table: Table, journal: durable.Journal, entries: list[dict[str, Any]] | None) -> None:
        if entries is None:  # before the take: the long way's view of this moment
            state["long"] = long_facts(table)
            assert durable.facts(table) == state["long"]
            assert json.dumps(durable.facts(table)) == json.dumps(state["long"])  # the same keys, in order
            return
        if not entries:
            assert state["long"] == state["written"], "the facts changed and were not written"
            return
        step = entries[-1]
        assert step["k"] == "s"
        changed = state["long"] != state["written"]
        assert ("f" in step) == changed, "facts written when they did not change, or not when they did"
        if changed:
            assert json.dumps(step["f"]) == json.dumps(state["long"])
            state["written"] = state["long"]
            state["facts"] += 1
            state["fair"] += state["long"]["fair"] is not None
        match = table.match
        if "h" in step:
            assert match is not None and step["h"] == long_hash(match)
            state["steps"] += 1
        else:
            assert match is None or all(e["k"] == "s" for e in entries[:-1])
        dealt = any(e["k"] == "a" and e["a"].get("cmd") == "deal" for e in entries)
        assert ("hh" in step) == (dealt and match is not None)
        if "hh" in step:
            assert step["hh"] == long_hash(match, every_seat=True)
            state["deals"] += 1

    play(kind, seed=seed, check=check)
    assert state["steps"] > 20 and state["facts"] > 5 and state["deals"] >= 2 and state["fair"] >= 2, state


def test_a_journal_whose_facts_were_set_from_outside_compares_them_the_long_way() -> None:
    """The room sets ``last_facts`` from the stored log after a restart: the key of the facts made
    before does not stand for those."""
    h = Harness("classic", seats=3)
    durable.enable(h.table)
    journal = durable.Journal(h.table)
    h.join("alice", "bob", "carol")
    assert "f" in journal.take()[-1]
    journal.written()
    assert journal.take() == []
    journal.last_facts = {"uid": "something else"}
    step = journal.take()[-1]
    assert step["f"] == long_facts(h.table)
    journal.written()
    journal.last_facts = dict(step["f"])  # equal, another dict: nothing to write
    assert journal.take() == []


def test_prefs_changed_in_place_are_facts_that_changed() -> None:
    h = Harness("tdc", seats=3, stake=10)
    durable.enable(h.table)
    journal = durable.Journal(h.table)
    h.join("alice", "bob", "carol")
    journal.take()
    journal.written()
    h.table.seats[0].prefs["autocut"] = True  # as the autocut command does
    step = journal.take()[-1]
    assert step["f"]["seats"][0]["prefs"] == {"autocut": True}


class _Shown:
    def __str__(self) -> str:
        return "shown é"


@pytest.mark.parametrize("odd", [{"b": [1, {"é": None}]}, {2: "x", 10: "y"}, {"a": 2**70}, {"o": _Shown()},
                                 {"s": {3}, "z": {"y": 1, "x": [_Shown(), 1.5, -0.0, 1e16]}}, {"é": "😀"}])
def test_the_bytes_hashed_are_the_standard_encoders(odd: Any) -> None:
    """Odd values (non-ASCII, int keys, big ints, what only ``default=str`` writes, floats) too."""
    assert durable._encode_bytes(odd) == _std(odd).encode()


ODD: list[Any] = [
    {"k": "a", "a": {"cmd": "play", "seat": 2, "cards": ["9h"]}},
    {"k": "s", "h": "1aba850244cb5305", "f": {"name": "Zoé", "x": "\u2028\x7f\x00\n\"\\/é😀", "n": None}},
    {"big": 2**70, "neg": -(2**63), "f": 1e16, "g": 1e-7, "z": -0.0, "t": (1, 2), "b": [True, False]},
    {1: "int key", "s": {"nested": [{"deep": [1, [2, [3]]]}]}},
]


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_a_steps_text_is_the_long_ways(count: int) -> None:
    rng = random.Random(count)
    for _ in range(50):
        entries = [rng.choice(ODD) for _ in range(count)]
        assert tables._step_text(entries) == long_text(entries)


@pytest.mark.parametrize("bad", [{"v": float("nan")}, {"v": float("inf")}, {"v": object()}, {"v": {1, 2}},
                                 {"v": "x" * tables.MAX_ENTRY}])
def test_what_the_store_refused_it_still_refuses(bad: dict[str, Any]) -> None:
    for entries in ([bad], [ODD[0], bad], [bad, ODD[1]]):
        with pytest.raises(BadRecord) as caught:
            tables._step_text(entries)
        try:
            for e in entries:
                text = json.dumps(dict(e), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
                assert len(text) <= tables.MAX_ENTRY
        except (TypeError, ValueError) as exc:
            assert str(caught.value) == f"a log entry is not JSON: {exc}"
        except AssertionError:
            assert "at most" in str(caught.value)
    # two entries each within the limit, their array over it: written (the limit is each entry's)
    half = {"v": "y" * (tables.MAX_ENTRY - 20)}
    assert tables._step_text([half, half]) == long_text([half, half])


if __name__ == "__main__":
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(make_data(), ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {DATA} ({DATA.stat().st_size} bytes)", file=sys.stderr)
