"""Typed commands in French, Spanish and English become exactly the JSON protocol commands.

The parser only turns words into cards and commands: what a move may be is the engine's to say
(a refused move comes back with its reason and the legal moves, tests/server/messages/test_errors.py).
"""

from __future__ import annotations

import pytest

from engine import game_class
from engine.seeds import seed_from_int
from server.games import ADAPTERS
from server.presenters.text.cards import parse_card_token
from server.presenters.text.context import Command, CommandContext, ParseError, context_from_state
from server.presenters.text.parse import parse_line
from server.presenters.text.words import VERBS, fold, verb

HAND = ("3c", "3h", "7c", "7h", "7s", "Tc", "Td", "Qh", "Kd", "Ac", "Ah", "2s")
CLASSIC = frozenset(ADAPTERS["classic"].moves)
TDC = frozenset(ADAPTERS["tdc"].moves)
SPECULATION = frozenset(ADAPTERS["speculation"].moves)
LOBBY = CommandContext()
MY_TURN = CommandContext(where="room", moves=CLASSIC, phase="play", hand=HAND,
                         your_turn=True, you=0, names=("Zoé", "Bob", "Carmen", "Dmitri"))
SPEC = CommandContext(where="room", moves=SPECULATION, phase="turning", your_turn=True, you=0,
                      names=("Zoé", "Bob", "Carmen", "Dmitri"))


def cmd(line: str, lang: str = "en", ctx: CommandContext = MY_TURN) -> Command:
    got = parse_line(line, lang, ctx)
    assert isinstance(got, Command), got
    return got


def err(line: str, lang: str = "en", ctx: CommandContext = MY_TURN) -> ParseError:
    got = parse_line(line, lang, ctx)
    assert isinstance(got, ParseError), got
    return got


# --------------------------------------------------------------------------- plays


@pytest.mark.parametrize(
    ("lang", "line"),
    [("fr", "jouer 7 7"), ("fr", "joue 7 7"), ("fr", "pose 77"), ("es", "jugar 7 7"), ("es", "echo 7x2"),
     ("en", "play 7 7"), ("en", "7 7"), ("fr", "7 7"), ("es", "77"), ("fr", "PLAY 7 7")],
)
def test_play_a_pair_in_every_language(lang, line):
    """Suits optional: the weakest suits of the rank are taken (7c before 7h)."""
    assert cmd(line, lang) == Command("play", {"cards": ["7c", "7h"]})


@pytest.mark.parametrize(
    ("lang", "line", "cards"),
    [
        ("fr", "d", ["Qh"]), ("fr", "dame", ["Qh"]), ("fr", "r", ["Kd"]), ("fr", "roi", ["Kd"]),
        ("fr", "as", ["Ac"]), ("fr", "a a", ["Ac", "Ah"]), ("fr", "v", None), ("fr", "dh", ["Qh"]),
        ("es", "q", ["Qh"]), ("es", "dama", ["Qh"]), ("es", "rey", ["Kd"]), ("es", "k", ["Kd"]),
        ("es", "as", ["Ac"]), ("es", "jota", None),
        ("en", "q", ["Qh"]), ("en", "k", ["Kd"]), ("en", "queen", ["Qh"]), ("en", "as", None),
        ("en", "10 10", ["Tc", "Td"]), ("en", "t t", ["Tc", "Td"]), ("fr", "10d", ["Td"]),
        ("en", "Td", ["Td"]), ("en", "7♥", ["7h"]), ("en", "7s 7", ["7s", "7c"]), ("en", "2", ["2s"]),
        ("en", "7x3", ["7c", "7h", "7s"]),
    ],
)
def test_ranks_letters_and_words(lang, line, cards):
    got = parse_line(line, lang, MY_TURN)
    if cards is None:
        assert isinstance(got, ParseError), got  # a rank the hand does not hold
        assert got.code == "illegal_play"
    else:
        assert got == Command("play", {"cards": cards}), got


def test_en_as_is_the_ace_of_spades_but_a_word_in_fr_es():
    e = err("as", "en")  # the hand has no ace of spades
    assert e.code == "illegal_play" and "A♠" in e.message
    assert cmd("as", "es") == Command("play", {"cards": ["Ac"]})


@pytest.mark.parametrize(("lang", "word"), [("fr", "passe"), ("fr", "p"), ("es", "paso"), ("es", "p"),
                                             ("en", "pass"), ("en", "P"), ("es", "pasar"), ("fr", "passer")])
