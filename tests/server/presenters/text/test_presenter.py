"""The text presenter as a session uses it: reading lines, answering, drawing what arrives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.messages.events import event_text
from server.messages.terminal import TermStyle
from server.messages.translations import translation
from server.presenters import Local, Quit, Request
from server.presenters.text import TextPresenter


class Viewer:
    def __init__(self, state: Mapping[str, Any] | None = None, lang: str = "fr") -> None:
        self.lang = lang
        self.name = "zoé"
        self.guest = True
        self.logged_in = True
        self.welcomed = False
        self.style = TermStyle(80, True, False)
        self.state = state
        self.sent: list[str] = []

    def send_raw(self, text: str) -> None:
        self.sent.append(text)

    def where(self) -> tuple[Mapping[str, Any] | None, str]:
        return self.state, "room" if self.state is not None else "lobby"


def _state(**changes: Any) -> dict[str, Any]:
    state = {"game": "president", "rules": "tdc", "round": 1, "phase": "play", "you": 0, "turn": 1, "room": "r3",
             "status": "playing", "deadline": 20, "order": "normal", "hand": ["3c", "7c", "Kd"], "cut": None,
             "trick": [{"seat": 2, "cards": ["5c"]}], "decision": None, "moves": ["play", "pass", "cut", "give"],
             "seats": [{"seat": i, "name": n, "cards": 3} for i, n in enumerate(["Zoé", "Bob", "Carmen"])]}
    state.update(changes)
    return state


def test_a_move_overtaken_by_the_table_shows_the_new_situation_then_the_refusal() -> None:
    """A bot's play lands just after the person's prompt: the table is drawn again, then why."""
    p = TextPresenter(Viewer(_state()))
    out = p.error(None, "not_your_turn", {"turn": 1})
    assert out.index("Votre main") < out.index("pas votre tour")
    plain = TextPresenter(Viewer(_state()))
    assert "Votre main" not in plain.error(None, "illegal_play", {"reason": "too_weak"})


def test_leaving_a_round_with_chips_at_stake_asks_first() -> None:
    p = TextPresenter(Viewer(_state(at_stake=10)))
    first = p.read("partir")
    assert isinstance(first, Local) and "10 de vos jetons" in first.text and "partir" in first.text
    assert p.read("partir") == Request("leave", {})
    nothing_at_stake = TextPresenter(Viewer(_state(at_stake=0)))
    assert nothing_at_stake.read("partir") == Request("leave", {})


def test_quitting_a_round_with_chips_at_stake_asks_first_too() -> None:
    """``quitter`` mid-round at a staked table asks like ``partir`` does; the same word again goes."""
    for lang, word, said in (("fr", "quitter", "10 de vos jetons"), ("es", "salir", "10 fichas tuyas"),
                             ("en", "quit", "10 chips of yours")):
        p = TextPresenter(Viewer(_state(at_stake=10), lang=lang))
        first = p.read(word)
        assert isinstance(first, Local) and said in first.text and word in first.text, first
        assert isinstance(p.read(word), Quit)
    p = TextPresenter(Viewer(_state(at_stake=10)))
    assert isinstance(p.read("partir"), Local)
    assert isinstance(p.read("quitter"), Local)  # another command: asked for itself
    assert isinstance(TextPresenter(Viewer(_state(at_stake=0))).read("quitter"), Quit)
    assert isinstance(TextPresenter(Viewer(None)).read("quitter"), Quit)


def test_leaving_a_staked_round_names_it_with_the_word_the_table_uses_in_spanish() -> None:
    """A Président round is a "ronda" on the table's header and when quitting; leaving says the same
    word (not "mano", a Speculation deal), in the question and in the reply."""
    p = TextPresenter(Viewer(_state(at_stake=2), lang="es"))
    asked = p.read("irse")
    assert isinstance(asked, Local) and "ronda" in asked.text and "mano" not in asked.text, asked
    left = p.ok(None, "leave", {"until": "round_end", "at_stake": 2})
    assert "ronda" in left and "mano" not in left, left
    quitting = TextPresenter(Viewer(_state(at_stake=2), lang="es")).read("salir")
    assert isinstance(quitting, Local) and "ronda" in quitting.text, quitting
    t = translation("es")
    for told in (t.ngettext("The round you left at {room} is over: you win {n} chip.",
                            "The round you left at {room} is over: you win {n} chips.", 2),
                 t.gettext("{name} left: a bot plays the seat to the end of the round.")):
        assert "ronda" in told and "mano" not in told, told


def test_leaving_a_speculation_deal_calls_it_a_deal_as_its_table_does() -> None:
    """A Speculation table says "donne 1/8" / "mano 1/8": leaving or quitting it mid-deal says the
    same word, in the question and in the reply (not "manche" / "ronda", a Président round)."""
    spec = _state(at_stake=1, game="speculation")
    for lang, word, said, never in (("fr", "partir", "donne", "manche"), ("fr", "quitter", "donne", "manche"),
                                    ("es", "irse", "mano", "ronda"), ("es", "salir", "mano", "ronda"),
                                    ("en", "leave", "deal", "round")):
        p = TextPresenter(Viewer(spec, lang=lang))
        p.shown_state = spec
        asked = p.read(word)
        assert isinstance(asked, Local) and said in asked.text and never not in asked.text, (lang, asked)
        if word in ("partir", "irse", "leave"):
            left = p.ok(None, "leave", {"until": "round_end", "at_stake": 1})
            assert said in left and never not in left, (lang, left)
            over = event_text(lang, {"event": "round_result", "room": "r5", "round": 1, "seat": 0, "chips": 2,
                                     "game": "speculation"}, ["Zoé", "Bob"], None) or ""
            assert said in over.lower() and never not in over.lower(), (lang, over)
            gone = event_text(lang, {"event": "replaced", "room": "r5", "name": "Bob", "seat": 1, "until": "round_end",
                                     "game": "speculation"}, ["Zoé", "Bob"], 0) or ""
            assert said in gone and never not in gone, (lang, gone)


async def test_a_turn_is_not_prompted_while_a_cut_window_is_open() -> None:
    """T9: a turn that a cut may still take away is prompted once the window has passed."""
    p = TextPresenter(Viewer())
    p.state(_state(turn=2))
    during = p.state(_state(turn=0, decision="follow", window={"kind": "cut", "left": 3.0},
                            trick=[{"seat": 2, "cards": ["5c"]}, {"seat": 1, "cards": ["6c"]}]))
    assert "\a" not in during
    after = p.state(_state(turn=0, decision="follow", window=None,
                           trick=[{"seat": 2, "cards": ["5c"]}, {"seat": 1, "cards": ["6c"]}]))
    assert "\a" in after
    p.close()


def _replay() -> dict[str, Any]:
    steps = [[{"event": "played", "seat": i % 3, "cards": ["5c"]}] for i in range(6)]
    return {"round": "r1-85ab12cd-1", "game": "president", "rules": "classic", "seats": ["Zoé", "Bob", "Carmen"],
            "steps": steps, "revealed": []}


def test_the_replay_words_it_teaches_work_while_seated() -> None:
    """Seated at a table where moves are typed, every word the replay's page shows moves the replay;
    the table's own moves stay moves."""
    for lang, words, play in (("fr", ("suivant", "n", "précédent", "aller 4", "fin", "arrêter"), "jouer 7"),
                              ("es", ("siguiente", "n", "anterior", "ir 4", "fin", "parar"), "jugar 7"),
                              ("en", ("next", "n", "prev", "go 4", "end", "stop"), "play 7")):
        p = TextPresenter(Viewer(_state(), lang=lang))
        title = p.ok(None, "replay", _replay())
        for word in words:
            assert word.split()[0] in title or word in ("n", "arrêter", "parar", "stop"), (lang, word, title)
            assert isinstance(p.read(word), Local), (lang, word)
        assert p.replay is not None and p.replay.at == p.replay.last  # "fin"/"end" went to the hands page
        auto = {"fr": "lire", "es": "reproducir", "en": "autoplay"}[lang]
        assert auto in title
        assert p.read(play) == Request("play", {"cards": ["7c"]})  # a move stays a move
        p.close()


