"""Keeping the catalogs up to date: ``python -m server.start.catalogs [extract|update|check]``.

``update`` extracts every literal ``_()``, ``gettext``, ``ngettext``, ``pgettext`` and
``N_`` call under ``server/`` into ``i18n/donne.pot`` and merges it into the three
``.po`` files; ``check`` lists what is missing, empty, fuzzy, or has the wrong plural
forms or placeholders (see ``docs/i18n.md``). Run-time translation is
:mod:`server.messages.translations`; this module is only for maintainers and tests.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.messages.translations import CATALOG_DIR, DOMAIN, LANG_NAMES, LANGS, PLURAL_FORMS, po_path

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

SOURCE_DIR = Path(__file__).resolve().parent.parent



def extract_catalog(source_dir: Path = SOURCE_DIR) -> Catalog:
    """Extract every message of ``server/`` with Babel, in memory (a ``babel.messages.Catalog``)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    catalog = Catalog(project="donne", version="0.1", msgid_bugs_address="", charset="utf-8")
    method_map = [("**.py", "python")]
    for filename, _lineno, message, comments, context in extract_from_dir(
        str(source_dir), method_map, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
    ):
        catalog.add(message, None, [(f"server/{filename}", 0)], auto_comments=comments, context=context)
    return catalog


def _messages(catalog: Catalog) -> set[tuple[str | None, str | tuple[str, ...], tuple[str, ...]]]:
    return {
        (m.context, m.id if isinstance(m.id, str) else tuple(m.id), tuple(m.auto_comments)) for m in catalog if m.id
    }


def write_pot(path: Path | None = None, catalog: Catalog | None = None) -> Path:
    """Write ``donne.pot``; when its messages did not change, the file (and its date) stays as it is."""
    from babel.messages.pofile import read_po, write_po

    path = path or CATALOG_DIR / f"{DOMAIN}.pot"
    catalog = catalog if catalog is not None else extract_catalog()
    if path.exists():
        with path.open("rb") as f:
            old = read_po(f)
        if _messages(old) == _messages(catalog):
            catalog.creation_date = old.creation_date
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=100, no_location=True, omit_header=False, sort_output=True)
    return path


def update_catalogs() -> None:
    """Write the .pot, merge it into every .po (new messages empty, English ones filled)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    template = extract_catalog()
    write_pot(catalog=template)  # keeps the template's date when its messages did not change
    for lang in LANGS:
        path = po_path(lang)
        if path.exists():
            with path.open("rb") as f:
                catalog = read_po(f, locale=lang, domain=DOMAIN)
        else:
            catalog = Catalog(locale=lang, domain=DOMAIN, project="donne", version="0.1")
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        _set_plural_header(catalog, lang)
        catalog.fuzzy = False
        catalog.project, catalog.version = "donne", "0.1"
        catalog.last_translator = catalog.language_team = "donne contributors"
        catalog.msgid_bugs_address = ""
        catalog.header_comment = f"# {LANG_NAMES[lang]} messages of donne.\n# Edit msgstr lines; see docs/i18n.md."
        if lang == "en":
            for msg in catalog:
                if msg.id and (msg.fuzzy or not _filled(msg.string)):
                    msg.string = msg.id
                    msg.flags.discard("fuzzy")
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=100, no_location=True, sort_output=True)


def _set_plural_header(catalog: Any, lang: str) -> None:  # sets babel's private plural attributes
    forms = PLURAL_FORMS[lang]
    m = re.match(r"nplurals=(\d+); plural=(.*);", forms)
    assert m
    catalog._num_plurals = int(m.group(1))
    catalog._plural_expr = m.group(2)


def _filled(string: object) -> bool:
    if isinstance(string, tuple | list):
        return all(bool(s) for s in string)
    return bool(string)


def missing_messages(lang: str, template: Catalog | None = None) -> list[str]:
    """Problems of one catalog against the code: missing, empty, fuzzy, plural or placeholder mismatch.

    ``template``: the extracted catalog (:func:`extract_catalog`), extracted here when omitted.
    """
    from babel.messages.pofile import read_po

    with po_path(lang).open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    problems: list[str] = []
    if template is None:
        template = extract_catalog()
    nplurals = catalog.num_plurals
    expected = int(re.search(r"nplurals=(\d+)", PLURAL_FORMS[lang]).group(1))  # type: ignore[union-attr]
    if nplurals != expected:
        problems.append(f"plural header: nplurals={nplurals}, expected {expected}")
    for msg in template:
        if not msg.id:
            continue
        found = catalog.get(msg.id, context=msg.context)
        key = f"{msg.context + '|' if msg.context else ''}{msg.id if isinstance(msg.id, str) else msg.id[0]}"
        if found is None:
            problems.append(f"missing: {key}")
            continue
        if found.fuzzy:
            problems.append(f"fuzzy: {key}")
        ids = list(msg.id) if isinstance(msg.id, tuple | list) else [msg.id]
        strings = list(found.string) if isinstance(found.string, tuple | list) else [found.string]
        if isinstance(msg.id, tuple | list) and len(strings) != nplurals:
            problems.append(f"plural forms: {key}: {len(strings)} != {nplurals}")
        if not all(strings):
            problems.append(f"empty: {key}")
            continue
        want = set().union(*(placeholders(str(i)) for i in ids))
        for s in (str(x) for x in strings):
            if placeholders(s) - want or (not isinstance(msg.id, tuple | list) and placeholders(s) != want):
                problems.append(f"placeholders: {key}: {sorted(placeholders(s))} vs {sorted(want)}")
                break
    return problems


_PLACEHOLDER = re.compile(r"(?<!\{)\{([a-zA-Z_][a-zA-Z0-9_]*)[^{}]*\}(?!\})")


def placeholders(text: str) -> set[str]:
    """The ``{names}`` a message uses."""
    return set(_PLACEHOLDER.findall(text))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    what = args[0] if args else "check"
    if what == "extract":
        print(write_pot())
        return 0
    if what == "update":
        update_catalogs()
        what = "check"
    if what == "check":
        bad = 0
        template = extract_catalog()
        for lang in LANGS:
            problems = missing_messages(lang, template)
            for p in problems:
                print(f"{lang}: {p}")
            bad += len(problems)
        print("catalogs complete" if not bad else f"{bad} problem(s)")
        return 1 if bad else 0
    print("usage: python -m server.start.catalogs [extract|update|check]", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

