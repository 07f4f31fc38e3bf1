"""MUD clients on the telnet door, byte by byte: MSSP, GMCP and MCCP (docs/gmcp.md, docs/operators.md).

A scripted client (:mod:`tests.kits.mudclient`) connects to a real server, answers its offers as
Mudlet does and reads the subnegotiations.
"""

from __future__ import annotations

import asyncio
import re
import time
import zlib

import pytest

from tests.kits.mudclient import DO, GMCP, MCCP2, MSSP, WILL, WONT, MudClient
from tests.kits.servers import start_server, strings_in

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


async def login(client: MudClient, name: str, lang: str = "en") -> None:
    """The door's questions: the language, then the name (a guest)."""
    await client.until(lambda: client.screen().rstrip().endswith(":") or "?" in client.screen())
    client.line(lang)
    await client.until(lambda: client.screen().count(":") >= 2)
    client.line(name)


async def test_mccp2_compresses_and_the_stream_inflates_to_the_text(tmp_path):
    server = await start_server(tmp_path)
    try:
        client = await MudClient.connect(server.telnet_port, do=(MCCP2,))
        try:
            await client.until(lambda: any(opt == MCCP2 for opt, _ in client.subs))
            await login(client, "zoe")
            client.line("who")
            await client.expect("zoe")
            assert (WILL, MCCP2) in client.offers
            # what came after IAC SB MCCP2 IAC SE inflates, by zlib alone, to what the client shows
            start = bytes(client.raw).index(bytes([255, 250, MCCP2, 255, 240])) + 5
            plain = zlib.decompressobj().decompress(bytes(client.raw[start:]))
            assert b"zoe" in plain
            assert client.compressed_bytes > 0 and client.inflated_bytes > client.compressed_bytes
        finally:
            await client.close()
    finally:
        await server.stop()


async def test_mccp_off_sends_plain_text(tmp_path):
    server = await start_server(tmp_path, telnet_mccp=False)
    try:
        client = await MudClient.connect(server.telnet_port, do=(MCCP2,))
        try:
            await login(client, "zoe")
            client.line("who")
            await client.expect("zoe")
            assert (WILL, MCCP2) not in client.offers and not any(opt == MCCP2 for opt, _ in client.subs)
            assert b"zoe" in bytes(client.raw)
        finally:
            await client.close()
    finally:
        await server.stop()


CARD = re.compile(r"^(?:[2-9TJQKA][cdhs]|10[cdhs])$")


def cards_in(value: object) -> set[str]:
    return {s for s in strings_in(value) if CARD.match(s)}


async def guest(port: int, name: str, *, lang: str = "en", **kw: object) -> MudClient:
    client = await MudClient.connect(port, **kw)  # type: ignore[arg-type]
    await login(client, name, lang)
    await client.until(lambda: any(p == "Char.Login" for p, _ in client.gmcp_messages()))
    return client


def last(client: MudClient, package: str) -> dict:
    found = [d for p, d in client.gmcp_messages() if p == package]
    assert found, f"no {package}: {client.gmcp_messages()[-5:]}"
    return found[-1]


