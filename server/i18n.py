"""Languages, catalogs and the sentences people read: errors and game news.

Texts are translated when they are rendered, per session (STYLE rules 15–17):
the engine emits codes and events, and this module turns them into sentences in
the session's language. There is one :class:`gettext.GNUTranslations` per
language, compiled in memory from ``i18n/<lang>/LC_MESSAGES/donne.po`` with
Babel the first time it is needed (call :func:`load_translations` at start to
pay that once); ``.mo`` files are never committed. English is the language of
the msgids and the fallback. ``gettext.install()`` is never called.

Catalog maintenance (see ``docs/i18n.md``): ``python -m server.i18n update``
extracts every literal ``_()``, ``gettext``, ``ngettext``, ``pgettext`` and
``N_`` call under ``server/`` into ``i18n/donne.pot`` and merges it into the
three ``.po`` files; ``python -m server.i18n check`` lists what is missing.
"""

from __future__ import annotations

import gettext
import io
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from server.text.style import PLAIN, RED, TermStyle, paint

LANGS: tuple[str, ...] = ("fr", "es", "en")
"""Languages with a catalog; English is the source language and the fallback."""

DOMAIN = "donne"
CATALOG_DIR = Path(__file__).resolve().parent.parent / "i18n"
SOURCE_DIR = Path(__file__).resolve().parent

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


def translation(lang: str | None) -> gettext.NullTranslations:
    """The translations of ``lang`` (one shared object per language).

    An unknown language, or a missing catalog, gives the English source texts.
    """
    code = normalize_lang(lang) or "en"
    t = _translations.get(code)
    if t is None:
        try:
            t = compile_po(code)
        except FileNotFoundError:
            t = gettext.NullTranslations()
        _translations[code] = t
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


# --------------------------------------------------------------------------- cards and words

RANK_CODES = "3456789TJQKA2"
SUIT_CODES = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"

_rank_labels: dict[str, tuple[str, ...]] = {}


def rank_labels(lang: str) -> tuple[str, ...]:
    """Short rank labels in Président order (``3`` … ``2``), as printed on cards in ``lang``."""
    code = normalize_lang(lang) or "en"
    labels = _rank_labels.get(code)
    if labels is None:
        t = translation(code)
        labels = (
            "3",
            "4",
            "5",
            "6",
            "7",
            "8",
            "9",
            "10",
            # TRANSLATORS: the letter printed on a jack (fr V, es J).
            t.pgettext("rank", "J"),
            # TRANSLATORS: the letter printed on a queen (fr D, es Q).
            t.pgettext("rank", "Q"),
            # TRANSLATORS: the letter printed on a king (fr R, es K).
            t.pgettext("rank", "K"),
            # TRANSLATORS: the letter printed on an ace.
            t.pgettext("rank", "A"),
            "2",
        )
        _rank_labels[code] = labels
    return labels


def rank_label(lang: str, rank: str | int) -> str:
    """The short label of a rank given as a code (``"T"``, ``"Q"``), an index or ``"10"``."""
    if isinstance(rank, int):
        return rank_labels(lang)[rank]
    r = str(rank).strip().upper()
    if r == "10":
        r = "T"
    i = RANK_CODES.find(r) if len(r) == 1 else -1
    return rank_labels(lang)[i] if i >= 0 else str(rank)


def rank_name(lang: str, rank: str | int) -> str:
    """The word for a rank (``dame``, ``jota``, ``ace``; digits stay digits)."""
    i = rank if isinstance(rank, int) else RANK_CODES.find("T" if str(rank) == "10" else str(rank).upper()[:1])
    t = translation(lang)
    if i == RANK_CODES.index("J"):
        return t.pgettext("rank name", "jack")
    if i == RANK_CODES.index("Q"):
        return t.pgettext("rank name", "queen")
    if i == RANK_CODES.index("K"):
        return t.pgettext("rank name", "king")
    if i == RANK_CODES.index("A"):
        return t.pgettext("rank name", "ace")
    return rank_label(lang, i) if i >= 0 else str(rank)


def suit_name(lang: str, suit: str) -> str:
    """The word for a suit given as its letter (``h`` → cœur / corazones / hearts)."""
    t = translation(lang)
    s = suit.lower()[:1]
    if s == "c":
        return t.pgettext("suit", "clubs")
    if s == "d":
        return t.pgettext("suit", "diamonds")
    if s == "h":
        return t.pgettext("suit", "hearts")
    if s == "s":
        return t.pgettext("suit", "spades")
    return suit


def card_label(code: str, lang: str, style: TermStyle = PLAIN) -> str:
    """How a card looks: ``D♥`` (fr), ``Q♥`` (en), red when colour is on; ``Dh`` in ASCII."""
    if len(code) != 2:
        return code
    rank = rank_label(lang, code[0])
    suit = code[1].lower()
    i = SUIT_CODES.find(suit)
    if i < 0:
        return code
    if style.unicode:
        text = rank + SUIT_SYMBOLS[i]
    else:
        text = rank + suit
    if suit in "dh":
        text = paint(text, RED, style)
    return text


def cards_label(codes: Sequence[str], lang: str, style: TermStyle = PLAIN, sep: str = " ") -> str:
    return sep.join(card_label(c, lang, style) for c in codes)


def ordinal(lang: str, n: int) -> str:
    """``1er``/``2e`` (fr), ``1.º`` (es), ``1st``/``2nd`` (en)."""
    code = normalize_lang(lang) or "en"
    if code == "fr":
        return "1er" if n == 1 else f"{n}e"
    if code == "es":
        return f"{n}.º"
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def join_names(lang: str, items: Sequence[str]) -> str:
    """``a, b and c`` in the language."""
    items = list(items)
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    t = translation(lang)
    # TRANSLATORS: joins the last two items of a list: "Ana, Bob and Carl".
    return t.gettext("{items} and {last}").format(items=", ".join(items[:-1]), last=items[-1])


TITLES = ("president", "vice_president", "neutral", "vice_last", "last")


