"""What a person reads on arriving: the language menu, how to change language, welcome back."""

from __future__ import annotations

from server.messages.labels import number
from server.messages.translations import translation

LANGUAGE_HINT = (
    "Type lang en for English, at any time.\n"
    "Tapez langue fr pour le français, à tout moment.\n"
    "Escribe idioma es para español, en cualquier momento."
)
"""How to change language, each line in its own language: said before the language is known
(the telnet menu, an SSH client that sent no LANG), so not a catalog message. The three words
are understood whatever the session's language."""


def language_prompt(lang: str) -> str:
    """The telnet menu, in every language at once (the language is not known yet)."""
    return ("donne — Président, trou du cul, Спекуляция\n" + LANGUAGE_HINT + "\n"
            "Language / Langue / Idioma: 1 English, 2 Français, 3 Español [" + lang + "]: ")


def welcome_back(lang: str, name: str, chips: int) -> str:
    """An account logging in again: ``Welcome back, alice: 1,234 chips.``"""
    return translation(lang).ngettext(
        "Welcome back, {name}: {n} chip.", "Welcome back, {name}: {n} chips.", abs(chips)
    ).format(name=name, n=number(lang, chips))