async def test_gmcp_packages_per_seat_and_no_hidden_card_to_anyone_else(tmp_path):
    """Two people and a spectator over GMCP play a round of classic Président (P1-P15): each seat's
    Donne.Hand goes to that seat only, and no GMCP message to a seat or the spectator carries a card
    of another seat's hand before that card is played."""
    server = await start_server(tmp_path)
    clients: list[MudClient] = []
    try:
        zoe = await guest(server.telnet_port, "zoe")
        clients.append(zoe)
        zoe.gmcp("Core.Hello", {"client": "Mudlet", "version": "4.17.2"})
        zoe.gmcp("Core.Supports.Set", ["Char 1", "Comm.Channel 1", "Donne 1"])
        assert last(zoe, "Char.Status") == {"name": "zoe", "guest": True, "lang": "en", "room": None, "seat": None}
        assert last(zoe, "Donne.Lobby") == {"rooms": []}
        zoe.line("create president classic 3 bots=1")
        await zoe.until(lambda: any(p == "Char.Status" and d["room"] for p, d in zoe.gmcp_messages()))
        room = last(zoe, "Char.Status")["room"]
        assert last(zoe, "Char.Status")["seat"] == 0
        eve = await guest(server.telnet_port, "eve")
        clients.append(eve)
        eve.line(f"watch {room}")
        await eve.until(lambda: any(p == "Donne.Table" for p, _ in eve.gmcp_messages()))
        eve.line("say hello table")
        await zoe.until(lambda: any(p == "Comm.Channel.Text" for p, _ in zoe.gmcp_messages()))
        said = last(zoe, "Comm.Channel.Text")
        assert said["channel"] == "table" and said["talker"] == "eve" and "hello table" in said["text"]
        max_ = await guest(server.telnet_port, "max")
        clients.append(max_)
        max_.line(f"join {room}")
        seats = {"zoe": zoe, "max": max_}
        # play by the legal moves of each seat's Donne.Table until the round is over
        acted: dict[str, int] = {"zoe": -1, "max": -1}

        def over() -> bool:
            return any(p == "Donne.Event" and d["event"] == "round_over" for p, d in eve.gmcp_messages())

        async def drive() -> None:
            while not over():
                for name, client in seats.items():
                    tables = [(i, d) for i, (p, d) in enumerate(client.gmcp_messages()) if p == "Donne.Table"]
                    if not tables:
                        continue
                    i, table = tables[-1]
                    if i > acted[name] and table.get("decision") and table.get("turn") == table.get("you"):
                        acted[name] = i
                        plays = (table.get("legal") or {}).get("plays") or []  # [[rank, count], ...]
                        if plays:
                            rank, count = plays[0]
                            client.line("play " + " ".join([rank.replace("T", "10")] * count))
                        else:
                            client.line("pass")
                await asyncio.sleep(0.05)

        try:
            await asyncio.wait_for(drive(), 60)
        except TimeoutError:
            for n, c in seats.items():
                print(n, last(c, "Donne.Table").get("decision"), last(c, "Donne.Table").get("legal"), c.screen()[-600:])
            raise
        await asyncio.sleep(0.3)
        # Donne.Hand: only to its owner, and only its own seat
        for client in seats.values():
            seat = last(client, "Char.Status")["seat"]
            hands = [d for p, d in client.gmcp_messages() if p == "Donne.Hand"]
            assert hands and all(h["you"] == seat for h in hands)
            assert all("hand" not in d for p, d in client.gmcp_messages() if p == "Donne.Table")
        assert not [d for p, d in eve.gmcp_messages() if p == "Donne.Hand"]
        # no card of someone else's hand before it is shown: in each stream, up to the round's end
        # (which shows every hand to everyone, docs/fairness.md), a card is either the reader's own
        # or one played before, as that stream said
        hands_of = {name: {c for p, d in client.gmcp_messages() if p == "Donne.Hand" for c in d["hand"]}
                    for name, client in seats.items()}
        for name, client in [*seats.items(), ("eve", eve)]:
            mine, shown = hands_of.get(name, set()), set()
            for p, d in client.gmcp_messages():
                if p == "Donne.Event" and d["event"] == "round_over":
                    break
                if p == "Donne.Event" and d["event"] in ("played", "cut"):
                    shown |= set(d["cards"])
                leaked = cards_in(d) - mine - shown
                assert not leaked, (name, p, sorted(k for k, v in d.items() if cards_in(v) & leaked))
            assert shown
        # every package the JSON mode has: the events carry the words in the session's language
        kinds = {d["event"] for p, d in zoe.gmcp_messages() if p == "Donne.Event"}
        assert {"joined", "played", "round_over"} <= kinds
        assert all(d.get("text") is not None for p, d in zoe.gmcp_messages() if p == "Donne.Event")
    finally:
        for client in clients:
            await client.close()
        await server.stop()


