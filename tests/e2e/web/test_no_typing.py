"""The play page never tells a person to type a command (a browser has no command line).

The moments where the text mode's hints used to reach the page: a seat's resume code (and how to
see it again), a deal's commitment with its contribution window (``seed TEXT``), an auction of one's
card (``sell``), a Speculation offer (``accept N / decline N``). A person at a French or a Spanish
page sits at a Speculation table beside a program and a bot, adds their own randomness with the
page's own field, answers what comes by clicks, and the page's text never holds a typing
instruction nor an English word.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.web.test_browser import assert_no_english, base, record_frames
from tests.kits import browserkit as bk
from tests.kits.webkit import connect_ws, start_web_server

why_not = bk.available()
pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.skipif(why_not is not None, reason=why_not or "")]

TYPING = re.compile(
    r"\btape[zr]?\b|\bescrib[ea]s?\b|\bteclea\b|\btype\b|\bcommande\b|\bcomando\b|\bcommand\b"
    r"|[«“\"]\s*(?:graine|semilla|seed|vendre|vender|sell|accepter|aceptar|accept|refuser|rechazar|decline|moi|yo"
    r"|whoami|quiensoy|aide|ayuda|help|tables|mesas|rooms)\b"
    r"|\((?:accepter|aceptar|accept) \d+|\bmoi le redonne|\bla orden\b|\bwhoami\b",
    re.IGNORECASE)
"""What tells a person to type: the verbs, and the text mode's command words in quotes or in their
``(accepter 1 / refuser 1)`` form."""


PLACEHOLDERS = re.compile(r"\b(?:NAME|TEXT|NOM|TEXTE|NOMBRE|TEXTO)\b")
"""The text mode's syntax words (``tell NAME TEXT``), in capitals."""


def typing_in(text: str) -> list[str]:
    return [m.group(0) for m in TYPING.finditer(text)] + PLACEHOLDERS.findall(text)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def web(tmp_path_factory: pytest.TempPathFactory) -> Any:
    # a contribution window long enough to be offered to a person (fair_events.READ_AND_TYPE), slow
    # clocks: the person answers at a browser's pace
    running = await start_web_server(tmp_path_factory.mktemp("web"), bot_delay=0.05, entropy_window=30.0,
                                     auction_seconds=60.0, flip_seconds=60.0, round_pause=60.0)
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


async def page_text(page: Any) -> str:
    """Everything the page shows or says: its text, the toasts, the labels read aloud, placeholders."""
    return str(await page.evaluate(
        "() => document.body.innerText + '\\n' + [...document.querySelectorAll('[aria-label],[placeholder],[title]')]"
        ".map((n) => (n.getAttribute('aria-label') || '') + ' ' + (n.getAttribute('placeholder') || '') + ' '"
        " + (n.getAttribute('title') || '')).join('\\n')"))


@pytest.mark.timeout(200)
@pytest.mark.parametrize("lang", ["fr", "es"])
async def test_no_typing_instruction_reaches_the_play_page(web: Any, browser: Any, lang: str) -> None:
    page = await bk.new_page(browser, base(web), lang={"fr": "fr-FR", "es": "es-ES"}[lang], path=f"/?lang={lang}")
    frames = record_frames(page)
    seen: list[str] = []  # every text the page showed, scanned at the end too

    async def look() -> None:
        text = await page_text(page)
        seen.append(text)
        assert not typing_in(text), (typing_in(text), text)

    bob = await connect_ws(web, f"bob{lang}")
    try:
        await bk.log_in(page, {"fr": "Léa", "es": "Ana"}[lang])
        await bk.create_table(page, "speculation", seats=3, bots=1)
        room = await page.get_attribute("#table", "data-room") or ""
        if not room:
            room = next(f["room"] for f in frames if f.get("type") == "state" and f.get("room"))
        await bob.request("seed", text="bob's own randomness")  # the program's standing seed
        await bob.request("join", room=room)
        # the reminder of one's seat's resume code (a guest sat down)
        await page.wait_for_function("() => document.querySelector('#log').innerText.includes('" +
                                     {"fr": "code de reprise", "es": "código"}[lang] + "')")
        # the deal's commitment: the window is offered, the page's own field gives the contribution
        for _ in range(200):
            if any(f.get("event") == "commitment" for f in frames):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        await look()
        field = page.locator("#seed-text")
        await field.wait_for(state="visible")
        await look()
        await field.fill("mon aléa à moi" if lang == "fr" else "mi azar")
        await page.click("#seed-button")
        await page.wait_for_function("() => !!document.querySelector('#seed-status') && "
                                     "document.querySelector('#seed-status').innerText.length > 0")
        await look()
        await page.screenshot(path=str(bk.screens_dir() / f"no-typing-seed-{lang}.png"))
        # the first auction: whoever owns it keeps (the page by its button)
        state = await bob.next_state(lambda s: s.get("auction"), timeout=60, current=True)
        owner = state["auction"]["seat"]
        await page.wait_for_selector("#center .auction")
        await look()  # whoever's card it is, the page's person may bid or must sell or keep
        if owner == state["you"]:
            await bob.request("keep")
        elif state["seats"][owner].get("bot") is not True:
            await page.click('#actions [data-action="keep"]')
        state = await bob.next_state(lambda s: not s.get("auction") and s.get("turn") is not None,
                                     timeout=60, current=True)
        me = state["you"]
        person = next(i for i, seat in enumerate(state["seats"]) if i != me and not seat.get("bot"))
        assert state["seats"][person]["facedown"] > 0  # every seat's stack was dealt face down
        await bob.request("offer", to=person, cards=1, price=1)
        await page.wait_for_selector('#actions [data-action="accept"]')
        await page.wait_for_function("() => document.querySelector('#log').innerText.includes('#')")
        await look()
        mine = next(f for f in frames if f.get("event") == "offered")
        assert mine["to"] == person and mine["text"].startswith({"fr": "Offre", "es": "Oferta"}[lang])
        await page.click('#actions [data-action="decline"]')
        await look()
        assert_no_english(seen[-1], lang)
        # every sentence the page received (the greeting aside: it comes before the page says it is one,
        # and the page does not show it)
        shown = "\n".join(str(f.get("text", "")) + " " + str(f.get("message", "")) for f in frames
                          if f.get("type") in ("event", "error") and f.get("event") != "hello")
        assert not typing_in(shown), typing_in(shown)
        assert not page.donne_errors, page.donne_errors
        # what the resume code's sentence promises: logging in again on the page gives the seat back
        again = await page.context.new_page()
        again.set_default_timeout(bk.WAIT_MS)
        await again.goto(base(web) + f"/?lang={lang}")
        await bk.log_in(again, {"fr": "Léa", "es": "Ana"}[lang])
        await again.wait_for_selector("#table:not([hidden])")
        assert await again.locator("#seats .mine").count() == 1
    finally:
        await bob.close()
        await page.context.close()
