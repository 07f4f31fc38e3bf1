"""A Speculation deal's replay, in the JSON API and in a real browser.

Three people play a deal of Speculation by turning their cards (nobody bids, each auction's owner
keeps, S6–S8) while a fourth person watches. The stored deal's replay (``/api/replay/ROUND``) is what
the watcher received, event for event, each with the sentence in the asked language; no face-down
card appears before the end, where every stack left is shown (S12h). The viewer
(``/replay/ROUND``) steps through it by clicks and keys, in French, and shows the stacks at the last
step only. Debian's Chromium through Playwright, as test_web_browser.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest

from engine.seeds import seed_from_int
from server.rooms import room as room_module
from server.table.fair import ExplicitSeed
from tests.e2e.rooms.test_room_speculation import play_turns
from tests.e2e.web.test_browser import assert_no_english
from tests.e2e.web.test_public_words import visible_words
from tests.kits import browserkit as bk
from tests.kits.servers import strings_in
from tests.kits.webkit import connect_ws, start_web_server

pytestmark = pytest.mark.e2e

SEED = seed_from_int(0)
"""With everyone turning and keeping, this deal ends with three face-down cards left (S10, S12h)."""

CARD_CODES = {r + s for r in "3456789TJQKA2" for s in "cdhs"}


def cards_in(value: Any) -> set[str]:
    return {s for s in strings_in(value) if s in CARD_CODES}


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> bytes:
    monkeypatch.setattr(room_module, "draw_seed", lambda: ExplicitSeed(SEED))
    return SEED


async def play_a_watched_deal(running: Any) -> tuple[str, list[dict[str, Any]]]:
    """Three people play one deal while vera watches; the round's id and what vera received. Ana has
    an account: her profile lists the deal."""
    await running.store.accounts.register("ana", "correct-horse-7")
    ana = await connect_ws(running)
    await ana.login("ana", "correct-horse-7")
    people = [ana, *[await connect_ws(running, name) for name in ("bea", "cris")]]
    watcher = await connect_ws(running, "vera")
    seen: list[dict[str, Any]] = []
    watcher.on_push = seen.append
    try:
        room = (await people[0].request("create", game="speculation", seats=3, rounds=1))["room"]
        await watcher.request("watch", room=room)
        for person in people[1:]:
            await person.request("join", room=room)
        await asyncio.wait_for(asyncio.gather(*(play_turns(p, lambda s: s.get("status") == "over")
                                                for p in people)), 60)
        until = time.monotonic() + 10
        while not any(m.get("event") == "match_over" for m in seen):
            assert time.monotonic() < until, "the watcher never heard the match end"
            await asyncio.sleep(0.05)
    finally:
        for client in (*people, watcher):
            await client.close()
    until = time.monotonic() + 10
    while time.monotonic() < until:
        rounds = [p.record.round_id for p in await running.store.history.played("ana", 5)
                  if not p.record.round_id.endswith("match")]
        if rounds:
            return rounds[0], seen
        await asyncio.sleep(0.05)
    raise AssertionError("the deal was never stored")


async def get_json(running: Any, path: str) -> Any:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{running.web_port}{path}") as resp:
        assert resp.status == 200, path
        return json.loads(await resp.text())


def public_part(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("type", "room", "text", "fairness")}


@pytest.mark.timeout(120)
async def test_a_speculation_replay_is_what_the_table_saw_then_the_stacks_shown_S12h(tmp_path, seeded):
    running = await start_web_server(tmp_path)
    try:
        round_id, seen = await play_a_watched_deal(running)
        data = await get_json(running, f"/api/replay/{round_id}?lang=es")
        assert data["game"] == "speculation" and data["seats"] == ["ana", "bea", "cris"]
        steps = data["steps"]
        assert len(steps) >= 5  # the deal, then each turn or auction, one step at a time
        flat = [ev for step in steps for ev in step]
        watched = [public_part(m) for m in seen if m.get("type") == "event"]
        for ev in flat:  # every event of the replay is one the watcher received, as it was
            assert public_part(ev) in watched, ev
            assert ev["text"] and "Event" not in ev["text"]  # the spectator's sentence, in Spanish
        names = [ev["event"] for ev in flat]
        assert names.index("revealed") >= names.index("pool_won")
        shown = next(ev for ev in flat if ev["event"] == "revealed")
        hidden = {c for stack in shown["stacks"] for c in stack}
        assert hidden, "this deal ends with face-down cards"
        before = [ev for ev in flat[:names.index("revealed")]]
        assert not hidden & cards_in(before)  # S4: nobody saw a face-down card before the end
        assert cards_in(flat) <= cards_in(seen)  # nothing the table did not see
        assert "Cartas" in shown["text"] or "cartas" in shown["text"]
        french = await get_json(running, f"/api/replay/{round_id}?lang=fr")
        assert next(ev for s in french["steps"] for ev in s if ev["event"] == "dealt")["text"].startswith("Donne 1")
    finally:
        await asyncio.wait_for(running.stop(), 20)


why_not = bk.available()


@pytest.mark.timeout(150)
@pytest.mark.skipif(why_not is not None, reason=why_not or "")
async def test_the_viewer_steps_through_a_speculation_deal_and_shows_the_stacks_at_the_end(tmp_path, seeded):
    from playwright.async_api import async_playwright

    running = await start_web_server(tmp_path)
    try:
        round_id, _seen = await play_a_watched_deal(running)
        data = await get_json(running, f"/api/replay/{round_id}")
        hidden = {c for ev in data["steps"][-1] for stack in ev.get("stacks", []) for c in stack}
        last = len(data["steps"])
        async with async_playwright() as pw:
            browser = await bk.launch(pw)
            try:
                base = f"http://127.0.0.1:{running.web_port}"
                page = await bk.new_page(browser, base, size=bk.PHONE, lang="fr-FR", path="/player/ana")
                await page.click(f"a[href='/replay/{round_id}']")
                await page.wait_for_selector("#steps li")
                assert await page.text_content("#where") == f"Étape 1 sur {last}"
                assert await page.is_disabled("#prev")
                shown_before: set[str] = set()
                for n in range(2, last + 1):  # a click, then a key, in turn
                    if n % 2:
                        await page.click("#next")
                    else:
                        await page.keyboard.press("ArrowRight")
                    await page.wait_for_selector(f"#where:text-is('Étape {n} sur {last}')")
                    if n < last:
                        shown_before |= set(await page.eval_on_selector_all(
                            "#steps [data-card]", "(els) => els.map((e) => e.dataset.card)"))
                        assert await page.locator("#steps li[data-event=revealed]").count() == 0
                    if n == 3:
                        await page.screenshot(path=str(bk.screens_dir() / "phone-replay-speculation.png"),
                                              full_page=True)
                assert await page.is_disabled("#next")
                assert not hidden & shown_before  # no face-down card before the end (S4)
                stacks = page.locator("#steps li[data-event=revealed] .shown [data-card]")
                at_end = {await stacks.nth(i).get_attribute("data-card") for i in range(await stacks.count())}
                assert at_end == hidden  # then every stack left, shown (S12h)
                label = await stacks.first.get_attribute("aria-label") or ""
                assert " de " in label  # the card said in French words, from the catalogs
                await page.screenshot(path=str(bk.screens_dir() / "phone-replay-speculation-end.png"),
                                      full_page=True)
                assert_no_english(" ".join(await visible_words(page)), "fr")
                await page.keyboard.press("Home")
                await page.wait_for_selector(f"#where:text-is('Étape 1 sur {last}')")
                assert not page.donne_errors
            finally:
                await browser.close()
    finally:
        await asyncio.wait_for(running.stop(), 20)
