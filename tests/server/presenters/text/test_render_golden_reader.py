"""Golden transcripts of the screen-reader mode: a seeded classic Président match as seat 0 hears
it, in each language (the presenter's reader path: cards, counts and seconds in words, one fact
per line, no symbol, no colour, nothing drawn in place).

After an intended change, regenerate and review the diff::

    DONNE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/server/presenters/text/test_render_golden_reader.py
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pytest

from engine import game_class
from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.seeds import seed_from_int
from server.messages import LANGS
from server.messages.terminal import TermStyle
from server.presenters.text.alerts import state_update
from server.presenters.text.news import render_event
from server.presenters.text.reader import spoken_numbers

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
UPDATE = os.environ.get("DONNE_UPDATE_GOLDEN") == "1"
STYLE = TermStyle(width=100, unicode=True, color=False, reader=True)
NAMES = ["Zoé", "Bob", "Carmen", "Dmitri"]


MATCHES = {
    # name: (game, constructor kwargs)
    "president_classic": ("president", {"rules": "classic", "rounds": 2}),
    "speculation": ("speculation", {"chips": [20, 20, 20, 20], "deals": 4}),
}


def transcript(lang: str, name: str = "president_classic") -> str:
    seats = 4
    game, kwargs = MATCHES[name]
    match = game_class(game)(seats=seats, **kwargs)
    bots = [make_bot(game, "random", s, seed_from_int(100 + s)) for s in range(seats)]
    out: list[str] = []
    shown: dict | None = None

    def step(action, events) -> None:
        nonlocal shown
        for event in events:
            seen = event.for_seat(0)
            if seen is None:
                continue
            text = render_event(seen.to_dict(), lang, STYLE, NAMES, 0)
            if text:
                out.append(spoken_numbers(text, lang))
        state = match.view(0).to_dict()
        state["seats"] = [dict(s, name=NAMES[i]) for i, s in enumerate(state["seats"])]
        update = state_update(shown, state, lang, STYLE)
        shown = state
        if update:
            out.append(spoken_numbers(update, lang).replace("\a", "<bell>"))

    play_match(match, bots, seed_from_int(2026), step, check_every=0)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(MATCHES))
def test_golden_reader_transcript(name, lang):
    path = GOLDEN / f"{name}_reader_{lang}.txt"
    got = transcript(lang, name)
    if UPDATE:
        path.write_text(got, encoding="utf-8")
        return
    assert path.exists(), f"missing {path.name}: run DONNE_UPDATE_GOLDEN=1 pytest {__file__}"
    want = path.read_text(encoding="utf-8")
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "now", n=2))
        pytest.fail(f"{path.name} differs (DONNE_UPDATE_GOLDEN=1 to accept):\n{diff[:4000]}")


@pytest.mark.parametrize("lang", LANGS)
def test_the_reader_hears_no_symbol_colour_or_redraw(lang):
    text = transcript(lang)
    assert not re.search(r"[♣♦♥♠▶·│─┌┐└┘]", text)
    assert "\x1b" not in text and "\r" not in text  # no colour, nothing redrawn in place
    words = {"fr": "dame de cœur", "es": "dama de corazones", "en": "queen of hearts"}[lang]
    hand = {"fr": "Votre main, treize cartes", "es": "Tu mano, trece cartas", "en": "Your hand, thirteen cards"}
    assert words in text and hand[lang] in text
    assert not re.search(r"\(\d+ ?s\)", text)  # timers in words


TABLE_DRAWING = re.compile(r"\S {2,}\S|[▮#]{2,}|→|\(\d+\s?s\)|\d+/\d+")
"""What a drawn table leaves in its text: columns padded with spaces, face-down bars, arrows, timers
and ``n/total`` in digits."""


@pytest.mark.parametrize("lang", LANGS)
def test_a_speculation_table_is_said_one_fact_a_line_prompt_last(lang):
    """RULES S: the Speculation table read aloud is not drawn: no column, no symbol; each seat its
    own sentence; the prompt (whose turn, the time in words) is the last line of each table."""
    text = transcript(lang, "speculation")
    assert not re.search(r"[♣♦♥♠▶·│─┌┐└┘]", text)
    assert "\x1b" not in text and "\r" not in text
    bad = [line for line in text.splitlines() if TABLE_DRAWING.search(line)]
    assert not bad, bad[:5]
    trumps = {"fr": "Atout\u00a0: ", "es": "Triunfo: ", "en": "Trumps: "}[lang]
    assert trumps in text
    prompt = {"fr": "À vous\u00a0: retournez", "es": "Te toca: ", "en": "Your turn: turn your top card"}[lang]
    assert prompt in text


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", "Offre #3\u00a0: Bob à Zoé, deux cartes pour trois jetons. Douze secondes."),
    ("es", "Oferta #3: Bob a Zoé, dos cartas por tres fichas. Doce segundos."),
    ("en", "Offer #3: Bob to Zoé, two cards for three chips. Twelve seconds."),
])
def test_an_open_offer_keeps_the_number_typed_to_answer_it(lang, said):
    """RULES S9: an offer read aloud keeps its number as typed (``accepter 3``); its cards, price and
    time in words."""
    from server.presenters.text.games import render_state

    state = {"game": "speculation", "round": 1, "deals": 4, "you": 0, "phase": "play", "trump": "h",
             "seats": [{"seat": 0, "name": "Zoé", "chips": 20, "facedown": 2},
                       {"seat": 1, "name": "Bob", "chips": 18, "facedown": 3}],
             "offers": [{"offer": 3, "from": 1, "to": 0, "cards": 2, "price": 3, "left": 12}]}
    text = spoken_numbers(render_state(state, lang, STYLE), lang)
    assert said in text.replace("\n  ", " ")
