"""The table, news, replies and help fit any terminal: widths 40/80/120, colour or not, Unicode or not."""

from __future__ import annotations

import itertools
import re

import pytest

from engine import game_class
from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.seeds import seed_from_int
from server.games import ADAPTERS
from server.messages import LANGS
from server.messages.terminal import TermStyle, display_width, fit, strip_ansi, wrap_items
from server.presenters.text.alerts import (
    countdown_line,
    countdown_marks,
    state_update,
    your_turn_alert,
)
from server.presenters.text.context import CommandContext, context_from_state
from server.presenters.text.draw import sort_hand
from server.presenters.text.games import render_state
from server.presenters.text.help import help_text
from server.presenters.text.news import fit_text, render_event
from server.presenters.text.replies import render_reply, render_rooms
from server.presenters.text.words import verb
from tests.server.messages.test_events import EVENTS

WIDTHS = (40, 80, 120)
STYLES = [TermStyle(w, u, c) for w, u, c in itertools.product(WIDTHS, (True, False), (True, False))]
LONG_NAMES = ["Zoé", "Bartholomew_the_Great", "Carmen", "Dmitri", "Éloïse", "Fu", "Gwendolyn", "H"]


def check(text: str, style: TermStyle) -> None:
    """The three promises of every renderer."""
    for line in text.split("\n"):
        assert display_width(line) <= style.width, (style, line)
    if not style.color:
        assert "\x1b" not in text, style
    if not style.unicode:
        assert text.isascii(), (style, [ch for ch in text if not ch.isascii()])


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


@pytest.mark.parametrize("style", STYLES, ids=str)
@pytest.mark.parametrize("lang", LANGS)
def test_events_fit(lang, style):
    for event in EVENTS:
        for you in (0, None):
            text = render_event(event, lang, style, LONG_NAMES, you)
            assert text
            check(text, style)


def test_round_over_has_a_score_table():
    event = next(e for e in EVENTS if e["event"] == "round_over")
    text = render_event(event, "en", TermStyle(80, True, False), LONG_NAMES, 0)
    lines = text.split("\n")
    assert len(lines) >= 5 and "+2 chips" in text and "-2 chips" in text  # tdc: chips (T13)
    classic = {**event, "chips": None}
    text = render_event(classic, "fr", TermStyle(80, True, False), LONG_NAMES, 0)
    assert "+3 pts  total 3 pts" in text and "+0 pt   total 0 pt" in text


def test_chat_is_not_translated_and_state_events_are_skipped():
    text = render_event({"event": "chat", "name": "Bob", "text": "gg {name}"}, "fr", TermStyle(), LONG_NAMES, 0)
    assert text == "Bob\u00a0: gg {name}"  # French puts a no-break space before the colon
    text = render_event({"event": "chat", "name": "Bob", "text": "gg {name}"}, "es", TermStyle(), LONG_NAMES, 0)
    assert text == "Bob: gg {name}"
    assert render_event({"event": "state"}, "fr", TermStyle(), LONG_NAMES, 0) is None


HELP_CONTEXTS = [
    CommandContext(),
    CommandContext(where="room", moves=frozenset(ADAPTERS["classic"].moves), phase="play", hand=("3c",), your_turn=True,
                   you=0, top=("5d",)),
    CommandContext(where="room", moves=frozenset(ADAPTERS["tdc"].moves), phase="play", hand=("3c",), your_turn=True, you=0,
                   top=("5d", "5h")),
    CommandContext(where="room", moves=frozenset(ADAPTERS["tdc"].moves), phase="give", hand=("3c",), you=0, give=2),
    CommandContext(where="room", moves=frozenset(ADAPTERS["classic"].moves), phase="play", you=None),
    CommandContext(where="room", moves=frozenset(ADAPTERS["speculation"].moves), phase="auction", you=0, auction={"seat": 0, "card": "Qh"}),
    CommandContext(where="room", moves=frozenset(ADAPTERS["speculation"].moves), phase="auction", you=1, auction={"seat": 0, "card": "Qh"}),
    CommandContext(where="room", moves=frozenset(ADAPTERS["speculation"].moves), phase="turning", you=1, your_turn=True),
]