def title_name(lang: str, title: str | None) -> str:
    """A Président title in ``lang`` (``last`` → Trou du cul / Culo / Scum)."""
    t = translation(lang)
    if title == "president":
        return t.pgettext("title", "President")
    if title == "vice_president":
        return t.pgettext("title", "Vice-President")
    if title == "neutral":
        return t.pgettext("title", "Neutral")
    if title == "vice_last":
        return t.pgettext("title", "Vice-Scum")
    if title == "last":
        return t.pgettext("title", "Scum")
    return ""


def game_name(lang: str, game: str | None) -> str:
    t = translation(lang)
    if game == "president":
        return t.pgettext("game", "Président")
    if game == "speculation":
        return t.pgettext("game", "Speculation")
    return game or ""


def rules_name(lang: str, rules: str | None) -> str:
    t = translation(lang)
    if rules == "classic":
        return t.pgettext("rules", "classic")
    if rules == "tdc":
        # TRANSLATORS: the Président table rules with cut, revolution and money (seed 004).
        return t.pgettext("rules", "trou du cul")
    return rules or ""


def order_name(lang: str, order: str | None) -> str:
    t = translation(lang)
    if order == "reversed":
        return t.pgettext("order", "reversed")
    return t.pgettext("order", "normal")


# --------------------------------------------------------------------------- errors


def _cards_param(value: Any, lang: str, style: TermStyle) -> str:
    if isinstance(value, str):
        return cards_label(value.split(), lang, style)
    if isinstance(value, Sequence):
        return cards_label([str(v) for v in value], lang, style)
    return str(value)


def _plays_param(value: Any, lang: str, style: TermStyle, limit: int = 4) -> str:
    plays = [p for p in value if p] if isinstance(value, Sequence) and not isinstance(value, str) else []
    shown = [_cards_param(p, lang, style) for p in plays[:limit]]
    text = " / ".join(shown)
    if len(plays) > limit:
        text += " / …"
    return text


def error_message(lang: str, code: str, style: TermStyle = PLAIN, **params: Any) -> str:
    """A sentence telling what went wrong, and what would be legal when ``params`` say so.

    ``code`` is a protocol error code; ``params`` may hold ``reason`` (the engine's refusal
    detail: ``too_weak``, ``must_follow_count``, ``ca_ou_rien``, ``must_lead``,
    ``not_in_hand``, ``mixed_ranks``, ``bid_too_low``…) and the facts to cite
    (``count``, ``rank``, ``cards``, ``legal`` (plays as lists of card codes), ``min``,
    ``max``, ``need``, ``have``, ``name``, ``room``, ``cmd``, ``suggestion``…).
    Unknown codes or missing facts give a shorter, still true, sentence.
    """
    t = translation(lang)
    p = dict(params)
    detail = p.pop("detail", None)
    reason = p.pop("reason", None) or _DETAIL_REASONS.get(str(detail))
    if code == "insufficient_chips" and "have" not in p and isinstance(p.get("chips"), int):
        p["have"] = p["chips"]
    if code == "illegal_play" and reason is None and isinstance(p.get("min"), int):
        reason = "bid_too_low"
    text = _reason_text(t, lang, code, reason, p, style) or _code_text(t, lang, code, p, style)
    extra = _legal_suffix(t, lang, code, p, style)
    return f"{text} {extra}".strip() if extra else text


_DETAIL_REASONS = {
    # Refusals of the Speculation engine carry English details and no reason code:
    # the detail only picks the sentence, it is never shown.
    "no deal in progress": "no_deal",
    "no auction": "no_auction",
    "not playing this deal": "sitting_out",
    "the owner does not bid": "own_auction",
    "a bid beats the best bid by at least 1 chip": "bid_too_low",
    "only the owner sells or keeps": "not_owner",
    "no bid to sell to": "no_bid",
    "no such offer": "no_such_offer",
    "only the buyer withdraws an offer": "not_buyer",
    "only the seller accepts or declines an offer": "not_party",
    "no trade while an auction is open (S12c)": "auction_open",
    "no offer while an auction is open (S12c)": "auction_open",
    "offers go to another player of this deal": "bad_target",
    "that many face-down cards are not there": "bad_count",
    "a price is at least 1 chip": "price_too_low",
    "the match is over": "match_over",
    "no such seat": "no_such_seat",
}


def _has(p: Mapping[str, Any], *keys: str) -> bool:
    return all(p.get(k) is not None and p.get(k) != "" for k in keys)