def test_a_mistyped_replay_word_is_suggested_while_a_replay_is_open() -> None:
    p = TextPresenter(Viewer(_state()))
    p.ok(None, "replay", _replay())
    out = p.read("suivnt")
    assert isinstance(out, Local) and "suivant" in out.text, out
    es = TextPresenter(Viewer(None, lang="es"))
    es.ok(None, "replay", _replay())
    out = es.read("sigiente")
    assert isinstance(out, Local) and "siguiente" in out.text, out


def test_a_replay_word_without_a_replay_says_how_to_open_one() -> None:
    p = TextPresenter(Viewer(_state()))
    out = p.read("suivant")
    assert isinstance(out, Local) and "revoir" in out.text and "sit" not in out.text


def test_suggestions_are_words_of_the_session_language() -> None:
    """A mistyped command is answered with a word of the reader's language, never an English one."""
    for lang, typed, never in (("fr", "sut", ("sit",)), ("fr", "frend", ("friend",)),
                               ("es", "frend", ("friend",)), ("es", "sitt", ("sit",))):
        out = TextPresenter(Viewer(None, lang=lang)).read(typed)
        assert isinstance(out, Local)
        for word in never:
            assert f"« {word} »" not in out.text and f"«{word}»" not in out.text and f"“{word}”" not in out.text, out
    out = TextPresenter(Viewer(None, lang="en")).read("frend")
    assert isinstance(out, Local) and "friend" in out.text


