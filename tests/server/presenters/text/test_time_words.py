"""What a person reads about the time they have: windows as they open, an offer's clock, the
first cut's word about autocut (T9, S9)."""

from __future__ import annotations

import itertools
import re
from typing import Any

from server.messages.events import event_text
from server.messages.terminal import TermStyle
from server.presenters.text import TextPresenter
from server.presenters.text.alerts import state_update
from server.presenters.text.games import render_state
from tests.server.presenters.text.test_presenter import Viewer, _state

STYLE = TermStyle(80, True, False)


def _plain(text: str) -> str:
    return text.replace("\u00a0", " ")


def _flat(text: str) -> str:
    """The words as read, whatever the wrapping."""
    return " ".join(_plain(text).split())


def test_T9_a_cut_window_is_said_when_it_opens_without_a_bell() -> None:
    before = _state(trick=[], turn=2, decision=None)
    played = _state(trick=[{"seat": 2, "cards": ["5c"]}], turn=0, decision="follow",
                    window={"kind": "cut", "left": 6.0})
    text = _plain(state_update(before, played, "es", STYLE))
    assert "Puede llegar un corte: 6 segundos" in text
    assert "\a" not in text and "Te toca" not in text  # the turn is prompted after the window (T9)
    # the next state of the same window says nothing again
    later = {**played, "window": {"kind": "cut", "left": 4.0}}
    assert state_update(played, later, "es", STYLE) == ""
    # once it has passed: the prompt, with its bell
    after = {**played, "window": None}
    assert "\a" in state_update(later, after, "es", STYLE)


def test_S9_time_to_trade_is_said_when_it_opens() -> None:
    base: dict[str, Any] = {
        "game": "speculation", "round": 1, "you": 0, "turn": 1, "auction": None, "offers": [], "trump": "h",
        "pool": 4, "seats": [{"seat": i, "name": n, "chips": 10, "faceup": [], "facedown": 3}
                             for i, n in enumerate(["Zoé", "Bob", "Carmen"])]}
    kept = {**base, "window": {"kind": "trade", "left": 6.0}}
    text = _plain(state_update(base, kept, "fr", STYLE))
    assert "Temps des échanges" in text
    assert "6 secondes" in text


def test_T9_the_first_cut_a_person_can_make_tells_them_about_autocut_once() -> None:
    p = TextPresenter(Viewer(lang="fr"))
    p.state(_state(trick=[], turn=2))
    moves = ["play", "pass", "cut", "give", "autocut", "autopass"]  # a tdc table's
    first = _plain(p.state(_state(trick=[{"seat": 2, "cards": ["7d"]}], turn=1, cut=["7c", "7h", "7s"],
                                  window={"kind": "cut", "left": 6.0}, moves=moves)))
    assert "autocoupe oui" in first and "\a" in first
    p.state(_state(trick=[], turn=2))
    again = _plain(p.state(_state(trick=[{"seat": 2, "cards": ["8d"]}], turn=1, cut=["8c", "8h", "8s"],
                                  window={"kind": "cut", "left": 6.0}, moves=moves)))
    assert "\a" in again and "autocoupe" not in again


def test_S9_an_offer_to_a_person_says_how_long_they_have_to_answer() -> None:
    offered = {"event": "offered", "offer": 3, "from": 1, "to": 0, "cards": 1, "price": 2, "answer_seconds": 15}
    names = ["Zoé", "Bob", "Carmen"]
    assert "Tienes 15 segundos para responder." in event_text("es", offered, names, 0)
    assert "15" not in event_text("es", offered, names, 2).replace("#3", "")  # the others: no prompt to answer
    state = {"game": "speculation", "round": 1, "you": 0, "turn": 0, "auction": None, "trump": "h", "pool": 4,
             "offers": [{"offer": 3, "from": 1, "to": 0, "cards": 1, "price": 2, "left": 12.0}],
             "seats": [{"seat": i, "name": n, "chips": 10, "faceup": [], "facedown": 3} for i, n in enumerate(names)]}
    assert "#3 Bob → Zoé : 1 carte pour 2 jetons (12 s)" in _plain(render_state(state, "fr", STYLE))


def test_the_time_bank_is_said_in_the_prompt_and_asked_for_in_every_language() -> None:
    from server.presenters.text.context import context_from_state
    from server.presenters.text.parse import parse_line
    from server.presenters.text.replies import render_reply

    seats = [{"seat": 0, "name": "Zoé", "cards": 3, "bank": 45.0}, {"seat": 1, "name": "Bob", "cards": 3},
             {"seat": 2, "name": "Carmen", "cards": 3}]
    mine = _state(turn=0, decision="follow", seats=seats)
    fr = _flat(state_update(_state(seats=seats), mine, "fr", STYLE))
    assert "(20 s) Tapez rallonge pour plus de temps (réserve : 45 s)." in fr
    es = _flat(state_update(_state(seats=seats), mine, "es", STYLE))
    assert "Escribe prórroga para tener más tiempo (reserva: 45 s)." in es
    empty = [{**seats[0], "bank": 0.0}, *seats[1:]]
    assert "rallonge" not in state_update(_state(seats=empty), {**mine, "seats": empty}, "fr", STYLE)
    ctx = context_from_state(mine, "room")
    for lang, word in (("fr", "rallonge"), ("es", "prórroga"), ("es", "mas"), ("en", "more"), ("fr", "more")):
        assert parse_line(word, lang, ctx).cmd == "extend"  # type: ignore[union-attr]
    said = _plain(render_reply("extend", {"type": "ok", "seconds": 15.0, "bank": 30.0}, "fr", STYLE))
    assert said == "15 secondes de plus pour vous ; il reste 30 s dans votre réserve."
    others = event_text("es", {"event": "extended", "seat": 0, "seconds": 15.0, "bank": 30.0}, ["Zoé", "Bob"], 1)
    assert others == "Zoé se toma 15 segundos más."