def _code_text(t: gettext.NullTranslations, lang: str, code: str, p: dict[str, Any], style: TermStyle) -> str:
    if code == "bad_json":
        return t.gettext("That line is not a JSON object.")
    if code == "unknown_command":
        if _has(p, "cmd", "suggestion"):
            return t.gettext("Unknown command “{cmd}”. Did you mean “{suggestion}”?").format(
                cmd=p["cmd"], suggestion=p["suggestion"]
            )
        if _has(p, "cmd"):
            return t.gettext("Unknown command “{cmd}”. Type help to see what you can do.").format(cmd=p["cmd"])
        return t.gettext("Unknown command. Type help to see what you can do.")
    if code == "bad_argument":
        if _has(p, "value", "expected"):
            return t.gettext("“{value}” is not understood here; expected: {expected}.").format(
                value=p["value"], expected=p["expected"]
            )
        if _has(p, "value", "suggestion"):
            return t.gettext("“{value}” is not understood. Did you mean “{suggestion}”?").format(
                value=p["value"], suggestion=p["suggestion"]
            )
        if _has(p, "value"):
            return t.gettext("“{value}” is not understood here.").format(value=p["value"])
        if _has(p, "arg"):
            specific = _argument_text(t, str(p["arg"]))
            if specific:
                return specific
            return t.gettext("Missing or wrong value for “{arg}”.").format(arg=_argument_name(t, str(p["arg"])))
        return t.gettext("Missing or wrong argument.")
    if code == "not_logged_in":
        return t.gettext("Log in first: login NAME (or register NAME).")
    if code == "already_logged_in":
        return t.gettext("You are already logged in.")
    if code == "no_such_room":
        if _has(p, "room"):
            return t.gettext("There is no room {room}. Type rooms to see the open rooms.").format(room=p["room"])
        return t.gettext("There is no such room. Type rooms to see the open rooms.")
    if code == "room_full":
        if _has(p, "room"):
            return t.gettext("Room {room} is full; you can watch it: watch {room}.").format(room=p["room"])
        return t.gettext("That room is full; you can still watch it.")
    if code == "not_in_room":
        return t.gettext("You are not at a table. Type rooms, then join a room or create one.")
    if code == "already_in_room":
        if _has(p, "room"):
            return t.gettext("You are already in room {room}; leave it first.").format(room=p["room"])
        return t.gettext("You are already in a room; leave it first.")
    if code == "not_your_turn":
        if _has(p, "name"):
            return t.gettext("It is not your turn: {name} is to play.").format(name=p["name"])
        return t.gettext("It is not your turn.")
    if code == "illegal_play":
        return t.gettext("The rules do not allow that.")
    if code == "not_allowed":
        return t.gettext("You cannot do that now.")
    if code == "insufficient_chips":
        if _has(p, "need", "have"):
            need, have = int(p["need"]), int(p["have"])
            return t.ngettext(
                "Not enough chips: this needs {need} chip and you have {have}.",
                "Not enough chips: this needs {need} chips and you have {have}.",
                need,
            ).format(need=need, have=have)
        if _has(p, "have"):
            have = int(p["have"])
            return t.ngettext(
                "Not enough chips: you have only {have} chip.",
                "Not enough chips: you have only {have} chips.",
                have,
            ).format(have=have)
        return t.gettext("You do not have enough chips for that.")
    if code == "rate_limited":
        return t.gettext("Too many commands at once: wait a moment.")
    if code == "name_taken":
        if _has(p, "name"):
            return t.gettext("The name {name} is taken; choose another one.").format(name=p["name"])
        return t.gettext("That name is taken; choose another one.")
    if code == "bad_name":
        if _has(p, "max"):
            return t.gettext(
                "A name has 2 to {max} characters: letters, digits, “-”, “_” or “.”; it starts with "
                "a letter and does not look like a reserved name (admin, bot1…)."
            ).format(max=p["max"])
        return t.gettext(
            "A name has letters, digits, “-”, “_” or “.”; it starts with a letter and does not "
            "look like a reserved name (admin, bot1…)."
        )
    if code == "bad_password":
        return t.gettext("Wrong name or password.")
    if code == "weak_password":
        if _has(p, "min"):
            return t.gettext("A password needs at least {min} characters.").format(min=p["min"])
        return t.gettext("That password is too short.")
    if code == "account_needed":
        return t.gettext("This needs an account: register NAME first.")
    if code == "no_such_player":
        if _has(p, "name"):
            return t.gettext("There is nobody called {name} here.").format(name=p["name"])
        return t.gettext("There is nobody by that name here.")
    if code == "no_such_offer":
        if _has(p, "offer"):
            return t.gettext("There is no open offer #{offer}.").format(offer=p["offer"])
        return t.gettext("There is no such open offer.")
    if code == "bad_lang":
        return t.gettext("Languages: fr (français), es (español), en (English).")
    if code == "line_too_long":
        if _has(p, "limit") and not _has(p, "max"):
            p["max"] = p["limit"]
        if _has(p, "max"):
            return t.gettext("That line is too long (at most {max} characters).").format(max=p["max"])
        return t.gettext("That line is too long.")
    if code == "too_many_rooms":
        return t.gettext("The server has too many rooms open; join one of them or try later.")
    if code == "match_over":
        return t.gettext("This match is over.")
    if code == "spectator":
        return t.gettext("You are watching this table; join a free seat to play.")
    if code == "shutting_down":
        return t.gettext("The server is shutting down; no new games now.")
    if code == "internal_error":
        return t.gettext("Something went wrong on the server; nothing was changed.")
    # TRANSLATORS: the last resort for an error code without a sentence of its own.
    return t.gettext("Refused ({code}).").format(code=code)


def _argument_text(t: gettext.NullTranslations, arg: str) -> str | None:
    """What a command argument must be, for the arguments people get wrong."""
    if arg == "seats":
        return t.gettext("Président is played by 3 to 8 players, Speculation by 3 to 9.")
    if arg == "bots":
        return t.gettext("Bots: from 0 to one less than the number of seats.")
    if arg == "turn_seconds":
        return t.gettext("Time per decision: 1 to 600 seconds.")
    if arg == "stake":
        return t.gettext("The stake is an even number of chips.")
    if arg == "bot_level":
        return t.gettext("Bot levels: easy, normal, hard.")
    if arg == "rules":
        return t.gettext("The Président rules are classic or tdc.")
    if arg == "game":
        return t.gettext("Games: president, speculation.")
    if arg in ("password", "new"):
        return t.gettext("The two passwords differ, or the password is empty.")
    if arg == "text":
        return t.gettext("Say something after the command.")
    if arg == "on":
        return t.gettext("Say on or off.")
    if arg == "width":
        return t.gettext("A width is a number of columns from 20 to 400.")
    if arg == "lang":
        return t.gettext("Languages: fr (français), es (español), en (English).")
    return None


def _argument_name(t: gettext.NullTranslations, arg: str) -> str:
    """An argument's name in the language (the protocol's name when it has no word)."""
    names = {
        "name": t.pgettext("argument", "name"),
        "room": t.pgettext("argument", "room"),
        "key": t.pgettext("argument", "key"),
        "old": t.pgettext("argument", "old password"),
        "seat": t.pgettext("argument", "seat"),
        "ante": t.pgettext("argument", "ante"),
        "rounds": t.pgettext("argument", "rounds"),
        "limit": t.pgettext("argument", "count"),
        "width": t.pgettext("argument", "width"),
        "amount": t.pgettext("argument", "amount"),
        "price": t.pgettext("argument", "price"),
        "cards": t.pgettext("argument", "cards"),
        "offer": t.pgettext("argument", "offer"),
        "to": t.pgettext("argument", "player"),
    }
    return names.get(arg, arg)


