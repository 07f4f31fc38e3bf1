"""How cards, ranks, suits, titles, games and tables are named in each language."""

from __future__ import annotations

import gettext
from collections.abc import Callable, Sequence

from babel.numbers import format_decimal

from server.messages.spoken import number_words
from server.messages.terminal import PLAIN, RED, TermStyle, paint
from server.messages.translations import normalize_lang, translation
from server.protocol import JSONValue

RANK_CODES = "3456789TJQKA2"
SUIT_CODES = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"

_rank_labels: dict[str, tuple[str, ...]] = {}
"""Each language's rank labels, under its code and under each name it was asked for."""
_NAMES_MAX = 256


def rank_labels(lang: str) -> tuple[str, ...]:
    """Short rank labels in Président order (``3`` … ``2``), as printed on cards in ``lang``."""
    labels = _rank_labels.get(lang)  # as asked for ("fr", "FR"...): normalised once
    if labels is not None:
        return labels
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
    if len(_rank_labels) >= _NAMES_MAX:
        _rank_labels.clear()
    _rank_labels[lang] = labels
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


_card_labels: dict[tuple[str, str, bool, bool], str] = {}
""":func:`card_label` of (code, lang, unicode, colour): 52 cards a language and terminal."""
_CARD_LABELS_MAX = 4096


def card_label(code: str, lang: str, style: TermStyle = PLAIN) -> str:
    """How a card looks: ``D♥`` (fr), ``Q♥`` (en), red when colour is on; ``Dh`` in ASCII."""
    if style.reader:  # a screen reader: in words ("dame de cœur")
        return card_words(code, lang)
    key = (code, lang, style.unicode, style.color)
    text = _card_labels.get(key)
    if text is None:
        text = _card_label(code, lang, style)
        if len(_card_labels) >= _CARD_LABELS_MAX:
            _card_labels.clear()
        _card_labels[key] = text
    return text


def _card_label(code: str, lang: str, style: TermStyle) -> str:
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


def number(lang: str, n: int) -> str:
    """``n`` written the way the language groups digits: ``1,234`` (en), ``1 234`` (fr), ``1.234`` (es)."""
    return format_decimal(n, locale=normalize_lang(lang) or "en")


def punct(lang: str, mark: str) -> str:
    """A high punctuation mark (``:`` ``;`` ``!`` ``?``) as the language writes it after a word:
    French puts a no-break space before it (``zoe : 3♣``), Spanish and English nothing."""
    if mark in ":;!?" and normalize_lang(lang) == "fr":
        return "\u00a0" + mark
    return mark


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


_TITLES: dict[str, Callable[[gettext.NullTranslations], str]] = {
    "president": lambda t: t.pgettext("title", "President"),
    "vice_president": lambda t: t.pgettext("title", "Vice-President"),
    "neutral": lambda t: t.pgettext("title", "Neutral"),
    "vice_last": lambda t: t.pgettext("title", "Vice-Scum"),
    "last": lambda t: t.pgettext("title", "Scum"),
}


def title_name(lang: str, title: str | None) -> str:
    """A Président title in ``lang`` (``last`` → Trou du cul / Culo / Scum)."""
    word = _TITLES.get(title or "")
    return word(translation(lang)) if word is not None else ""


_GAMES: dict[str, Callable[[gettext.NullTranslations], str]] = {
    "president": lambda t: t.pgettext("game", "Président"),
    "speculation": lambda t: t.pgettext("game", "Speculation"),
}


def game_name(lang: str, game: str | None) -> str:
    word = _GAMES.get(game or "")
    return word(translation(lang)) if word is not None else game or ""


_TABLES: dict[str, Callable[[gettext.NullTranslations], str] | None] = {
    "classic": lambda t: t.pgettext("rules", "classic"),
    # TRANSLATORS: the Président table rules with cut, revolution and money (seed 004).
    "tdc": lambda t: t.pgettext("rules", "trou du cul"),
    "speculation": None,  # the game's only table: the game's name says it
}


def rules_name(lang: str, rules: str | None) -> str:
    """The name of a game's table rules (``""`` for a game with one table)."""
    if rules not in _TABLES:
        return rules or ""
    word = _TABLES[rules]
    return word(translation(lang)) if word is not None else ""


def table_name(lang: str, game: str | None, rules: str | None) -> str:
    """A game with its table rules: ``Président trou du cul``, ``Speculation``."""
    name, table = game_name(lang, game), rules_name(lang, rules)
    return f"{name} {table}" if table else name




_cards_labels: dict[tuple[tuple[str, ...], str, bool, bool], str] = {}
""":func:`cards_param` of a list of codes: (codes, lang, unicode, colour) -> the label (the plays of a
match, a few hundred)."""


def cards_param(value: JSONValue, lang: str, style: TermStyle) -> str:
    """Cards given as codes (a list, or a string of codes) as they look in ``lang``."""
    if style.reader and type(value) is list and all(type(v) is str for v in value):  # in words
        return cards_words(value, lang)
    if type(value) is list:
        key = (tuple(value), lang, style.unicode, style.color)
        try:
            text = _cards_labels.get(key)
        except TypeError:  # not codes
            text = None
        if text is None:
            text = cards_label([str(v) for v in value], lang, style)
            if all(type(v) is str for v in value):
                if len(_cards_labels) >= _CARD_LABELS_MAX:
                    _cards_labels.clear()
                _cards_labels[key] = text
        return text
    if isinstance(value, str):
        return cards_label(value.split(), lang, style)
    if isinstance(value, Sequence):
        return cards_label([str(v) for v in value], lang, style)
    return str(value)


def rank_words(rank: str, lang: str) -> str:
    """A rank as a word: ``sept``, ``dix``, ``dame``, ``reina``, ``queen``."""
    code = "T" if rank == "10" else rank.upper()[:1]
    i = RANK_CODES.find(code)
    if i < 0:
        return rank
    if code in "JQKA":
        return rank_name(lang, code)
    return number_words(10 if code == "T" else int(code), lang)


def card_words(code: str, lang: str) -> str:
    """A card as words: ``dame de cœur``, ``reina de corazones``, ``queen of hearts``."""
    if len(code) != 2:
        return code
    t = translation(lang)
    # TRANSLATORS: a card said in words for a screen reader: "queen of hearts" (fr "dame de cœur").
    return str(t.pgettext("card in words", "{rank} of {suit}")).format(
        rank=rank_words(code[0], lang), suit=suit_name(lang, code[1]))


def cards_words(codes: Sequence[str], lang: str) -> str:
    """Cards as words, one after the other: ``sept de cœur, sept de pique``."""
    return ", ".join(card_words(c, lang) for c in codes)
