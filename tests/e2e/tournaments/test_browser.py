"""The play page's tournaments panel in a real browser (headless Chromium, Playwright): two people,
in French and in Spanish, see an event in the lobby, enter it and withdraw with its buttons, and
read its standings, their own line marked; every word from the catalogs, none English."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from clients.client import Client
from tests.kits import browserkit as bk
from tests.kits.webkit import start_web_server
from tests.server.presenters.text.test_no_english import ALLOWED, ENGLISH, WORD

pytest.importorskip("server.lobby.tournaments", reason="the tournaments' hall is not in this tree yet")
why_not = bk.available()
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(why_not is not None, reason=why_not or "")]


def assert_no_english(text: str, lang: str) -> None:
    words = {w.lower() for w in WORD.findall(text)} - {"donne", "ada", "bruno", "zoé"}
    assert not (words & ENGLISH) - ALLOWED[lang], words & ENGLISH


async def _account(page: Any, name: str) -> None:
    await page.fill("#login-name", name)
    await page.fill("#login-password", "correct-horse-9")
    await page.click("#register-button")  # over loopback, a password may travel
    await page.wait_for_selector("#lobby:not([hidden])")


async def test_the_lobby_lists_an_event_people_enter_it_and_read_its_standings(tmp_path: Any) -> None:
    from playwright.async_api import async_playwright

    running = await start_web_server(tmp_path, tournament_create="accounts")
    organiser = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=10)
    try:
        await organiser.register("ada", "secret-pw-1")
        tid = (await organiser.request("tournament_create", kind="swiss", game="president", rules="classic", seats=3,
                                       start=600, event_rounds=3))["tournament"]
        async with async_playwright() as pw:
            chromium = await bk.launch(pw)
            try:
                base = f"http://127.0.0.1:{running.web_port}"
                zoe = await bk.new_page(chromium, base, size=bk.DESKTOP, lang="fr-FR")
                bruno = await bk.new_page(chromium, base, size=bk.PHONE, lang="es-ES")
                await _account(zoe, "Zoé")
                await _account(bruno, "Bruno")
                row = f"#tournaments li[data-tournament='{tid}']"
                await zoe.wait_for_selector(row)
                said = await zoe.inner_text(row)
                assert re.search(rf"{tid} · suisse · Président · 3 places · commence dans (9|10) minutes · 0 inscrit",
                                 said), said
                await zoe.click(f"{row} [data-action='tournament_join']")
                await zoe.wait_for_selector(f"{row}:has-text('vous y êtes inscrit') [data-action='tournament_leave']")
                await bruno.wait_for_selector(row)
                await bruno.click(f"{row} [data-action='tournament_join']")
                await bruno.wait_for_selector(f"{row}:has-text('estás inscrito')")
                await bruno.click(f"{row} [data-action='tournament_standings']")
                await bruno.wait_for_selector("#tournament-standings:not([hidden]) tr.mine")
                table = await bruno.inner_text("#tournament-standings")
                assert f"Clasificación del torneo {tid}" in table and "Riv." in table
                assert await bruno.get_attribute("#tournament-standings th[title]", "title") == "Puntos de los rivales"
                box = await bruno.eval_on_selector("#tournament-standings", "e => e.getBoundingClientRect().right")
                assert box <= bk.PHONE["width"]  # the table scrolls inside the phone's width
                assert "Bruno" in await bruno.inner_text("#tournament-standings tr.mine")
                await bruno.screenshot(path=str(bk.screens_dir() / "phone-tournament-standings.png"), full_page=True)
                assert_no_english(await bruno.inner_text("#lobby"), "es")
                assert_no_english(await zoe.inner_text("#lobby"), "fr")
                await zoe.click(f"{row} [data-action='tournament_leave']")
                await zoe.wait_for_selector(f"{row} [data-action='tournament_join']")
                listed = (await organiser.request("tournaments"))["tournaments"]
                assert [t["entrants"] for t in listed if t["id"] == tid] == [1]
                await zoe.screenshot(path=str(bk.screens_dir() / "desktop-tournaments.png"), full_page=True)
                assert not zoe.donne_errors and not bruno.donne_errors
            finally:
                await chromium.close()
    finally:
        await organiser.close()
        await asyncio.wait_for(running.stop(), 20)
