"""Random commands with random arguments from a seated player: every one gets one clean reply.

Deterministic (a fixed seed); checks that nothing a client sends raises on the
server (no ``internal_error``), that the room keeps playing and that no chip
is created or lost.
"""

import asyncio
import random

import pytest

from server.commands import load
from tests.kits.servers import connect, play_simply

VALUES = [
    None, True, False, 0, 1, 2, 3, -1, 7, 10**18, 2.5, -0.0, "", "r1", "r2", "R1", "1", "r999", "7c", "Qh",
    "10h", "Xx", "zz", "🂡", "a" * 300, "\x1b[31mred\x07", "tdc", "classic", "president", "speculation",
    "on", "off", "fr", "es", "en", "de", [], ["7c"], ["7c", "7c"], ["3c", "3d", "3h", "3s"], [1, 2], [None],
    [["7c"]], {"a": 1}, {"cards": ["7c"]}, ["2s", "2h"],
]
KEYS = ["cards", "room", "seat", "amount", "to", "price", "offer", "on", "lang", "text", "name", "game",
        "rules", "seats", "bots", "bot_level", "turn_seconds", "stake", "ante", "rounds", "width", "limit",
        "key", "topic", "id2", ""]
SKIP = {"register", "passwd",  # slow on purpose (scrypt); covered by the storage tests
        "quit"}  # ends the connection (tests/e2e/people/test_screen.py)


@pytest.mark.parametrize("table", [{"game": "president", "rules": "tdc", "stake": 2},
                                   {"game": "speculation", "ante": 1}], ids=["tdc", "speculation"])
async def test_random_commands_get_clean_replies_and_change_nothing_they_should_not(server, table):
    rng = random.Random(20261130)
    every = [*sorted(set(load()) - SKIP), "nope", "PLAY", "", "state "]
    moving = {"leave", "create", "join", "watch", "login"}
    seated = [c for c in every if c not in moving]
    alice = await connect(server, "alice")
    mallory = await connect(server, "mallory")
    try:
        room = (await alice.request("create", seats=3, bots=1, **table))["room"]
        await mallory.request("join", room=room)
        if table["game"] == "president":
            playing = asyncio.ensure_future(play_simply(alice, until=lambda s: s.get("round", 0) >= 3, timeout=60))
        else:
            playing = asyncio.ensure_future(asyncio.sleep(0))
        codes = set()
        for i in range(400):
            cmd = rng.choice(seated if i < 300 else every)  # first at the table, then anywhere
            args = {rng.choice(KEYS): rng.choice(VALUES) for _ in range(rng.randrange(4))}
            args.pop("", None)
            if i % 50 == 0 and mallory.state and mallory.state.get("hand"):
                args = {"cards": rng.sample(mallory.state["hand"], k=min(2, len(mallory.state["hand"])))}
                cmd = rng.choice(["play", "cut", "give"])
            reply = await mallory.request_raw(cmd, **args)
            assert reply["type"] in ("ok", "error"), reply
            if reply["type"] == "error":
                assert isinstance(reply["code"], str) and isinstance(reply["message"], str) and reply["message"]
                assert reply["code"] != "internal_error", (cmd, args)
                codes.add(reply["code"])
            if mallory.closed.is_set():
                break
        assert {"bad_argument", "unknown_command", "not_allowed"} <= codes
        # the table still works for the others
        await alice.request("say", text="still here")
        assert (await alice.request("whoami"))["name"] == "alice"
        playing.cancel()
        audit = await server.store.ledger.audit()
        assert audit.ok
    finally:
        await alice.close()
        await mallory.close()