def test_seeks_are_listed_by_the_word_the_screen_calls_them() -> None:
    """The screen says "Recherche n° 1" / "Búsqueda n.º 1": the plural lists them, instead of being
    answered "Vouliez-vous dire « cherche » ?" (which would open a seek)."""
    from server.presenters.text.context import context_from_state
    from server.presenters.text.parse import parse_line

    ctx = context_from_state(None, "lobby")
    for lang, word in (("fr", "recherches"), ("es", "búsquedas"), ("es", "busquedas"), ("fr", "défis")):
        assert parse_line(word, lang, ctx).cmd == "seeks", (lang, word)  # type: ignore[union-attr]


def test_the_empty_friends_list_never_suggests_oneself() -> None:
    """The example names the person the server suggests, else a placeholder: never a fixed name (which
    was "ana" — to ana herself)."""
    for lang, placeholder in (("fr", "ami NOM"), ("es", "amigo NOMBRE"), ("en", "friend NAME")):
        p = TextPresenter(Viewer(None, lang=lang))
        assert placeholder in p.ok(None, "friends", {"friends": [], "notify": True})
        assert "bea" in p.ok(None, "friends", {"friends": [], "notify": True, "suggest": "bea"})


def test_the_tricks_reply_reads_trick_by_trick() -> None:
    reply = {"round": 2, "seats": ["Zoé", "Bob", "Carmen"],
             "tricks": [{"plays": [{"seat": 1, "cards": ["7c"]}, {"seat": 2, "cards": ["7d", "7h", "7s"], "cut": True}],
                         "by": 2, "reason": "cut"}],
             "trick": [{"seat": 2, "cards": ["4c"]}, {"seat": 0, "pass": True}]}
    fr = TextPresenter(Viewer(_state())).ok(None, "tricks", reply)
    assert "Plis de la manche 2" in fr and "Bob 7♣" in fr and "Carmen coupe avec 7♦ 7♥ 7♠" in fr
    assert "(Carmen le ferme)" in fr and "Sur la table" in fr and "Zoé passe" in fr
    es = TextPresenter(Viewer(_state(), lang="es")).ok(None, "tricks", reply)
    assert "Bazas de la ronda 2" in es and "Carmen corta con" in es
    assert TextPresenter(Viewer(_state())).read("plis") == Request("tricks", {})
    assert TextPresenter(Viewer(_state(), lang="es")).read("bazas") == Request("tricks", {})
    assert TextPresenter(Viewer(_state(), lang="en")).read("tricks") == Request("tricks", {})


