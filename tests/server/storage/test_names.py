"""Player names: allowed forms, identity (case, Unicode forms) and look-alikes."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from server.storage import StoreSettings, open_store
from server.storage.api import BadName, NameTaken
from server.storage.names import (
    CONFUSABLES_FILE,
    CONFUSABLES_VERSION,
    MAX_LENGTH,
    MIN_LENGTH,
    clean_name,
    confusables,
    is_system_name,
    name_key,
    skeleton,
    uts39_skeleton,
)
from server.storage.sqlite import SQLiteStore


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
        ("Ωmega", "Ωmega"),
        ("a1", "a1"),
        ("botanist", "botanist"),
        ("robot7", "robot7"),
        ("houseboat", "houseboat"),  # a reserved word and more
        ("bot_housewife", "bot_housewife"),
        ("Guestrid", "Guestrid"),
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
        "x",  # one character: too short (the message says 2 to 20)
        "1abc",  # a name starts with a letter (the message says so)
        "42",
        "_a",
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
        "ɑdmin",  # Latin small alpha, past the reserved names before UTS #39
        "Sy5tem",
        "SYSTEM",
        "bοt7",  # Greek omicron: looks like a bot seat
        "bоt7",  # Cyrillic о
        "b0t_7",
        "rооt",  # Cyrillic о о
        # staff impersonation: a part of the name looks like a role's word, in any of our languages
        "mоderator",  # Cyrillic о
        "modérateur",
        "operat0r",
        "Moderador",
        "moderator1",
        "admin_bob",
        "bob.mod",
        "St4ff",
        "Support-Team",
        "SysAdmin",
        # in the plural, or a title with something before or after it
        "moderators",
        "moderat0rs",
        "admins",
        "modérateurs",
        "Administradores",
        "superadmin",
        "adminbob",
        "OperatorX",
        # reserved words and nothing else: the house, a bot, a guest or the server by another spelling
        "bot_house",
        "HouseBot",
        "house.b0t",
        "guest-2",
        "r00t.server",
        "donne_bot",
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
        ("alice2", "ɑlice2"),  # Latin small alpha
        ("guesty1", "gue5ty1"),  # ASCII fold: 5/s, 1/l
        ("guesty1", "guestyl"),
        ("iris", "lris"),  # ASCII fold: i/l
        ("zeb", "ze8"),
        ("ana", "аnа"),
        ("Paul", "Ρaul"),  # Greek capital rho
    ],
)
def test_skeleton_catches_look_alikes(a: str, b: str) -> None:
    assert skeleton(a) == skeleton(b)


@pytest.mark.parametrize(("a", "b"), [("alice", "alicia"), ("bob", "rob"), ("ana", "anna"), ("bob_", "bob-"),
                                      ("s16", "s18"), ("player6", "player8")])
def test_skeleton_keeps_different_names_apart(a: str, b: str) -> None:
    assert skeleton(a) != skeleton(b)


def test_system_names() -> None:
    assert is_system_name("bot:house")
    assert not is_system_name("house")
    assert name_key("bot:Ana") == "bot:Ana"
    assert skeleton("bot:Ana") == "bot:Ana"


def test_skeleton_is_uts39_then_the_documented_folds() -> None:
    # UTS #39 alone: case-sensitive, accents kept, no ASCII fold
    assert uts39_skeleton("ɑlice") == "alice"
    assert uts39_skeleton("0") == "O" and uts39_skeleton("1") == "l" and uts39_skeleton("I") == "l"
    assert uts39_skeleton("m") == "rn"
    assert uts39_skeleton("5") == "5"
    # ours on top
    assert skeleton("ALICE") == skeleton("alice") == "allce"
    assert skeleton("5ystem") == skeleton("system")


def test_confusables_is_unicodes_file() -> None:
    """The shipped table is Unicode's confusables.txt, unmodified (UTS #39 data files)."""
    raw = CONFUSABLES_FILE.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf# confusables.txt\n")  # Unicode's data files start with a BOM
    header = raw[:1000].decode("utf-8-sig")
    assert "# Unicode Security Mechanisms for UTS #39" in header
    assert f"# Version: {CONFUSABLES_VERSION}\n" in header
    assert "Unicode®, Inc." in header
    # the bytes we checked when we shipped it (from the Unicode data files, version above)
    assert hashlib.sha256(raw).hexdigest() == "96f2500ec78fd96f11561d4b40237435dfece70303b1db3c0974138a333aa206"
    table = confusables()
    total = int(raw.decode("utf-8-sig").rstrip().rsplit("# total: ", 1)[1])
    assert len(table) == total == 6311
    # entries anyone can check against the published table
    assert table["\u0251"] == "a"  # LATIN SMALL LETTER ALPHA
    assert table["\u03bf"] == "o"  # GREEK SMALL LETTER OMICRON
    assert table["\u0430"] == "a"  # CYRILLIC SMALL LETTER A
    assert table["0"] == "O" and table["1"] == "l" and table["I"] == "l" and table["m"] == "rn"
    assert "a" not in table and "5" not in table  # prototypes map to nothing


