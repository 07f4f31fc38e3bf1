"""The table fits any terminal: widths 40/80/120, colour or not, Unicode or not, in every language."""

from __future__ import annotations

import itertools
import re

import pytest

from engine import game_class
from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.seeds import seed_from_int
from server.messages import LANGS
from server.messages.terminal import TermStyle, strip_ansi
from server.presenters.text.context import context_from_state
from server.presenters.text.games import render_state
from tests.server.presenters.text.samples import LONG_NAMES, STYLES, check


def _named(state, names):
    state = dict(state)
    state["seats"] = [dict(s, name=names[i], connected=i != 2) for i, s in enumerate(state["seats"])]
    state["room"] = 12
    state["deadline"] = 17.4
    return state


def _sample_states(game: str, rules: str | None, seats: int, every: int, **kw):
    M = game_class(game)
    if game == "president":
        m = M(rules, seats=seats, **kw)
    else:
        m = M(seats=seats, chips=[20] * seats, **kw)
    bots = [make_bot(game, "random", s, seed_from_int(s)) for s in range(seats)]
    states = []
    count = itertools.count()

    last_phase = [None]

    def step(action, events):
        phase = m.view(None).to_dict().get("phase")
        if next(count) % every == 0 or phase != last_phase[0]:
            last_phase[0] = phase
            for seat in (0, 1, None):
                states.append(_named(m.view(seat).to_dict(), LONG_NAMES))

    play_match(m, bots, seed_from_int(11), step, check_every=0)
    return states


@pytest.fixture(scope="module")
def states():
    return (
        _sample_states("president", "classic", 4, 23, rounds=2)
        + _sample_states("president", "tdc", 5, 29, stake=2, rounds=2)
        + _sample_states("president", "classic", 3, 41, rounds=1)
        + _sample_states("speculation", None, 6, 7, deals=2)
    )


def test_samples_cover_the_interesting_moments(states):
    phases = {s.get("phase") for s in states}
    assert {"play", "exchange"} <= phases
    assert any(s.get("auction") for s in states)
    assert any(s.get("game") == "speculation" for s in states)


@pytest.mark.parametrize("style", STYLES, ids=str)
@pytest.mark.parametrize("lang", LANGS)
def test_state_fits_every_terminal(states, lang, style):
    for state in states:
        check(render_state(state, lang, style), style)


def test_state_shows_the_table():
    state = {
        "game": "president", "rules": "tdc", "round": 3, "phase": "play", "you": 0, "turn": 0,
        "room": 7, "deadline": 9, "order": "reversed", "stake": 2,
        "hand": ["Kd", "3c", "2s", "7h", "7c"],
        "trick": [{"seat": 1, "cards": ["9c"]}, {"seat": 2, "pass": True}],
        "cut": None,
        "seats": [
            {"seat": 0, "name": "Zoé", "cards": 5, "title": "president", "score": 0, "chips": 96, "passive": False,
             "place": None, "passed": False, "playing": True},
            {"seat": 1, "name": "Bob", "cards": 4, "title": "last", "score": 0, "chips": 104, "passive": True,
             "place": None, "passed": False, "playing": True},
            {"seat": 2, "name": "Carmen", "cards": 0, "title": "neutral", "score": 0, "chips": 100,
             "passive": False, "place": 1, "passed": True, "playing": True},
        ],
    }
    text = render_state(state, "fr", TermStyle(80, True, False))
    assert "Président · trou du cul · manche 3" in text
    assert "Zoé" in text and "Trou du cul" in text and "96 jetons" in text
    assert "passif" in text and "sorti 1er" in text
    assert "Révolution" in text
    assert "Pli : Bob 9♣ · Carmen passe" in text.replace("\u00a0", " ")
    # reversed order: weakest first is the 2, then the ace... the 3 is strongest
    assert "Votre main (5) : 2♠ R♦ 7♣ 7♥ 3♣" in text.replace("\u00a0", " ")
    assert "(9\u00a0s)" in text
    ascii_text = render_state(state, "fr", TermStyle(40, False, False))
    assert "2s Rd 7c 7h 3c" in ascii_text
    colour = render_state(state, "en", TermStyle(80, True, True))
    assert "\x1b[31m7♥\x1b[0m" in colour and "\x1b[31mK♦\x1b[0m" in colour
    assert "▶" in colour