def test_pass(lang, word):
    assert cmd(word, lang) == Command("pass", {})


def test_errors_about_cards_say_what_is_held():
    e = err("7 7 7 7")
    assert e.code == "illegal_play" and "3" in e.message  # you hold only 3 sevens
    e = err("jouer 9", "fr")
    assert e.code == "illegal_play" and "9" in e.message
    e = err("play 7 8")
    assert e.code == "illegal_play"
    e = err("play 7h 7h")
    assert e.code == "illegal_play"
    e = err("jouer 11", "fr")
    assert e.code == "bad_argument" and "11" in e.message and "V D R" in e.message
    e = err("jugar", "es")
    assert e.code == "bad_argument" and "jugar 7 7" in e.message


def test_spectators_are_told_they_watch():
    spectator = CommandContext(where="room", moves=CLASSIC, phase="play", you=None)
    e = err("7 7", "fr", spectator)
    assert e.code == "not_allowed" and "regardez" in e.message
    assert err("passe", "fr", spectator).code == "not_allowed"


# --------------------------------------------------------------------------- tdc: cut and give


def test_bare_cards_become_a_cut_when_they_complete_the_rank():
    """T9: after a single 7 not closing the trick, the three other 7s are a cut, even out of turn."""
    ctx = CommandContext(where="room", moves=TDC, phase="play", hand=HAND,
                         your_turn=False, you=0, top=("7d",), cut=("7c", "7h", "7s"))
    assert cmd("7 7 7", "fr", ctx) == Command("cut", {"cards": ["7c", "7h", "7s"]})
    # the cut alone: the table cuts with the cards the seat holds for it, or says why it cannot
    assert cmd("couper", "fr", ctx) == Command("cut", {})
    assert cmd("cortar", "es", ctx) == Command("cut", {})
    assert cmd("cut", "en", ctx) == Command("cut", {})
    # a pair on top: the view offers the two cards left
    pair = CommandContext(where="room", moves=TDC, phase="play", hand=("7c", "7h", "9d"),
                          you=0, top=("7d", "7s"), cut=("7c", "7h"))
    assert cmd("7 7", "en", pair) == Command("cut", {"cards": ["7c", "7h"]})
    # classic has no cut (P8): the word is refused, and three 7s are a play (the table refuses it, P6)
    classic = CommandContext(where="room", moves=CLASSIC, phase="play", hand=HAND,
                             your_turn=True, you=0, top=("7d",))
    assert cmd("7 7 7", "en", classic) == Command("play", {"cards": ["7c", "7h", "7s"]})
    assert err("cut", "en", classic).code == "not_allowed"
    # no cut offered by the view (a closing 2, a 3 in revolution): cards are a play
    twos = CommandContext(where="room", moves=TDC, phase="play", hand=("2c", "2d", "2h"),
                          you=0, top=("2s",))
    assert cmd("2 2 2", "en", twos).cmd == "play"
    rev = CommandContext(where="room", moves=TDC, phase="play", hand=("3d", "3h", "3s"),
                         you=0, top=("3c",), order="reversed")
    assert cmd("3 3 3", "en", rev).cmd == "play"


def test_bare_cards_are_a_gift_during_the_exchange():
    ctx = CommandContext(where="room", moves=TDC, phase="give", hand=HAND, you=0,
                         give=2)
    assert cmd("3 7", "fr", ctx) == Command("give", {"cards": ["3c", "7c"]})
    assert cmd("donner 3 3", "fr", ctx) == Command("give", {"cards": ["3c", "3h"]})
    assert err("dar 3 4", "es", ctx).code == "illegal_play"  # no 4 in hand


# --------------------------------------------------------------------------- Speculation


def test_speculation_commands():
    assert cmd("t", "fr", SPEC) == Command("turn", {})
    assert cmd("retourner", "fr", SPEC) == Command("turn", {})
    assert cmd("destapar", "es", SPEC) == Command("turn", {})
    assert cmd("turn", "es", SPEC) == Command("turn", {})
    assert cmd("5", "fr", SPEC) == Command("bid", {"amount": 5})
    assert cmd("enchérir 5", "fr", SPEC) == Command("bid", {"amount": 5})
    assert cmd("pujar 5", "es", SPEC) == Command("bid", {"amount": 5})
    assert cmd("vendre", "fr", SPEC) == Command("sell", {})
    assert cmd("garder", "fr", SPEC) == Command("keep", {})
    assert cmd("quedo", "es", SPEC) == Command("keep", {})
    assert cmd("offrir bob 2 5", "fr", SPEC) == Command("offer", {"to": 1, "cards": 2, "price": 5})
    assert cmd("ofrecer car 1 por 3", "es", SPEC) == Command("offer", {"to": 2, "cards": 1, "price": 3})
    assert cmd("offer 3 1 2", "en", SPEC) == Command("offer", {"to": 3, "cards": 1, "price": 2})
    e = err("offer nobody 1 2", "en", SPEC)
    assert e.code == "no_such_player"
    assert err("bid", "en", SPEC).code == "bad_argument"
    assert err("pass", "en", SPEC).code == "not_allowed"


