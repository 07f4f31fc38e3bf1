"""What the SSH door asks before a shell opens: the password prompt and its retry.

OpenSSH asks for a password with keyboard-interactive authentication when the server offers it,
and then prints the prompt the server chose; so the prompt is ours and speaks the person's
language. Before a shell opens the language is known only when the client names one in its
request (OpenSSH does not); otherwise the prompt is written in the three languages, short
enough for one line.

OpenSSH prints the bytes of a prompt that are not ASCII escaped (``Contrase\303\261a``)
unless its own locale is UTF-8, which the server cannot know: so these texts are plain ASCII
(the catalogs choose such words: ``Clave``; a plain space before the French colon).
"""

from __future__ import annotations

from server.messages.translations import LANGS, N_, normalize_lang, translation

# TRANSLATORS: the word before the SSH password prompt's colon, in plain ASCII (es: Clave).
PASSWORD = N_("Password")
# TRANSLATORS: said before the SSH password prompt comes again, in plain ASCII.
WRONG = N_("Wrong password; try again.")


def _each(word: str, lang: str | None) -> list[str]:
    code = normalize_lang(lang)
    langs = (code,) if code else LANGS
    out: list[str] = []
    for one in langs:
        text = translation(one).gettext(word)
        if text not in out:
            out.append(text)
    return out


def password_prompt(lang: str | None = None) -> str:
    """``Mot de passe / Contraseña / Password: `` (or the one language asked for)."""
    words = _each(PASSWORD, lang)
    if normalize_lang(lang) == "fr":
        return words[0] + " : "
    return " / ".join(words) + ": "


def wrong_password(lang: str | None = None) -> str:
    """Said above the prompt again after a wrong password (one line per language)."""
    return "\n".join(_each(WRONG, lang))
