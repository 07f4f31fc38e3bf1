"""Catalogs, languages, error sentences and event sentences (STYLE rules 15–17)."""

from __future__ import annotations

import gettext
import re

import pytest
from babel.messages.pofile import read_po

from server import catalogs
from server.catalogs import extract_catalog, missing_messages, placeholders
from server.messages import (
    LANGS,
    error_message,
    event_text,
    labels,
    lang_from_env,
    normalize_lang,
    translation,
    translations,
)

NAMES = ["Zoé", "Bob", "Carmen", "Dmitri"]


# --------------------------------------------------------------------------- catalogs


@pytest.fixture(scope="module")
def extracted():
    return extract_catalog()


@pytest.mark.parametrize("lang", LANGS)
def test_catalog_complete(lang, extracted):
    """Every message of server/ is translated, not fuzzy, with the header's plural count and
    the msgid's placeholders (STYLE 17). Fix with: python -m server.catalogs update, then translate."""
    problems = missing_messages(lang, extracted)
    assert not problems, "\n".join(problems[:40])


def test_pot_up_to_date(extracted):
    """i18n/donne.pot holds exactly the messages of the code (python -m server.catalogs update)."""
    with (translations.CATALOG_DIR / "donne.pot").open("rb") as f:
        pot = read_po(f)
    in_code = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)) for m in extracted if m.id}
    in_pot = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)) for m in pot if m.id}
    assert in_code - in_pot == set(), "messages missing from donne.pot"
    assert in_pot - in_code == set(), "stale messages in donne.pot"


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_plural_headers_are_two_form(lang):
    """TECH.md §5: Babel writes 3-form CLDR headers for fr/es; ours are the classic 2-form ones."""
    with translations.po_path(lang).open("rb") as f:
        cat = read_po(f, locale=lang)
    assert cat.num_plurals == 2
    assert cat.plural_expr == {"fr": "(n > 1)", "es": "(n != 1)"}[lang]


def test_plurals_follow_language_rules():
    fr, es, en = (translation(x) for x in LANGS)
    assert fr.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 carte"
    assert fr.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 carte"
    assert fr.ngettext("{n} card", "{n} cards", 2).format(n=2) == "2 cartes"
    assert es.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 cartas"
    assert es.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 carta"
    assert es.ngettext("{n} card", "{n} cards", 1_000_000).format(n=1_000_000) == "1000000 cartas"
    assert en.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 card"


def test_one_translation_object_per_language_and_english_fallback():
    assert translation("fr") is translation("fr")
    assert isinstance(translation("fr"), gettext.GNUTranslations)
    unknown = translation("de")
    assert unknown.gettext("Trick:") == "Trick:"
    assert translation(None).gettext("Trick:") == "Trick:"


def test_no_gettext_install():
    import builtins

    assert not hasattr(builtins, "_") or not isinstance(builtins._, gettext.NullTranslations)


def test_placeholders_helper():
    assert placeholders("{name} plays {cards:>3} {{literal}}") == {"name", "cards"}
    assert placeholders("{n:+d} chips") == {"n"}


def test_vocabulary_of_the_seeds():
    """Titles, ranks and the game words as the user's seeds name them."""
    assert [labels.title_name("fr", t) for t in ("president", "vice_president", "vice_last", "last")] == [
        "Président",
        "Vice-président",
        "Vice-trou du cul",
        "Trou du cul",
    ]
    assert [labels.title_name("es", t) for t in ("president", "vice_president", "vice_last", "last")] == [
        "Presidente",
        "Vicepresidente",
        "Viceculo",
        "Culo",
    ]
    assert [labels.title_name("en", t) for t in ("president", "vice_president", "vice_last", "last")] == [
        "President",
        "Vice-President",
        "Vice-Scum",
        "Scum",
    ]
    assert [labels.rank_name("fr", r) for r in "JQKA"] == ["valet", "dame", "roi", "as"]
    assert [labels.rank_name("es", r) for r in "JQKA"] == ["jota", "dama", "rey", "as"]
    assert labels.card_label("Qh", "fr") == "D♥"
    assert labels.card_label("Th", "es") == "10♥"
    assert "Ça ou rien" in error_message("fr", "illegal_play", reason="ca_ou_rien", rank="7")
    assert "o eso o nada" in error_message("es", "illegal_play", reason="ca_ou_rien", rank="7").lower()


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