def test_speculation_state_shows_auction_offers_and_stacks():
    state = {
        "game": "speculation", "rules": "speculation", "round": 2, "deals": 6, "you": 1, "dealer": 0, "turn": None,
        "trump": "h", "best": {"seat": 0, "card": "Qh"}, "pool": 4,
        "auction": {"seat": 0, "card": "Qh", "best_bid": 3, "bidder": 2, "deadline": 6},
        "offers": [{"offer": 5, "from": 2, "to": 1, "cards": 2, "price": 4}],
        "seats": [
            {"seat": 0, "name": "Zoé", "chips": 18, "faceup": ["4c", "Qh"], "facedown": 2, "cards": 4, "playing": True},
            {"seat": 1, "name": "Bob", "chips": 21, "faceup": [], "facedown": 3, "cards": 3, "playing": True},
            {"seat": 2, "name": "Carmen", "chips": 9, "faceup": ["2d"], "facedown": 2, "cards": 3, "playing": True},
        ],
        "in_deal": True, "ante": 1, "over": False,
    }
    text = render_state(state, "es", TermStyle(80, True, False))
    assert "Especulación · mano 2/6 · mesa" not in text  # no room in this state
    assert "Especulación · mano 2/6" in text
    assert "triunfo ♥ (corazones)" in text and "mejor Q♥ (Zoé)" in text and "bote 4 fichas" in text
    assert "Subasta de Q♥ (Zoé): mejor puja 3 fichas, de Carmen." in text
    assert "#5 Carmen → Bob: 2 cartas por 4 fichas" in text
    assert "3 boca abajo" in text
    narrow = render_state(state, "fr", TermStyle(40, True, False))
    assert "▮▮▮" in narrow
    check(narrow, TermStyle(40, True, False))


def test_state_of_an_empty_room_and_odd_values():
    style = TermStyle(40, False, False)
    check(render_state({"game": "president", "seats": []}, "en", style), style)
    check(render_state({"game": "speculation", "seats": [], "auction": None}, "es", style), style)
    odd = {"game": "president", "rules": "classic", "round": 1, "phase": "play", "you": 0, "turn": 5,
           "seats": [{"seat": 0, "cards": 3}], "trick": [{"seat": 9, "cards": ["3c"]}], "hand": []}
    check(render_state(odd, "fr", style), style)


def test_context_and_render_agree_on_give_count(states):
    """T12: the command context and the screen agree on how many cards the viewer still gives."""
    givers = waiters = 0
    for state in states:
        if state.get("phase") == "exchange" and state.get("you") is not None:
            ctx = context_from_state(state)
            text = strip_ansi(render_state(state, "en", TermStyle(100, True, False)))
            if ctx.phase == "give":
                givers += 1
                k = ctx.give
                assert k in (1, 2), ctx
                assert f"choose {k} card" in text, text
            else:
                waiters += 1
                assert ctx.phase == "waiting" and ctx.give == 0, ctx
                assert "Exchange in progress" in text and "choose" not in text, text
    assert givers and waiters, (givers, waiters)  # the samples reach both sides of the exchange


def test_no_non_ascii_escape_slips_through_ascii_mode():
    state = {"game": "president", "rules": "classic", "round": 1, "phase": "play", "you": 0, "turn": 0,
             "hand": ["Qh"], "trick": [], "seats": [{"seat": 0, "name": "Œdipe «le roi» 日本", "cards": 1}]}
    text = render_state(state, "fr", TermStyle(40, False, False))
    assert text.isascii()
    assert re.search(r"Dh", text)
