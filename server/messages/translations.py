"""Run-time translation: one gettext catalog per language, chosen per session.

Texts are translated when they are rendered, per session (STYLE rules 15–17): the
engine emits codes and events, and :mod:`server.messages` turns them into sentences
in the reader's language. There is one :class:`gettext.GNUTranslations` per
language, compiled in memory from ``i18n/<lang>/LC_MESSAGES/donne.po`` with Babel
the first time it is needed (call :func:`load_translations` at start to pay that
once); ``.mo`` files are never committed. English is the language of the msgids and
the fallback. ``gettext.install()`` is never called. Keeping the catalogs up to date
is :mod:`server.start.catalogs`' job.
"""

from __future__ import annotations

import gettext
import io
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

LANGS: tuple[str, ...] = ("fr", "es", "en")
"""Languages with a catalog; English is the source language and the fallback."""

DOMAIN = "donne"
CATALOG_DIR = Path(__file__).resolve().parent.parent.parent / "i18n"

PLURAL_FORMS = {
    # Babel 2.19 writes 3-form CLDR headers for fr/es; the classic 2-form rules are what
    # translators expect (TECH.md §5), so every .po keeps these headers.
    "fr": "nplurals=2; plural=(n > 1);",
    "es": "nplurals=2; plural=(n != 1);",
    "en": "nplurals=2; plural=(n != 1);",
}

LANG_NAMES = {"fr": "français", "es": "español", "en": "English"}


def N_(msgid: str) -> str:
    """Mark a string for extraction without translating it (tables); translate at use."""
    return msgid


# --------------------------------------------------------------------------- catalogs

_translations: dict[str, gettext.NullTranslations] = {}


def po_path(lang: str) -> Path:
    return CATALOG_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_po(lang: str, po_file: Path | None = None) -> gettext.GNUTranslations:
    """Compile a ``.po`` in memory with Babel and load it (fuzzy entries are left out)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    path = po_file or po_path(lang)
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def load_translations(langs: Sequence[str] = LANGS) -> None:
    """Load (compile) the catalogs of ``langs`` now rather than at first use."""
    for lang in langs:
        translation(lang)


_by_name: dict[str | None, gettext.NullTranslations] = {}
""":func:`translation` of each ``lang`` as it was asked for (``"fr"``, ``"FR"``...), so a session's
language is normalised once, not for every sentence (a few dozen entries at most)."""
_BY_NAME_MAX = 256


def translation(lang: str | None) -> gettext.NullTranslations:
    """The translations of ``lang`` (one shared object per language).

    An unknown language, or a missing catalog, gives the English source texts.
    """
    t = _by_name.get(lang)
    if t is not None:
        return t
    code = normalize_lang(lang) or "en"
    t = _translations.get(code)
    if t is None:
        try:
            t = compile_po(code)
        except FileNotFoundError:
            t = gettext.NullTranslations()
        _translations[code] = t
    if len(_by_name) >= _BY_NAME_MAX:
        _by_name.clear()
    _by_name[lang] = t
    return t


_LANG_ALIASES = {
    "fr": "fr",
    "fra": "fr",
    "fre": "fr",
    "french": "fr",
    "francais": "fr",
    "français": "fr",
    "francés": "fr",
    "frances": "fr",
    "es": "es",
    "spa": "es",
    "spanish": "es",
    "espanol": "es",
    "español": "es",
    "espagnol": "es",
    "castellano": "es",
    "en": "en",
    "eng": "en",
    "english": "en",
    "anglais": "en",
    "ingles": "en",
    "inglés": "en",
}


def normalize_lang(value: str | None) -> str | None:
    """``"fr"``, ``"FR"``, ``"français"``, ``"fr_FR.UTF-8"``, ``"es-ES"`` → a code of :data:`LANGS`."""
    if not value:
        return None
    v = value.strip().lower()
    if v in _LANG_ALIASES:
        return _LANG_ALIASES[v]
    m = re.match(r"([a-z]{2,3})(?:[_-][a-z0-9]+)?(?:\.[\w-]+)?(?:@\w+)?$", v)
    if m and m.group(1) in _LANG_ALIASES:
        return _LANG_ALIASES[m.group(1)]
    return None


def lang_from_env(env: Mapping[str, str]) -> str | None:
    """The language a client's environment asks for, if donne has it.

    POSIX precedence: ``LC_ALL``, then ``LC_MESSAGES``, then ``LANG`` (the first one
    set decides); ``C``/``POSIX`` locales (``C.UTF-8``) name no language. GNU
    ``LANGUAGE`` (``"es:fr"``) is honoured when the locale is not C.
    """
    locale = ""
    for key in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = (env.get(key) or "").strip()
        if value:
            locale = value
            break
    base = locale.split(".")[0].split("@")[0]
    if base.upper() in ("C", "POSIX"):
        return None
    for item in (env.get("LANGUAGE") or "").split(":"):
        code = normalize_lang(item)
        if code:
            return code
    return normalize_lang(locale) if locale else None




def pick_lang(answer: str) -> str | None:
    """A language chosen by a person: ``fr``, ``français``, or ``1``/``2``/``3`` at the telnet prompt."""
    a = answer.strip().lower()
    if a in ("1", "2", "3"):
        return ("en", "fr", "es")[int(a) - 1]
    return normalize_lang(a)