def _reason_text(
    t: gettext.NullTranslations, lang: str, code: str, reason: str | None, p: dict[str, Any], style: TermStyle
) -> str | None:
    if not reason:
        return None
    rank = rank_label(lang, p["rank"]) if _has(p, "rank") else None
    if reason == "must_lead":
        return t.gettext("You lead this trick: you must play, you cannot pass.")
    if reason == "must_follow_count":
        if _has(p, "count"):
            n = int(p["count"])
            return t.ngettext(
                "Play {count} card, like the top of the trick, or pass.",
                "Play {count} cards, like the top of the trick, or pass.",
                n,
            ).format(count=n)
        return t.gettext("Play as many cards as the top of the trick, or pass.")
    if reason == "too_weak":
        if rank:
            return t.gettext("Too weak: play {rank} or stronger, or pass.").format(rank=rank)
        return t.gettext("Too weak: play as strong as the top of the trick or stronger, or pass.")
    if reason == "ca_ou_rien":
        if rank:
            return t.gettext("“That or nothing”: play {rank} or pass.").format(rank=rank)
        return t.gettext("“That or nothing”: play the same rank again or pass.")
    if reason == "not_in_hand":
        if _has(p, "cards"):
            return t.gettext("You do not hold {cards}.").format(cards=_cards_param(p["cards"], lang, style))
        return t.gettext("You do not hold those cards.")
    if reason == "not_enough":
        if rank and _has(p, "have"):
            have = int(p["have"])
            return t.ngettext(
                "You hold only {have} card of rank {rank}.",
                "You hold only {have} cards of rank {rank}.",
                have,
            ).format(have=have, rank=rank)
        return t.gettext("You do not hold that many cards of that rank.")
    if reason == "mixed_ranks":
        return t.gettext("All the cards of a play must have the same rank.")
    if reason in ("empty", "no_cards"):
        return t.gettext("Say which cards, for example: 7 7.")
    if reason in ("too_many", "count"):
        return t.gettext("A play has 1 to 4 cards of one rank.")
    if reason == "duplicate":
        return t.gettext("The same card is named twice.")
    if reason == "no_cut":
        return t.gettext("There is no cut at this table (classic rules).")
    if reason == "cannot_cut" and rank and _has(p, "count"):
        n = int(p["count"])
        return t.ngettext(
            "No cut for you: it takes the last card of rank {rank}, and you do not hold it.",
            "No cut for you: it takes the {count} remaining cards of rank {rank}, and you do not hold them all.",
            n,
        ).format(count=n, rank=rank)
    if reason == "cannot_cut":
        return t.gettext(
            "No cut possible now: a cut plays the remaining cards of the rank of a single or a pair on top of the trick."
        )
    if reason == "cut_cards":
        if rank and _has(p, "count"):
            n = int(p["count"])
            return t.ngettext(
                "A cut here is the {count} remaining card of rank {rank}.",
                "A cut here is the {count} remaining cards of rank {rank}.",
                n,
            ).format(count=n, rank=rank)
        return t.gettext("A cut plays all the remaining cards of the rank on top of the trick.")
    if reason == "not_awaited":
        return t.gettext("Nothing is expected from you now.")
    if reason == "phase":
        return t.gettext("Not now: wait for the round to be under way.")
    if reason == "cards":
        return t.gettext("Cards are written like 7h, Th, Qs (rank then suit c, d, h, s).")
    if reason in ("too_few_players", "not_enough_players"):
        return t.gettext("Not enough players for a round.")
    if reason == "no_dealer":
        return t.gettext("Nobody can pay the dealer's double ante: no deal.")
    if reason == "deal_in_progress":
        return t.gettext("A deal is in progress.")
    if reason == "stake":
        return t.gettext("The stake is an even number of chips.")
    if reason == "seats":
        return t.gettext("Président is played by 3 to 8 players, Speculation by 3 to 9.")
    if reason == "rounds":
        return t.gettext("The number of rounds is a positive number.")
    if reason == "rules":
        return t.gettext("The Président rules are classic or tdc.")
    if reason == "fixed_seats":
        return t.gettext("The seats of a classic table are fixed for the whole match.")
    if reason == "passive":
        return t.gettext("You let your time run out: you are passive until the end of the round.")
    if reason == "give_count":
        if _has(p, "count"):
            n = int(p["count"])
            return t.ngettext("Give exactly {count} card.", "Give exactly {count} cards.", n).format(count=n)
        return t.gettext("Give the number of cards the exchange asks for.")
    if reason in ("no_exchange", "no_give"):
        return t.gettext("You have no cards to give now.")
    if reason == "no_cards_to_turn":
        return t.gettext("You have no face-down card left to turn.")
    if reason == "holder_turns_not":
        return t.gettext("You hold the best trump: you do not turn.")
    if reason == "auction_open":
        return t.gettext("Wait: an auction is open. Bid, or let it close first.")
    if reason == "no_auction":
        return t.gettext("No auction is open.")
    if reason == "own_auction":
        return t.gettext("You cannot bid on your own card: sell or keep it.")
    if reason == "not_owner":
        return t.gettext("Only the owner of the card on sale can sell or keep it.")
    if reason == "no_bid":
        return t.gettext("Nobody has bid yet: you can only keep the card.")
    if reason == "bid_too_low":
        if _has(p, "min"):
            n = int(p["min"])
            return t.ngettext("Bid at least {min} chip.", "Bid at least {min} chips.", n).format(min=n)
        return t.gettext("Bid more than the best bid.")
    if reason in ("bid_over_chips", "price_over_chips"):
        if _has(p, "max"):
            n = int(p["max"])
            return t.ngettext(
                "You can offer at most {max} chip.", "You can offer at most {max} chips.", n
            ).format(max=n)
        return t.gettext("You cannot offer more chips than you have.")
    if reason == "price_too_low":
        return t.gettext("A price is at least 1 chip.")
    if reason == "bad_count":
        if _has(p, "max"):
            n = int(p["max"])
            return t.ngettext(
                "That player has {max} face-down card: ask for 1 to {max}.",
                "That player has {max} face-down cards: ask for 1 to {max}.",
                n,
            ).format(max=n)
        return t.gettext("Ask for at least one of that player's face-down cards.")
    if reason == "no_deal":
        return t.gettext("No deal is being played now.")
    if reason == "no_such_offer":
        if _has(p, "offer"):
            return t.gettext("There is no open offer #{offer}.").format(offer=p["offer"])
        return t.gettext("There is no such open offer.")
    if reason == "bad_target":
        return t.gettext("Offers go to another player of this deal.")
    if reason == "match_over":
        return t.gettext("This match is over.")
    if reason in ("no_such_seat", "seat"):
        return t.gettext("There is no such seat at this table.")
    if reason == "self_offer":
        return t.gettext("You cannot trade with yourself.")
    if reason == "not_party":
        return t.gettext("That offer is not yours to answer.")
    if reason == "not_buyer":
        return t.gettext("Only the player who made the offer can withdraw it.")
    if reason == "sitting_out":
        return t.gettext("You sit this deal out.")
    if reason == "no_trading":
        return t.gettext("Trading is only possible while cards are being turned.")
    return None