# --------------------------------------------------------------------------- errors

PROTOCOL_CODES = [
    "bad_json",
    "unknown_command",
    "bad_argument",
    "not_logged_in",
    "no_such_room",
    "room_full",
    "not_your_turn",
    "illegal_play",
    "not_allowed",
    "insufficient_chips",
    "rate_limited",
    "name_taken",
    "bad_name",
    "bad_password",
    "line_too_long",
    "no_such_player",
    "no_such_offer",
    "already_in_room",
    "not_in_room",
    "internal_error",
]

# Every reason code the Président engine raises (engine/president/match.py) gets its own sentence.
PRESIDENT_REASONS = [
    ("illegal_play", {"reason": "count"}),
    ("illegal_play", {"reason": "mixed_ranks"}),
    ("illegal_play", {"reason": "duplicate"}),
    ("illegal_play", {"reason": "not_in_hand"}),
    ("illegal_play", {"reason": "must_follow_count", "count": 2}),
    ("illegal_play", {"reason": "ca_ou_rien", "rank": "7"}),
    ("illegal_play", {"reason": "too_weak"}),
    ("illegal_play", {"reason": "must_lead"}),
    ("not_allowed", {"reason": "no_cut"}),
    ("not_allowed", {"reason": "cannot_cut"}),
    ("illegal_play", {"reason": "cut_cards"}),
    ("not_allowed", {"reason": "no_give"}),
    ("illegal_play", {"reason": "give_count", "count": 2}),
    ("not_allowed", {"reason": "not_awaited"}),
    ("not_allowed", {"reason": "phase", "phase": "exchange"}),
    ("bad_argument", {"reason": "cards"}),
]

SPECULATION_DETAILS = [
    ("not_allowed", {"detail": "no auction"}),
    ("not_allowed", {"detail": "the owner does not bid"}),
    ("illegal_play", {"detail": "a bid beats the best bid by at least 1 chip", "min": 4}),
    ("not_allowed", {"detail": "only the owner sells or keeps"}),
    ("not_allowed", {"detail": "no bid to sell to"}),
    ("not_allowed", {"detail": "only the buyer withdraws an offer"}),
    ("not_allowed", {"detail": "only the seller accepts or declines an offer"}),
    ("not_allowed", {"detail": "no offer while an auction is open (S12c)"}),
    ("illegal_play", {"detail": "that many face-down cards are not there", "max": 2}),
    ("illegal_play", {"detail": "a price is at least 1 chip"}),
    ("not_allowed", {"detail": "offers go to another player of this deal"}),
]


ENGINE_CODES = {"IllegalPlay": "illegal_play", "NotAllowed": "not_allowed", "NotYourTurn": "not_your_turn",
                "InsufficientChips": "insufficient_chips", "BadArgument": "bad_argument"}
INTERNAL_REASONS = {"action", "hands", "log", "present", "seed", "unknown_command", "table",
                    "contributions", "shown", "dealer"}
"""Reasons only a program can trigger (a bad log, deal facts); people never see them."""
INTERNAL_REASONS |= {"contribution", "contribution_characters", "contribution_too_long"}
"""engine.fairness refusals of a player's entropy text: no command reaches them yet; they need
sentences when the table's ``entropy`` command is wired in (then drop them from this set)."""


def engine_reasons() -> set[tuple[str, str]]:
    """Every (code, reason) the engines raise, read from their source."""
    import ast
    from pathlib import Path

    found = set()
    root = Path(catalogs.__file__).resolve().parent.parent / "engine"
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ENGINE_CODES:
                for kw in node.keywords:
                    if kw.arg == "reason" and isinstance(kw.value, ast.Constant):
                        found.add((ENGINE_CODES[node.func.id], kw.value.value))
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_every_engine_reason_has_its_sentence(lang):
    reasons = engine_reasons()
    assert len(reasons) > 30
    for code, reason in sorted(reasons):
        if reason in INTERNAL_REASONS:
            continue
        text = error_message(lang, code, reason=reason)
        assert text != error_message(lang, code), f"no sentence for {code}/{reason}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("code", PROTOCOL_CODES)
def test_every_protocol_error_has_a_sentence(lang, code):
    text = error_message(lang, code)
    assert text and "{" not in text and code not in text