def test_offer_answers_pick_the_only_offer():
    offers = ({"offer": 4, "from": 2, "to": 0, "cards": 2, "price": 5}, {"offer": 5, "from": 0, "to": 1,
              "cards": 1, "price": 2})
    ctx = CommandContext(where="room", moves=SPECULATION, phase="turning", you=0, offers=offers)
    assert cmd("accepter", "fr", ctx) == Command("accept", {"offer": 4})
    assert cmd("rechazar", "es", ctx) == Command("decline", {"offer": 4})
    assert cmd("withdraw", "en", ctx) == Command("withdraw", {"offer": 5})
    assert cmd("accept #4", "en", ctx) == Command("accept", {"offer": 4})
    none = CommandContext(where="room", moves=SPECULATION, phase="turning", you=0)
    assert err("accept", "en", none).code == "no_such_offer"


# --------------------------------------------------------------------------- lobby and settings


@pytest.mark.parametrize(
    ("lang", "line", "expected"),
    [
        ("fr", "créer president 4 bots=3", {"game": "president", "seats": 4, "bots": 3}),
        ("fr", "creer président tdc 5 bots 4 mise=4 temps=20", {"game": "president", "rules": "tdc", "seats": 5,
                                                               "bots": 4, "stake": 4, "turn_seconds": 20}),
        ("es", "crear especulación 5 bots=4 ante=2", {"game": "speculation", "seats": 5, "bots": 4, "ante": 2}),
        ("es", "crear presidente clásica 4 3", {"game": "president", "rules": "classic", "seats": 4, "bots": 3}),
        ("en", "create president classic 4 bots=3 level=hard rounds=2",
         {"game": "president", "rules": "classic", "seats": 4, "bots": 3, "bot_level": "hard", "rounds": 2}),
        ("en", "new speculation 4 3 difficile", {"game": "speculation", "seats": 4, "bots": 3, "bot_level": "hard"}),
        ("en", "create", {"game": "president", "seats": 4}),
    ],
)
def test_create(lang, line, expected):
    assert cmd(line, lang, LOBBY) == Command("create", expected)


def test_create_typos_get_a_suggestion():
    e = err("create presdent 4", "en", LOBBY)
    assert e.code == "bad_argument" and "president" in e.message


