"""The public pages' words come from the catalogs: no English word in a French or Spanish page.

Every public page (who, tables, leaderboards, a profile, a replay, a deal check, a page not found)
is read as a person reads it (its text, its titles and labels, the words its scripts will show),
in French and in Spanish, with the no-English scanner of the text-mode tests. The language is the
browser's (``Accept-Language``, in its order of preference) unless the person chose one with the
links of the language chooser (``?lang=``, kept in a cookie).
"""

from __future__ import annotations

import asyncio
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from server.web.labels import card_labels
from server.web.public_labels import accepted, public_labels
from tests.kits.servers import play_simply
from tests.kits.webkit import connect_ws, start_web_server
from tests.server.presenters.text.test_no_english import ALLOWED, ENGLISH, WORD

WEB = Path(__file__).resolve().parents[3] / "server" / "web"
SHOWN_ATTRIBUTES = ("aria-label", "title", "placeholder", "data-ok", "data-bad", "data-cannot")


class _Reader(HTMLParser):
    """What a person reads in a page: its text and titles, the labels of its controls and the words
    its scripts show later (``data-labels``); not the published record (data, not words)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if self.skipping or tag in ("script", "style") or (tag == "pre" and found.get("id") == "record"):
            self.skipping += 1
            return
        self.parts += [found[a] or "" for a in SHOWN_ATTRIBUTES if a in found]
        if found.get("data-labels"):
            self.parts += [str(v) for v in json.loads(found["data-labels"] or "{}").values()]

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def page_words(html: str) -> str:
    reader = _Reader()
    reader.feed(html)
    return " ".join(reader.parts)


async def visible_words(page: Any) -> list[str]:
    """The same in a browser: the text shown, the page's title, and the labels of its elements."""
    return list(await page.evaluate(
        """() => [document.title, document.body.innerText,
                  ...[...document.querySelectorAll('[aria-label], [title], [placeholder]')].map(
                      (e) => [e.getAttribute('aria-label'), e.getAttribute('title'),
                              e.getAttribute('placeholder')].filter(Boolean).join(' '))]"""))


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(re.sub(r"\{\w+\}", "", text)) if len(w) > 2}


def label_english(lang: str) -> set[str]:
    """The English labels' own words that their translation does not use (``waiting``, ``step``)."""
    english, labels = public_labels("en"), public_labels(lang)
    theirs = {w for k, v in english.items() if v != labels[k] for w in _words(v)}
    return theirs - {w for v in labels.values() for w in _words(v)}


def english_words(text: str, lang: str, names: set[str]) -> set[str]:
    words = {w.lower() for w in WORD.findall(text)} - {n.lower() for n in names} - {"donne"}
    return (words & (ENGLISH | label_english(lang))) - ALLOWED[lang]


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_every_public_word_is_translated_and_carries_no_english_word(lang):
    english = public_labels("en")
    labels = public_labels(lang)
    assert set(labels) == set(english)
    for key, text in {**labels, **card_labels(lang)}.items():
        assert text.strip(), key
        assert not english_words(re.sub(r"\{\w+\}", "", text), lang, set()), (key, text)
        if lang == "fr":  # a no-break space before : ; ! ?
            assert not re.search(r"(^|[^\u00a0\u202f])[:;!?]", text), (key, text)
    same = {k for k in labels if labels[k] == english[k]}
    assert same <= {"terminal", "score", "no", "by_points", "table", "classic", "tdc", "status_over"}, same


def test_the_pages_hold_no_words_of_their_own():
    code = "\n".join(p.read_text(encoding="utf-8") for p in (WEB / "public.py", WEB / "static" / "replay.js",
                                                              WEB / "static" / "cards.js"))
    for text in ("Qui est là", "Quién está", "Who is online", "Classements", "trèfle", "clubs", "revoir",
                 "goes out", "juega", "Rondas", "Jouer"):
        assert text not in code, text


