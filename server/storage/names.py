"""Player names: what is allowed, when two names are the same, when they look the same.

* :func:`clean_name` turns what a person typed into the display form, or
  raises :class:`~server.storage.api.BadName`: Unicode NFKC, 2 to 20
  characters, letters and digits of any script plus ``_ - .``, starting with
  a letter; not a reserved word and not a bot seat's name, by look; no part of it
  looking like a staff role's word (:data:`STAFF`).
* :func:`name_key` is the identity of a name: two names with the same key are
  the same account (``Zoé`` and ``ZOÉ``).
* :func:`skeleton` is what a name looks like: two names with the same
  skeleton are confusable (``alice`` and ``ɑlice``, ``bob`` and ``b0b``,
  ``Iris`` and ``lris``, ``system`` and ``5ystem``) and cannot both exist.

The skeleton is the one of Unicode Technical Standard #39 (section 4,
"Confusable Detection"), computed from the Unicode Consortium's own
``confusables.txt`` shipped beside this module (:data:`CONFUSABLES_VERSION`),
followed by a few folds of our own, each documented at :func:`skeleton`:
case, accents, and the ASCII digits and letters that look alike in terminal
fonts (:data:`ASCII_FOLD`). Every check uses it: other players' names, the
reserved words and the bot seats.

Skeletons are stored with the accounts (a unique index among live ones): a
change to the table or the folds changes :data:`SKELETON_VERSION`, and stored
skeletons must then be computed again.

System accounts (the house bankroll ``bot:house``, bots ``bot:NAME``) have a
``:`` in their names, which no player name can contain, so they never collide
with a person.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from server.storage.api import BadName

MIN_LENGTH = 2
MAX_LENGTH = 20
PUNCTUATION = frozenset("_-.")
SYSTEM_MARK = ":"

# Words no person may take (compared by skeleton, so "H0use" and "ɑdmin" are refused too).
RESERVED = frozenset(
    {"admin", "administrator", "bot", "donne", "guest", "house", "root", "server", "system", "sysop"}
)

# Words of the staff's roles (in the three languages): no part of a name may look like one, so
# nobody passes for staff ("mоderator" with a Cyrillic о, "modérateur", "operat0r", "admin_2",
# "support.team"). A part is what lies between "_", "-" and "." with digits at its ends set
# aside; parts are compared by skeleton ("badminton" and "modest" are names like any other).
STAFF = frozenset({
    "admin", "administrator", "administrateur", "administratrice", "administrador", "administradora",
    "moderator", "moderateur", "moderatrice", "moderador", "moderadora", "mod", "modo", "mods",
    "operator", "operateur", "operatrice", "operador", "operadora", "sysop", "sysadmin", "root",
    "staff", "support", "soporte", "helpdesk", "owner", "official", "officiel", "oficial", "server",
    "serveur", "servidor", "system", "systeme", "sistema", "donne",
})

# The staff's titles that no other word begins or ends with: a name beginning or ending with one
# passes for staff too ("superadmin", "chief-moderator" is a part already). The operator's own
# words only begin a name ("cooperator" ends with one).
TITLES = frozenset({
    "admin", "administrator", "administrateur", "administratrice", "administrador", "administradora",
    "moderator", "moderateur", "moderatrice", "moderador", "moderadora", "sysop", "sysadmin",
})
TITLE_PREFIXES = frozenset({"operator", "operateur", "operatrice", "operador", "operadora"})

CONFUSABLES_FILE = Path(__file__).with_name("confusables.txt")
CONFUSABLES_VERSION = "13.0.0"
"""The version of Unicode's ``confusables.txt`` shipped (its ``# Version:`` line)."""

SKELETON_VERSION = 3
"""Bumped whenever :func:`skeleton` gives other results (1: the hand-made table before UTS #39;
2: ``6`` folded to ``b`` as well as ``8``, so that names differing by a 6 and an 8 clashed). A store
opened with skeletons of another version computes its live accounts' skeletons again."""

ASCII_FOLD = {
    "i": "l",  # 1, l, I and i: one stroke (UTS #39 already maps 1 and I to l)
    "2": "z",
    "5": "s",
    "8": "b",
    "9": "g",
}
"""Look-alikes UTS #39 leaves apart, applied last (so after its ``0`` → ``O`` and ``1`` → ``l``).

Names are case-insensitive, so a fold joins whole classes: ``8`` → ``b`` makes ``8``, ``B`` and
``b`` one; ``6`` is left alone, or ``s16`` and ``s18`` would be one name.

Its table compares single characters as a careful reader sees them; in a
terminal, at a glance, ``gue5ty1`` passes for ``guestyl``. ``w`` also becomes
``vv`` (UTS #39 maps ``m`` to ``rn`` but has no two-letter ``w``).
"""


