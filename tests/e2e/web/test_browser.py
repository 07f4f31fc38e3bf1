"""The pages in a real browser: Debian's headless Chromium, driven by Playwright (one browser here).

A person logs in as a guest, opens a classic table with bots and plays a whole round by clicking
while a second person watches from a phone-sized window and never receives a hand; the terminal
page plays a move; the public pages render and link. Screenshots at 390×844 and 1280×800 are kept
in the folder the tests print (``$DONNE_SCREENS``, else ``$TMPDIR/donne-screens``).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import pytest
import pytest_asyncio

from server.web.labels import page_labels
from tests.kits import browserkit as bk
from tests.kits.servers import assert_no_hand, play_simply
from tests.kits.webkit import connect_ws, start_web_server
from tests.server.presenters.text.test_no_english import ALLOWED, ENGLISH, WORD

why_not = bk.available()
pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.skipif(why_not is not None, reason=why_not or "")]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def web(tmp_path_factory: pytest.TempPathFactory) -> Any:
    running = await start_web_server(tmp_path_factory.mktemp("web"), bot_delay=0.05)
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


@pytest.fixture(scope="module")
def screens() -> Any:
    folder = bk.screens_dir()
    print(f"\nscreenshots: {folder}")
    return folder


def base(web: Any) -> str:
    return f"http://127.0.0.1:{web.web_port}"


def assert_no_english(text: str, lang: str) -> None:
    """No English word of the page's own labels in a French or Spanish page (names aside)."""
    words = {w.lower() for w in WORD.findall(text)} - {"zoé", "ana", "donne"}
    assert not (words & ENGLISH) - ALLOWED[lang], words & ENGLISH


def record_frames(page: Any) -> list[dict[str, Any]]:
    """Every JSON frame the page receives over /ws."""
    seen: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        def received(payload: Any) -> None:
            if isinstance(payload, str):
                seen.append(json.loads(payload))

        ws.on("framereceived", received)

    page.on("websocket", on_socket)
    return seen


@pytest.mark.timeout(180)
async def test_a_guest_plays_a_whole_round_by_clicking_while_a_phone_watches(web, browser, screens):
    player = await bk.new_page(browser, base(web), size=bk.DESKTOP, lang="fr-FR")
    frames = record_frames(player)
    await player.reload()  # (the frames of the page's own socket, from its first)
    await player.screenshot(path=str(screens / "desktop-login.png"))
    assert await player.text_content("#login-button") == "Entrer"  # the browser's language: French
    assert await player.text_content("#login-button") == page_labels("fr")["login"]  # from the catalog
    await bk.log_in(player, "Zoé")
    await player.screenshot(path=str(screens / "desktop-lobby.png"))
    assert_no_english(await player.inner_text("body"), "fr")
    await bk.create_table(player, "classic")
    room = (await player.text_content("#table-title") or "").split(" · ")[0]
    assert room.startswith("r")

    watcher = await bk.new_page(browser, base(web), size=bk.PHONE, lang="es-ES", path=f"/?watch={room}")
    watched = record_frames(watcher)
    await watcher.reload()
    await bk.log_in(watcher, "Mira")
    await watcher.wait_for_selector("#table:not([hidden]) #seats li")
    assert_no_english(await watcher.inner_text("body"), "es")

    moves, shot = 0, False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        title = await player.text_content("#table-title") or ""
        if "manche 2" in title or "finie" in (await player.text_content("#prompt") or ""):
            break
        done = await bk.play_one_move(player)
        if done:
            moves += 1
            if moves == 2 and not shot:
                await player.screenshot(path=str(screens / "desktop-table.png"), full_page=True)
                await watcher.screenshot(path=str(screens / "phone-watching.png"), full_page=True)
                shot = True
        else:
            await player.wait_for_timeout(100)
    else:
        pytest.fail("the round did not end in time")
    assert moves >= 3
    log = await player.text_content("#log") or ""
    assert "Fin de la manche 1" in log  # the round's end, in the person's language
    await player.screenshot(path=str(screens / "desktop-round-over.png"), full_page=True)
    await watcher.screenshot(path=str(screens / "phone-round-over.png"), full_page=True)

    # the person saw their own hand and no one else's; the watcher saw none at all
    states = [m for m in frames if m.get("type") == "state"]
    assert states and all(s["you"] == 0 for s in states)
    dealt = [m for m in frames if m.get("event") == "dealt"]
    assert dealt and all(all(h is None for h in d["hands"][1:]) and d["hands"][0] for d in dealt)
    assert_no_hand([m for m in watched if m.get("type") in ("state", "event") and m.get("event") != "hello"])
    assert await watcher.locator("#hand button.card").count() == 0
    assert await watcher.text_content("#hand") == "Los espectadores no ven ninguna mano."
    assert not player.donne_errors and not watcher.donne_errors
    await player.context.close()
    await watcher.context.close()


