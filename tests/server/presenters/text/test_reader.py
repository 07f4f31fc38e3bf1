"""The screen-reader mode says places, labels and seconds in words in each language (``1.º lugar``
-> ``primer lugar``, ``dans les 12 s`` -> ``dans les douze secondes``), and leaves what a person
types (``accepter 9``, ``par exemple 3 3``, ``#9``) as typed."""

from __future__ import annotations

import pytest

from server.messages.fair_events import window_hint
from server.presenters.text.reader import spoken_numbers

NB = "\u00a0"

CASES = [
    ("fr", "Carmen sort au 1er rang.", "Carmen sort au premier rang."),
    ("fr", "Vous sortez au 2e rang.", "Vous sortez au deuxième rang."),
    ("fr", f"Donne 1{NB}: Dmitri distribue.", f"Donne un{NB}: Dmitri distribue."),
    ("fr", f"Fin de la manche 2{NB}: 1.{NB}Zoé (Président), 2.{NB}Bob",
     f"Fin de la manche deux{NB}: premier{NB}Zoé (Président), deuxième{NB}Bob"),
    ("fr", "Offre #9 : Dmitri (accepter 9 / refuser 9).", "Offre #9 : Dmitri (accepter 9 / refuser 9)."),
    ("es", "Carmen sale en 1.º lugar.", "Carmen sale en primer lugar."),
    ("es", "Bob sale en 3.º lugar.", "Bob sale en tercer lugar."),
    ("es", "salió 2.º", "salió segundo"),
    ("es", "Ronda 2: recibes trece cartas.", "Ronda dos: recibes trece cartas."),
    ("es", "Fin de la ronda 1: 1. Carmen (Presidente), 2. Zoé",
     f"Fin de la ronda uno: primero{NB}Carmen (Presidente), segundo{NB}Zoé"),
    ("es", "escribe por ejemplo 5 5", "escribe por ejemplo 5 5"),
    ("en", "Bob is out, 3rd.", "Bob is out, third."),
    ("en", "Round 1: you are dealt thirteen cards.", "Round one: you are dealt thirteen cards."),
    ("en", "Offer #4: decline 4 (12 s)", "Offer #4: decline 4 (twelve seconds)"),
]


@pytest.mark.parametrize(("lang", "text", "said"), CASES)
def test_places_labels_and_seconds_in_words(lang, text, said):
    assert spoken_numbers(text, lang) == said


@pytest.mark.parametrize(("lang", "words"), [
    ("fr", "dans les douze secondes"), ("es", "doce segundos"), ("en", "within twelve seconds")])
def test_the_seed_window_is_said_in_words(lang, words):
    """The commitment's hint (``dans les 12 s``) read aloud has its seconds in words."""
    text = spoken_numbers(window_hint(lang, 12), lang)
    assert words in text
    assert "12" not in text


@pytest.mark.parametrize(("lang", "said"), [("fr", "Donne un\u00a0:"), ("es", "Mano uno:"), ("en", "Deal one:")])
def test_a_deals_commitment_is_said_with_its_number_in_words(lang, said):
    """The commitment line (its own wording, not the news') in reader mode: ``Donne un :``, the
    commitment's hex code kept as written."""
    from server.messages.terminal import TermStyle
    from server.presenters.text import TextPresenter

    class Viewer:
        name, guest, logged_in, welcomed = "zoé", True, True, False
        style = TermStyle(80, True, False, reader=True)

        def __init__(self) -> None:
            self.lang = lang

        def send_raw(self, text: str) -> None:
            pass

        def where(self) -> tuple[None, str]:
            return None, "room"

    event = {"event": "commitment", "game": "speculation", "round": 1, "commitment": "2aee3966fd93d869",
             "room": "r1"}
    text = TextPresenter(Viewer()).event(event, ("Zoé", "Bob"), 0)
    assert said in text and "2aee3966fd93d869" in text