def _legal_suffix(t: gettext.NullTranslations, lang: str, code: str, p: dict[str, Any], style: TermStyle) -> str:
    if "legal" not in p:
        return ""
    legal = p["legal"]
    if isinstance(legal, Sequence) and not isinstance(legal, str):
        plays = [x for x in legal if x]
        if not plays:
            return t.gettext("You can only pass.")
        return t.gettext("You can play: {plays}.").format(plays=_plays_param(plays, lang, style))
    return ""


# --------------------------------------------------------------------------- events


def _name(names: Sequence[str], seat: Any, lang: str) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    if isinstance(seat, int):
        return translation(lang).gettext("seat {seat}").format(seat=seat)
    return str(seat) if seat is not None else "?"


def event_text(
    lang: str,
    event: Mapping[str, Any],
    names: Sequence[str],
    you: int | None,
    style: TermStyle = PLAIN,
) -> str:
    """One sentence telling ``event`` (a protocol event dict) as seat ``you`` sees it.

    ``names[seat]`` are the players' names; ``you`` is the reader's seat (``None``:
    spectator). Sentences speak to the reader ("You play 7♣") about their own moves.
    """
    t = translation(lang)
    name = event.get("event", "")
    fn = _EVENTS.get(name)
    if fn is not None:
        text = fn(t, lang, event, names, you, style)
        if text:
            return text
    return t.gettext("Event: {event}.").format(event=name)


_T = gettext.NullTranslations
_EventFn = Callable[
    [gettext.NullTranslations, str, Mapping[str, Any], Sequence[str], "int | None", TermStyle], "str | None"
]
_EVENTS: dict[str, _EventFn] = {}


def _event(*names: str) -> Callable[[_EventFn], _EventFn]:
    def register(fn: _EventFn) -> _EventFn:
        for n in names:
            _EVENTS[n] = fn
        return fn

    return register


def _seat(e: Mapping[str, Any], *keys: str) -> Any:
    for k in keys:
        if k in e and e[k] is not None:
            return e[k]
    return None


def _cards(e: Mapping[str, Any], lang: str, style: TermStyle, key: str = "cards") -> str:
    return _cards_param(e.get(key) or [], lang, style)


