"""Golden transcripts (STYLE 20): one seeded bot match per game, as seat 0 reads it, per language.

Every event the seat may see is rendered with :func:`render_event`, and the table with
:func:`render_state` at the start and the end of each round or deal. The expected texts are
in ``tests/server/golden/<game>_<lang>.txt``. After an intended change of wording, rules or
bots, regenerate them and review the diff::

    DONNE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/server/presenters/text/test_render_golden.py
"""

from __future__ import annotations

import difflib
import os
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

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
UPDATE = os.environ.get("DONNE_UPDATE_GOLDEN") == "1"
STYLE = TermStyle(width=72, unicode=True, color=False)
NAMES = ["Zoé", "Bob", "Carmen", "Dmitri", "Éloïse"]

MATCHES = {
    # name: (game, constructor kwargs, seats)
    "president_classic": ("president", {"rules": "classic", "rounds": 2}, 4),
    "president_tdc": ("president", {"rules": "tdc", "stake": 2, "rounds": 2}, 5),
    "speculation": ("speculation", {"chips": [20, 20, 20, 20], "deals": 4}, 4),
}


def transcript(name: str, lang: str) -> str:
    game, kwargs, seats = MATCHES[name]
    match = game_class(game)(seats=seats, **kwargs)
    bots = [make_bot(game, "random", s, seed_from_int(100 + s)) for s in range(seats)]
    names = NAMES[:seats]
    out: list[str] = []
    shown: dict | None = None

    def step(action, events) -> None:
        nonlocal shown
        for event in events:
            seen = event.for_seat(0)
            if seen is None:
                continue
            text = render_event(seen.to_dict(), lang, STYLE, names, 0)
            if text:
                out.append(text)
        state = match.view(0).to_dict()
        state["seats"] = [dict(s, name=names[i]) for i, s in enumerate(state["seats"])]
        update = state_update(shown, state, lang, STYLE)
        shown = state
        if update:
            out.append(update.replace("\a", "<bell>"))

    play_match(match, bots, seed_from_int(2026), step, check_every=0)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(MATCHES))
def test_golden_transcript(name, lang):
    path = GOLDEN / f"{name}_{lang}.txt"
    got = transcript(name, lang)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8")
        return
    assert path.exists(), f"missing {path.name}: run DONNE_UPDATE_GOLDEN=1 pytest {__file__}"
    want = path.read_text(encoding="utf-8")
    if got != want:
        diff = "".join(
            difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "now", n=2)
        )
        pytest.fail(f"{path.name} differs (DONNE_UPDATE_GOLDEN=1 to accept):\n{diff[:4000]}")


def test_transcripts_are_deterministic():
    assert transcript("speculation", "fr") == transcript("speculation", "fr")


def test_golden_shows_only_what_seat_0_may_see():
    """Invariant 2 in the transcripts: other seats' dealt hands and others' exchanges never appear."""
    text = transcript("president_tdc", "en")
    assert "Round 1: you are dealt" in text
    others = [line for line in text.splitlines() if " gives " in line and "you" not in line.lower()]
    assert len(others) >= 2, "the transcript must show exchanges between other seats for this check to bite"
    for line in others:
        assert not any(sym in line for sym in "♣♦♥♠"), line