@pytest_asyncio.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    s = await open_store(tmp_path, StoreSettings(scrypt_n=2**10))
    try:
        yield s
    finally:
        await s.close()


@pytest.mark.parametrize(
    ("first", "second"),
    [("alice2", "ɑlice2"), ("guesty1", "gue5ty1"), ("Iris", "lris"), ("bob", "B0B")],
)
async def test_a_look_alike_of_a_live_guest_or_account_is_taken(
    store: SQLiteStore, first: str, second: str
) -> None:
    await store.accounts.login_guest(first)
    with pytest.raises(NameTaken):
        await store.accounts.login_guest(second)
    with pytest.raises(NameTaken):
        await store.accounts.register(second, "secret-pw")
    await store.accounts.logout_guest(first)
    assert (await store.accounts.login_guest(second)).name == second  # free again once the guest left


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_the_bad_name_message_states_the_rules_clean_name_applies(lang: str) -> None:
    """The bad_name sentence says 2 to max characters and a first letter: exactly what is checked."""
    from server.messages import error_message

    text = error_message(lang, "bad_name", max=MAX_LENGTH)
    assert f"{MIN_LENGTH} " in text and f" {MAX_LENGTH} " in text
    assert "admin" in text and "bot1" in text
    for kind in ("_", "-", "."):
        assert kind in text
    with pytest.raises(BadName):
        clean_name("a" * (MIN_LENGTH - 1))
    assert clean_name("a" * MIN_LENGTH) and clean_name("a" * MAX_LENGTH)
    with pytest.raises(BadName):
        clean_name("1" + "a" * (MIN_LENGTH - 1))  # starts with a letter, as the message says
    for word in ("admin", "bot1"):
        with pytest.raises(BadName):
            clean_name(word)


async def test_skeletons_stored_by_an_older_version_are_computed_again_at_open(tmp_path: Path) -> None:
    """Version 2 folded 6 like 8: account ``s16`` held ``s18`` (and every name differing by a 6 and an 8) away.
    A store opened with such skeletons computes them again, once."""
    import sqlite3

    s = await open_store(tmp_path, StoreSettings(scrypt_n=2**10))
    await s.accounts.register("s16", "secret-pw")
    await s.close()
    conn = sqlite3.connect(tmp_path / "donne.sqlite3")
    with conn:
        conn.execute("UPDATE accounts SET skeleton = 'slb' WHERE key = 's16'")  # as version 2 stored it
        conn.execute("DELETE FROM counters WHERE name = 'skeleton'")
    conn.close()
    s = await open_store(tmp_path, StoreSettings(scrypt_n=2**10))
    try:
        assert (await s.accounts.login_guest("s18")).name == "s18"
        with pytest.raises(NameTaken):
            await s.accounts.login_guest("sl6")  # still a look-alike of s16 (1 and l)
    finally:
        await s.close()


@pytest.mark.parametrize("typed", ["badminton", "modest", "operative", "rootbeer", "Supportive", "Modesto",
                                   "modes", "cooperator", "Moderato", "observer", "Modeste"])
def test_a_staff_word_inside_another_word_is_a_name_like_any_other(typed: str) -> None:
    assert clean_name(typed) == typed