@functools.cache
def confusables() -> dict[str, str]:
    """``confusables.txt`` as a mapping: one character -> its prototype (one or more characters)."""
    table: dict[str, str] = {}
    with CONFUSABLES_FILE.open(encoding="utf-8-sig") as fh:
        for line in fh:
            data = line.split("#", 1)[0].strip()
            if not data:
                continue
            source, target, kind = (field.strip() for field in data.split(";"))
            if kind != "MA":
                raise ValueError(f"{CONFUSABLES_FILE.name}: unexpected mapping type {kind!r}")
            table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def clean_name(raw: str, *, staff: bool = True) -> str:
    """The display form of a typed name, or :class:`BadName` saying why not. ``staff=False``: the
    name of an account that exists already, which may look like staff or be reserved words only
    (made before those rules)."""
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
    if not name[0].isalpha():
        raise BadName("a name starts with a letter")
    look = skeleton(name)
    if look in _RESERVED_SKELETONS or _BOT_SEAT.fullmatch(look) or (staff and looks_like_staff(name)):
        raise BadName("this name is reserved")
    if staff and only_reserved_words(name):
        raise BadName("this name is reserved")
    return name


def only_reserved_words(name: str) -> bool:
    """``name`` is reserved words and nothing else, once punctuation and the digits at the ends of
    its parts are set aside ("bot_house", "HouseBot", "guest-2", "r00t.server"): it would pass for
    the house, a bot or the server itself. Compared by skeleton, word by word."""
    cores = [part.strip("".join(ch for ch in set(part) if ch.isdigit()))
             for part in _PARTS.split(unicodedata.normalize("NFKC", name))]
    look = skeleton("".join(cores))
    if not look:
        return False
    ends = {0}  # where a run of reserved words read from the start may end
    for start in range(len(look)):
        if start in ends:
            ends.update(start + len(word) for word in _RESERVED_SKELETONS if look.startswith(word, start))
    return len(look) in ends


def looks_like_staff(name: str) -> bool:
    """A part of ``name`` (see :data:`STAFF`) looks like a word of the staff's roles, also in the
    plural ("admins", "modérateurs"), or begins or ends with a role's title (:data:`TITLES`:
    "superadmin", "moderatorbob")."""
    for part in _PARTS.split(unicodedata.normalize("NFKC", name)):
        core = part.strip("".join(ch for ch in set(part) if ch.isdigit()))
        if not core:
            continue
        look = skeleton(core.translate(_LEET))
        if look in _STAFF_SKELETONS or any(look.endswith(end) and look[:-len(end)] in _STAFF_SKELETONS
                                           and len(look) - len(end) >= least for end, least in _PLURALS):
            return True
        if any(look.startswith(title) or look.endswith(title) for title in _TITLE_SKELETONS):
            return True
        if any(look.startswith(title) for title in _TITLE_PREFIX_SKELETONS):
            return True
    return False


def name_key(name: str) -> str:
    """The identity of a name (NFKC, case-folded). System names (``bot:...``) are their own key."""
    if is_system_name(name):
        return name
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).strip().casefold())


def uts39_skeleton(text: str) -> str:
    """UTS #39 ``skeleton(X)``: NFD, each character replaced by its prototype, NFD again."""
    table = confusables()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in decomposed))


def skeleton(name: str) -> str:
    """What a name looks like: equal skeletons are confusable names. System names are their own.

    1. UTS #39 skeleton of the name as typed (``I`` -> ``l``, Greek ``Α`` -> ``A``...);
    2. case folded, the UTS #39 skeleton again (the small letters' look-alikes), case folded;
    3. accents and other combining marks dropped (``Zoé`` looks like ``Zoe``);
    4. :data:`ASCII_FOLD`, and ``w`` -> ``vv``.
    """
    if is_system_name(name):
        return name
    look = uts39_skeleton(uts39_skeleton(name).casefold()).casefold()
    look = "".join(ch for ch in look if not unicodedata.combining(ch))
    return "".join(ASCII_FOLD.get(ch, ch) for ch in look).replace("w", "vv")


def is_system_name(name: str) -> bool:
    """The house and bots: a ``:`` no player name can hold."""
    return SYSTEM_MARK in name


_RESERVED_SKELETONS = frozenset(skeleton(word) for word in RESERVED)
_STAFF_SKELETONS = frozenset(skeleton(word) for word in STAFF)
# plural endings, each with the shortest word it ends: "admins", "moderadores" ("modes" is a word)
_PLURALS = ((skeleton("s"), 2), (skeleton("es"), 5))
_TITLE_SKELETONS = frozenset(skeleton(word) for word in TITLES)
_TITLE_PREFIX_SKELETONS = frozenset(skeleton(word) for word in TITLE_PREFIXES)
_LEET = str.maketrans({"3": "e", "4": "a", "7": "t"})  # inside a word, for this check only ("st4ff", "op3rator")
_PARTS = re.compile("[" + re.escape("".join(sorted(PUNCTUATION))) + "]+")


def _bot_seat_pattern() -> re.Pattern[str]:
    """Rooms show bots as ``bot0``, ``bot1``...: no person may look like one of them."""
    digits = "".join(sorted({skeleton(d) for d in "0123456789"}))
    separators = "".join(sorted({skeleton(p) for p in PUNCTUATION}))
    return re.compile(re.escape(skeleton("bot")) + f"[{re.escape(separators)}]?[{re.escape(digits)}]+")


_BOT_SEAT = _bot_seat_pattern()
