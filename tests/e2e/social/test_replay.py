"""A rated match played for real, then its round watched again, exported and replayed by the engine.

Three registered people play a classic round (RULES P) over raw TCP while a fourth watches
it. Afterwards: the ratings moved the right way (a rated table without bots); the JSON
``replay`` gives exactly the events the spectator received during the round, in order, and
never a card that was hidden at that point; its log, re-run through the engine, gives the
stored result; the text viewer steps through it over SSH in Spanish, then shows the hands;
``donne export`` writes a record the engine reproduces byte for byte.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from typing import Any

import pytest

from clients.client import Client
from engine.president import PresidentMatch
from server.messages.terminal import strip_ansi
from server.start.cli import main as donne
from tests.e2e.social.test_social import member, refused
from tests.kits.servers import play_simply, start_server

pexpect = pytest.importorskip("pexpect")
pytestmark = pytest.mark.e2e
HOST = "127.0.0.1"

TABLE_EVENTS = {"joined", "left", "match_started", "commitment", "chat", "disconnected", "reconnected",
                "replaced", "room_closed", "rematch", "notice"}


def _plain(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("type", "text", "room")}


async def _played_round(tmp_path: Any) -> tuple[Any, list[Client], Client, str, list[dict[str, Any]]]:
    running = await start_server(tmp_path)
    people = [await member(running, n) for n in ("alice", "bob", "carol")]
    room = (await people[0].request("create", game="president", rules="classic", seats=3, rounds=1))["room"]
    watcher = await member(running, "wendy")
    seen: list[dict[str, Any]] = []
    watcher.on_push = lambda m: seen.append(m) if m.get("type") == "event" else None
    await watcher.request("watch", room=room)
    for p in people[1:]:
        await p.request("join", room=room)
    await asyncio.gather(*(play_simply(p) for p in people))
    await watcher.next_event("match_over", timeout=20) if not any(e.get("event") == "match_over" for e in seen) \
        else None
    return running, people, watcher, room, [_plain(e) for e in seen if e.get("event") not in TABLE_EVENTS]


async def test_a_replay_is_what_a_spectator_saw_and_the_engine_gives_the_result(tmp_path: Any) -> None:
    running, people, watcher, _room, seen = await _played_round(tmp_path)
    alice = people[0]
    try:
        history = (await alice.request("history"))["history"]
        round_id = next(h["round"] for h in history if not h["match"])
        replay = await alice.request("replay")  # no round: your last one
        assert replay["round"] == round_id
        steps = [e for step in replay["steps"] for e in step]
        spectator = seen  # the last action ended the match too: its match_over is one of its events
        assert steps == spectator  # exactly the public events of the round, in order
        for event in steps:
            assert event.get("hands") is None or event["event"] == "round_over" or all(
                h is None for h in event["hands"]), event
            assert event.get("event") != "exchange" or event.get("cards") is None
        # then what was hidden: every hand as dealt
        dealt = next(e for e in replay["revealed"] if e["event"] == "dealt")
        assert all(len(h) == 17 or len(h) == 18 for h in dealt["hands"])
        # the stored log, run again through the engine, gives the stored result
        _match, events = PresidentMatch.replay(replay["config"]["match"], replay["log"])
        ends = [e.to_dict() for e in events if e.name == "round_over"]
        assert json.dumps(ends[-1]) == json.dumps(replay["result"]) and replay["seed"] == replay["result"]["seed"]
        assert await refused(alice, "replay", round="r999-x-1") == "no_such_round"
        assert await refused(alice, "replay", round=round_id.rsplit("-", 1)[0] + "-match") in (
            "bad_argument", "no_such_round")
        # a rated table (no bots): the ratings moved with the places
        ranking = replay["result"]["ranking"]
        names = replay["seats"]
        board = await alice.request("leaderboard", by="rating", game="president", rules="classic", min_games=1)
        assert [r["name"] for r in board["leaderboard"]] == [names[s] for s in ranking]
        early = await alice.request("leaderboard", by="rating", rules="classic")
        assert early["leaderboard"] == []  # 5 games to be ranked; until then provisional, in the same order
        assert [(r["name"], r["provisional"]) for r in early["provisional"]] == [(names[s], True) for s in ranking]
        card = await alice.request("finger", name=names[ranking[0]])
        classic = next(t for t in card["tables"] if t["rules"] == "classic")
        assert classic["rounds"] == 1 and classic["rated_games"] == 1 and classic["titles"] == 1
        assert classic["rating"] == board["leaderboard"][0]["rating"]
    finally:
        for c in (*people, watcher):
            await c.close()
        await running.stop()
    # donne export, beside the data the server left (read-only)
    out = tmp_path / "round.json"
    assert donne(["export", "--data-dir", str(tmp_path / "data"), "--round", round_id, "--format", "json",
                  "--out", str(out), "--check"]) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["format"] == "donne-round/1" and record["seed"] == replay["seed"]
    _, events = PresidentMatch.replay(record["config"], record["log"])
    mine = [e.to_dict() for e in events][sum(1 for _ in PresidentMatch.replay(record["config"],
                                                                              record["log"][:record["start"]])[1]):]
    assert json.dumps(mine, ensure_ascii=False) == json.dumps(record["events"], ensure_ascii=False)
    assert json.dumps(record["events"][-1] if record["events"][-1]["event"] == "round_over"
                      else next(e for e in reversed(record["events"]) if e["event"] == "round_over")) \
        == json.dumps(record["result"])
    many = tmp_path / "alice.json"
    assert donne(["export", "--data-dir", str(tmp_path / "data"), "--player", "alice", "--last", "5",
                  "--out", str(many)]) == 0
    assert [r["round"] for r in json.loads(many.read_text())["rounds"]] == [round_id]
    assert donne(["export", "--data-dir", str(tmp_path / "data"), "--round", "nope"]) == 2


@pytest.mark.skipif(shutil.which("ssh") is None, reason="ssh client not installed: run make tools")
async def test_the_text_viewer_steps_through_a_round_in_spanish(tmp_path: Any) -> None:
    running, people, watcher, _room, _seen = await _played_round(tmp_path)
    try:
        round_id = next(h["round"] for h in (await people[0].request("history"))["history"] if not h["match"])
        child = await asyncio.to_thread(_ssh, running.ssh_port)
        try:
            await _line(child, f"repetir {round_id}", "Repetición de la ronda")
            await _line(child, "siguiente", r"paso 1 de (\d+)")
            total = int(child.match.group(1))
            out = await _line(child, "ir 3", "paso 3 de")
            assert "se reparten las cartas" in out  # step 1 was the deal, as a spectator saw it
            await _line(child, "anterior", "paso 2 de")
            out = await _line(child, "fin", "las manos")
            await asyncio.to_thread(child.expect, "Al repartir")
            await _line(child, "historial alice", round_id)  # history lines name their round ids
            await _line(child, "repetir siguiente", "las manos")  # still at the end
            assert total > 10
            await _line(child, f"ir {total - 4}", f"paso {total - 4} de")  # the last steps play at 0.2 s each
            await _line(child, "reproducir 0.2", f"paso {total} de")
        finally:
            child.close(force=True)
    finally:
        for c in (*people, watcher):
            await c.close()
        await running.stop()


def _ssh(port: int) -> Any:
    child = pexpect.spawn(
        "ssh", ["-F", "/dev/null", "-tt", "-p", str(port), "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "SendEnv=LANG",
                "-o", "BatchMode=yes", "-o", "IdentityFile=/dev/null", "Ana@127.0.0.1"],
        env={"LANG": "es_ES.UTF-8", "TERM": "xterm-256color", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
        encoding="utf-8", codec_errors="replace", dimensions=(40, 100), timeout=20)
    child.expect("Hola")
    return child


async def _line(child: Any, line: str, expect: str) -> str:
    await asyncio.to_thread(child.sendline, line)
    await asyncio.to_thread(child.expect, expect)
    return strip_ansi(child.before + child.after)