@pytest.mark.parametrize("lang", LANGS)
def test_engine_reasons_get_their_own_sentence(lang):
    for code, params in PRESIDENT_REASONS + SPECULATION_DETAILS:
        text = error_message(lang, code, **params)
        generic = error_message(lang, code)
        assert text != generic, (code, params)
        assert "{" not in text
        if "detail" in params:
            assert params["detail"] not in text, "English engine details are never shown"


def test_errors_say_what_is_legal():
    text = error_message("fr", "illegal_play", reason="too_weak", legal=[["9c"], ["Kh"]])
    assert "9♣" in text and "R♥" in text
    assert "passer" in error_message("fr", "illegal_play", reason="too_weak", legal=[])
    assert "4" in error_message("es", "illegal_play", reason="bid_too_low", min=4)
    assert "Bob" in error_message("en", "not_your_turn", name="Bob")
    assert "3" in error_message("en", "insufficient_chips", chips=3)
    text = error_message("fr", "unknown_command", cmd="joeur", suggestion="jouer")
    assert "joeur" in text and "jouer" in text
    assert "12" in error_message("en", "line_too_long", limit=12)


def test_error_message_never_breaks_on_odd_params():
    assert error_message("en", "illegal_play", reason="must_follow_count")  # count missing
    assert error_message("en", "illegal_play", reason="what_is_this")
    assert error_message("fr", "no_such_code_at_all")


# --------------------------------------------------------------------------- events