@_event("dealt")
def _ev_dealt(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    rnd = e.get("round")
    if "players" in e or "facedown" in e:  # Speculation (S4)
        dealer = _seat(e, "dealer")
        if rnd is not None and you is not None and dealer == you:
            return t.gettext("Deal {round}: you deal three face-down cards to each player.").format(round=rnd)
        if rnd is not None and dealer is not None:
            return t.gettext("Deal {round}: {dealer} deals three face-down cards to each player.").format(
                round=rnd, dealer=_name(names, dealer, lang)
            )
        return t.gettext("New deal: three face-down cards to each player.")
    hands = e.get("hands")
    if isinstance(hands, Sequence) and you is not None and you < len(hands) and hands[you] is not None:
        e = {**e, "hand": hands[you]}
    hand = e.get("hand")
    if hand and you is not None:
        n = len(hand)
        if rnd is not None:
            return t.ngettext(
                "Round {round}: you are dealt {count} card.",
                "Round {round}: you are dealt {count} cards.",
                n,
            ).format(round=rnd, count=n)
        return t.ngettext("You are dealt {count} card.", "You are dealt {count} cards.", n).format(count=n)
    if rnd is not None:
        return t.gettext("Round {round}: the cards are dealt.").format(round=rnd)
    return t.gettext("The cards are dealt.")


@_event("exchange")
def _ev_exchange(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    giver, taker = _seat(e, "from"), _seat(e, "to")
    cards = e.get("cards")
    if cards:
        shown = _cards_param(cards, lang, style)
        if you is not None and giver == you:
            return t.gettext("You give {cards} to {name}.").format(cards=shown, name=_name(names, taker, lang))
        if you is not None and taker == you:
            return t.gettext("{name} gives you {cards}.").format(cards=shown, name=_name(names, giver, lang))
        return t.gettext("{giver} gives {cards} to {taker}.").format(
            giver=_name(names, giver, lang), taker=_name(names, taker, lang), cards=shown
        )
    n = int(e.get("count") or 0)
    return t.ngettext(
        "{giver} gives {count} card to {taker}.", "{giver} gives {count} cards to {taker}.", n
    ).format(giver=_name(names, giver, lang), taker=_name(names, taker, lang), count=n)


@_event("played")
def _ev_played(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat")
    cards = _cards(e, lang, style)
    if you is not None and seat == you:
        text = t.gettext("You play {cards}.").format(cards=cards)
    else:
        text = t.gettext("{name} plays {cards}.").format(name=_name(names, seat, lang), cards=cards)
    if e.get("ca_ou_rien") or e.get("that_or_nothing"):
        text += " " + t.gettext("That or nothing!")
    return text


@_event("passed")
def _ev_passed(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat")
    if you is not None and seat == you:
        return t.gettext("You pass.")
    return t.gettext("{name} passes.").format(name=_name(names, seat, lang))


@_event("cut")
def _ev_cut(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat")
    cards = _cards(e, lang, style)
    if you is not None and seat == you:
        return t.gettext("You cut with {cards}! The trick is yours.").format(cards=cards)
    return t.gettext("{name} cuts with {cards}!").format(name=_name(names, seat, lang), cards=cards)


@_event("trick_closed")
def _ev_trick_closed(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    leader = _seat(e, "leader", "next", "lead")
    if leader is None:
        return t.gettext("The trick is closed.")
    if you is not None and leader == you:
        return t.gettext("The trick is closed; you lead.")
    return t.gettext("The trick is closed; {name} leads.").format(name=_name(names, leader, lang))


@_event("out")
def _ev_out(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat")
    place = e.get("place")
    mine = you is not None and seat == you
    if e.get("forbidden"):
        if mine:
            return t.gettext("You went out on a forbidden last card: you will rank at the bottom.")
        return t.gettext("{name} went out on a forbidden last card and will rank at the bottom.").format(
            name=_name(names, seat, lang)
        )
    if place is None:
        if mine:
            return t.gettext("You have no cards left.")
        return t.gettext("{name} has no cards left.").format(name=_name(names, seat, lang))
    if mine:
        return t.gettext("You are out, {place}.").format(place=ordinal(lang, int(place)))
    return t.gettext("{name} is out, {place}.").format(name=_name(names, seat, lang), place=ordinal(lang, int(place)))


@_event("revolution")
def _ev_revolution(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat")
    if e.get("order", "reversed") == "reversed":
        return t.gettext("Revolution by {name}! The order is reversed: 3 is now the strongest.").format(
            name=_name(names, seat, lang) if seat is not None else "?"
        )
    return t.gettext("Another revolution by {name}: the order is back to normal.").format(
        name=_name(names, seat, lang) if seat is not None else "?"
    )


@_event("timeout")
def _ev_timeout(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat")
    kind = e.get("kind") or e.get("what")
    mine = you is not None and seat == you
    who = _name(names, seat, lang)
    if kind in ("auction",):
        return t.gettext("Time is up for the auction.")
    if kind in ("turn_card", "flip", "turned"):
        if mine:
            return t.gettext("Time is up: your top card is turned for you.")
        return t.gettext("Time is up: {name}'s top card is turned.").format(name=who)
    if kind == "give":
        if mine:
            return t.gettext("Time is up: your weakest cards are given.")
        return t.gettext("Time is up: {name}'s weakest cards are given.").format(name=who)
    # The move made for the player (a pass, or the weakest card when leading) follows as its own event.
    if e.get("passive"):
        if mine:
            return t.gettext("Time is up: you are passive until the end of the round (T14).")
        return t.gettext("Time is up for {name}, passive until the end of the round.").format(name=who)
    if mine:
        return t.gettext("Time is up: the server moves for you.")
    return t.gettext("Time is up for {name}.").format(name=who)


def _ranking_text(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None) -> str:
    ranking = e.get("ranking") or []
    titles = e.get("titles") or []
    items = []
    for pos, seat in enumerate(ranking, 1):
        title = titles[seat] if isinstance(titles, Sequence) and seat < len(titles) else None
        label = _name(names, seat, lang)
        if title and title != "neutral":
            label = t.gettext("{name} ({title})").format(name=label, title=title_name(lang, title))
        items.append(f"{pos}.\u00a0{label}")
    return ", ".join(items)


@_event("round_over")
def _ev_round_over(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    rnd = e.get("round")
    ranking = _ranking_text(t, lang, e, names, you)
    if rnd is not None and ranking:
        text = t.gettext("Round {round} over: {ranking}.").format(round=rnd, ranking=ranking)
    elif ranking:
        text = t.gettext("Round over: {ranking}.").format(ranking=ranking)
    else:
        text = t.gettext("Round over.")
    chips = e.get("chips")
    if you is not None and isinstance(chips, Sequence) and you < len(chips) and chips[you] is not None:
        delta = int(chips[you])
        if delta > 0:
            text += " " + t.ngettext("You win {n} chip.", "You win {n} chips.", delta).format(n=delta)
        elif delta < 0:
            text += " " + t.ngettext("You lose {n} chip.", "You lose {n} chips.", -delta).format(n=-delta)
        else:
            text += " " + t.gettext("You break even.")
    scores = e.get("scores")
    if you is not None and chips is None and isinstance(scores, Sequence) and you < len(scores):
        n = int(scores[you] or 0)
        text += " " + t.ngettext("You score {n} point.", "You score {n} points.", n).format(n=n)
    return text


@_event("match_over")
def _ev_match_over(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    winners = list(e.get("winners") or [])
    totals = e.get("totals") or []
    if not winners:
        return t.gettext("The match is over.")
    if you is not None and you in winners and len(winners) == 1:
        return t.gettext("The match is over: you win!")
    if you is not None and you in winners:
        return t.gettext("The match is over: you share the win with {names}.").format(
            names=join_names(lang, [_name(names, s, lang) for s in winners if s != you])
        )
    who = join_names(lang, [_name(names, s, lang) for s in winners])
    best = totals[winners[0]] if isinstance(totals, Sequence) and winners[0] < len(totals) else None
    changes = e.get("changes")
    if isinstance(changes, Sequence) and winners[0] < len(changes):
        n = int(changes[winners[0]])
        gain = t.ngettext("{n:+d} chip", "{n:+d} chips", abs(n)).format(n=n)
        return t.ngettext(
            "The match is over. Winner: {names} ({chips}).",
            "The match is over. Winners: {names} ({chips} each).",
            len(winners),
        ).format(names=who, chips=gain)
    if best is not None:
        n = int(best)
        if len(winners) > 1:
            return t.ngettext(
                "The match is over. Winners: {names} ({n} point each).",
                "The match is over. Winners: {names} ({n} points each).",
                n,
            ).format(names=who, n=n)
        return t.ngettext(
            "The match is over. Winner: {names} ({n} point).",
            "The match is over. Winner: {names} ({n} points).",
            n,
        ).format(names=who, n=n)
    return t.ngettext(
        "The match is over. Winner: {names}.", "The match is over. Winners: {names}.", len(winners)
    ).format(names=who)


# -- Speculation


@_event("trump")
def _ev_trump(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    card = str(e.get("card", ""))
    suit = suit_name(lang, e.get("suit") or card[1:2])
    shown = card_label(card, lang, style)
    if you is not None and e.get("seat") == you:
        return t.gettext("You turn up {card}: {suit} are trumps, and the card is yours.").format(card=shown, suit=suit)
    return t.gettext("{name} turns up {card}: {suit} are trumps.").format(
        name=_name(names, e.get("seat"), lang), card=shown, suit=suit
    )


@_event("deal_over")
def _ev_deal_over(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    text = t.gettext("Deal {round} is over.").format(round=e.get("round"))
    chips = e.get("chips")
    if you is not None and isinstance(chips, Sequence) and you < len(chips):
        n = int(chips[you])
        text += " " + t.ngettext("You have {n} chip.", "You have {n} chips.", n).format(n=n)
    return text


@_event("ante")
def _ev_ante(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    pool = int(e.get("pool") or 0)
    text = t.ngettext("Antes are in: the pool holds {n} chip.", "Antes are in: the pool holds {n} chips.", pool).format(
        n=pool
    )
    for p in e.get("payments") or []:
        if you is not None and p.get("seat") == you:
            n = int(p.get("amount") or 0)
            text += " " + t.ngettext("You paid {n} chip.", "You paid {n} chips.", n).format(n=n)
    return text


@_event("turned")
def _ev_turned(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat")
    card = card_label(str(e.get("card", "")), lang, style)
    mine = you is not None and seat == you
    if e.get("best"):
        if mine:
            return t.gettext("You turn {card}: the new best trump!").format(card=card)
        return t.gettext("{name} turns {card}: the new best trump!").format(name=_name(names, seat, lang), card=card)
    if mine:
        return t.gettext("You turn {card}.").format(card=card)
    return t.gettext("{name} turns {card}.").format(name=_name(names, seat, lang), card=card)


@_event("auction")
def _ev_auction(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat", "owner")
    card = card_label(str(e.get("card", "")), lang, style)
    if you is not None and seat == you:
        return t.gettext("Your {card} is up for auction: type sell to take the best bid, or keep.").format(card=card)
    return t.gettext("{name} puts {card} up for auction: bid now (bid N).").format(
        name=_name(names, seat, lang), card=card
    )


@_event("bid")
def _ev_bid(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat", "bidder")
    n = int(e.get("amount") or 0)
    if you is not None and seat == you:
        return t.ngettext("You bid {n} chip.", "You bid {n} chips.", n).format(n=n)
    return t.ngettext("{name} bids {n} chip.", "{name} bids {n} chips.", n).format(
        name=_name(names, seat, lang), n=n
    )


@_event("sold")
def _ev_sold(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seller, buyer = _seat(e, "seat", "from", "seller"), _seat(e, "to", "buyer")
    n = int(e.get("price") or e.get("amount") or 0)
    card = card_label(str(e.get("card", "")), lang, style)
    price = _chips(t, n)
    if you is not None and seller == you:
        return t.gettext("You sell {card} to {buyer} for {price}.").format(
            card=card, buyer=_name(names, buyer, lang), price=price
        )
    if you is not None and buyer == you:
        return t.gettext("You buy {card} from {seller} for {price}.").format(
            card=card, seller=_name(names, seller, lang), price=price
        )
    return t.gettext("{seller} sells {card} to {buyer} for {price}.").format(
        seller=_name(names, seller, lang), buyer=_name(names, buyer, lang), card=card, price=price
    )


@_event("kept")
def _ev_kept(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat")
    card = card_label(str(e.get("card", "")), lang, style)
    if e.get("timeout"):
        if you is not None and seat == you:
            return t.gettext("Time is up: you keep {card}.").format(card=card)
        return t.gettext("Time is up: {name} keeps {card}.").format(name=_name(names, seat, lang), card=card)
    if you is not None and seat == you:
        return t.gettext("You keep {card}.").format(card=card)
    return t.gettext("{name} keeps {card}.").format(name=_name(names, seat, lang), card=card)


@_event("offered")
def _ev_offered(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    buyer, seller = _seat(e, "from"), _seat(e, "to")
    k = int(e.get("cards") or 0)
    price = int(e.get("price") or 0)
    oid = e.get("offer")
    if you is not None and seller == you:
        return t.ngettext(
            "Offer #{offer}: {buyer} offers you {price} for your top face-down card (accept {offer} / decline {offer}).",
            "Offer #{offer}: {buyer} offers you {price} for your top {k} face-down cards (accept {offer} / decline {offer}).",
            k,
        ).format(offer=oid, buyer=_name(names, buyer, lang), price=_chips(t, price), k=k)
    if you is not None and buyer == you:
        return t.ngettext(
            "Offer #{offer}: you offer {price} to {seller} for their top face-down card.",
            "Offer #{offer}: you offer {price} to {seller} for their top {k} face-down cards.",
            k,
        ).format(offer=oid, seller=_name(names, seller, lang), price=_chips(t, price), k=k)
    return t.ngettext(
        "Offer #{offer}: {buyer} offers {price} to {seller} for {k} face-down card.",
        "Offer #{offer}: {buyer} offers {price} to {seller} for {k} face-down cards.",
        k,
    ).format(offer=oid, buyer=_name(names, buyer, lang), seller=_name(names, seller, lang), price=_chips(t, price), k=k)


def _chips(t: gettext.NullTranslations, n: int) -> str:
    return t.ngettext("{n} chip", "{n} chips", n).format(n=n)


@_event("declined")
def _ev_declined(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("Offer #{offer} is declined.").format(offer=e.get("offer"))


@_event("withdrawn")
def _ev_withdrawn(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("Offer #{offer} is withdrawn.").format(offer=e.get("offer"))


@_event("lapsed")
def _ev_lapsed(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    reason = e.get("reason")
    if reason == "cards":
        return t.gettext("Offer #{offer} lapses: those cards have left the stack.").format(offer=e.get("offer"))
    if reason == "chips":
        return t.gettext("Offer #{offer} lapses: the buyer no longer has the chips.").format(offer=e.get("offer"))
    return t.gettext("Offer #{offer} no longer holds.").format(offer=e.get("offer"))


@_event("traded")
def _ev_traded(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    buyer, seller = _seat(e, "from", "buyer"), _seat(e, "to", "seller")
    k = int(e.get("cards") or e.get("count") or 0)
    price = _chips(t, int(e.get("price") or 0))
    if you is not None and seller == you:
        return t.ngettext(
            "You sell your top face-down card to {buyer} for {price}.",
            "You sell your top {k} face-down cards to {buyer} for {price}.",
            k,
        ).format(k=k, buyer=_name(names, buyer, lang), price=price)
    if you is not None and buyer == you:
        return t.ngettext(
            "You buy {seller}'s top face-down card for {price}.",
            "You buy {seller}'s top {k} face-down cards for {price}.",
            k,
        ).format(k=k, seller=_name(names, seller, lang), price=price)
    return t.ngettext(
        "{seller} sells {k} face-down card to {buyer} for {price}.",
        "{seller} sells {k} face-down cards to {buyer} for {price}.",
        k,
    ).format(seller=_name(names, seller, lang), buyer=_name(names, buyer, lang), k=k, price=price)


@_event("pool_won")
def _ev_pool_won(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = _seat(e, "seat")
    n = int(e.get("amount") or e.get("pool") or 0)
    card = e.get("card")
    if card:
        if you is not None and seat == you:
            return t.gettext("You take the pool ({chips}) with {card}.").format(
                chips=_chips(t, n), card=card_label(str(card), lang, style)
            )
        return t.gettext("{name} takes the pool ({chips}) with {card}.").format(
            name=_name(names, seat, lang), chips=_chips(t, n), card=card_label(str(card), lang, style)
        )
    if you is not None and seat == you:
        return t.gettext("You take the pool ({chips}).").format(chips=_chips(t, n))
    return t.gettext("{name} takes the pool ({chips}).").format(name=_name(names, seat, lang), chips=_chips(t, n))


@_event("revealed")
def _ev_revealed(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    hands = e.get("hands") or e.get("stacks") or e.get("cards")
    parts = []
    if isinstance(hands, Mapping):
        items = sorted(((int(k), v) for k, v in hands.items()), key=lambda kv: kv[0])
    elif isinstance(hands, Sequence):
        items = list(enumerate(hands))
    else:
        items = []
    for seat, cards in items:
        if cards:
            parts.append(f"{_name(names, seat, lang)} {_cards_param(cards, lang, style)}")
    if not parts:
        return t.gettext("The remaining cards are shown.")
    return t.gettext("Cards shown: {list}.").format(list="; ".join(parts))


# -- lobby and rooms


@_event("chat")
def _ev_chat(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or _name(names, e.get("seat"), lang)
    return t.gettext("{name}: {text}").format(name=who, text=e.get("text", ""))


@_event("joined")
def _ev_joined(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or _name(names, e.get("seat"), lang)
    if e.get("watch") or e.get("spectator"):
        return t.gettext("{name} is watching.").format(name=who)
    if e.get("seat") is not None:
        return t.gettext("{name} sits at seat {seat}.").format(name=who, seat=e["seat"])
    return t.gettext("{name} joins.").format(name=who)


@_event("left")
def _ev_left(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or _name(names, e.get("seat"), lang)
    if e.get("bot") or e.get("replaced_by_bot"):
        return t.gettext("{name} leaves; a bot takes the seat.").format(name=who)
    return t.gettext("{name} leaves.").format(name=who)


@_event("disconnected")
def _ev_disconnected(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or _name(names, e.get("seat"), lang)
    if e.get("grace"):
        n = round(float(e["grace"]))
        return t.ngettext(
            "{name} lost the connection; the seat is kept for {n} second.",
            "{name} lost the connection; the seat is kept for {n} seconds.",
            n,
        ).format(name=who, n=n)
    return t.gettext("{name} lost the connection; the seat is kept for a while.").format(name=who)


@_event("reconnected")
def _ev_reconnected(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or _name(names, e.get("seat"), lang)
    return t.gettext("{name} is back.").format(name=who)


@_event("room_created")
def _ev_room_created(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    game = game_name(lang, e.get("game"))
    if e.get("game") == "president" and e.get("rules"):
        game = f"{game} {rules_name(lang, e.get('rules'))}"
    who = e.get("name") or e.get("by") or "?"
    if e.get("seats"):
        n = int(e["seats"])
        return t.ngettext(
            "{name} opens room {room}: {game}, {n} seat (join {room}).",
            "{name} opens room {room}: {game}, {n} seats (join {room}).",
            n,
        ).format(name=who, room=e.get("room"), game=game, n=n)
    return t.gettext("{name} opens room {room}: {game}.").format(name=who, room=e.get("room"), game=game)


@_event("room_closed")
def _ev_room_closed(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("Room {room} is closed.").format(room=e.get("room"))


@_event("match_started", "started")
def _ev_started(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("Every seat is taken: the match begins.")


@_event("shutdown")
def _ev_shutdown(t: _T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("The server is shutting down. Stakes in play are given back.")


# --------------------------------------------------------------------------- catalog tools


def extract_catalog(source_dir: Path = SOURCE_DIR) -> Any:
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


def _messages(catalog: Any) -> set[tuple[Any, ...]]:
    return {
        (m.context, m.id if isinstance(m.id, str) else tuple(m.id), tuple(m.auto_comments)) for m in catalog if m.id
    }


def write_pot(path: Path | None = None, catalog: Any = None) -> Path:
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


def _set_plural_header(catalog: Any, lang: str) -> None:
    forms = PLURAL_FORMS[lang]
    m = re.match(r"nplurals=(\d+); plural=(.*);", forms)
    assert m
    catalog._num_plurals = int(m.group(1))
    catalog._plural_expr = m.group(2)


def _filled(string: Any) -> bool:
    if isinstance(string, tuple | list):
        return all(bool(s) for s in string)
    return bool(string)


def missing_messages(lang: str, template: Any = None) -> list[str]:
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
    print("usage: python -m server.i18n [extract|update|check]", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
