"""The play page's labels come from the server's gettext catalogs (``/api/i18n/<lang>``).

Every label the page asks for exists in the catalog; French and Spanish labels are translated,
carry no English word and follow the French typography; the page's script holds no text.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import aiohttp
import pytest

from server.web.labels import page_labels
from tests.kits.webkit import start_web_server
from tests.server.presenters.text.test_no_english import ALLOWED, ENGLISH, WORD

STATIC = Path(__file__).resolve().parents[3] / "server" / "web" / "static"


def keys_the_page_uses() -> set[str]:
    html = (STATIC / "play.html").read_text(encoding="utf-8")
    script = (STATIC / "play.js").read_text(encoding="utf-8")
    keys = set(re.findall(r'data-l[ap]?="([a-z_]+)"', html))
    keys |= set(re.findall(r'\bL\("([a-z_]+)"', script))
    keys |= set(re.findall(r'\bbutton\("([a-z_]+)"', script))
    keys |= {"status_" + s for s in ("waiting", "playing", "over")}
    keys |= {"title_" + t for t in ("president", "vice_president", "neutral", "vice_last", "last")}
    return keys - {"status_", "title_"}


def texts(value: str | list[str]) -> list[str]:
    return value if isinstance(value, list) else [value]


def test_every_label_the_page_uses_is_in_the_catalog():
    labels = page_labels("en")
    missing = keys_the_page_uses() - set(labels)
    assert not missing


def test_the_script_holds_no_label_text():
    loader = (STATIC / "i18n.js").read_text(encoding="utf-8")
    for text in ("Log in", "Entrer", "Entrar", "Your hand", "Votre main", "Tu mano"):
        assert text not in loader


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_french_and_spanish_labels_are_translated_and_carry_no_english_word(lang):
    english = page_labels("en")
    labels = page_labels(lang)
    assert set(labels) == set(english)
    for key, value in labels.items():
        for text in texts(value):
            assert text.strip() or key == "colon", key
            words = {w.lower() for w in WORD.findall(text)}
            assert not (words & ENGLISH) - ALLOWED[lang], (key, text)
            if lang == "fr":  # a no-break space before : ; ! ? and inside « »
                assert not re.search(r"(^|[^\u00a0\u202f])[:;!?]", text.replace("://", "")), (key, text)
                assert "« " not in text and " »" not in text, (key, text)
    assert labels["login"] != english["login"] and labels["your_hand"] != english["your_hand"]


@pytest.mark.e2e
async def test_the_web_port_serves_each_language_s_catalog(tmp_path):
    running = await start_web_server(tmp_path)
    try:
        async with aiohttp.ClientSession() as http:
            got = {}
            for lang in ("fr", "es", "en", "xx"):
                url = f"http://127.0.0.1:{running.web_port}/api/i18n/{lang}"
                async with http.get(url) as resp:
                    assert resp.status == 200
                    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
                    got[lang] = json.loads(await resp.text())
        assert got["fr"]["login"] == "Entrer" and got["es"]["login"] == "Entrar"
        assert got["fr"]["cards"] == ["{n} carte", "{n} cartes"]
        assert got["xx"] == got["en"]  # an unknown language: English, the source
    finally:
        await asyncio.wait_for(running.stop(), 20)


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_the_table_title_calls_a_round_and_a_deal_as_the_table_s_messages_do(lang):
    from server.messages.translations import translation

    t = translation(lang)
    labels = page_labels(lang)
    assert str(labels["round"]).lower() in t.gettext("Round {round}: the cards are dealt.").lower()
    assert str(labels["deal"]).lower() in t.gettext("Deal {round} is over.").lower()