@pytest.mark.parametrize(
    ("lang", "line", "expected"),
    [
        ("fr", "tables", Command("rooms", {})),
        ("es", "mesas", Command("rooms", {})),
        ("en", "rooms", Command("rooms", {})),
        ("fr", "rejoindre 3", Command("join", {"room": 3})),
        ("es", "sentarse 3", Command("join", {"room": 3})),
        ("en", "join 3", Command("join", {"room": 3})),
        ("fr", "regarder 2", Command("watch", {"room": 2})),
        ("es", "mirar 2", Command("watch", {"room": 2})),
        ("fr", "partir", Command("leave", {})),
        ("es", "irse", Command("leave", {})),
        ("fr", "qui", Command("who", {})),
        ("es", "quién", Command("who", {})),
        ("fr", "moi", Command("whoami", {})),
        ("fr", "langue es", Command("lang", {"lang": "es"})),
        ("es", "idioma inglés", Command("lang", {"lang": "en"})),
        ("en", "lang français", Command("lang", {"lang": "fr"})),
        ("fr", "couleur non", Command("colour", {"on": False})),
        ("es", "color sí", Command("colour", {"on": True})),
        ("en", "color off", Command("colour", {"on": False})),
        ("en", "unicode off", Command("unicode", {"on": False})),
        ("fr", "autocoupe oui", Command("autocut", {"on": True})),
        ("en", "width 60", Command("width", {"width": 60})),
        ("fr", "dire bonjour à tous", Command("say", {"text": "bonjour à tous"})),
        ("es", "'hola a todos", Command("say", {"text": "hola a todos"})),
        ("fr", "aide", Command("help", {})),
        ("es", "ayuda", Command("help", {})),
        ("en", "?", Command("help", {})),
        ("en", "/help", Command("help", {})),
        ("fr", "quitter", Command("quit", {})),
        ("es", "salir", Command("quit", {})),
        ("fr", "historique 5", Command("history", {"limit": 5})),
        ("fr", "classement", Command("leaderboard", {})),
        ("es", "registrarse ana secreto", Command("register", {"name": "ana", "password": "secreto"})),
        ("en", "login bob", Command("login", {"name": "bob"})),
        ("en", "addkey ssh-ed25519 AAAAC3Nza x@y", Command("addkey", {"key": "ssh-ed25519 AAAAC3Nza x@y"})),
        ("en", "", Command("state", {})),
        ("fr", "solde", Command("balance", {})),
        ("es", "saldo", Command("balance", {})),
        ("fr", "classement tdc", Command("leaderboard", {"game": "president", "rules": "tdc"})),
        ("es", "clasificación especulación 5", Command("leaderboard", {"game": "speculation",
                                                                       "rules": "speculation", "limit": 5})),
        ("fr", "historique bob 5", Command("history", {"name": "bob", "limit": 5})),
        ("fr", "motdepasse", Command("passwd", {})),
        ("es", "contraseña", Command("passwd", {})),
        ("es", "claves", Command("keys", {})),
        ("fr", "supprimercle ssh-ed25519 AAAA x", Command("delkey", {"key": "ssh-ed25519 AAAA x"})),
        ("en", "ping", Command("ping", {})),
        ("fr", "voir", Command("state", {})),
        ("fr", "l", Command("state", {})),
        ("es", "¿ayuda?", Command("help", {})),
        ("fr", "passe.", Command("pass", {})),
    ],
)
def test_general_commands(lang, line, expected):
    ctx = LOBBY if expected.cmd in ("create", "rooms", "join", "watch") else MY_TURN
    assert parse_line(line, lang, ctx) == expected


@pytest.mark.parametrize(
    ("lang", "line", "args"),
    [
        ("en", "rooms 2", {"page": 2}),
        ("fr", "tables libres", {"free": True}),
        ("es", "mesas 3 especulación espera", {"page": 3, "game": "speculation", "status": "waiting"}),
        ("fr", "salles tdc 2", {"rules": "tdc", "page": 2}),
        ("en", "rooms playing free", {"status": "playing", "free": True}),
    ],
)
def test_rooms_takes_a_page_and_filters(lang, line, args):
    assert parse_line(line, lang, LOBBY) == Command("rooms", args)


def test_rooms_refuses_a_word_it_does_not_know():
    e = parse_line("tables bleues", "fr", LOBBY)
    assert isinstance(e, ParseError) and e.code == "bad_argument" and "bleues" in e.message


def test_english_is_always_understood():
    for lang in ("fr", "es"):
        assert cmd("pass", lang) == Command("pass", {})
        assert cmd("help", lang) == Command("help", {})
        assert cmd("rooms", lang, LOBBY) == Command("rooms", {})


@pytest.mark.parametrize(
    ("lang", "typo", "suggestion"),
    [("fr", "joeur", "jouer"), ("fr", "pase", "passe"), ("es", "pazo", "paso"), ("es", "jguar", "jugar"),
     ("en", "plya", "play"), ("en", "hlep", "help"), ("fr", "tabels", "tables"), ("es", "ayda", "ayuda")],
)
def test_typos_get_a_suggestion(lang, typo, suggestion):
    e = err(typo, lang, MY_TURN)
    assert e.code == "unknown_command"
    assert suggestion in e.message and typo in e.message


def test_unknown_without_suggestion_points_to_help():
    assert "aide" in err("xyzzyq", "fr").message
    assert "ayuda" in err("xyzzyq", "es").message


def test_one_letter_forms_never_collide_with_ranks():
    """Letters that are verbs (p, t, l) must not be rank letters in Président, except t (ten),
    which is a verb only at a Speculation table."""
    rank_letters = set("tjqka") | set("vdr")
    for lang, table in VERBS.items():
        for cmd_name, words in table.items():
            for w in words:
                if len(w) == 1 and w.isalpha():
                    assert w not in rank_letters or (w == "t" and cmd_name == "turn"), (lang, w)
    assert cmd("t", "en", MY_TURN) == Command("play", {"cards": ["Tc"]})
    assert cmd("t", "en", SPEC) == Command("turn", {})


