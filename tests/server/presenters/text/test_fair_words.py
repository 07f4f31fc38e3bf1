"""The words of fair deals for people: seed and verify in three languages, every verify step worded."""

from __future__ import annotations

import pytest

import server.presenters.text  # noqa: F401  (registers the fair words' handlers)
from server.messages.errors import error_message
from server.messages.fair_events import step_text
from server.messages.terminal import PLAIN
from server.presenters.text.context import Command, CommandContext
from server.presenters.text.parse import parse_line
from server.presenters.text.replies import render_reply

CODES = ("format", "commitment_seen", "commitment", "decks", "hashes", "contributions", "bots", "entropy",
         "own_contribution", "deal_seed", "mix", "chosen", "order", "dealer", "hands", "hands_seen", "openings",
         "cards_seen")


@pytest.mark.parametrize(("lang", "line", "args"), [
    ("en", "seed  kiwi 19 ", {"text": "kiwi 19"}),
    ("fr", "graine ma graine", {"text": "ma graine"}),
    ("fr", "graine non", {"clear": True}),
    ("es", "semilla", {}),
    ("es", "semilla off", {"clear": True}),
])
def test_seed_words(lang: str, line: str, args: dict[str, object]) -> None:
    assert parse_line(line, lang, CommandContext()) == Command("seed", args)


@pytest.mark.parametrize(("lang", "line"), [("en", "verify r1-ab-2"), ("fr", "vérifier r1-ab-2"),
                                             ("fr", "verifier r1-ab-2"), ("es", "verificar r1-ab-2")])
def test_verify_words(lang: str, line: str) -> None:
    assert parse_line(line, lang, CommandContext()) == Command("verify", {"round": "r1-ab-2"})
    assert parse_line(line.split()[0], lang, CommandContext()) == Command("verify", {})


@pytest.mark.parametrize("lang", ["fr", "es"])
@pytest.mark.parametrize("result", ["pass", "fail", "note"])
def test_every_step_is_worded_in_every_language(lang: str, result: str) -> None:
    values = {"given": [0], "none": [1], "bots": [1], "wrong": [1], "players": [0], "seat": 1, "dealer": 1,
              "chosen": 3, "count": 13, "index": 4, "problem": "hash", "field": "hashes", "checked": 15}
    for code in CODES:
        text = step_text(lang, code, result, values, ["ana", "bot1"])
        english = step_text("en", code, result, values, ["ana", "bot1"])
        assert text != code and text != english, (lang, code, result)
        assert "{" not in text, text


def test_a_failed_report_reads_as_failed_and_names_the_seats() -> None:
    reply = {"round": "r1-ab-2", "game": "president", "ok": False, "names": ["ana", "bot1"],
             "steps": [{"code": "commitment", "result": "fail", "values": {}},
                       {"code": "bots", "result": "fail", "values": {"bots": [1], "wrong": [1]}}]}
    text = render_reply("verify", {"type": "ok", **reply}, "es", PLAIN)
    assert "NO es correcto" in text and "[FALLO]" in text and "bot1" in text


@pytest.mark.parametrize("code", ["entropy_closed", "entropy_given"])
def test_refusals_are_worded(code: str) -> None:
    assert error_message("fr", code) != error_message("en", code)
    assert "Missing" not in error_message("en", code)


def test_malformed_seed_refusals_say_why() -> None:
    assert "64" in error_message("es", "bad_entropy", reason="contribution_too_long", max=64)
    assert "contrôle" in error_message("fr", "bad_entropy", reason="contribution_characters")
