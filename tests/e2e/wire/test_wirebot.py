"""``donne bot``: engine strategies play whole matches over the wire against a real server."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

import pytest

from clients.wirebot import add_arguments, run_bots

pytestmark = pytest.mark.e2e


def bot_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


async def play(ns: argparse.Namespace) -> dict[str, Any]:
    return await asyncio.wait_for(run_bots(ns), 90)


async def test_P15_four_wire_bots_finish_a_classic_match(server: Any) -> None:
    ns = bot_args("--port", str(server.telnet_port), "--name", "wb", "--strategy", "greedy",
                  "--create", "president:classic", "--seats", "4", "--count", "4", "--timeout", "60")
    summary = await play(ns)
    assert summary["results"] == {"over": 4}
    assert summary["matches"] == 4  # every bot saw the match end
    assert summary["errors"] == 0 and summary["refused"] == 0
    over = summary["last_over"]
    assert over["event"] == "match_over" and over["winners"]
    assert len(over["totals"]) == 4 and sum(over["totals"]) == 5 * (3 + 2 + 1)  # P14 x P15 rounds
    assert summary["actions"] > 4 * 13 / 4 * 5  # at least one card per action, five rounds


async def test_T12_tdc_wire_bots_play_two_rounds_with_the_exchange(server: Any) -> None:
    ns = bot_args("--port", str(server.telnet_port), "--name", "tdc", "--strategy", "random",
                  "--create", "president:tdc", "--seats", "4", "--count", "4", "--rounds", "2",
                  "--stake", "2", "--timeout", "60")
    summary = await play(ns)
    assert summary["results"] == {"over": 4}, summary
    assert summary["errors"] == 0, summary
    # T9: the first cut to reach the server wins. A bot whose action crossed someone else's cut
    # (or give, T12) is refused with whatever code the new table calls for (even illegal_play:
    # a pass that reaches the server after a cut that emptied the cutter's hand made this bot
    # the leader, T7c); a newer state always reaches it before that refusal. Refusals of
    # actions chosen from the table as it was are the adapter's mistakes: none.
    assert summary["wrong"] == {}, summary
    assert summary["stale"] == summary["refused"], summary


async def test_S7_S8_speculation_wire_bots_play_a_deal(server: Any) -> None:
    ns = bot_args("--port", str(server.telnet_port), "--name", "spec", "--strategy", "greedy",
                  "--create", "speculation", "--seats", "3", "--count", "3", "--rounds", "1",
                  "--turn-seconds", "1", "--timeout", "60")
    summary = await play(ns)
    assert summary["results"] == {"over": 3}
    assert summary["errors"] == 0


async def test_wire_bot_over_ssh_with_server_bots(server: Any) -> None:
    ns = bot_args("--port", str(server.ssh_port), "--ssh", "--name", "sshbot", "--strategy", "greedy",
                  "--create", "president:classic", "--seats", "4", "--bots", "3", "--rounds", "1",
                  "--timeout", "60")
    summary = await play(ns)
    assert summary["results"] == {"over": 1}
    assert summary["errors"] == 0 and summary["refused"] == 0


async def test_wire_bots_join_an_existing_room(server: Any) -> None:
    from clients.client import Client
    from clients.wirebot import WireBot

    owner = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
    try:
        await owner.login("host")
        room = (await owner.request("create", game="president", rules="classic", seats=3, rounds=1))["room"]
        ns = bot_args("--port", str(server.telnet_port), "--name", "joiner", "--join", room, "--count", "2",
                      "--timeout", "60")
        host_bot = WireBot(owner, "random", b"host")
        summary, host_result = await asyncio.gather(play(ns), asyncio.wait_for(host_bot.play(), 90))
    finally:
        await owner.close()
    assert summary["room"] == room
    assert summary["results"] == {"over": 2}
    assert host_result == "over"
    assert host_bot.last_over is not None and len(host_bot.last_over["totals"]) == 3


async def test_games_play_one_new_room_each(server: Any) -> None:
    ns = bot_args("--port", str(server.telnet_port), "--name", "twice", "--create", "president:classic",
                  "--seats", "3", "--count", "3", "--rounds", "1", "--games", "2", "--timeout", "60")
    summary = await play(ns)
    assert summary["results"] == {"over": 6}
    assert len(summary["rooms"]) == 2 and summary["rooms"][0] != summary["rooms"][1]
    assert summary["matches"] == 6


def test_games_need_create() -> None:
    ns = bot_args("--port", "1", "--join", "r1", "--games", "2")
    with pytest.raises(SystemExit):
        asyncio.run(run_bots(ns))
