"""The play page draws people's windows and their clocks, and the time bank's ``extend`` is a button.

A tdc table with a cut window (T9): after a single or a pair the page shows the window with its
seconds counting down; on the person's turn the *More time* button takes from the time bank and
the clock and the bank show it. Debian's Chromium through Playwright, as test_web_browser.py.
"""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from tests.kits import browserkit as bk
from tests.kits.webkit import start_web_server

why_not = bk.available()
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(why_not is not None, reason=why_not or "")]


@pytest.mark.timeout(150)
async def test_the_cut_window_is_drawn_with_its_clock_and_more_time_is_a_button(tmp_path):
    from playwright.async_api import async_playwright

    running = await start_web_server(tmp_path, bot_delay=0.05, cut_window=2.0, turn_seconds=30.0)
    try:
        async with async_playwright() as pw:
            browser = await bk.launch(pw)
            try:
                page = await bk.new_page(browser, f"http://127.0.0.1:{running.web_port}", size=bk.PHONE,
                                         lang="fr-FR")
                await bk.log_in(page, "Zoé")
                await bk.create_table(page, "tdc")
                extended = window = False
                until = time.monotonic() + 90
                while not (extended and window) and time.monotonic() < until:
                    node = page.locator("#window")
                    if not window and await node.count():
                        text = await node.first.text_content() or ""
                        assert re.search(r"temps pour couper \d+\u00a0s", text), text  # T9, French
                        await page.screenshot(path=str(bk.screens_dir() / "phone-cut-window.png"))
                        window = True
                    more = page.locator("#actions [data-action=extend]")
                    if not extended and await page.locator("#actions [data-action=play]").count() \
                            and await more.count():
                        before = await more.text_content() or ""
                        assert "60\u00a0s" in before  # the whole bank: 60 s for the match
                        await more.click()
                        await page.wait_for_selector("#actions [data-action=extend]:has-text('45\u00a0s')")
                        extended = True
                        continue
                    if await bk.play_one_move(page) is None:
                        await asyncio.sleep(0.05)
                assert window and extended
                assert "Zoé" in (await page.inner_text("#log"))
                assert not page.donne_errors
            finally:
                await browser.close()
    finally:
        await asyncio.wait_for(running.stop(), 20)


@pytest.mark.timeout(150)
async def test_an_offer_put_to_a_person_shows_its_answer_clock(tmp_path):
    from playwright.async_api import async_playwright

    from tests.kits.webkit import connect_ws

    running = await start_web_server(tmp_path, bot_delay=0.05)
    buyer = await connect_ws(running, "marc")
    try:
        await buyer.request("create", game="speculation", seats=3, bots=1, turn_seconds=2)
        async with async_playwright() as pw:
            browser = await bk.launch(pw)
            try:
                page = await bk.new_page(browser, f"http://127.0.0.1:{running.web_port}", size=bk.DESKTOP,
                                         lang="es-ES")
                await bk.log_in(page, "Zoé")
                await page.click("#rooms li[data-room] [data-action=join]")  # a table from the lobby's list
                await page.wait_for_selector("#table:not([hidden]) #seats li")
                offered = None
                until = time.monotonic() + 60
                while time.monotonic() < until:
                    if offered is not None:  # read in one go: the offer's clock and its line
                        seen = await page.evaluate(
                            """(sel) => { const e = document.querySelector(sel);
                                 const c = e && e.querySelector('.clock');
                                 return c ? [c.textContent, e.textContent] : null; }""",
                            f"#center .offer[data-offer='{offered}']")
                        if seen is not None:
                            text, line = seen
                            assert re.search(r"responde en \d+ s", text), text
                            assert "1 carta," in line, line  # one card, singular
                            await page.screenshot(path=str(bk.screens_dir() / "desktop-offer-clock.png"))
                            break
                        pending = (buyer.state or {}).get("offers") or []
                        if buyer.state is not None and all(o.get("offer") != offered for o in pending):
                            offered = None  # answered or run out before the page drew it (a busy machine): again
                    if offered is None:  # play on until the buyer may offer (not after: keeping would answer it)
                        for action in ("keep", "turn"):
                            button = page.locator(f"#actions [data-action={action}]")
                            if await button.count():
                                await button.first.click()
                        reply = await buyer.request_raw("offer", to=1, cards=1, price=1)
                        if reply.get("type") == "ok":
                            offered = reply["offer"]
                    await asyncio.sleep(0.2)
                else:
                    pytest.fail("no offer clock drawn")
                assert not page.donne_errors
            finally:
                await browser.close()
    finally:
        await buyer.close()
        await asyncio.wait_for(running.stop(), 20)