@pytest.mark.parametrize("style", STYLES, ids=str)
@pytest.mark.parametrize("lang", LANGS)
def test_help_fits_and_is_in_context(lang, style):
    for ctx in HELP_CONTEXTS:
        check(help_text(lang, ctx, style), style)
    wide = TermStyle(120, True, False)
    lobby = help_text("fr", HELP_CONTEXTS[0], wide)
    assert "tables" in lobby and "créer" in lobby and "rejoindre 3" in lobby
    turn = help_text("es", HELP_CONTEXTS[1], wide)
    assert "paso" in turn and "jugar" in turn and "cortar" not in turn
    tdc = help_text("es", HELP_CONTEXTS[2], wide)
    assert "cortar" in tdc and "9 9" in tdc
    give = help_text("fr", HELP_CONTEXTS[3], wide)
    assert "donner 3 4" in give
    sell = help_text("en", HELP_CONTEXTS[5], wide)
    assert "sell" in sell and "keep" in sell
    bid = help_text("fr", HELP_CONTEXTS[6], wide)
    assert "enchérir 3" in bid
    turning = help_text("es", HELP_CONTEXTS[7], wide)
    assert "destapar" in turning and "ofrecer" in turning


@pytest.mark.parametrize("lang", LANGS)
def test_help_offers_an_account_only_to_a_guest(lang):
    wide = TermStyle(120, True, False)
    word = verb(lang, "register")
    assert word in help_text(lang, HELP_CONTEXTS[0], wide).split()
    assert word not in help_text(lang, HELP_CONTEXTS[0], wide, guest=False).split()


