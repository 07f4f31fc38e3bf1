"""Player names: what is allowed, when two names are the same, when they look the same.

* :func:`clean_name` turns what a person typed into the display form, or
  raises :class:`~server.storage.api.BadName`: Unicode NFKC, 2 to 20
  characters, letters and digits of any script plus ``_ - .``, starting with
  a letter or a digit.
* :func:`name_key` is the identity of a name: two names with the same key are
  the same account (``Zoé`` and ``ZOÉ``).
* :func:`skeleton` is what a name looks like: two names with the same
  skeleton are confusable (``alice`` and ``аlice`` with a Cyrillic ``а``,
  ``bob`` and ``b0b``, ``Iris`` and ``lris``) and cannot both exist.

System accounts (the house bankroll ``bot:house``, bots ``bot:NAME``) have a
``:`` in their names, which no player name can contain, so they never collide
with a person.
"""

from __future__ import annotations

import re
import unicodedata

from server.storage.api import BadName

MIN_LENGTH = 2
MAX_LENGTH = 20
PUNCTUATION = frozenset("_-.")
SYSTEM_MARK = ":"

# Words no person may take (compared by skeleton, so "H0use" is refused too).
RESERVED = frozenset(
    {"admin", "administrator", "bot", "donne", "guest", "house", "root", "server", "system", "sysop"}
)

# Capital letters that look like a different lower-case letter than their own
# (capital Greek eta looks like H, its lower case like n), mapped before case folding.
_UPPER_CONFUSABLES = {
    "I": "l",  # Latin capital I vs small l
    "Ι": "l",  # Greek capital iota
    "І": "l",  # Cyrillic capital byelorussian-ukrainian i
    "Ӏ": "l",  # Cyrillic palochka
    "Η": "h",  # Greek capital eta
    "Ν": "n",  # Greek capital nu
    "Ρ": "p",  # Greek capital rho
    "Τ": "t",  # Greek capital tau
    "Χ": "x",  # Greek capital chi
    "Υ": "y",  # Greek capital upsilon
    "Ζ": "z",  # Greek capital zeta
    "Κ": "k",  # Greek capital kappa
    "Μ": "m",  # Greek capital mu
    "Β": "b",  # Greek capital beta
    "Α": "a",  # Greek capital alpha
    "Ε": "e",  # Greek capital epsilon
    "Ο": "o",  # Greek capital omicron
    "В": "b",  # Cyrillic capital ve
    "Н": "h",  # Cyrillic capital en
    "М": "m",  # Cyrillic capital em
    "Т": "t",  # Cyrillic capital te
    "К": "k",  # Cyrillic capital ka
}

# Lower-case (after case folding) look-alikes of Latin letters, and digits.
_CONFUSABLES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ь": "b", "г": "r", "п": "n", "з": "3",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "μ": "u", "ς": "c", "σ": "o",
    # Latin look-alikes
    "ı": "i", "ȷ": "j", "ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ŀ": "l",
    # digits
    "0": "o", "1": "l", "|": "l",
}
_SEQUENCES = (("rn", "m"), ("vv", "w"))


def clean_name(raw: str) -> str:
    """The display form of a typed name, or :class:`BadName` saying why not."""
    if not isinstance(raw, str):
        raise BadName("a name is text")
    name = unicodedata.normalize("NFKC", raw).strip()
    if len(name) < MIN_LENGTH:
        raise BadName(f"a name has at least {MIN_LENGTH} characters")
    if len(name) > MAX_LENGTH:
        raise BadName(f"a name has at most {MAX_LENGTH} characters")
    for ch in name:
        if not (ch.isalnum() or ch in PUNCTUATION) or not ch.isprintable():
            raise BadName("a name has only letters, digits and _ - .")
    if not name[0].isalnum():
        raise BadName("a name starts with a letter or a digit")
    if skeleton(name) in _RESERVED_SKELETONS or _BOT_SEAT.fullmatch(name_key(name)):
        raise BadName("this name is reserved")
    return name


def name_key(name: str) -> str:
    """The identity of a name (NFKC, case-folded). System names (``bot:...``) are their own key."""
    if is_system_name(name):
        return name
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).strip().casefold())


def skeleton(name: str) -> str:
    """What a name looks like: equal skeletons are confusable names. System names are their own."""
    if is_system_name(name):
        return name
    decomposed = unicodedata.normalize("NFKD", name)
    base = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    base = "".join(_UPPER_CONFUSABLES.get(ch, ch) for ch in base)
    folded = unicodedata.normalize("NFKD", base.casefold())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    mapped = "".join(_CONFUSABLES.get(ch, ch) for ch in folded)
    for seq, repl in _SEQUENCES:
        mapped = mapped.replace(seq, repl)
    return mapped


def is_system_name(name: str) -> bool:
    """The house and bots: a ``:`` no player name can hold."""
    return SYSTEM_MARK in name


_RESERVED_SKELETONS = frozenset(skeleton(word) for word in RESERVED)
# Rooms show bots as "bot0", "bot1"...: no person may look like one of them.
_BOT_SEAT = re.compile(r"b[o0]t[-_.]?[0-9]+")
