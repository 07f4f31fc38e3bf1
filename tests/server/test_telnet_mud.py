"""MUD clients on the telnet door, byte by byte: MSSP, GMCP and MCCP (docs/gmcp.md, docs/operators.md).

A scripted client (:mod:`tests.server.mudclient`) connects to a real server, answers its offers as
Mudlet does and reads the subnegotiations.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.server.conftest import start_server
from tests.server.mudclient import DO, DONT, GMCP, MCCP2, MSSP, WILL, WONT, MudClient

pytestmark = pytest.mark.e2e


async def test_a_crawler_reads_mssp_before_logging_in(tmp_path):
    server = await start_server(tmp_path, mssp={"CONTACT": "ops@example.org", "WEBSITE": "",
                                                "DISCORD": "https://discord.example/x"})
    try:
        client = await MudClient.connect(server.telnet_port, do=(MSSP,))
        try:
            await client.until(lambda: client.mssp() is not None)
            assert (WILL, MSSP) in client.offers
            table = client.mssp()
            assert table is not None
            assert table["NAME"] == ["donne"]
            assert table["PLAYERS"] == ["0"]
            assert abs(int(table["UPTIME"][0]) - time.time()) < 60
            assert table["CODEBASE"][0].startswith("donne")
            assert table["PORT"] == [str(server.telnet_port)]
            assert table["SSH"] == [str(server.ssh_port)]
            assert table["LANGUAGE"] == ["English", "French", "Spanish"]  # default language first
            assert "Player versus Player" in table["GAMEPLAY"]
            assert table["GENRE"] and table["CRAWL DELAY"]
            assert table["GMCP"] == ["1"] and table["MCCP"] == ["1"] and table["SSL"] == ["0"]
            assert table["CONTACT"] == ["ops@example.org"]  # the operator's [mssp] keys
            assert table["DISCORD"] == ["https://discord.example/x"]
            assert "WEBSITE" not in table  # left empty: not sent
            await client.until(lambda: client.screen().strip() != "")  # the door's first question follows
        finally:
            await client.close()
    finally:
        await server.stop()


async def test_mssp_counts_the_players_online(tmp_path):
    server = await start_server(tmp_path)
    try:
        player = await MudClient.connect(server.telnet_port, do=())
        crawler = None
        try:
            await player.expect(":")
            player.line("en")
            player.line("zoe")
            await player.until(lambda: any(p.connected for p in server.lobby.players.values()))
            crawler = await MudClient.connect(server.telnet_port, do=(MSSP,))
            await crawler.until(lambda: crawler.mssp() is not None)
            assert crawler.mssp()["PLAYERS"] == ["1"]
        finally:
            await player.close()
            if crawler is not None:
                await crawler.close()
    finally:
        await server.stop()


async def test_mssp_and_gmcp_off_are_refused(tmp_path):
    server = await start_server(tmp_path, telnet_mssp=False, telnet_gmcp=False, telnet_mccp=False)
    try:
        client = await MudClient.connect(server.telnet_port)
        try:
            await client.until(lambda: len(client.offers) >= 3)
            await asyncio.sleep(0.3)
            assert (WILL, MSSP) not in client.offers and (WILL, GMCP) not in client.offers
            assert (WILL, MCCP2) not in client.offers
            client.send(bytes([255, DO, MSSP, 255, DO, GMCP, 255, DO, MCCP2]))  # asked all the same
            await client.until(lambda: {(WONT, MSSP), (WONT, GMCP), (WONT, MCCP2)} <= set(client.offers))
            assert client.mssp() is None
        finally:
            await client.close()
    finally:
        await server.stop()