def test_a_persons_own_extend_is_told_once_by_the_reply_not_again_by_the_event() -> None:
    from server.presenters.text.news import render_event

    mine = {"event": "extended", "seat": 0, "seconds": 15.0, "bank": 30.0}
    assert render_event(mine, "es", STYLE, ["Zoé", "Bob"], 0) is None
    assert event_text("es", mine, ["Zoé", "Bob"], 0) == "Te tomas 15 segundos más."  # JSON's text


def test_S9_the_person_on_turn_after_an_auction_reads_the_time_to_trade_with_their_prompt() -> None:
    base: dict[str, Any] = {
        "game": "speculation", "round": 1, "you": 0, "turn": None, "auction": None, "offers": [], "trump": "h",
        "pool": 4, "seats": [{"seat": i, "name": n, "chips": 10, "faceup": [], "facedown": 3}
                             for i, n in enumerate(["Zoé", "Bob", "Carmen"])]}
    mine = {**base, "turn": 0, "decision": "turn", "deadline": 16, "window": {"kind": "trade", "left": 6.0}}
    text = _flat(state_update(base, mine, "fr", STYLE))
    assert "Temps des échanges : 6 secondes" in text and "À vous : retournez votre carte" in text
    assert text.index("Temps des échanges") < text.index("À vous")


def test_S9_time_to_trade_does_not_say_a_card_turns_sooner_than_the_person_s_own_clock() -> None:
    """The person on turn reads "(16 s)" on their prompt: their card is turned for them only then. The
    time to trade says when play goes on, never that the next card turns in 6 s."""
    base: dict[str, Any] = {
        "game": "speculation", "round": 1, "you": 0, "turn": None, "auction": None, "offers": [], "trump": "h",
        "pool": 4, "seats": [{"seat": i, "name": n, "chips": 10, "faceup": [], "facedown": 3}
                             for i, n in enumerate(["Zoé", "Bob", "Carmen"])]}
    mine = {**base, "turn": 0, "decision": "turn", "deadline": 16, "window": {"kind": "trade", "left": 6.0}}
    for lang, said, wrong in (("fr", "6 secondes avant que le jeu reprenne", "carte se retourne"),
                              ("es", "6 segundos antes de que siga el juego", "se destape"),
                              ("en", "6 seconds before play goes on", "card turns")):
        text = _flat(state_update(base, mine, lang, STYLE))
        assert said in text and wrong not in text, (lang, text)
        assert "(16 s)" in text, (lang, text)


def test_the_seconds_of_the_time_bank_stay_with_their_number_at_every_width() -> None:
    """Seen at 80 columns: "(60" ending a line and "s left in your time bank)" on the next. A number
    of seconds is never parted from its "s", in the prompt or in the reply to ``more``."""
    from server.presenters.text.alerts import your_turn_alert
    from server.presenters.text.replies import render_reply

    for lang in ("fr", "es", "en"):
        for width in range(24, 81):
            style = TermStyle(width, False, False)
            texts = [your_turn_alert(lang, style, what="turn", seconds=16, bank=60),
                     render_reply("extend", {"type": "ok", "seconds": 15.0, "bank": 45.0}, lang, style)]
            for text in texts:
                lines = text.strip("\a").splitlines()
                for above, below in itertools.pairwise(lines):
                    parted = re.search(r"\d$", above.rstrip()) and re.match(r"\s*s\b", below)
                    assert not parted, (lang, width, above, below)


def test_a_seed_window_too_short_to_read_and_type_is_not_offered_as_one_to_meet() -> None:
    """The default window for a seed is 2 s: "Tapez « graine TEXTE » dans les 2 s" asks what nobody can
    do. A short window says that a seed counts for the next deals; a long one still says its time."""
    short = {"event": "commitment", "round": 1, "commitment": "75d5537853666ef1", "window": 2, "given": [],
             "game": "president"}
    for lang, said in (("fr", "Tapez « graine TEXTE » pour mêler votre propre aléa aux donnes suivantes."),
                       ("es", "Escribe «semilla TEXTO» para mezclar tu propio azar en los repartos siguientes."),
                       ("en", "Type “seed TEXT” to mix your own randomness into the next deals.")):
        text = _plain(event_text(lang, short, ["Zoé", "bot1"], 0) or "")
        assert said in text and "2 s" not in text, (lang, text)
    long = _plain(event_text("fr", {**short, "window": 20}, ["Zoé", "bot1"], 0) or "")
    assert "dans les 20 s" in long, long


def test_S9_an_offer_declined_by_the_clock_says_so() -> None:
    timed_out = {"event": "declined", "offer": 4, "seat": 0, "timeout": True}
    assert event_text("fr", timed_out, ["Zoé", "Bob"], 1).replace("\u00a0", " ") == \
        "Temps écoulé : l’offre #4 est refusée."
    assert event_text("es", {**timed_out, "timeout": False}, ["Zoé", "Bob"], 1) == "La oferta #4 ha sido rechazada."