async def test_gmcp_lobby_chat_and_tells_and_core_supports_honoured(tmp_path):
    server = await start_server(tmp_path)
    clients: list[MudClient] = []
    try:
        zoe = await guest(server.telnet_port, "zoe")
        max_ = await guest(server.telnet_port, "max", lang="fr")
        clients += [zoe, max_]
        zoe.gmcp("Core.Supports.Set", ["Comm.Channel 1", "Donne 1"])
        zoe.gmcp("Core.Supports.Remove", ["Donne"])
        zoe.gmcp("Core.Ping")
        await zoe.until(lambda: any(p == "Core.Ping" for p, _ in zoe.gmcp_messages()))
        max_.line("say bonjour tout le monde")
        await zoe.until(lambda: any(p == "Comm.Channel.Text" for p, _ in zoe.gmcp_messages()))
        said = last(zoe, "Comm.Channel.Text")
        assert said["channel"] == "lobby" and said["talker"] == "max" and "bonjour tout le monde" in said["text"]
        max_.line("tell zoe psst")
        await zoe.until(lambda: any(p == "Comm.Channel.Text" and d["channel"] == "tell" for p, d in zoe.gmcp_messages()))
        assert "psst" in last(zoe, "Comm.Channel.Text")["text"]
        # max said nothing of what it supports: it gets every package, its words in French
        await max_.until(lambda: any(p == "Comm.Channel.Text" for p, _ in max_.gmcp_messages()))
        assert last(max_, "Donne.Event")["text"].startswith("max")
        n = len(zoe.gmcp_messages())
        zoe.line("create president classic 3 bots=2")
        await zoe.expect("bot")
        await asyncio.sleep(0.5)
        later = [p for p, _ in zoe.gmcp_messages()[n:]]
        assert not [p for p in later if p.startswith(("Donne.", "Char."))], later  # not supported
        zoe.gmcp("Core.Supports.Add", ["Donne 1"])
        zoe.line("state")
        await zoe.until(lambda: any(p == "Donne.Table" for p, _ in zoe.gmcp_messages()))
    finally:
        for client in clients:
            await client.close()
        await server.stop()


READER_ON = 2889  # MTTS: ANSI, VT100, UTF-8, 256 colours, screen reader (64), truecolor...
READER_OFF = 2825  # the same without the screen-reader bit


@pytest.mark.parametrize("lang,create,hand,suit", [
    ("fr", "créer président classique 3 bots=2", "Votre main, ", " de cœur"),
    ("es", "crear presidente clásico 3 bots=2", "Tu mano, ", " de corazones"),
])
async def test_mtts_screen_reader_bit_starts_the_reader_mode(tmp_path, lang, create, hand, suit):
    server = await start_server(tmp_path)
    try:
        client = await MudClient.connect(server.telnet_port, do=(),
                                         ttypes=("MUDLET", "XTERM-256COLOR", f"MTTS {READER_ON}"))
        try:
            await login(client, "zoe", lang)
            await client.expect("zoe")
            client.line(create)
            await client.expect(hand, timeout=20)
            await client.expect(".", timeout=5)
            screen = client.screen()
            table = screen[screen.index(hand):]
            assert suit in table
            after = screen[screen.index("zoe"):]
            assert not [sym for sym in "♣♦♥♠▶·" if sym in after], after
            assert "\x1b[" not in screen  # no colour
        finally:
            await client.close()
    finally:
        await server.stop()


@pytest.mark.parametrize("lang,on,off,said_on", [
    ("fr", "lecteur oui", "lecteur non", "Mode lecteur d’écran activé"),
    ("es", "lector sí", "lector no", "Modo lector de pantalla activado"),
    ("en", "reader on", "reader off", "Screen reader mode on"),
])
async def test_the_reader_command_in_three_languages(tmp_path, lang, on, off, said_on):
    server = await start_server(tmp_path)
    try:
        client = await MudClient.connect(server.telnet_port, do=(),
                                         ttypes=("MUDLET", "XTERM-256COLOR", f"MTTS {READER_OFF}"))
        try:
            await login(client, "zoe", lang)
            await client.expect("zoe")
            client.line(on)
            await client.expect(said_on)
            session = next(iter(s for s in server.sessions if s.name == "zoe"))
            assert session.style.reader and not session.style.color
            client.line(off)
            await client.until(lambda: client.screen().count(said_on.split()[0]) >= 2)
            assert not session.reader and not session.style.reader
        finally:
            await client.close()
    finally:
        await server.stop()


def test_the_load_tools_mccp_filter_inflates_across_any_split():
    """``donne load --mccp``: the bots' filter finds the start of MCCP2 wherever the chunks split."""
    from clients.framing import MCCP2_START, MccpFilter

    compressor = zlib.compressobj()
    body = compressor.compress(b'{"type":"ok"}\r\n\xff\xfb\x01') + compressor.flush(zlib.Z_SYNC_FLUSH)
    stream = b"\xff\xfd\x18hello " + MCCP2_START + body
    for cut in range(1, len(stream)):
        f = MccpFilter()
        assert f.feed(stream[:cut]) + f.feed(stream[cut:]) == b'hello {"type":"ok"}\r\n'


