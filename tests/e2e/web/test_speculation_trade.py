"""A Speculation deal played in real browsers: the auction and its clock, a trade, the turns.

Zoé (desktop, French) creates a table from the lobby and opens the deal's auction (S6, she dealt);
Bruno (phone, Spanish) joins from the lobby's list and bids by keyboard (S7), a bid below the least
one or above his chips cannot be sent; Zoé sells by keyboard. In the trade window that follows
(S9) Bruno offers for one of Zoé's face-down cards (more cards than she has cannot be offered) and
Zoé accepts by keyboard; then everyone turns cards by clicking until the deal ends (S8, S10).
Each clock (the auction's, the trade window's, the offer's answer) is drawn and counts down. Mira
watches from a phone: no page ever receives a face-down card before the stacks are shown at the
end (S4, S12h), and no action the rules refuse is offered (S12c: no offer during an auction).
Debian's Chromium through Playwright, as test_web_browser.py.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import pytest

from tests.e2e.web.test_browser import assert_no_english, record_frames
from tests.e2e.web.test_replay_speculation import cards_in, seeded  # noqa: F401 (the deal's seed)
from tests.kits import browserkit as bk
from tests.kits.webkit import connect_ws, start_web_server

why_not = bk.available()
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(why_not is not None, reason=why_not or "")]

SECONDS = re.compile(r"(\d+)\s?s\b")


async def seconds_shown(page: Any, selector: str) -> int:
    text = await page.text_content(selector) or ""
    found = SECONDS.search(text)
    assert found, (selector, text)
    return int(found.group(1))


async def counts_down(page: Any, selector: str) -> None:
    """The clock shows seconds, then fewer of them (the page counts between the server's states)."""
    first = await seconds_shown(page, selector)
    await page.wait_for_function(
        """([sel, first]) => { const e = document.querySelector(sel);
             const m = e && /(\\d+)\\s?s\\b/.exec(e.textContent); return m && Number(m[1]) < first; }""",
        arg=[selector, first], timeout=5_000)


async def type_into(page: Any, selector: str, text: str) -> None:
    """By keyboard: focus the field, select what is there, type over it."""
    await page.focus(selector)
    await page.keyboard.press("Control+A")
    await page.keyboard.type(text)


async def cris_plays(client: Any, traded: asyncio.Event) -> None:
    """The third seat, a program: turns its card on its turn and keeps its auctions, nothing else;
    in a trade window, only once the trade is done (the player on turn may turn at once, S9)."""
    while True:
        state = await client.next_state(lambda s: True, timeout=30, current=True)
        if state.get("status") == "over" or state.get("over"):
            return
        can = state.get("can") or {}
        if can.get("keep"):
            await client.request_raw("keep")
        elif can.get("turn") and (traded.is_set() or not state.get("window")):
            await client.request_raw("turn")
        await asyncio.sleep(0.05)


@pytest.mark.timeout(240)
@pytest.mark.usefixtures("seeded")
async def test_an_auction_a_trade_and_the_turns_by_clicks_and_keys_while_a_phone_watches(tmp_path):
    from playwright.async_api import async_playwright

    running = await start_web_server(tmp_path, trade_window=20.0, flip_seconds=30.0, auction_seconds=30.0,
                                     entropy_window=0.2)
    screens = bk.screens_dir()
    cris = await connect_ws(running, "cris")
    robot: asyncio.Future[None] | None = None
    traded = asyncio.Event()
    try:
        async with async_playwright() as pw:
            browser = await bk.launch(pw)
            try:
                base = f"http://127.0.0.1:{running.web_port}"
                zoe = await bk.new_page(browser, base, size=bk.DESKTOP, lang="fr-FR")
                zoe_frames = record_frames(zoe)
                await zoe.reload()
                await bk.log_in(zoe, "Zoé")
                await bk.create_table(zoe, "speculation", seats=3, bots=0)
                room = (await zoe.text_content("#table-title") or "").split(" · ")[0]
                bruno = await bk.new_page(browser, base, size=bk.PHONE, lang="es-ES")
                bruno_frames = record_frames(bruno)
                await bruno.reload()
                await bk.log_in(bruno, "Bruno")
                await bruno.click(f"#rooms li[data-room='{room}'] [data-action=join]")
                mira = await bk.new_page(browser, base, size=bk.PHONE, lang="fr-FR", path=f"/?watch={room}")
                mira_frames = record_frames(mira)
                await mira.reload()
                await bk.log_in(mira, "Mira")
                await mira.wait_for_selector("#table:not([hidden]) #seats li")
                await cris.request("join", room=room)  # the third seat: the deal starts
                robot = asyncio.ensure_future(cris_plays(cris, traded))

                # S6/S7: Zoé dealt and put the face-up trump on sale; the auction's clock counts down
                auction = "#center .auction .clock"
                for page in (zoe, bruno, mira):
                    await page.wait_for_selector(auction)
                await counts_down(zoe, auction)
                await counts_down(mira, auction)
                await zoe.screenshot(path=str(screens / "desktop-speculation-auction.png"))
                # the owner neither bids nor offers; nobody offers while an auction is open (S12c)
                assert await zoe.locator("#actions [data-action=keep]").count() == 1
                for page in (zoe, bruno):
                    assert await page.locator("#actions [data-action=offer]").count() == 0
                assert await zoe.locator("#actions [data-action=bid], #actions [data-action=sell]").count() == 0
                # Bruno bids by keyboard: nothing below the least bid nor above his chips can be sent
                field, bid = "#actions [data-field=bid_amount]", "#actions [data-action=bid]"
                await bruno.wait_for_selector(field)
                least = int(await bruno.get_attribute(field, "min") or 0)
                most = int(await bruno.get_attribute(field, "max") or 0)
                assert least >= 1 and most > least
                for wrong in (str(least - 1), str(most + 1), "1.5"):
                    await type_into(bruno, field, wrong)
                    assert await bruno.is_disabled(bid), wrong
                    await bruno.keyboard.press("Enter")  # Enter does nothing then
                await type_into(bruno, field, str(least + 1))
                assert await bruno.is_enabled(bid)
                await bruno.screenshot(path=str(screens / "phone-speculation-bid.png"))
                await bruno.keyboard.press("Enter")
                # Zoé sells, by keyboard too: Bruno holds the best trump
                await zoe.wait_for_selector("#actions [data-action=sell]")
                await zoe.focus("#actions [data-action=sell]")
                await zoe.keyboard.press("Enter")
                await zoe.wait_for_selector("#center .auction", state="detached")

                # S9: the trade window, drawn with its clock; Bruno offers for one of Zoé's cards
                window = "#window .clock"
                for page in (zoe, bruno, mira):
                    await page.wait_for_selector(window)
                assert "temps d’échange" in (await zoe.text_content("#window") or "")
                assert "tiempo para negociar" in (await bruno.text_content("#window") or "")
                await counts_down(bruno, window)
                offer = "#actions [data-action=offer]"
                await bruno.wait_for_selector(offer)
                assert "Comprar cartas boca abajo" in (await bruno.text_content("#actions") or "")  # what it is for
                await bruno.select_option("#actions [data-field=offer_to]", label="Zoé")
                facedown = int(await bruno.get_attribute("#actions [data-field=offer_cards]", "max") or 0)
                assert facedown == 3  # Zoé's face-down cards: no more can be asked for
                await type_into(bruno, "#actions [data-field=offer_cards]", str(facedown + 1))
                assert await bruno.is_disabled(offer)
                await type_into(bruno, "#actions [data-field=offer_cards]", "1")
                await type_into(bruno, "#actions [data-field=offer_price]", "2")
                await bruno.click(offer)
                # Zoé sees the offer with its answer clock, and accepts it by keyboard
                answer = "#center .offer .clock"
                await zoe.wait_for_selector(answer)
                assert "réponse sous" in (await zoe.text_content(answer) or "")
                await counts_down(zoe, answer)
                accept = "#actions [data-action=accept]"
                await zoe.wait_for_selector(accept)
                assert "Bruno" in (await zoe.text_content(accept) or "")  # which offer it answers
                await zoe.screenshot(path=str(screens / "desktop-speculation-offer.png"))
                await zoe.focus(accept)
                await zoe.keyboard.press("Space")
                await zoe.wait_for_function(
                    "() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('Bruno'))"
                    " && !document.querySelector('#center .offer')")
                await mira.screenshot(path=str(screens / "phone-speculation-watching.png"), full_page=True)
                traded.set()

                # S8: the turns, by clicking, until the deal is over (Zoé and cris turn, Bruno holds)
                until = time.monotonic() + 90
                while time.monotonic() < until:
                    if any(m.get("event") == "deal_over" for m in zoe_frames):
                        break
                    for page in (zoe, bruno):
                        for action in ("turn", "keep"):
                            button = page.locator(f"#actions [data-action={action}]")
                            if await button.count() and await button.first.is_enabled():
                                await button.first.click()
                    await asyncio.sleep(0.1)
                else:
                    pytest.fail("the deal did not end")
                await mira.wait_for_selector("#log li:has-text('La donne 1 est terminée')")
                await zoe.screenshot(path=str(screens / "desktop-speculation-over.png"), full_page=True)
                await mira.screenshot(path=str(screens / "phone-speculation-over.png"), full_page=True)

                # S4/S12h: no face-down card reached any page before the stacks were shown
                for frames in (zoe_frames, bruno_frames, mira_frames):
                    names = [m.get("event") for m in frames]
                    assert "traded" in names and "revealed" in names
                    end = names.index("revealed")
                    hidden = cards_in(frames[end]["stacks"])
                    assert hidden, "Bruno still holds face-down cards"
                    assert not hidden & cards_in(frames[:end])
                assert await mira.locator("#hand button.card").count() == 0
                assert_no_english(await zoe.inner_text("body"), "fr")
                assert_no_english(await bruno.inner_text("body"), "es")
                for page in (zoe, bruno, mira):
                    assert not page.donne_errors
                assert not robot.done() or robot.exception() is None
            finally:
                await browser.close()
    finally:
        if robot is not None:
            robot.cancel()
        await cris.close()
        await asyncio.wait_for(running.stop(), 20)