@pytest.mark.timeout(120)
async def test_cards_that_cannot_be_played_cannot_be_chosen_and_keys_play(web, browser, screens):
    page = await bk.new_page(browser, base(web), size=bk.PHONE, lang="en-GB")
    await bk.log_in(page, "Kiki")
    await bk.create_table(page, "classic")
    session = next(s for s in web.sessions if s.name == "Kiki")
    end = time.monotonic() + 30
    while True:  # our turn with a card to play (the table waits for us then); pass when we cannot
        assert time.monotonic() < end, "no turn with a card to play"
        await page.wait_for_selector("#actions [data-action=play], #actions [data-action=pass]", timeout=20_000)
        state = session.last_state
        if state is not None and state.get("decision") in ("lead", "follow") and state["legal"]["plays"]:
            await page.wait_for_selector("#hand button.card:not([disabled])")
            break
        await page.click("#actions [data-action=pass]")
        await page.wait_for_timeout(200)
    legal = {rank for rank, _count in state["legal"]["plays"]}
    buttons = page.locator("#hand button.card")
    for i in range(await buttons.count()):
        card = buttons.nth(i)
        code = await card.get_attribute("data-card") or ""
        assert await card.is_disabled() == (code[0] not in legal), code
        assert (await card.get_attribute("aria-label") or "").split()[-1] in ("clubs", "diamonds", "hearts", "spades")
    await page.screenshot(path=str(screens / "phone-table.png"), full_page=True)
    # keyboard: focus a playable card, Space chooses it, then P plays (or X passes)
    first = page.locator("#hand button.card:not([disabled])").first
    await first.focus()
    await page.keyboard.press("Space")
    before = len(state["hand"])
    play = page.locator("#actions [data-action=play]")
    if await play.is_enabled():
        await page.keyboard.press("p")
        await page.wait_for_function("(n) => document.querySelectorAll('#hand button.card').length < n", arg=before)
    assert not page.donne_errors
    await page.context.close()


@pytest.mark.timeout(120)
async def test_the_terminal_page_plays_a_move(web, browser, screens):
    page = await bk.new_page(browser, base(web), size=bk.DESKTOP, lang="en-US", path="/term")
    await page.wait_for_function("() => window.donneTerm && window.donneTerm.ws.readyState === 1")

    async def screen_text() -> str:
        return str(await page.evaluate(
            "(() => { const b = window.donneTerm.term.buffer.active; const out = [];"
            " for (let i = 0; i < b.length; i++) { const l = b.getLine(i); if (l) out.push(l.translateToString(true)); }"
            " return out.join('\\n'); })()"))

    async def until_text(needle: str) -> str:
        end = time.monotonic() + 15
        while time.monotonic() < end:
            text = await screen_text()
            if needle in text:
                return text
            await page.wait_for_timeout(100)
        raise AssertionError(f"{needle!r} never showed; screen:\n{await screen_text()}")

    await page.click("#terminal")
    await until_text("Language / Langue / Idioma")
    await page.keyboard.type("1\r")
    await until_text("Name")
    await page.keyboard.type("Termi\r")
    await until_text("Termi")
    await page.keyboard.type("create president classic 4 bots=3\r")
    session = None
    end = time.monotonic() + 20
    while time.monotonic() < end:
        session = next((s for s in web.sessions if s.name == "Termi"), None)
        state = session.last_state if session is not None else None
        if state and state.get("decision") in ("lead", "follow"):
            if state["legal"]["plays"]:
                break
            await page.keyboard.type("pass\r")  # nothing beats it: wait for a turn with a play
            await page.wait_for_timeout(300)
        await page.wait_for_timeout(100)
    assert session is not None and state is not None
    assert session.width > 80  # the page's size, passed on as NAWS would
    rank, count = state["legal"]["plays"][0]
    cards = [c for c in state["hand"] if c[0] == rank][:count]
    await page.keyboard.type("play " + " ".join(cards) + "\r")
    await until_text("You play")
    await page.screenshot(path=str(screens / "desktop-terminal.png"))
    assert not page.donne_errors
    await page.context.close()