async def test_json_mode_over_mccp2_with_the_load_tools_client(tmp_path):
    from clients.client import Client

    server = await start_server(tmp_path)
    try:
        client = await Client.connect_tcp("127.0.0.1", server.telnet_port, pushed=True, mccp=True)
        try:
            await client.login("zoe")
            reply = await client.request("whoami")
            assert reply["name"] == "zoe"
            session = next(s for s in server.sessions if s.name == "zoe")
            assert session.conn.writer.mccp2_active and session.mode == "json"
            assert session.conn.writer.protocol.plain_in is session.conn  # JSON's fast input path kept
        finally:
            await client.close()
    finally:
        await server.stop()


@pytest.mark.parametrize("lang,create,play,pass_,over", [
    ("fr", "créer président classique 3 bots=2", "jouer", "passe", "La partie est terminée"),
    ("es", "crear presidente clásico 3 bots=2", "jugar", "paso", "La partida ha terminado"),
])
async def test_a_screen_reader_user_plays_a_whole_classic_match(tmp_path, lang, create, play, pass_, over):
    """MTTS says a screen reader: a whole classic match (five rounds, P1-P15) played by typing, in
    French and Spanish; what the person hears has no symbol, no colour, no cursor movement."""
    server = await start_server(tmp_path, turn_seconds=60.0)
    try:
        client = await MudClient.connect(server.telnet_port, do=(GMCP,),
                                         ttypes=("MUDLET", "XTERM-256COLOR", f"MTTS {READER_ON}"))
        try:
            await login(client, "zoe", lang)
            await client.expect("zoe")
            client.line(create)
            acted = -1

            def finished() -> bool:
                return any(p == "Donne.Event" and d["event"] == "match_over" for p, d in client.gmcp_messages())

            async def drive() -> None:
                nonlocal acted
                while not finished():
                    tables = [(i, d) for i, (p, d) in enumerate(client.gmcp_messages()) if p == "Donne.Table"]
                    if tables:
                        i, table = tables[-1]
                        if i > acted and table.get("decision") and table.get("turn") == table.get("you"):
                            acted = i
                            plays = (table.get("legal") or {}).get("plays") or []
                            if plays:
                                rank, count = plays[0]
                                client.line(f"{play} " + " ".join([rank.replace("T", "10")] * count))
                            else:
                                client.line(pass_)
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(drive(), 200)
            await client.expect(over, timeout=10)
            screen = client.screen()
            heard = screen[screen.index("zoe"):]
            assert not [sym for sym in "♣♦♥♠▶·" if sym in heard]
            assert "\x1b" not in heard and "\r\x1b" not in heard
            assert not re.search(r"\(\d+ ?s\)", heard)  # no "(30 s)": the time left in words
        finally:
            await client.close()
    finally:
        await server.stop()


async def test_gmcp_lobby_follows_the_room_list(tmp_path):
    """A GMCP reader in the lobby is sent ``Donne.Lobby`` again when a room opens (as news, at most
    once a second), with the new room in it."""
    server = await start_server(tmp_path)
    clients: list[MudClient] = []
    try:
        zoe = await guest(server.telnet_port, "zoe")
        max_ = await guest(server.telnet_port, "max", lang="fr")
        clients += [zoe, max_]
        await zoe.until(lambda: any(p == "Donne.Lobby" for p, _ in zoe.gmcp_messages()))
        assert last(zoe, "Donne.Lobby")["rooms"] == []
        max_.line("créer président classique 3 bots=2")
        await zoe.until(lambda: any(p == "Donne.Lobby" and d["rooms"] for p, d in zoe.gmcp_messages()), timeout=10)
        rooms = last(zoe, "Donne.Lobby")["rooms"]
        assert len(rooms) == 1 and rooms[0]["game"] == "president"
    finally:
        for client in clients:
            await client.close()
        await server.stop()


async def test_every_gmcp_reader_in_the_lobby_gets_the_room_news(tmp_path):
    """Lobby news is worded once per kind of reader; each GMCP reader still gets its ``Donne.Event``
    (not only the first of its kind)."""
    server = await start_server(tmp_path)
    clients: list[MudClient] = []
    try:
        zoe = await guest(server.telnet_port, "zoe")
        ann = await guest(server.telnet_port, "ann")
        max_ = await guest(server.telnet_port, "max", lang="fr")
        clients += [zoe, ann, max_]
        max_.line("créer président classique 3 bots=2")
        for reader in (zoe, ann):
            await reader.until(lambda r=reader: any(p == "Donne.Event" and d.get("event") == "room_created"
                                                    for p, d in r.gmcp_messages()), timeout=10)
    finally:
        for client in clients:
            await client.close()
        await server.stop()
