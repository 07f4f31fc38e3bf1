"""A newcomer's whole match in French, on a phone and on a desktop, in a real browser.

Two people each open the play page in French (390×844 and 1280×800), log in as guests, create a
classic Président table with three bots and a match of two rounds from the lobby's form, and play
it to the end by clicking (the second round opens with the exchange of cards, P13). Nothing on the
page is ever wider than the screen, no English word shows, the cards in the hand are drawn as they
are while others play, and the match ends with everyone's place and points. The rank a "that or
nothing" play asks for is printed as the language prints it (P7: a queen is a D in French).
Screenshots go to the folder the tests print (``$DONNE_SCREENS``). Debian's Chromium through
Playwright, as test_web_browser.py.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.web.test_browser import assert_no_english
from tests.kits import browserkit as bk
from tests.kits.webkit import start_web_server

why_not = bk.available()
pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.skipif(why_not is not None, reason=why_not or "")]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def web(tmp_path_factory: pytest.TempPathFactory) -> Any:
    running = await start_web_server(tmp_path_factory.mktemp("web"), bot_delay=0.05, round_pause=0.5,
                                     auction_seconds=2.0, trade_window=1.0)
    try:
        yield running
    finally:
        await asyncio.wait_for(running.stop(), 20)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def browser() -> Any:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        chromium = await bk.launch(pw)
        try:
            yield chromium
        finally:
            await chromium.close()


def base(web: Any) -> str:
    return f"http://127.0.0.1:{web.web_port}"


async def too_wide(page: Any) -> list[str]:
    """What sticks out of the screen's width (a phone would scroll sideways for it)."""
    return list(await page.evaluate(
        """() => { const w = document.documentElement.clientWidth;
             const out = [...document.querySelectorAll('body *')].filter((e) => {
               const r = e.getBoundingClientRect(); return r.width > 0 && r.right > w + 1; })
               .map((e) => e.tagName + '#' + e.id + '.' + e.className);
             if (document.documentElement.scrollWidth > w) out.push('the page');
             return out; }"""))


async def look(page: Any, name: str, seen: list[str]) -> None:
    """A moment a person looks at: a screenshot, and nothing wider than the screen."""
    assert not await too_wide(page), (name, await too_wide(page))
    await page.screenshot(path=str(bk.screens_dir() / name), full_page=True)
    seen.append(name)


async def whole_match(web: Any, browser: Any, size: dict[str, int], prefix: str, name: str) -> list[str]:
    page = await bk.new_page(browser, base(web), size=size, lang="fr-FR")
    shots: list[str] = []
    await look(page, f"{prefix}-match-1-login.png", shots)
    await bk.log_in(page, name)
    assert await page.text_content("#create-rounds-label") == "Manches"
    await page.fill("#create-rounds", "2")
    await look(page, f"{prefix}-match-2-lobby.png", shots)
    await bk.create_table(page, "classic")
    moments = {"waiting": False, "turn": False}
    until = time.monotonic() + 150
    while time.monotonic() < until:
        if await page.locator("#actions [data-action=lobby_back]").count():
            break
        if not moments["waiting"]:  # another's turn: the hand drawn as it is, not greyed as unplayable
            colour = await page.evaluate("""() => { const b = document.querySelector('#hand.waiting button.card');
                                                   return b && getComputedStyle(b).backgroundColor; }""")
            if colour is not None:
                assert colour == "rgb(255, 255, 255)", colour
                moments["waiting"] = True
        if not moments["turn"] and await page.locator("#actions [data-action=play]").count():
            await look(page, f"{prefix}-match-3-my-turn.png", shots)
            moments["turn"] = True
        if await bk.play_one_move(page) is None:
            await page.wait_for_timeout(100)
    else:
        pytest.fail("the match did not end")
    assert moments["turn"] and moments["waiting"]
    assert "manche 2" in (await page.text_content("#table-title") or "")
    # the end: everyone's place and points, in French, the person's own row marked
    assert await page.text_content("#center .standings-title") == "Classement final"
    rows = page.locator("#center .standings li")
    assert await rows.count() == 4 and await page.locator("#center .standings li.mine").count() == 1
    points = [int(await rows.nth(i).locator(".worth").get_attribute("data-n") or "") for i in range(4)]
    assert re.search(rf"\s{points[0]}\spts?$", await rows.first.inner_text())
    assert points == sorted(points, reverse=True)
    places = [int(await rows.nth(i).get_attribute("value") or "") for i in range(4)]
    assert places == [1 + sum(p > n for p in points) for n in points]  # equal points, the same place
    assert "La partie est terminée" in (await page.inner_text("#log"))
    assert_no_english(await page.inner_text("body"), "fr")
    await look(page, f"{prefix}-match-4-over.png", shots)
    assert not page.donne_errors
    await page.context.close()
    return shots