REPLIES = [
    ("rooms", {"rooms": [{"room": 1, "game": "president", "rules": "tdc", "seats": 5, "players": 3,
                          "status": "waiting"},
                         {"room": 22, "game": "speculation", "rules": None, "seats": 9,
                          "players": [{"name": n} for n in LONG_NAMES], "status": "playing"}]}),
    ("rooms", {"rooms": []}),
    ("who", {"players": [{"name": n, "room": 3} for n in LONG_NAMES]}),
    ("who", {"players": []}),
    ("whoami", {"name": "Zoé", "guest": True, "chips": 1, "lang": "fr"}),
    ("create", {"room": 4}),
    ("join", {"room": 4, "seat": 2}),
    ("watch", {"room": 4}),
    ("leave", {}),
    ("lang", {"lang": "es"}),
    ("login", {"name": "Zoé", "chips": 120}),
    ("register", {"name": "Zoé", "chips": 100}),
    ("history", {"history": [{"game": "president", "rules": "classic", "ended": "2026-11-30T10:00:00",
                              "place": 1, "chips": 4, "won": True}]}),
    ("history", {"history": []}),
    ("leaderboard", {"leaderboard": [{"name": n, "chips": 100 * i, "rounds": 7 * i, "matches": i}
                                     for i, n in enumerate(LONG_NAMES)]}),
    ("colour", {"on": False}),
    ("unicode", {"on": False}),
    ("autocut", {"on": True}),
    ("width", {"width": 60}),
    ("addkey", {"keys": 1}),
    ("delkey", {"keys": 0}),
    ("keys", {"keys": ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGqxk4DzH1cQZ6XBmm4gLuPjV1rK7b0Kc1Wq8J3dZbQh zoe@laptop"]}),
    ("keys", {"keys": []}),
    ("passwd", {"name": "Zoé"}),
    ("balance", {"name": "Zoé", "chips": 96, "entries": [
        {"delta": -2, "kind": "stake", "round": 4, "ref": "r1", "at": "2026-11-30T10:00:00Z"},
        {"delta": 4, "kind": "payout", "round": 4, "ref": "r1", "at": "2026-11-30T10:01:00Z"}]}),
    ("ping", {"pong": True}),
    ("limits", {"max_line": 1024, "commands_per_second": 8.0}),
    ("leaderboard", {"game": "president", "rules": "classic", "by": "points",
                     "leaderboard": [{"name": "Zoé", "points": 12, "score": 12, "rounds": 3, "matches": 1}]}),
    ("history", {"name": "Zoé", "history": [{"round": 3, "game": "president", "rules": "tdc",
                                             "ended": "2026-11-30T10:00:00Z", "place": 2, "points": 3,
                                             "chips": 1, "title": "vice_president", "won": False}]}),
]


@pytest.mark.parametrize("style", STYLES, ids=str)
@pytest.mark.parametrize("lang", LANGS)
def test_replies_fit(lang, style):
    for cmd, reply in REPLIES:
        text = render_reply(cmd, reply, lang, style)
        assert text, cmd
        check(text, style)
    assert render_reply("play", {}, lang, style) == ""
    assert render_reply("offer", {"offer": 3}, lang, style) == ""  # the "offered" event says it, once


def test_rooms_list_content():
    text = render_rooms(REPLIES[0][1]["rooms"], "fr", TermStyle(80, True, False))
    assert "Président trou du cul  3/5  attend des joueurs" in text
    assert "Spéculation  8/9  en cours" in text


def test_a_tournament_table_is_offered_to_watch_not_to_join():
    """Its people are seated by the event: the news says whose table it is and how to watch it, and the
    list of rooms marks it."""
    opened = {"event": "room_created", "room": "r7", "game": "president", "rules": "classic", "seats": 4,
              "name": "Ada", "tournament": "e2"}
    style = TermStyle(80, True, False)
    assert render_event(opened, "fr", style, [], None) == (
        "La table r7 du tournoi e2 s’ouvre\u00a0: Président classique (regarder r7).")
    assert "(mirar r7)" in (render_event(opened, "es", style, [], None) or "")
    assert "join" not in (render_event(opened, "en", style, [], None) or "")
    room = {"room": "r7", "game": "president", "rules": "classic", "seats": 4, "players": ["Ada", "Bob"],
            "status": "playing", "tournament": "e2"}
    assert "tournoi e2" in render_rooms([room], "fr", style)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("what", ["play", "lead", "cut", "give", "turn", "sell", "bid"])
def test_your_turn_alert_rings_and_fits(lang, what):
    for style in STYLES:
        text = your_turn_alert(lang, style, what, seconds=25, top=["Qh", "Qs"], count=2)
        assert text.startswith("\a")
        check(text, style)
        assert "…" not in text and "~" not in text, "the alert wraps, never cuts"
        assert "25 s" in strip_ansi(text).replace("\u00a0", " ")
        if style.color:
            assert "\x1b[7m" in text


def test_countdown_marks_do_not_flood():
    assert countdown_marks(60) == (30, 10, 5)
    assert countdown_marks(33) == (10, 5)  # a 30 s turn after a 3 s cut window: no "30 s left" at once
    assert countdown_marks(20) == (10, 5)
    assert countdown_marks(9) == ()
    for lang in LANGS:
        for style in STYLES:
            check(countdown_line(lang, style, 10), style)
    assert "10" in countdown_line("fr", TermStyle(), 10)


def test_sort_hand_follows_the_order_in_force():
    hand = ["2s", "3c", "Kd", "Th", "3d"]
    assert sort_hand(hand) == ["3c", "3d", "Th", "Kd", "2s"]
    assert sort_hand(hand, "reversed") == ["2s", "Kd", "Th", "3c", "3d"]


def test_width_helpers():
    assert display_width("\x1b[31m7♥\x1b[0m") == 2
    assert display_width("日本") == 4
    assert display_width("é") == 1 and display_width("e\u0301") == 1
    cut = fit("\x1b[1mBartholomew the Great\x1b[0m", 10)
    assert display_width(cut) == 10 and cut.endswith("\x1b[0m")
    assert strip_ansi(cut).endswith("…")
    lines = wrap_items(["aaaa", "bbbb", "cccc"], 9, indent="  ", first="x: ")
    assert lines == ["x: aaaa", "  bbbb", "  cccc"]
    try:
        import wcwidth
    except ImportError:  # pragma: no cover - wcwidth is optional
        return
    for sample in ("Zoé 7♥ D♣", "日本語 カード", "«ça ou rien»", "▶ ▮▮"):
        assert display_width(sample) == wcwidth.wcswidth(sample), sample


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


def _table(**changes):
    """A tdc state as a table sends it; tests add what the reader's view says (decision, must, give)."""
    state = {
        "game": "president", "rules": "tdc", "round": 1, "phase": "play", "you": 0, "turn": 1, "room": 3,
        "deadline": 20, "order": "normal", "hand": ["3c", "7c", "7h", "7s", "Kd"], "cut": None,
        "trick": [{"seat": 3, "cards": ["5c"]}],
        "seats": [{"seat": i, "name": n, "cards": 5, "title": None, "score": 0} for i, n in enumerate(LONG_NAMES[:4])],
    }
    state.update(changes)
    return state


def test_state_update_draws_the_table_only_when_it_matters():
    style = TermStyle(80, True, False)
    first = _table()
    assert "Bartholomew" in state_update(None, first, "en", style)  # first sight, or the state command
    # someone else's move that does not concern the reader: the events tell it, no table
    other = _table(turn=2, trick=[{"seat": 3, "cards": ["5c"]}, {"seat": 1, "pass": True}])
    assert state_update(first, other, "en", style) == ""
    assert state_update(other, dict(other), "en", style) == ""
    # the reader's turn: table, bell, one highlighted line with the play to beat and the time left
    mine = _table(turn=0, trick=[{"seat": 3, "cards": ["5c"]}, {"seat": 1, "cards": ["9d"]}], decision="follow")
    text = state_update(other, mine, "fr", style)
    assert "Votre main" in text and "\a" in text
    assert "battez 9♦ (1 carte) ou tapez passe. (20 s)" in text.replace("\u00a0", " ")
    assert "jouez ou passez" not in text  # the status line gives way to the alert
    # "that or nothing" (P7, T6)
    same = _table(turn=0, trick=[{"seat": 2, "cards": ["9c"]}, {"seat": 1, "cards": ["9d"]}], decision="follow",
                  must="9")
    assert "ça ou rien" in state_update(other, same, "fr", style)
    # leading
    lead = _table(turn=0, trick=[], decision="lead")
    assert "vous entamez" in state_update(other, lead, "fr", style)
    jacks = _table(turn=0, trick=[], decision="lead", hand=["Jc", "Jh", "Qs", "2d"])
    assert "(par exemple V V)" in state_update(other, jacks, "fr", style).replace("\u00a0", " ")
    assert "(por ejemplo J J)" in state_update(other, jacks, "es", style)
    # a cut becomes possible out of turn (T9)
    cut = _table(turn=2, trick=[{"seat": 1, "cards": ["7d"]}], cut=["7c", "7h", "7s"])
    text = state_update(other, cut, "es", style)
    assert "\a" in text and "cortar" in text.lower()
    # a new round: the table without a bell
    new_round = _table(round=2, turn=1, trick=[])
    text = state_update(other, new_round, "en", style)
    assert "Your hand" in text and "\a" not in text
    # exchange: choose the cards to give back (T12)
    give = _table(round=2, phase="exchange", turn=None, trick=[], decision="give", give=2,
                  seats=[{"seat": 0, "name": "Zoé", "cards": 5, "title": "president"}])
    assert "choose 2 cards to give back (give followed by the cards)" in state_update(other, give, "en", style)


def test_state_update_in_speculation():
    style = TermStyle(60, False, False)
    base = {"game": "speculation", "round": 1, "you": 0, "turn": 1, "auction": None, "offers": [],
            "seats": [{"seat": i, "name": n, "chips": 10, "faceup": [], "facedown": 3} for i, n in
                      enumerate(["Zoé", "Bob", "Carmen"])], "trump": "h", "pool": 4}
    mine = {**base, "turn": 0, "decision": "turn"}
    text = state_update(base, mine, "en", style)
    assert "\a" in text and "turn your top card" in text
    sale = {**base, "turn": None, "decision": "auction",
            "auction": {"seat": 0, "card": "Qh", "best_bid": 0, "bidder": None, "deadline": 8}}
    text = state_update(base, sale, "fr", style)
    assert "\a" in text and "vendre" in text and "garder" in text and "(8 s)" in text
    theirs = {**base, "turn": None, "auction": {"seat": 1, "card": "Qh", "best_bid": 0, "bidder": None}}
    text = state_update(base, theirs, "es", style)
    assert "Subasta de Qh (Bob)" in text and "\a" not in text


def test_fit_text_wraps_foreign_sentences_and_never_cuts_a_seed():
    seed = "5c1397d0242a95b206852a69fb02e3a56fcc7e7485dad2292c9ef1048dbe6987"
    text = f"Donne 1 : la graine du mélange est {seed} ; vérifiez-la avec l’engagement."
    for style in STYLES:
        out = fit_text(text, style)
        check(out, style)
        assert seed in out.replace("\n", "").replace(" ", "")
    assert fit_text("court", TermStyle(40)) == "court"
    assert fit_text("\x1b[31mrouge\x1b[0m", TermStyle(40, True, False)) == "rouge"


def test_help_lines_keep_their_indent_when_narrow():
    for lang in LANGS:
        text = help_text(lang, HELP_CONTEXTS[0], TermStyle(40, True, False))
        body = text.split("\n")[1:]
        first_unindented = next(i for i, line in enumerate(body) if not line.startswith("  "))
        assert body[first_unindented].startswith(("Cartes", "Cartas", "Cards")), text
        assert first_unindented > 10


def test_replies_read_naturally():
    style = TermStyle(80, True, False)
    balance = next(reply for cmd, reply in REPLIES if cmd == "balance")
    text = render_reply("balance", balance, "fr", style).replace("\u00a0", " ")
    assert "Solde : 96 jetons." in text and "-2  mise payée" in text and "+4  gains" in text
    board = render_reply("leaderboard", REPLIES[-2][1], "es", style)
    assert "Clasificación, Presidente clásica:" in board and "12 ptos" in board and "3 rondas, 1 partida" in board
    hist = render_reply("history", REPLIES[-1][1], "fr", style)
    assert "Vice-président" in hist and "classé 2e" in hist


def test_state_update_alerts_again_when_the_turn_comes_back():
    """Speculation: with everybody else out of face-down cards the turn stays with the reader (S8)."""
    style = TermStyle(60, True, False)
    seats = [{"seat": 0, "name": "Zoé", "chips": 10, "faceup": ["4c"], "facedown": 2},
             {"seat": 1, "name": "Bob", "chips": 10, "faceup": ["Qh"], "facedown": 0}]
    before = {"game": "speculation", "round": 1, "you": 0, "turn": 0, "auction": None, "seats": seats,
              "decision": "turn"}
    after = {**before, "seats": [dict(seats[0], faceup=["4c", "9d"], facedown=1), seats[1]]}
    assert "\a" in state_update(before, after, "en", style)
    assert state_update(after, dict(after), "en", style) == ""
    chat_only = {**after, "seats": [dict(s, connected=False) for s in after["seats"]]}
    assert state_update(after, chat_only, "en", style) == ""


def test_help_on_a_topic_lists_its_words():
    style = TermStyle(80, True, False)
    text = help_text("fr", CommandContext(), style, topic="play").replace("\u00a0", " ")
    assert "« jouer » peut s’écrire : jouer, joue, poser, pose, entamer, entame, play, pl." in text
    assert "pasar" in help_text("es", CommandContext(), style, topic="paso")
    assert "zzz" in help_text("en", CommandContext(), style, topic="zzz")


def test_chat_cannot_drive_other_terminals():
    nasty = {"event": "chat", "name": "Bob\x1b[2J", "text": "hi\x1b[2J\x07\x1b]0;pwned\x07 there\r"}
    for style in STYLES:
        text = render_event(nasty, "en", style, LONG_NAMES, 0)
        assert "\x07" not in text and "\x1b[2J" not in text and "\x1b]" not in text and "\r" not in text
        assert "hi" in text and "there" in text


def test_a_page_of_rooms_says_what_to_type_for_the_next():
    style = TermStyle(80, True, False)
    rooms = [{"room": f"r{i}", "game": "president", "rules": "classic", "seats": 4, "players": ["a"],
              "status": "waiting"} for i in range(50)]
    assert "Page 1 sur 3 : tapez tables 2 pour la suivante." in render_rooms(rooms, "fr", style, 120, 1, 3)
    assert "Página 2 de 3: escribe mesas 3 para la siguiente." in render_rooms(rooms, "es", style, 120, 2, 3)
    assert "suivante" not in render_rooms(rooms, "fr", style, 120, 3, 3)


@pytest.mark.parametrize("width", range(12, 60))
def test_wrap_text_keeps_french_marks_with_their_words(width: int) -> None:
    from server.messages.terminal import wrap_text

    text = "Tapez « graine TEXTE » dans les 2 s pour mêler votre aléa : il ne peut plus le changer ?"
    lines = wrap_text(text, width, indent="  ")
    assert " ".join(line.strip() for line in lines) == text
    for line in lines:
        assert display_width(line) <= width
        assert not line.strip().startswith(("»", ":", "?")), lines
        assert not line.rstrip().endswith("«"), lines


def test_a_hidden_persons_chat_is_signed_with_their_seat_for_spectators():
    """A spectator is not told the name of someone who hides where they sit (``hide``): their chat
    line reads as their seat's."""
    from server.messages.terminal import PLAIN
    from server.presenters.text.news import render_event

    line = render_event({"event": "chat", "room": "r1", "name": None, "seat": 0, "text": "hola"}, "es", PLAIN,
                        ("", "ana"), None)
    assert line is not None and "plaza 0: hola" in line
