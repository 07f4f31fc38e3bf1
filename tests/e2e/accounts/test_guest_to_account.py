"""A guest logs in to an account, or registers, from anywhere: the seat goes on where no chip is in play.

``login`` from a guest's session proves the account (its password) and the guest becomes it: at a
table without stakes the seat, its hand and its points go on under the account's name; at a table
where the guest's chips are in play it is refused (``not_allowed``, ``at_stake``) and nothing
changes. ``register`` at a table works the same way (docs/accounts.md).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clients.client import Client
from clients.errors import ClientError
from tests.kits.servers import connect

CLASSIC = {"game": "president", "rules": "classic", "seats": 3, "bots": 2}
STAKED = {"game": "president", "rules": "tdc", "seats": 3, "bots": 2, "stake": 4}
PASSWORD = "marc-password-1"


async def _seated(client: Client, room: str) -> dict[str, Any]:
    return await client.next_state(lambda s: s.get("room") == room and s.get("hand"), timeout=10, current=True)


async def test_a_seated_guest_logs_in_to_an_account_and_keeps_the_seat(server: Any) -> None:
    await server.store.accounts.register("marc", PASSWORD)
    zoe = await connect(server, "zoe", resume="")
    try:
        room = (await zoe.request("create", **CLASSIC))["room"]
        hand = (await _seated(zoe, room))["hand"]
        seen: list[dict[str, Any]] = []
        zoe.on_push = seen.append
        with pytest.raises(ClientError) as wrong:
            await zoe.request("login", name="marc", password="not-it")
        assert wrong.value.code == "bad_password"
        assert (await zoe.request("whoami"))["name"] == "zoe"  # nothing changed
        reply = await zoe.request("login", name="marc", password=PASSWORD)
        assert (reply["name"], reply["guest"], reply["room"], reply["seat"]) == ("marc", False, room, 0)
        assert "resume" not in reply
        state = await zoe.next_state(lambda s: s["seats"][0]["name"] == "marc", timeout=10, current=True)
        assert set(state["hand"]) <= set(hand) | set(state.get("played") or [])
        who = await zoe.request("whoami")
        assert (who["name"], who["guest"], who["room"], who["seat"]) == ("marc", False, room, 0)
        assert "resume" not in who
        assert server.lobby.seats.holder("marc") == room and server.lobby.seats.holder("zoe") is None
        assert await server.store.accounts.get("zoe") is None  # the guest was retired as at a log-out
        assert not [m for m in seen if m.get("code") == "resume_code"]  # an account needs no code
    finally:
        await zoe.close()


async def test_where_guest_chips_are_in_play_the_login_is_refused_and_nothing_changes(server: Any) -> None:
    await server.store.accounts.register("marc", PASSWORD)
    zoe = await connect(server, "zoe", resume="")
    try:
        room = (await zoe.request("create", **STAKED))["room"]
        await _seated(zoe, room)
        for request in (zoe.request("login", name="marc", password=PASSWORD),
                        zoe.request("register", name="zoe2", password=PASSWORD)):
            with pytest.raises(ClientError) as refused:
                await request
            assert refused.value.code == "not_allowed" and "chips" in refused.value.message
        who = await zoe.request("whoami")
        assert (who["name"], who["guest"], who["room"]) == ("zoe", True, room)
        assert not await server.store.accounts.exists("zoe2")
    finally:
        await zoe.close()


async def test_a_seated_guest_registers_and_keeps_the_seat_others_read_the_new_name(server: Any) -> None:
    zoe = await connect(server, "zoe", resume="")
    ana = await connect(server, "ana", resume="")
    try:
        room = (await zoe.request("create", **{**CLASSIC, "bots": 1}))["room"]
        await ana.request("join", room=room)
        await _seated(zoe, room)
        renamed = asyncio.ensure_future(ana.next_event("renamed", timeout=10))
        reply = await zoe.request("register", name="zora", password=PASSWORD)
        assert (reply["name"], reply["guest"]) == ("zora", False)
        event = await renamed
        assert (event["name"], event["to"], event["seat"]) == ("zoe", "zora", 0) and "zora" in event["text"]
        state = await ana.next_state(lambda s: s["seats"][0]["name"] == "zora", timeout=10, current=True)
        assert state["seats"][0]["connected"]
        who = await zoe.request("whoami")
        assert (who["name"], who["guest"], who["room"], who["seat"]) == ("zora", False, room, 0)
        # ana, a guest too, registers her own name at the table
        assert (await ana.request("register", password=PASSWORD))["name"] == "ana"
        assert (await ana.request("whoami"))["room"] == room
        assert server.lobby.seats.holder("zora") == room and server.lobby.seats.holder("zoe") is None
    finally:
        await zoe.close()
        await ana.close()


async def test_a_guest_in_the_lobby_logs_in_to_an_account_away_from_its_seat(server: Any) -> None:
    await server.store.accounts.register("marc", PASSWORD)
    marc = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
    await marc.login("marc", PASSWORD)
    room = (await marc.request("create", **CLASSIC))["room"]
    hand = (await _seated(marc, room))["hand"]
    await marc.close()
    zoe = await connect(server, "zoe", resume="")
    try:
        await zoe.request("login", name="marc", password=PASSWORD)
        back = await _seated(zoe, room)
        assert back["you"] == 0 and set(back["hand"]) <= set(hand) | set(back.get("played") or [])
        assert await server.store.accounts.get("zoe") is None
    finally:
        await zoe.close()


# -- as a person meets it, over the real telnet client -------------------------------------------------


def _telnet(port: int, menu: str, name: str, screen: Any) -> Any:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn("telnet", ["127.0.0.1", str(port)], env={"TERM": "xterm", "PATH": "/usr/bin:/bin"},
                          encoding="utf-8", codec_errors="replace", dimensions=(40, 80), timeout=30)
    child.logfile_read = screen
    child.expect("Idioma")
    child.sendline(menu)
    child.expect("Nom")
    child.sendline(name)
    return child


def _french_guest_logs_in_at_the_table(port: int, screen: Any) -> None:
    child = _telnet(port, "2", "zoe", screen)
    try:
        child.expect("Bonjour zoe")
        child.sendline("créer président classique 3 bots=2")
        child.expect(r"Votre main \(\d+\)")
        child.sendline("connexion")
        child.expect(r"Pour vous connecter à votre compte, tapez connexion NOM")
        child.sendline("connexion marc")
        child.expect(r"Mot de passe\s*: ")
        child.sendline(PASSWORD)
        child.expect(r"Bon retour, marc")
        child.sendline("moi")
        child.expect(r"Vous êtes marc\.")
        child.sendline("")  # the table again: the same seat, under the account's name
        child.expect(r"Votre main \(\d+\)")
    finally:
        child.close(force=True)


def _spanish_guest_registers_at_the_table(port: int, screen: Any) -> None:
    child = _telnet(port, "3", "ana", screen)
    try:
        child.expect("Hola, ana")
        child.sendline("crear presidente clásica 3 bots=2")
        child.expect(r"Tu mano \(\d+\)")
        child.sendline("registrarse")
        child.expect(r"Contraseña: ")
        child.sendline(PASSWORD)
        child.expect(r"Otra vez: ")
        child.sendline(PASSWORD)
        child.expect(r"Cuenta ana creada")
        child.sendline("yo")
        child.expect(r"Eres ana\.")
        child.sendline("")
        child.expect(r"Tu mano \(\d+\)")
    finally:
        child.close(force=True)


@pytest.mark.e2e
@pytest.mark.skipif(__import__("shutil").which("telnet") is None, reason="telnet client not installed: make tools")
async def test_a_person_at_a_table_logs_in_to_an_account_or_registers_in_french_and_spanish(server: Any) -> None:
    from tests.e2e.people.test_human_play import Screen

    await server.store.accounts.register("marc", PASSWORD)
    french, spanish = Screen(), Screen()
    await asyncio.to_thread(_french_guest_logs_in_at_the_table, server.telnet_port, french)
    await asyncio.to_thread(_spanish_guest_registers_at_the_table, server.telnet_port, spanish)
    assert "« nom »" not in french.text and "Vous êtes déjà connecté" not in french.text
    after = french.text.split("Vous êtes marc.")[-1]
    assert __import__("re").search(r"marc\s+\d+ cartes", after), after
    assert "Ya estás en la mesa" not in spanish.text
    assert await server.store.accounts.exists("ana")
