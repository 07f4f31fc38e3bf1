"""Honest `verify` texts, as a person reads them."""

from __future__ import annotations

import pytest

from server.messages.terminal import TermStyle
from server.presenters.text.fair import render_fair

STYLE = TermStyle(80, True, False)


def _verify(lang: str, **more: object) -> str:
    reply = {"round": "r1-ab-1", "ok": True, "names": ["zoe", "bob"], "steps": [
        {"code": "contributions", "result": "pass", "values": {"given": [1], "none": [0]}},
        {"code": "own_contribution", "result": "pass", "values": {"seat": 0, "sent": None, "found": None}}], **more}
    return render_fair("verify", reply, lang, STYLE).replace("\n", " ")


def test_verify_does_not_say_none_from_you_then_that_your_contribution_is_in_the_record() -> None:
    text = _verify("fr")
    assert "aucune de zoe" in text
    assert "votre propre contribution figure" not in text.lower()
    assert "Vous n’avez pas ajouté d’aléa" in text
    assert "No añadiste azar" in _verify("es")


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_verify_never_points_a_remote_player_to_a_file_they_do_not_have(lang: str) -> None:
    assert "docs/" not in _verify(lang) and "verify_deal" not in _verify(lang)
    assert "https://cards.example.org/check" in _verify(lang, checker="https://cards.example.org/check")


def test_spanish_says_the_server_chose_alone() -> None:
    reply = {"round": "r1", "ok": True, "names": ["zoe"], "steps": [
        {"code": "entropy", "result": "note", "values": {"players": []}}]}
    assert "el servidor eligió solo" in render_fair("verify", reply, "es", STYLE).replace("\n", " ")


def test_spanish_verify_speaks_to_the_reader_with_tu() -> None:
    """"Las 10 cartas que vio" spoke of someone else (or to usted): the reader saw them, "viste"."""
    for result, said in (("pass", "Las 10 cartas que viste son exactamente las abiertas."),
                         ("fail", "¡Una carta que viste (posición 3) no es la abierta!")):
        reply = {"round": "r1", "ok": result == "pass", "names": ["zoe"], "steps": [
            {"code": "cards_seen", "result": result, "values": {"count": 10, "index": 3}}]}
        text = " ".join(render_fair("verify", reply, "es", STYLE).split())
        assert said in text and "que vio " not in text, text


def test_french_verify_says_what_the_bots_public_contributions_are() -> None:
    """"Les contributions des robots sont les publiques" is not French: say what they are."""
    reply = {"round": "r1", "ok": True, "names": ["zoe", "bot1"], "steps": [
        {"code": "bots", "result": "pass", "values": {"bots": [1]}}]}
    text = " ".join(render_fair("verify", reply, "fr", STYLE).split())
    assert "sont bien celles que chacun peut recalculer" in text and "sont les publiques" not in text, text
