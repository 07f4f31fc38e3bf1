"""A wire bot tells a race from a mistake: a refusal that comes after a newer state is a race.

The server queues every reply behind the states it pushed before handling the
request (one outbound queue per session, in order). So when a bot's action is
refused and a state reached the bot between sending the action and the
refusal, the table had moved on before the server saw the action (someone's
cut, T9): the bot counts it as ``stale`` and decides again on that newer
state. A refusal with no state in between was chosen from the table as it
was: ``wrong``, which the end-to-end tests require never to happen.

A scripted transport plays the server's side here, so the crossing happens
every time, not only on a loaded machine.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from clients.client import Client
from clients.transports import Transport
from clients.wirebot import WireBot
from engine.president import PresidentMatch
from engine.seeds import seed_from_int
from tests.clients.test_adapters import as_pushed


class ScriptedServer(Transport):
    """Answers each command, in order, with ``script``'s next (pushes, reply fields); then ``ok``."""

    def __init__(self, client: Client, script: list[tuple[list[dict[str, Any]], dict[str, Any]]]) -> None:
        self.client = client
        self.script = script
        self.sent: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        msg = json.loads(data)
        self.sent.append(msg)
        pushes, reply = self.script.pop(0) if self.script else ([], {"type": "ok"})
        messages = [*pushes[:1], {**reply, "id": msg["id"]}, *pushes[1:]]
        loop = asyncio.get_running_loop()
        for m in messages:  # later, as a network would deliver them
            loop.call_soon(self.client.dispatch, m)

    async def drain(self) -> None:
        return None

    async def close(self) -> None:
        return None


def leading_state() -> dict[str, Any]:
    """A tdc state where the seat on turn leads a trick (it must play: a pass is illegal there)."""
    match = PresidentMatch("tdc", seats=4, stake=2)
    match.apply(match.deal_action(seed_from_int(7), present=(0, 1, 2, 3), stake=2))
    return as_pushed(match, match.turn)


OVER = {"type": "event", "event": "match_over", "room": "r1", "winners": [0], "totals": [0, 0, 0, 0]}


async def run(script: list[tuple[list[dict[str, Any]], dict[str, Any]]]) -> tuple[WireBot, list[Any]]:
    client = Client(timeout=5)
    server = ScriptedServer(client, script)
    client._transport = server
    bot = WireBot(client, "random", b"races")
    bot.room = "r1"
    client.dispatch(leading_state())
    assert await asyncio.wait_for(bot.play(), 5) == "over"
    return bot, [m["cmd"] for m in server.sent]


async def test_a_refusal_after_a_newer_state_is_a_race_and_the_bot_decides_again_on_it() -> None:
    newer = {**leading_state(), "deadline": 29}
    refused = {"type": "error", "code": "illegal_play", "message": "..."}
    bot, sent = await run([([newer], refused), ([OVER], {"type": "ok"})])
    assert (bot.stats.refused, bot.stats.stale, dict(bot.stats.wrong)) == (1, 1, {})
    assert sent == ["play", "play"]  # no "state" request: the newer state was already there


async def test_a_refusal_of_a_choice_from_the_current_state_is_a_mistake() -> None:
    refused = {"type": "error", "code": "illegal_play", "message": "..."}
    again = {**leading_state(), "deadline": 28}
    bot, sent = await run([([], refused), ([again], {"type": "ok"}), ([OVER], {"type": "ok"})])
    assert (bot.stats.refused, bot.stats.stale, dict(bot.stats.wrong)) == (1, 0, {"illegal_play": 1})
    assert sent == ["play", "state", "play"]  # asks for the table, then decides again
