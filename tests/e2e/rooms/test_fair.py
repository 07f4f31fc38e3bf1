"""Fair deals end to end (docs/fairness.md): a real server on free loopback ports, a JSON player over
TCP, a Spanish person over SSH and a French person over telnet, and a bot, in one Président match.

The people set their seeds at the terminal (``semilla``, ``graine``) before sitting, the JSON player
sends ``entropy`` in the window; duplicate, malformed and late contributions are refused with
their codes; the round's end carries the record; ``verify`` (JSON, ``verificar``, ``vérifier``)
checks it, and fails once the stored record is tampered with. A Speculation deal with bots
verifies too, and nothing its player received names an undealt card or a secret salt.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from typing import Any

import asyncssh
import telnetlib3

from engine import fairness
from server.storage.sqlite import db_path
from tests.e2e.transports.test_transports import read_until, until
from tests.kits.servers import connect, start_server, strings_in

WINDOW = 60.0  # long: the window must close early, once everyone has contributed (never by time here)


def _ssh(server: Any, username: str) -> Any:
    return asyncssh.connect("127.0.0.1", server.ssh_port, username=username, known_hosts=None, agent_path=None,
                            client_keys=None)


async def _event(log: list[Any], name: str, timeout: float = 15.0) -> dict[str, Any]:
    """The first event ``name`` among the messages received so far (waiting for it): a push may come
    before the reply of the request that caused it."""
    await until(lambda: any(m.get("event") == name for m in log), timeout)
    return next(m for m in log if m.get("event") == name)


async def _play_until_round_over(client: Any, timeout: float = 60.0) -> dict[str, Any]:
    """Lead the weakest single, else pass, until ``round_over`` arrives."""
    over: asyncio.Future[Any] = asyncio.ensure_future(client.next_event("round_over", timeout=timeout))
    acted: list[Any] = [None]

    def mine(s: dict[str, Any]) -> bool:
        return s is not acted[0] and s.get("turn") == s.get("you") and s.get("phase") == "play"

    while not over.done():
        try:
            state = await client.next_state(mine, timeout=0.5, current=True)
        except Exception:
            continue
        acted[0] = state
        if not state.get("trick"):
            await client.request_raw("play", cards=[state["hand"][0]])
        else:
            await client.request_raw("pass")
    return await over


async def test_contributions_over_json_ssh_and_telnet_then_verify_in_three_languages(tmp_path):
    server = await start_server(tmp_path, entropy_window=WINDOW)
    ana = await connect(server, "ana")
    received: list[Any] = []
    ana.on_push = received.append
    telnet_reader, telnet_writer = await telnetlib3.open_connection(
        "127.0.0.1", server.telnet_port, cols=120, rows=40, term="xterm", encoding="utf8", connect_minwait=0.05)
    try:
        async with _ssh(server, "bea") as conn:
            bea = await conn.create_process(term_type="xterm", term_size=(120, 40), env={"LANG": "es_ES.UTF-8"})
            await read_until(bea.stdout, "bea")
            bea.stdin.write("semilla   dados de Bea 🎲\n")
            await read_until(bea.stdout, "dados de Bea")
            bea.stdin.write("semilla\n")  # shown again
            await read_until(bea.stdout, "dados de Bea 🎲")
            await read_until(telnet_reader, "Idioma")
            telnet_writer.write("2\r")
            await read_until(telnet_reader, ": ")
            telnet_writer.write("cleo\r")
            await until(lambda: "cleo" in server.lobby.players)
            telnet_writer.write("graine " + "é" * 33 + "\r")  # 66 bytes of UTF-8: refused, nothing set
            await read_until(telnet_reader, "au plus 64 octets")
            assert "seed" not in server.lobby.players["cleo"].extra

            created = await ana.request("create", game="president", rules="classic", seats=4, bots=1)
            room = created["room"]
            bea.stdin.write(f"join {room}\n")
            telnet_writer.write(f"rejoindre {room}\r")
            announced = await _event(received, "commitment")
            assert announced["window"] == WINDOW and announced["round"] == 1
            await read_until(bea.stdout, announced["commitment"][:16])  # the text line shows the commitment
            await read_until(telnet_reader, announced["commitment"][:16])
            bad = await ana.request_raw("entropy", text="x" * 65)
            assert (bad["type"], bad["code"]) == ("error", "bad_entropy") and "64" in bad["message"]
            mine = await ana.request("entropy", text="ana's json randomness")
            assert mine["round"] == 1
            again = await ana.request_raw("entropy", text="second")
            assert again["code"] == "entropy_given"
            assert not ana.state or ana.state.get("round", 0) == 0  # cleo has not given yet: no deal
            telnet_writer.write("graine la graine de Cléo\r")  # in the window: counts for this deal at once
            await read_until(telnet_reader, "la graine de Cléo")
            await _event(received, "dealt")  # everyone gave: dealt long before the window's end
            late = await ana.request_raw("entropy", text="late")
            assert late["code"] == "entropy_closed"
            # the people leave the round to bots (P16): their contributions are in already
            bea.stdin.write("leave\n")
            telnet_writer.write("partir\r")
            over = await _play_until_round_over(ana)
            record = over["fairness"]
            assert record["contributions"][:3] == ["ana's json randomness", "dados de Bea 🎲", "la graine de Cléo"]
            assert record["bots"] == [3] and record["commitment"] == announced["commitment"]

            checked = await _verify_when_stored(ana)
            assert checked["ok"] and checked["seat"] == 0 and checked["record"] == record
            codes = {s["code"]: s["result"] for s in checked["steps"]}
            assert codes["hands_seen"] == "pass" and codes["own_contribution"] == "pass" and codes["entropy"] == "pass"
            round_id = checked["round"]
            bea.stdin.write(f"verificar {round_id}\n")
            text = await read_until(bea.stdout, "(JSON)")  # the footer: the record, never a file a player lacks
            assert "el reparto es correcto" in text.lower() or "comprobado" in text.lower(), text
            assert "verify_deal" not in text
            telnet_writer.write(f"vérifier {round_id}\r")
            text = await read_until(telnet_reader, "(JSON)")
            assert "[ok]" in text and "ÉCHEC" not in text and "verify_deal" not in text

            # the stored record is tampered with: verify says so
            forged = dict(record, server_seed="00" * 32)
            db = sqlite3.connect(db_path(server.config.data_dir))
            with db:
                (extra,) = db.execute("SELECT extra FROM history WHERE round_id = ?", (round_id,)).fetchone()
                db.execute("UPDATE history SET extra = ? WHERE round_id = ?",
                           (json.dumps({**json.loads(extra), "fairness": forged}), round_id))
            db.close()
            tampered = await ana.request("verify", round=round_id)
            results = {s["code"]: s["result"] for s in tampered["steps"]}
            assert not tampered["ok"] and results["commitment"] == "fail"
            bea.stdin.write(f"verificar {round_id}\n")
            await read_until(bea.stdout, "NO")
            bea.stdin.write("quit\n")
    finally:
        telnet_writer.close()
        await ana.close()
        await asyncio.wait_for(server.stop(), 20)


async def _verify_when_stored(client: Any) -> dict[str, Any]:
    for _ in range(100):
        reply = await client.request_raw("verify")
        if reply["type"] == "ok":
            return dict(reply)
        assert reply["code"] == "no_such_round", reply
        await asyncio.sleep(0.05)
    raise AssertionError("the round was never stored")


async def test_speculation_with_bots_verifies_and_no_undealt_card_or_salt_reaches_the_player(tmp_path):
    server = await start_server(tmp_path, entropy_window=WINDOW, auction_seconds=1.0, flip_seconds=0.2,
                                offer_seconds=0.2)  # the bots' offers to ana declined for her soon
    ana = await connect(server, "ana")
    received: list[Any] = []
    ana.on_push = ana.on_reply = received.append  # every message from here on
    try:
        created = await ana.request("create", game="speculation", seats=4, bots=3, rounds=1)
        table = server.lobby.rooms[created["room"]].table
        announced = await _event(received, "commitment")
        # the deal's secrets: the window stays open until ana contributes (the bots have), so this is
        # the deal's own; its contributions are filled in as it is dealt, and kept once it is over
        e = table.entropy
        assert e is not None and e.commitment == announced["commitment"]
        await ana.request("entropy", text="ana's own")
        await _event(received, "dealt")
        deal = fairness.speculation_deal(e.secret, list(e.contributions))
        dealt = 3 * 4 + 1
        deck = deal.commit.decks[deal.chosen]
        undealt = {fairness.CODES[c] for c in deal.dealt[dealt:]}
        secrets = {deck.salts[p].hex() for p in deal.permutation[dealt:]} | {e.server_seed.hex(), deck.seed.hex()}
        over = await _event(received, "deal_over", timeout=60)
        assert over["fairness"]["commitment"] == announced["commitment"]
        checked = await _verify_when_stored(ana)
        assert checked["ok"], checked["steps"]
        assert {s["code"]: s["result"] for s in checked["steps"]}["cards_seen"] == "pass"
        # the whole deal was read, however short (a trump that wins the pool at once ends it at its turn)
        names = [m.get("event") for m in received]
        assert "dealt" in names and "deal_over" in names and any(m.get("type") == "state" for m in received)
        for msg in received:
            line = json.dumps(msg, ensure_ascii=False)
            assert not any(s in line for s in secrets)
            assert not undealt & set(strings_in(msg)), msg
    finally:
        await ana.close()
        await asyncio.wait_for(server.stop(), 20)