def test_verbs_shown_are_in_the_language():
    assert verb("fr", "pass") == "passe"
    assert verb("es", "pass") == "paso"
    assert verb("en", "pass") == "pass"
    assert fold("Enchère") == "enchere"
    for lang in ("fr", "es"):
        assert set(VERBS[lang]) == set(VERBS["en"]), lang


# --------------------------------------------------------------------------- context from real states


def _state(m, seat, rules):
    """A seat's state as a table sends it: the engine's view and the table's moves."""
    return {**m.view(seat).to_dict(), "moves": list(ADAPTERS[rules].moves)}


def test_context_from_president_state():
    m = game_class("president")("tdc", seats=4, stake=2)
    m.apply(m.deal_action(seed_from_int(3), present=(0, 1, 2, 3), stake=2))
    turn = m.view(None).to_dict()["turn"]
    state = {**_state(m, turn, "tdc"), "room": 1}
    state["seats"] = [dict(s, name=n) for s, n in zip(state["seats"], ["a", "b", "c", "d"], strict=True)]
    ctx = context_from_state(state)
    assert ctx.where == "room" and ctx.moves == TDC and ctx.cards_table and not ctx.bids_table
    assert ctx.decision == "lead" and ctx.legal == state["legal"]
    assert ctx.your_turn and ctx.you == turn and ctx.phase == "play"
    assert ctx.hand == tuple(state["hand"]) and ctx.names == ("a", "b", "c", "d")
    # play the weakest single through the parser: the engine accepts it
    weakest = state["hand"][0]
    got = parse_line(weakest, "fr", ctx)
    assert isinstance(got, Command) and got.cmd == "play"
    m.apply(m.action_from(turn, got.cmd, got.args))
    after = context_from_state(_state(m, (turn + 1) % 4, "tdc"))
    assert after.top == (weakest,)


def test_context_from_speculation_state():
    m = game_class("speculation")(seats=3, chips=[10, 10, 10])
    m.apply(m.deal_action(seed_from_int(5)))
    state = _state(m, 0, "speculation")
    ctx = context_from_state(state)
    assert ctx.bids_table and not ctx.cards_table
    assert ctx.phase in ("auction", "turning", "waiting", "over")
    assert ctx.hand is None


def test_the_parser_never_refuses_a_play_of_held_cards():
    """On real states of bot matches, every rank a seat holds, typed alone, is a play for the table to judge
    (the engine decides what follows: P6, P7, T4, T6)."""
    from engine.bots import make_bot
    from engine.bots.driver import play_match

    checked = 0
    for rules, seats in (("classic", 4), ("tdc", 5)):
        kwargs = {"rounds": 1} if rules == "classic" else {"stake": 2, "rounds": 1}
        m = game_class("president")(rules, seats=seats, **kwargs)
        bots = [make_bot("president", "random", s, seed_from_int(s + 40)) for s in range(seats)]

        def step(action, events, m=m, rules=rules):
            nonlocal checked
            turn = m.view(None).to_dict()["turn"]
            if turn is None:
                return
            state = _state(m, turn, rules)
            if state["phase"] != "play":
                return
            ctx = context_from_state(state)
            for code in sorted({c[0] for c in state["hand"]}):
                got = parse_line(code if code != "T" else "10", "en", ctx)
                assert isinstance(got, Command) and got.cmd in ("play", "cut"), (state, code, got)
                checked += 1

        play_match(m, bots, seed_from_int(9), step, check_every=0)
    assert checked > 100


def test_game_commands_in_the_lobby_say_where_to_go():
    for line, lang in (("jugar 7", "es"), ("7 7", "fr"), ("passe", "fr"), ("turn", "en"), ("bid 3", "en"),
                       ("offer bob 1 2", "en"), ("cut", "en")):
        got = parse_line(line, lang, LOBBY)
        assert isinstance(got, ParseError) and got.code in ("not_in_room", "unknown_command"), (line, got)
    assert "mesas" in err("jugar 7", "es", LOBBY).message
    # in the lobby there is no offer to answer: accept, decline and withdraw answer seeks and challenges
    assert parse_line("accept 2", "en", LOBBY) == Command("accept_seek", {"seek": 2})
    assert parse_line("refuser", "fr", LOBBY) == Command("decline_seek", {})