@pytest.mark.timeout(240)
async def test_a_newcomer_plays_a_whole_match_in_french_on_a_phone_and_on_a_desktop(web, browser):
    phone, desktop = await asyncio.gather(whole_match(web, browser, bk.PHONE, "phone", "Léa"),
                                          whole_match(web, browser, bk.DESKTOP, "desktop", "Zoé"))
    print("\nscreenshots:", bk.screens_dir(), *phone, *desktop)


@pytest.mark.timeout(90)
async def test_that_or_nothing_names_the_rank_as_the_language_prints_it_P7(web, browser):
    """The state's ``must`` is a rank code (``Q``); the page prints the language's letter (French D)."""
    context = await browser.new_context(viewport=bk.PHONE, locale="fr-FR",
                                        extra_http_headers={"Accept-Language": "fr-FR"})

    def doctor(ws: Any) -> None:  # every state the server sends asks for queens
        server = ws.connect_to_server()
        ws.on_message(server.send)

        def down(message: Any) -> None:
            msg = json.loads(message)
            if msg.get("type") == "state" and msg.get("room"):
                msg["must"] = "Q"
            ws.send(json.dumps(msg))

        server.on_message(down)

    await context.route_web_socket("**/ws", doctor)
    page = await context.new_page()
    page.set_default_timeout(bk.WAIT_MS)
    await page.goto(base(web) + "/")
    await bk.log_in(page, "Dora")
    await bk.create_table(page, "classic")
    await page.wait_for_selector("#center .must")
    assert await page.text_content("#center .must") == "Ça ou rien\u00a0: D"
    await context.close()


@pytest.mark.timeout(120)
async def test_the_public_pages_fit_a_phone(web, browser):
    """Who, the open tables (names of four players a row), the boards, a profile, a replay and a deal
    check: nothing wider than 390 pixels, in French."""
    from tests.kits.servers import play_simply
    from tests.kits.webkit import connect_ws

    await web.store.accounts.register("Maximilienne", "correct-horse-8")
    client = await connect_ws(web)
    await client.login("Maximilienne", "correct-horse-8")
    await client.request("create", game="president", rules="classic", seats=4, bots=3, rounds=1)
    await play_simply(client, timeout=20)
    await client.request("leave")
    await client.request("create", game="president", rules="classic", seats=4, bots=3)  # an open table
    page = await bk.new_page(browser, base(web), size=bk.PHONE, lang="fr-FR", path="/player/Maximilienne")
    replay = await page.get_attribute("a[href^='/replay/']", "href")
    shots: list[str] = []
    for path in ("/who", "/tables", "/leaderboard", "/player/Maximilienne", replay, f"/verify/{replay[8:]}"):
        await page.goto(base(web) + path)
        if path == replay:
            await page.wait_for_selector("#steps li")
        name = "phone-public-" + path.strip("/").split("/")[0] + ".png"
        await look(page, name, shots)
        words = await page.evaluate("""() => { const body = document.body.cloneNode(true);
                                          const record = body.querySelector('#record');  // data, not words
                                          if (record) record.remove();
                                          return body.textContent; }""")
        assert_no_english(words, "fr")
    assert not page.donne_errors
    await client.close()
    await page.context.close()


@pytest.mark.timeout(150)
async def test_a_speculation_match_ends_with_what_each_seat_won_or_lost_S11(web, browser):
    """One deal with two bots, by clicking (keep, turn); the standings say each seat's gain over the
    match, from its end's event, and the gains add up to nothing: chips are never created or lost."""
    page = await bk.new_page(browser, base(web), size=bk.PHONE, lang="fr-FR")
    await bk.log_in(page, "Sam")
    await page.select_option("#create-kind", "speculation")
    assert await page.text_content("#create-rounds-label") == "Donnes"
    await page.fill("#create-rounds", "1")
    await bk.create_table(page, "speculation", seats=3, bots=2)
    until = time.monotonic() + 100
    while not await page.locator("#actions [data-action=lobby_back]").count():
        assert time.monotonic() < until, "the deal did not end"
        for action in ("keep", "turn"):
            button = page.locator(f"#actions [data-action={action}]")
            if await button.count() and await button.first.is_enabled():
                await button.first.click()
        await page.wait_for_timeout(100)
    rows = page.locator("#center .standings li")
    await page.wait_for_selector("#center .standings li .worth")
    assert await rows.count() == 3
    gains = [int(await rows.nth(i).locator(".worth").get_attribute("data-n") or "") for i in range(3)]
    assert sum(gains) == 0 and gains == sorted(gains, reverse=True) and gains[0] > 0
    assert re.search(rf"\+{gains[0]}\sjetons?$", await rows.first.inner_text())
    assert re.search(r"\s(−\d+\sjetons?|0\sjeton)$", await rows.nth(2).inner_text())  # a loss, signed
    shots: list[str] = []
    await look(page, "phone-speculation-match-over.png", shots)
    assert_no_english(await page.inner_text("body"), "fr")
    assert not page.donne_errors
    await page.context.close()
