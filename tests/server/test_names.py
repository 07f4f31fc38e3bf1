"""Player names: allowed forms, identity (case, Unicode forms) and look-alikes."""

from __future__ import annotations

import pytest

from server.storage.api import BadName
from server.storage.names import MAX_LENGTH, clean_name, is_system_name, name_key, skeleton


@pytest.mark.parametrize(
    ("typed", "clean"),
    [
        ("Zoé", "Zoé"),
        ("  alice ", "alice"),
        ("ana_b", "ana_b"),
        ("x.y-z", "x.y-z"),
        ("Влад", "Влад"),
        ("李小龙", "李小龙"),
        ("Ｚｏｅ", "Zoe"),  # fullwidth letters, NFKC
        ("Zoe\u0301", "Zoé"),  # combining accent composed
        ("b2", "b2"),
        ("botanist", "botanist"),
        ("robot7", "robot7"),
        ("a" * MAX_LENGTH, "a" * MAX_LENGTH),
    ],
)
def test_clean_name_accepts(typed: str, clean: str) -> None:
    assert clean_name(typed) == clean


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "a",
        "a" * (MAX_LENGTH + 1),
        "bob!",
        "bo b",
        "-bob",
        ".bob",
        "_bob",
        "bob\u200b",  # zero-width space
        "bob\x07",
        "bo\tb",
        "bot:house",  # system accounts are not player names
        "~house",
        "al@ce",
        "house",
        "H0use",  # reserved, by look
        "Admin",
        "root",
        "bot1",  # rooms name their bots bot0, bot1...
        "Bot-12",
        "b0t3",
    ],
)
def test_clean_name_refuses(typed: str) -> None:
    with pytest.raises(BadName):
        clean_name(typed)


def test_clean_name_refuses_non_text() -> None:
    with pytest.raises(BadName):
        clean_name(42)  # type: ignore[arg-type]


def test_name_key_is_case_and_form_insensitive() -> None:
    assert name_key("ZOÉ") == name_key("zoé") == name_key("Zoe\u0301")
    assert name_key("Straße") == name_key("STRASSE")
    assert name_key("alice") != name_key("alicia")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("alice", "аlice"),  # Cyrillic а
        ("paypal", "раураl"),  # Cyrillic р а у
        ("oscar", "оѕсаr"),  # Cyrillic о ѕ с а
        ("bob", "b0b"),
        ("lola", "1ola"),
        ("Iris", "lris"),  # capital I vs small l
        ("open", "ορen"),  # Greek ο ρ
        ("alpha", "αlpha"),
        ("modern", "rnodern"),
        ("wave", "vvave"),
        ("Zoé", "Zoe"),  # accents do not make a different-looking name
        ("HAPPY", "ΗΑΡΡΥ"),  # Greek capitals
        ("max", "mах"),  # Cyrillic а х
    ],
)
def test_skeleton_catches_look_alikes(a: str, b: str) -> None:
    assert skeleton(a) == skeleton(b)


@pytest.mark.parametrize(("a", "b"), [("alice", "alicia"), ("bob", "rob"), ("ana", "anna"), ("bob_", "bob-")])
def test_skeleton_keeps_different_names_apart(a: str, b: str) -> None:
    assert skeleton(a) != skeleton(b)


def test_system_names() -> None:
    assert is_system_name("bot:house")
    assert not is_system_name("house")
    assert name_key("bot:Ana") == "bot:Ana"
    assert skeleton("bot:Ana") == "bot:Ana"