EVENTS = [
    {"event": "dealt", "round": 2, "dealer": 1, "present": [0, 1, 2, 3], "counts": [13] * 4,
     "hands": [["3c", "4d"], None, None, None], "commitment": "ab", "stake": 0},
    {"event": "exchange", "from": 3, "to": 0, "count": 2, "cards": ["2s", "Ah"]},
    {"event": "exchange", "from": 0, "to": 3, "count": 2, "cards": ["3c", "4d"]},
    {"event": "exchange", "from": 2, "to": 1, "count": 1},
    {"event": "played", "seat": 1, "cards": ["7c", "7h"], "remaining": 5},
    {"event": "passed", "seat": 2},
    {"event": "cut", "seat": 3, "cards": ["7d", "7s"], "remaining": 1},
    {"event": "trick_closed", "by": 3, "leader": 3, "reason": "cut"},
    {"event": "out", "seat": 1, "place": 1, "forbidden": False},
    {"event": "out", "seat": 2, "place": 2, "forbidden": True},
    {"event": "revolution", "seat": 1, "order": "reversed"},
    {"event": "revolution", "seat": 2, "order": "normal"},
    {"event": "timeout", "seat": 2, "passive": True, "kind": "turn"},
    {"event": "timeout", "seat": 0, "passive": False, "kind": "give"},
    {"event": "round_over", "round": 1, "ranking": [1, 0, 3, 2], "titles": ["vice_president", "president", "last",
     "vice_last"], "scores": [2, 3, 0, 1], "totals": [2, 3, 0, 1], "chips": [1, 2, -2, -1], "hands": [[], [], ["5c"],
     []], "stake": 2, "seed": "00"},
    {"event": "match_over", "winners": [1], "totals": [8, 12, 3, 5]},
    {"event": "match_over", "winners": [0, 1], "totals": [12, 12, 3, 5]},
    {"event": "ante", "payments": [{"seat": 0, "amount": 2}, {"seat": 1, "amount": 1}], "pool": 3},
    {"event": "dealt", "round": 1, "dealer": 0, "players": [0, 1, 2], "facedown": [3, 3, 3, 0]},
    {"event": "trump", "seat": 0, "card": "9h", "suit": "h"},
    {"event": "turned", "seat": 1, "card": "Qh", "best": True},
    {"event": "turned", "seat": 2, "card": "4c", "best": False},
    {"event": "auction", "seat": 1, "card": "Qh"},
    {"event": "bid", "seat": 2, "amount": 3},
    {"event": "sold", "seat": 1, "to": 2, "card": "Qh", "price": 3},
    {"event": "kept", "seat": 1, "card": "Qh", "timeout": True},
    {"event": "offered", "offer": 4, "from": 2, "to": 0, "cards": 2, "price": 5},
    {"event": "declined", "offer": 4, "seat": 0},
    {"event": "withdrawn", "offer": 4, "seat": 2},
    {"event": "lapsed", "offer": 4, "reason": "cards"},
    {"event": "traded", "offer": 4, "from": 2, "to": 0, "cards": 2, "price": 5},
    {"event": "pool_won", "seat": 2, "amount": 6, "card": "Qh", "reason": "end"},
    {"event": "revealed", "stacks": [["4c"], [], ["Kh", "2h"]]},
    {"event": "deal_over", "round": 1, "winner": 2, "chips": [18, 20, 25]},
    {"event": "match_over", "winners": [2], "totals": [18, 20, 25], "changes": [-2, 0, 5], "deals": 6},
    {"event": "chat", "name": "Bob", "text": "salut"},
    {"event": "joined", "name": "Bob", "seat": 1},
    {"event": "left", "name": "Bob"},
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("you", [0, 1, None])
def test_every_event_has_a_sentence(lang, you):
    fallback = translation(lang).gettext("Event: {event}.")
    seen = set()
    for event in EVENTS:
        text = event_text(lang, event, NAMES, you)
        assert text and not re.search(r"\{\w+\}", text), (event, text)
        assert text != fallback.format(event=event["event"]), event
        seen.add(text)
    assert len(seen) > len(EVENTS) * 0.8


def test_events_speak_to_the_reader():
    played = {"event": "played", "seat": 0, "cards": ["Qh"], "remaining": 3}
    assert event_text("fr", played, NAMES, 0) == "Vous jouez D♥."
    assert event_text("es", played, NAMES, 0) == "Juegas Q♥."
    assert event_text("en", played, NAMES, 1) == "Zoé plays Q♥."
    assert event_text("fr", {"event": "passed", "seat": 2}, NAMES, 0) == "Carmen passe."


def test_exchange_shows_cards_only_when_present():
    """An outsider's exchange event has a count and no cards: the sentence names no card (P13, T12)."""
    outsider = {"event": "exchange", "from": 3, "to": 0, "count": 2}
    for lang in LANGS:
        text = event_text(lang, outsider, NAMES, 1)
        assert "2" in text and not re.search(r"[♣♦♥♠]", text)
    mine = {"event": "exchange", "from": 3, "to": 0, "count": 2, "cards": ["2s", "Ah"]}
    assert event_text("fr", mine, NAMES, 0) == "Dmitri vous donne 2♠ A♥."


def test_dealt_tells_only_the_own_hand_size():
    dealt = {"event": "dealt", "round": 1, "dealer": 0, "present": [0, 1, 2], "counts": [18, 17, 17],
             "hands": [None, ["3c"] * 17, None], "commitment": "x", "stake": 0}
    assert "17" in event_text("en", dealt, NAMES, 1)
    assert "Round 1" in event_text("en", dealt, NAMES, None)


def test_ordinals():
    assert [labels.ordinal("fr", n) for n in (1, 2)] == ["1er", "2e"]
    assert labels.ordinal("es", 3) == "3.º"
    assert [labels.ordinal("en", n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]
    out = {"event": "out", "seat": 1, "place": 1, "forbidden": False}
    assert event_text("fr", out, NAMES, 0) == "Bob sort au 1er rang."
    assert event_text("es", out, NAMES, 0) == "Bob sale en 1.º lugar."


def test_bad_arguments_are_named_in_the_language():
    import pathlib

    assert error_message("fr", "bad_argument", arg="turn_seconds") == "Temps par décision\u00a0: de 1 à 600 secondes."
    assert "«mesa»" in error_message("es", "bad_argument", arg="room")
    # every argument name the server reports gets a sentence or a translated name
    root = pathlib.Path(catalogs.__file__).resolve().parent
    args = set()
    for path in root.rglob("*.py"):
        args |= set(re.findall(r'arg="([a-z_]+)"', path.read_text(encoding="utf-8")))
        args |= set(re.findall(r'arg_(?:int|str|bool)\(args, "([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert len(args) > 10
    for arg in args:
        fr = error_message("fr", "bad_argument", arg=arg)
        en = error_message("en", "bad_argument", arg=arg)
        assert fr != en, arg
        if f"“{arg}”" in en:  # the generic sentence: the name itself is translated (or a shared word)
            assert arg in ("ante",) or f"« {arg} »" not in fr.replace("\u00a0", " "), arg