def test_the_browser_s_language_is_its_preferred_one_we_speak():
    assert accepted("de-DE,de;q=0.9,es;q=0.8,fr;q=0.7") == ["es", "fr"]
    assert accepted("en;q=0.2, fr-CA;q=0.9") == ["fr", "en"]
    assert accepted("fr;q=0, es") == ["es"]  # q=0: not wanted
    assert accepted("*") == [] and accepted("") == []


@pytest.fixture
async def web(tmp_path):
    running = await start_web_server(tmp_path)
    try:
        yield running
    finally:
        await asyncio.wait_for(running.stop(), 20)


async def get(running: Any, path: str, **headers: str) -> tuple[int, str, Any]:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{running.web_port}{path}",
                                                          headers=headers) as resp:
        return resp.status, await resp.text(), resp


@pytest.mark.e2e
async def test_no_english_word_on_french_and_spanish_public_pages(web):
    await web.store.accounts.register("alice", "correct-horse-5")
    alice = await connect_ws(web)
    await alice.login("alice", "correct-horse-5")
    await alice.request("bio", text="Hola")
    await alice.request("create", game="president", rules="classic", seats=4, bots=3)
    await play_simply(alice, timeout=20)
    waiting = await connect_ws(web, "zoe")
    await waiting.request("create", game="speculation", seats=3)  # a table waiting, in the list
    try:
        status, profile, _ = await get(web, "/api/player/alice")
        round_id = json.loads(profile)["rounds"][0]["round"]
        _, replay, _ = await get(web, f"/api/replay/{round_id}")
        names = {"alice", "zoe", *json.loads(replay)["seats"]}
        paths = ["/who", "/tables", "/leaderboard", "/player/alice", "/player/zoe", f"/replay/{round_id}",
                 f"/verify/{round_id}", "/player/nobody-here"]
        english_page = ""
        for lang, header in (("fr", "fr-FR,fr;q=0.9,en;q=0.5"), ("es", "es-ES,es;q=0.9,en;q=0.5"),
                             ("en", "en-GB")):
            for path in paths:
                status, page, _ = await get(web, path, **{"Accept-Language": header})
                assert status == (404 if "nobody" in path else 200), path
                if status == 200:
                    assert f'<html lang="{lang}">' in page, path
                words = page_words(page)
                if lang == "en":
                    english_page += words
                    continue
                assert not english_words(words, lang, names), (lang, path, english_words(words, lang, names))
            _, replay, _ = await get(web, f"/api/replay/{round_id}?lang={lang}")
            texts = " ".join(ev["text"] for step in json.loads(replay)["steps"] for ev in step)
            if lang != "en":  # the sentences the viewer shows, as spectators read them
                assert texts and not english_words(texts, lang, names), (lang, texts)
        assert english_words(english_page, "es", names)  # the scan finds English where there is some
    finally:
        await alice.close()
        await waiting.close()


@pytest.mark.e2e
async def test_the_language_chooser_links_each_language_and_the_choice_is_remembered(web):
    _status, page, _ = await get(web, "/tables", **{"Accept-Language": "es-ES"})
    assert "Mesas abiertas" in page
    for code, name in (("fr", "Français"), ("es", "Español"), ("en", "English")):
        assert f'href="/tables?lang={code}" hreflang="{code}" lang="{code}"' in page and f">{name}</a>" in page
    assert 'hreflang="es" lang="es" aria-current="true"' in page
    assert '<a href="/">' in page  # the play page follows the browser's language too
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:  # (an IP address)
        base = f"http://127.0.0.1:{web.web_port}"
        async with http.get(base + "/tables?lang=fr", headers={"Accept-Language": "es-ES"}) as resp:
            assert "Tables ouvertes" in await resp.text()
            cookie = resp.cookies["donne_lang"]
            assert cookie.value == "fr" and cookie["httponly"] and cookie["samesite"] == "Strict"
        async with http.get(base + "/who", headers={"Accept-Language": "es-ES"}) as resp:
            text = await resp.text()
            assert "Qui est là" in text  # the choice, over the browser's language
            assert '<a href="/?lang=fr">Jouer</a>' in text  # and the play page told of it
        async with http.get(base + "/player/nobody-here") as resp:
            assert resp.status == 404 and await resp.text() == "Introuvable."
