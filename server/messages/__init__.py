"""The sentences people read, in their language: refusals, news, names of things.

* :mod:`~server.messages.translations` — one gettext catalog per language, chosen per
  session; what a client's locale asks for;
* :mod:`~server.messages.labels` — cards, ranks, suits, titles, games, tables;
* :mod:`~server.messages.errors` — one sentence per refusal;
* :mod:`~server.messages.events` — one sentence per event, worded per game.

Both presenters use them: text mode prints them, JSON mode puts them in ``text`` and
``message`` fields. Catalog maintenance is :mod:`server.start.catalogs`.
"""

from server.messages.errors import error_message
from server.messages.events import event_text
from server.messages.translations import LANGS, lang_from_env, load_translations, normalize_lang, translation

__all__ = ["LANGS", "error_message", "event_text", "lang_from_env", "load_translations", "normalize_lang",
           "translation"]
