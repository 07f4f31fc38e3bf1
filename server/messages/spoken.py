"""Numbers as words, for the screen-reader mode: ``dix-sept``, ``diecisiete``, ``seventeen``
(cards in words are :func:`server.messages.labels.card_words`)."""

from __future__ import annotations

from server.messages.translations import normalize_lang

_EN = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_EN_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_FR = ["zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze", "douze", "treize", "quatorze", "quinze", "seize", "dix-sept", "dix-huit", "dix-neuf"]
_FR_TENS = ("", "", "vingt", "trente", "quarante", "cinquante", "soixante")
_ES = ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve", "veinte", "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis", "veintisiete", "veintiocho", "veintinueve"]
_ES_TENS = ("", "", "veinte", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa")
_ES_HUNDREDS = ("", "ciento", "doscientos", "trescientos", "cuatrocientos", "quinientos", "seiscientos",
                "setecientos", "ochocientos", "novecientos")


def number_words(n: int, lang: str, *, feminine: bool = False) -> str:
    """``n`` in words (``feminine``: agreeing with a feminine noun, fr ``une``, es ``una``); negative
    numbers with a minus word; beyond a million, digits."""
    code = normalize_lang(lang) or "en"
    if n < 0:
        minus = {"fr": "moins", "es": "menos"}.get(code, "minus")
        return f"{minus} {number_words(-n, lang, feminine=feminine)}"
    if n >= 1_000_000:
        return str(n)
    if code == "fr":
        return _fr(n, feminine)
    if code == "es":
        return _es(n, feminine)
    return _en(n)


def _en(n: int) -> str:
    if n < 20:
        return _EN[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _EN_TENS[tens] + (f"-{_EN[unit]}" if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_EN[hundreds]} hundred" + (f" and {_en(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    return f"{_en(thousands)} thousand" + ((" and " if rest < 100 else " ") + _en(rest) if rest else "")


def _fr(n: int, feminine: bool) -> str:
    if n < 20:
        word = _FR[n]
    elif n < 100:
        tens, unit = divmod(n, 10)
        if tens in (7, 9):  # soixante-dix, quatre-vingt-dix: the teens after 60 and 80
            tens, unit = tens - 1, unit + 10
        base = "quatre-vingt" if tens == 8 else _FR_TENS[tens]
        if unit == 0:
            word = "quatre-vingts" if tens == 8 else base
        elif unit in (1, 11) and tens != 8:
            word = f"{base} et {_FR[unit]}"
        else:
            word = f"{base}-{_FR[unit]}"
    elif n < 1000:
        hundreds, rest = divmod(n, 100)
        head = "cent" if hundreds == 1 else f"{_FR[hundreds]} cent" + ("s" if not rest else "")
        word = head + (f" {_fr(rest, feminine)}" if rest else "")
        return word
    else:
        thousands, rest = divmod(n, 1000)
        head = "mille" if thousands == 1 else f"{_fr(thousands, False).removesuffix('s')} mille"
        return head + (f" {_fr(rest, feminine)}" if rest else "")
    if feminine and (word == "un" or word.endswith((" un", "-un"))):
        word += "e"
    return word


def _es(n: int, feminine: bool) -> str:
    if n < 30:
        word = _ES[n]
    elif n < 100:
        tens, unit = divmod(n, 10)
        word = _ES_TENS[tens] + (f" y {_ES[unit]}" if unit else "")
    elif n < 1000:
        hundreds, rest = divmod(n, 100)
        if n == 100:
            return "cien"
        head = _ES_HUNDREDS[hundreds]
        if feminine and hundreds > 1:
            head = head.removesuffix("os") + "as"
        return head + (f" {_es(rest, feminine)}" if rest else "")
    else:
        thousands, rest = divmod(n, 1000)
        head = "mil" if thousands == 1 else f"{before_noun(_es(thousands, False))} mil"
        return head + (f" {_es(rest, feminine)}" if rest else "")
    if word.endswith("uno"):
        word = word[:-1] + "a" if feminine else word
    return word


def before_noun(word: str) -> str:
    """Spanish ``uno`` shortened before a masculine noun: ``un punto``, ``veintiún mil``."""
    if word == "veintiuno":
        return "veintiún"
    return word[:-1] if word.endswith("uno") else word


_ORDINALS = {
    "fr": ("premier", "deuxième", "troisième", "quatrième", "cinquième", "sixième", "septième", "huitième",
           "neuvième", "dixième"),
    "es": ("primero", "segundo", "tercero", "cuarto", "quinto", "sexto", "séptimo", "octavo", "noveno", "décimo"),
    "en": ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"),
}


def ordinal_words(n: int, lang: str, *, feminine: bool = False, before: bool = False) -> str | None:
    """A place in words (``premier``/``première``, ``primer lugar``/``primero``, ``first``), from 1
    to 10 (a table's places); ``None`` beyond. ``before``: Spanish shortens before a masculine noun
    (``primer lugar``, ``tercer lugar``)."""
    code = normalize_lang(lang) or "en"
    words = _ORDINALS.get(code, _ORDINALS["en"])
    if not 1 <= n <= len(words):
        return None
    word = words[n - 1]
    if code == "fr" and n == 1 and feminine:
        return "première"
    if code == "es":
        if feminine:
            return word[:-1] + "a"
        if before and n in (1, 3):
            return word[:-1]
    return word