def test_a_match_end_says_what_a_player_can_do_next() -> None:
    over = {"event": "match_over", "room": "r3", "winners": [0], "totals": [5, 3, 1]}
    for lang, words in (("fr", ("revanche", "partir")), ("es", ("revancha", "levantarse")),
                        ("en", ("rematch", "leave"))):
        text = TextPresenter(Viewer(_state(), lang=lang)).event(over, ("Zoé", "Bob", "Carmen"), 0)
        assert all(w in text for w in words), text
    watcher = TextPresenter(Viewer(_state(you=None))).event(over, ("Zoé", "Bob", "Carmen"), None)
    assert "revanche" not in watcher  # a spectator has no rematch to ask for


def test_a_tournament_tables_end_says_the_event_seats_the_player_next_not_rematch() -> None:
    """A tournament's table plays one match (no rematch there): the person hears the event goes on."""
    over = {"event": "match_over", "room": "r3", "winners": [0], "totals": [5, 3, 1]}
    seated = {"event": "tournament_seated", "tournament": "e2", "room": "r3", "seat": 0, "round": 1}
    for lang, said, absent in (("fr", "Cette partie compte pour le tournoi e2", "revanche"),
                               ("es", "Esta partida cuenta para el torneo e2", "revancha"),
                               ("en", "This game counts for tournament e2", "rematch")):
        presenter = TextPresenter(Viewer(_state(), lang=lang))
        presenter.event(seated, None, None)
        text = presenter.event(over, ("Zoé", "Bob", "Carmen"), 0)
        assert said in text and absent not in text, text
    assert "revanche" in TextPresenter(Viewer(_state())).event(over, ("Zoé", "Bob", "Carmen"), 0)


def test_the_end_of_a_swiss_event_s_last_table_does_not_promise_a_next_one() -> None:
    """After the last round's game, no table comes next: the person is told the final standings
    come instead; after an earlier round, that the event seats them next."""
    over = {"event": "match_over", "room": "r3", "winners": [0], "totals": [5, 3, 1]}
    for lang, next_table, last in (("fr", "on vous dira où vous jouez ensuite", "dernière ronde"),
                                   ("es", "te diremos dónde juegas después", "última ronda"),
                                   ("en", "you will be told where you play next", "last round")):
        presenter = TextPresenter(Viewer(_state(), lang=lang))
        for rnd in (1, 2):
            presenter.event({"event": "tournament_round", "tournament": "e2", "round": rnd, "rounds": 2,
                             "tables": 1, "byes": []}, None, None)
            presenter.event({"event": "tournament_seated", "tournament": "e2", "room": f"r{rnd}", "seat": 0,
                             "round": rnd}, None, None)
            text = presenter.event({**over, "room": f"r{rnd}"}, ("Zoé", "Bob", "Carmen"), 0)
            flat = " ".join(text.replace("\u00a0", " ").split())
            if rnd == 1:
                assert next_table in flat and last not in flat, flat
            else:
                assert last in flat and next_table not in flat, flat


def test_a_speculation_board_counts_deals_as_its_table_calls_them() -> None:
    """The Speculation board said "3 manches" / "3 rondas" under a table that says "donne 1/8": its
    counts are deals; a Président board's are rounds."""
    from server.presenters.text.replies import render_reply

    style = TermStyle(80, False, False)
    row = {"name": "zoe", "chips": -3, "rounds": 3, "provisional": True}
    for lang, deals, rounds in (("fr", "3 donnes", "3 manches"), ("es", "3 manos", "3 rondas"),
                                ("en", "3 deals", "3 rounds")):
        spec = render_reply("leaderboard", {"type": "ok", "game": "speculation", "by": "chips", "leaderboard": [],
                                            "you": row}, lang, style)
        assert deals in spec and rounds not in spec, (lang, spec)
        tdc = render_reply("leaderboard", {"type": "ok", "game": "president", "rules": "tdc", "by": "chips",
                                           "leaderboard": [], "you": row}, lang, style)
        assert rounds in tdc, (lang, tdc)