def test_gift_typed_in_an_exchange_is_what_the_engine_expects():
    """T12: at the exchange of round 2, the Président types two ranks; the engine accepts the gift."""
    from engine.bots import make_bot
    from engine.bots.driver import play_match

    m = game_class("president")("tdc", seats=4, stake=2, rounds=2)
    bots = [make_bot("president", "random", s, seed_from_int(s + 7)) for s in range(4)]
    tried = []

    def step(action, events):
        for p in m.pending():
            if p.kind != "give" or p.seat is None:
                continue
            state = _state(m, p.seat, "tdc")
            ctx = context_from_state(state)
            assert ctx.phase == "give" and ctx.give in (1, 2)
            ranks = [c[0] for c in state["hand"][: ctx.give]]
            typed = " ".join("10" if r == "T" else r for r in ranks)
            got = parse_line(typed, "fr", ctx)
            assert isinstance(got, Command) and got.cmd == "give", got
            assert m.can(m.action_from(p.seat, got.cmd, got.args)), (state["hand"], got)
            tried.append(ctx.give)

    play_match(m, bots, seed_from_int(3), step, check_every=0)
    assert 2 in tried and 1 in tried


def test_cut_typed_by_a_person_is_what_the_engine_expects():
    """T9: whenever a seat may cut in a real tdc match, 'couper' and the bare cards both give a valid cut."""
    from engine.bots import make_bot
    from engine.bots.driver import play_match

    m = game_class("president")("tdc", seats=4, stake=2, rounds=3)
    bots = [make_bot("president", "random", s, seed_from_int(s + 70)) for s in range(4)]
    tried = 0

    def step(action, events):
        nonlocal tried
        for seat in m.cut_options():
            state = _state(m, seat, "tdc")
            ctx = context_from_state(state)
            for line in ("couper", " ".join(c[0] if c[0] != "T" else "10" for c in state["cut"])):
                got = parse_line(line, "fr", ctx)
                assert isinstance(got, Command) and got.cmd == "cut", (line, got, state["trick"])
                assert m.can(m.action_from(seat, got.cmd, got.args)), (line, got)
                tried += 1

    play_match(m, bots, seed_from_int(5), step, check_every=0)
    assert tried >= 2


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_no_word_means_two_commands(lang):
    """With English always accepted, a word must name one command only, and never be a card
    (except 't', a ten at a Président table and 'turn' at a Speculation table)."""
    seen: dict[str, str] = {}
    for code in ("en", lang):
        for name, words in VERBS[code].items():
            for w in words:
                f = fold(w)
                assert seen.get(f, name) == name, (lang, w, seen[f], name)
                seen[f] = name
    card_like = {f for f in seen if parse_card_token(f, lang) is not None}
    assert card_like <= {"t"}, card_like


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

CONTEXTS = [LOBBY, MY_TURN, SPEC,
            CommandContext(where="room", moves=TDC, phase="give", hand=HAND, you=0, give=2),
            CommandContext(where="room", moves=TDC, phase="play", hand=HAND, you=0, top=("7d",)),
            CommandContext(where="room", moves=CLASSIC, phase="play", you=None)]


@settings(max_examples=300, deadline=None)
@given(
    line=st.text(alphabet=st.sampled_from(list("azAZ0179 tTpPjqkvdr'\"/?¿é♥♣x=#-\t\x1b\x00")), max_size=30),
    lang=st.sampled_from(["fr", "es", "en", "de"]),
    ctx=st.sampled_from(CONTEXTS),
)
def test_any_line_gets_a_command_or_a_sentence(line, lang, ctx):
    """Bad input gets a clear error and never an exception."""
    got = parse_line(line, lang, ctx)
    if isinstance(got, ParseError):
        assert got.code and got.message and "{" not in got.message
    else:
        assert got.cmd in VERBS["en"] or got.cmd in ("bid", "play", "cut", "give"), got
        if "cards" in got.args and isinstance(got.args["cards"], list):
            assert all(len(c) == 2 for c in got.args["cards"])


@pytest.mark.parametrize(
    ("lang", "line", "expected"),
    [
        ("en", "whois bob", Command("finger", {"name": "bob"})),  # the profile's (social)
        ("fr", "whois bob", Command("finger", {"name": "bob"})),
        ("en", "standing bob", Command("standing", {"name": "bob"})),  # the staff's look at an account
        ("en", "account bob", Command("standing", {"name": "bob"})),
        ("fr", "compte bob", Command("standing", {"name": "bob"})),
        ("es", "cuenta bob", Command("standing", {"name": "bob"})),
    ],
)
def test_whois_is_finger_and_the_staff_s_look_is_standing(lang, line, expected):
    assert parse_line(line, lang, LOBBY) == expected
