"""What the wording caches keep gives exactly what making it again gives.

Card labels (per code, language and terminal), the labels of a list of cards, the
rank labels and the catalogs are kept once made (``server.messages.labels``,
``server.messages.translations``): a second call, under any other language or
terminal in between, answers the same text, and a cache that fills up is emptied,
never wrong.
"""

from __future__ import annotations

import random

import pytest

from server.messages import labels, translations
from server.messages.labels import RANK_CODES, SUIT_CODES, card_label, cards_label, cards_param, rank_labels
from server.messages.terminal import ASCII, PLAIN, TermStyle
from server.messages.translations import LANGS, normalize_lang, translation

STYLES = (PLAIN, ASCII, TermStyle(width=40, unicode=True, color=True), TermStyle(width=120, unicode=False, color=True))
NAMES = (*LANGS, "FR", "es-ES", "français", "klingon", "")
CODES = [r + s for r in RANK_CODES for s in SUIT_CODES] + ["", "X", "7x", "10c", "Zh"]


def _card_alone(code: str, lang: str, style: TermStyle) -> str:
    labels._card_labels.clear()
    labels._rank_labels.clear()
    return card_label(code, lang, style)


def test_card_labels_kept_are_the_labels_made_again() -> None:
    rng = random.Random(7)
    calls = [(c, lang, style) for c in CODES for lang in NAMES for style in STYLES] * 2
    rng.shuffle(calls)
    want = {call: _card_alone(*call) for call in set(calls)}
    labels._card_labels.clear()
    for call in calls:
        assert card_label(*call) == want[call], call
    # what a card looks like, each way (the label the cache gives is the one made)
    assert card_label("Qh", "fr", PLAIN) == "D♥" and card_label("Qh", "en", PLAIN) == "Q♥"
    assert card_label("Qh", "fr", ASCII) == "Dh" and card_label("Tc", "es", PLAIN) == "10♣"
    assert card_label("Qh", "en", STYLES[2]) == "\x1b[31mQ♥\x1b[0m" and card_label("Qs", "en", STYLES[2]) == "Q♠"


def test_lists_of_cards_kept_are_the_labels_made_again() -> None:
    rng = random.Random(8)
    for _ in range(2000):
        cards = rng.sample(CODES, rng.randint(0, 5))
        lang, style = rng.choice(NAMES), rng.choice(STYLES)
        got = cards_param(cards, lang, style)
        assert got == cards_param(list(cards), lang, style) == cards_label(cards, lang, style)
        assert got == " ".join(_card_alone(c, lang, style) for c in cards)
        if "" not in cards:
            assert cards_param(" ".join(cards), lang, style) == got  # the string form
    # not only codes: worded as before, and not kept
    odd = [1, True, ["7c"], None]
    assert cards_param(odd, "en", PLAIN) == "1 True ['7c'] None"
    assert cards_param([True], "en", PLAIN) == "True" and cards_param([1], "en", PLAIN) == "1"
    assert not any(any(type(c) is not str for c in key[0]) for key in labels._cards_labels)


def test_a_full_cache_is_emptied(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(labels, "_CARD_LABELS_MAX", 5)
    labels._card_labels.clear()
    labels._cards_labels.clear()
    for code in CODES[:20]:
        assert card_label(code, "fr", PLAIN) == _card_alone(code, "fr", PLAIN)
        assert cards_param([code, "2s"], "es", PLAIN) == f"{card_label(code, 'es', PLAIN)} 2♠"
        assert len(labels._card_labels) <= 5 and len(labels._cards_labels) <= 5
    monkeypatch.setattr(translations, "_BY_NAME_MAX", 3)
    monkeypatch.setattr(translations, "_by_name", {})  # what earlier tests cached is not this test's
    for name in NAMES * 2:
        assert translation(name) is translation(normalize_lang(name) or "en")
        assert len(translations._by_name) <= 3


def test_rank_labels_and_catalogs_by_any_name_of_a_language() -> None:
    for name in NAMES * 2:
        code = normalize_lang(name) or "en"
        assert translation(name) is translation(code)
        assert rank_labels(name) == rank_labels(code)
    assert rank_labels("fr")[8:12] == ("V", "D", "R", "A") and rank_labels("FR") == rank_labels("fr")
    assert rank_labels("klingon") == rank_labels("en")