@pytest.mark.timeout(120)
async def test_the_public_pages_render_and_link(web, browser, screens):
    await web.store.accounts.register("alba", "correct-horse-5")
    client = await connect_ws(web)
    await client.login("alba", "correct-horse-5")
    await client.request("create", game="president", rules="classic", seats=4, bots=3)
    await play_simply(client, timeout=20)
    await client.close()
    page = await bk.new_page(browser, base(web), size=bk.DESKTOP, lang="fr-FR", path="/leaderboard")
    assert await page.text_content("h1") == "Classements"
    await page.click("a[href='/player/alba']")
    await page.wait_for_selector("h1:text('alba')")
    await page.click("a[href^='/replay/']")
    await page.wait_for_selector("#steps li")
    where = await page.text_content("#where")
    await page.click("#next")
    assert await page.text_content("#where") != where
    await page.keyboard.press("ArrowRight")
    await page.screenshot(path=str(screens / "desktop-replay.png"), full_page=True)
    await page.click("a[href^='/verify/']")
    await page.wait_for_selector(".verdict.good")
    # the browser checks the record itself (crypto.subtle), each step beside the server's
    await page.wait_for_selector("#browser-verdict.good")
    for code in ("commitment", "bots", "deal_seed", "hands"):
        assert await page.text_content(f"[data-step={code}] .mine") == "✔", code
    await page.screenshot(path=str(screens / "desktop-verify.png"), full_page=True)
    verify_url = page.url

    async def tampered(route: Any) -> None:  # one card of the published hands swapped for another
        response = await route.fetch()
        body = await response.text()
        body = re.sub(r'(&quot;hands&quot;: \[\s*\[\s*&quot;)(\w\w)', lambda m: m.group(1) + ("3c" if m.group(2) != "3c" else "3d"), body, count=1)
        await route.fulfill(response=response, body=body)

    await page.route(verify_url, tampered)
    await page.goto(verify_url)
    await page.wait_for_selector("#browser-verdict.bad")
    assert await page.text_content("[data-step=hands] .mine") == "✘"
    assert await page.text_content("[data-step=commitment] .mine") == "✔"
    await page.unroute(verify_url)
    phone = await bk.new_page(browser, base(web), size=bk.PHONE, lang="es-ES", path="/who")
    assert await phone.text_content("h1") == "Quién está conectado"
    await phone.click("a[href='/tables']")
    await phone.wait_for_selector("h1:text('Mesas abiertas')")
    await phone.screenshot(path=str(screens / "phone-tables.png"), full_page=True)
    assert not page.donne_errors and not phone.donne_errors
    await page.context.close()
    await phone.context.close()


@pytest.mark.timeout(120)
async def test_tells_challenges_and_a_new_account_from_the_page(web, browser, screens):
    bob = await bk.new_page(browser, base(web), size=bk.PHONE, lang="es-ES")
    await bob.fill("#login-name", "Bruno")
    await bob.fill("#login-password", "correct-horse-9")
    await bob.click("#register-button")  # a new account, over loopback (TLS elsewhere)
    await bob.wait_for_selector("#login", state="hidden")
    assert await web.store.accounts.get("Bruno") is not None
    assert "(" not in (await bob.text_content("#me") or "")  # not a guest
    ana = await bk.new_page(browser, base(web), size=bk.DESKTOP, lang="fr-FR")
    await bk.log_in(ana, "Ana")
    await ana.click("#who li[data-name='Bruno'] [data-action='tell']")
    await ana.fill("#tell-text", "hola Bruno")
    await ana.click("#tell-button")
    await bob.wait_for_selector("#log li.chat:has-text('hola Bruno')")
    await bob.fill("#tell-text", "salut Ana")
    await bob.click("#reply-button")
    await ana.wait_for_selector("#log li.chat:has-text('salut Ana')")
    assert await ana.locator("#log li:has-text('salut Ana')").count() == 1  # logged once

    await ana.click("#who li[data-name='Bruno'] [data-action='challenge']")
    await ana.wait_for_selector("#seeks li[data-seek]")
    await bob.click("#seeks li.challenge [data-action='decline']")
    await ana.wait_for_selector("#seeks li[data-seek]", state="detached")  # declined: gone
    await ana.click("#who li[data-name='Bruno'] [data-action='challenge']")
    await bob.screenshot(path=str(screens / "phone-challenged.png"), full_page=True)
    assert_no_english(await bob.inner_text("body"), "es")
    await bob.click("#seeks li.challenge [data-action='accept']")
    await bob.wait_for_selector("#table:not([hidden]) #hand button")
    await ana.wait_for_selector("#table:not([hidden]) #hand button")
    await ana.screenshot(path=str(screens / "desktop-challenge-table.png"))
    assert not ana.donne_errors and not bob.donne_errors
    await ana.context.close()
    await bob.context.close()
