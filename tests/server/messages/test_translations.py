"""Languages: what a client's locale asks for, one catalog per language (STYLE 15-16)."""

from __future__ import annotations

import pytest

from server.messages import (
    lang_from_env,
    normalize_lang,
)

NAMES = ["Zoé", "Bob", "Carmen", "Dmitri"]


# --------------------------------------------------------------------------- languages


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "es_ES"}, "es"),
        ({"LANG": "es_AR.utf8"}, "es"),
        ({"LANG": "en_GB.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, None),
        ({"LANG": "C"}, None),
        ({"LANG": "POSIX"}, None),
        ({"LANG": "de_DE.UTF-8"}, None),
        ({}, None),
        ({"LANG": "fr_FR.UTF-8", "LC_ALL": "es_ES.UTF-8"}, "es"),
        ({"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "en_US.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8", "LC_ALL": ""}, "en"),
        ({"LC_ALL": "C.UTF-8", "LANG": "fr_FR.UTF-8"}, None),
        ({"LANG": "fr_FR@euro"}, "fr"),
        ({"LANG": "de_DE.UTF-8", "LANGUAGE": "de:es:fr"}, "es"),
    ],
)
def test_lang_from_env(env, expected):
    assert lang_from_env(env) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [("fr", "fr"), ("FR", "fr"), ("français", "fr"), ("francais", "fr"), ("Español", "es"), ("es-ES", "es"),
     ("english", "en"), ("xx", None), ("", None)],
)
def test_normalize_lang(text, code):
    assert normalize_lang(text) == code


