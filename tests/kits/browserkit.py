"""Headless Chromium (Debian's) driven by Playwright, for the web tests and a person's look at the pages.

Never ``playwright install``: the browser is the system's ``chromium`` (``make tools``). Screenshots go
to ``$DONNE_SCREENS`` or ``$TMPDIR/donne-screens``, printed by the tests that take them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
WAIT_MS = 15_000
"""The longest any one wait for the page lasts."""


def available() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        return "chromium is not installed (make tools installs Debian's)"
    return None


def screens_dir() -> Path:
    folder = Path(os.environ.get("DONNE_SCREENS") or Path(tempfile.gettempdir()) / "donne-screens")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def launch(pw: Any) -> Any:
    """The system's Chromium; Playwright gives each launch a fresh profile folder of its own (its
    ``--user-data-dir``, removed at close), and each context (a person) its own storage."""
    path = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    return await pw.chromium.launch(executable_path=path, args=ARGS, headless=True)


async def new_page(browser: Any, base: str, *, size: dict[str, int] = DESKTOP, lang: str = "fr-FR",
                   path: str = "/") -> Any:
    context = await browser.new_context(viewport=size, locale=lang,
                                        extra_http_headers={"Accept-Language": lang},
                                        is_mobile=size is PHONE, has_touch=size is PHONE)
    page = await context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.donne_errors = []
    page.on("pageerror", lambda exc: page.donne_errors.append(str(exc)))
    page.on("console", lambda msg: page.donne_errors.append(msg.text) if msg.type == "error" else None)
    await page.goto(base + path)
    return page


async def log_in(page: Any, name: str, password: str | None = None) -> None:
    await page.fill("#login-name", name)
    if password:
        await page.fill("#login-password", password)
    await page.click("#login-button")
    await page.wait_for_selector("#login", state="hidden")


async def create_table(page: Any, kind: str = "classic", seats: int = 4, bots: int = 3) -> None:
    await page.select_option("#create-kind", kind)
    await page.fill("#create-seats", str(seats))
    await page.fill("#create-bots", str(bots))
    await page.click("#create-button")
    await page.wait_for_selector("#table:not([hidden])")


async def play_one_move(page: Any) -> str | None:
    """When it is our move: choose cards by clicking as a person would (a rank at a time, one card
    more until Play lights up) and play them, or pass. Returns what was done, None when nothing was
    asked of us."""
    action = page.locator("#actions [data-action=play]")
    give = page.locator("#actions [data-action=give]")
    if await give.count():
        enabled = page.locator("#hand button.card:not([disabled])")
        n = 0
        while await give.is_disabled() and n < await enabled.count():
            await enabled.nth(n).click()
            n += 1
        await acted(page, give)
        return "give"
    if not await action.count():
        return None
    cards = page.locator("#hand button.card:not([disabled])")
    codes = [await cards.nth(i).get_attribute("data-card") for i in range(await cards.count())]
    by_rank: dict[str, list[str]] = {}
    for code in codes:
        if code:
            by_rank.setdefault(code[0], []).append(code)
    for same in by_rank.values():
        chosen = []
        for code in same:
            await page.click(f'#hand [data-card="{code}"]')
            chosen.append(code)
            if await action.is_enabled():
                await acted(page, action)
                return "play " + " ".join(chosen)
        for code in chosen:  # not playable with this many: put them back
            await page.click(f'#hand [data-card="{code}"]')
    passing = page.locator("#actions [data-action=pass]")
    if await passing.count():
        await acted(page, passing)
        return "pass"
    return None


async def acted(page: Any, button: Any) -> None:
    """Click ``button`` and wait until the page drew the next state (the button is gone): until then
    the buttons on the page are those of the move just made."""
    handle = await button.element_handle()
    await button.click()
    await page.wait_for_function("(el) => !el.isConnected", arg=handle)
