"""The catalogs: complete, up to date, plural headers and placeholders right (STYLE 17)."""

from __future__ import annotations

import gettext

import pytest
from babel.messages.pofile import read_po

from server.messages import (
    LANGS,
    error_message,
    labels,
    translation,
    translations,
)
from server.start.catalogs import extract_catalog, missing_messages, placeholders

NAMES = ["Zoé", "Bob", "Carmen", "Dmitri"]


# --------------------------------------------------------------------------- catalogs


@pytest.fixture(scope="module")
def extracted():
    return extract_catalog()


@pytest.mark.parametrize("lang", LANGS)
def test_catalog_complete(lang, extracted):
    """Every message of server/ is translated, not fuzzy, with the header's plural count and
    the msgid's placeholders (STYLE 17). Fix with: python -m server.start.catalogs update, then translate."""
    problems = missing_messages(lang, extracted)
    assert not problems, "\n".join(problems[:40])


def test_pot_up_to_date(extracted):
    """i18n/donne.pot holds exactly the messages of the code (python -m server.start.catalogs update)."""
    with (translations.CATALOG_DIR / "donne.pot").open("rb") as f:
        pot = read_po(f)
    in_code = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)) for m in extracted if m.id}
    in_pot = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)) for m in pot if m.id}
    assert in_code - in_pot == set(), "messages missing from donne.pot"
    assert in_pot - in_code == set(), "stale messages in donne.pot"


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_plural_headers_are_two_form(lang):
    """TECH.md §5: Babel writes 3-form CLDR headers for fr/es; ours are the classic 2-form ones."""
    with translations.po_path(lang).open("rb") as f:
        cat = read_po(f, locale=lang)
    assert cat.num_plurals == 2
    assert cat.plural_expr == {"fr": "(n > 1)", "es": "(n != 1)"}[lang]


def test_plurals_follow_language_rules():
    fr, es, en = (translation(x) for x in LANGS)
    assert fr.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 carte"
    assert fr.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 carte"
    assert fr.ngettext("{n} card", "{n} cards", 2).format(n=2) == "2 cartes"
    assert es.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 cartas"
    assert es.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 carta"
    assert es.ngettext("{n} card", "{n} cards", 1_000_000).format(n=1_000_000) == "1000000 cartas"
    assert en.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 card"


def test_one_translation_object_per_language_and_english_fallback():
    assert translation("fr") is translation("fr")
    assert isinstance(translation("fr"), gettext.GNUTranslations)
    unknown = translation("de")
    assert unknown.gettext("Trick:") == "Trick:"
    assert translation(None).gettext("Trick:") == "Trick:"


def test_no_gettext_install():
    import builtins

    assert not hasattr(builtins, "_") or not isinstance(builtins._, gettext.NullTranslations)


def test_placeholders_helper():
    assert placeholders("{name} plays {cards:>3} {{literal}}") == {"name", "cards"}
    assert placeholders("{n:+d} chips") == {"n"}


def test_vocabulary_of_the_seeds():
    """Titles, ranks and the game words as the user's seeds name them."""
    assert [labels.title_name("fr", t) for t in ("president", "vice_president", "vice_last", "last")] == [
        "Président",
        "Vice-président",
        "Vice-trou du cul",
        "Trou du cul",
    ]
    assert [labels.title_name("es", t) for t in ("president", "vice_president", "vice_last", "last")] == [
        "Presidente",
        "Vicepresidente",
        "Viceculo",
        "Culo",
    ]
    assert [labels.title_name("en", t) for t in ("president", "vice_president", "vice_last", "last")] == [
        "President",
        "Vice-President",
        "Vice-Scum",
        "Scum",
    ]
    assert [labels.rank_name("fr", r) for r in "JQKA"] == ["valet", "dame", "roi", "as"]
    assert [labels.rank_name("es", r) for r in "JQKA"] == ["jota", "dama", "rey", "as"]
    assert labels.card_label("Qh", "fr") == "D♥"
    assert labels.card_label("Th", "es") == "10♥"
    assert "Ça ou rien" in error_message("fr", "illegal_play", reason="ca_ou_rien", rank="7")
    assert "o eso o nada" in error_message("es", "illegal_play", reason="ca_ou_rien", rank="7").lower()


