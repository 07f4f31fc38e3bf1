"""The replies to commands fit any terminal and read naturally."""

from __future__ import annotations

import pytest

from server.messages import LANGS
from server.messages.terminal import TermStyle
from server.presenters.text.replies import render_reply, render_rooms
from tests.server.presenters.text.samples import LONG_NAMES, STYLES, check

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


def test_replies_read_naturally():
    style = TermStyle(80, True, False)
    balance = next(reply for cmd, reply in REPLIES if cmd == "balance")
    text = render_reply("balance", balance, "fr", style).replace("\u00a0", " ")
    assert "Solde : 96 jetons." in text and "-2  mise payée" in text and "+4  gains" in text
    board = render_reply("leaderboard", REPLIES[-2][1], "es", style)
    assert "Clasificación, Presidente clásica:" in board and "12 ptos" in board and "3 rondas, 1 partida" in board
    hist = render_reply("history", REPLIES[-1][1], "fr", style)
    assert "Vice-président" in hist and "classé 2e" in hist


@pytest.mark.parametrize(("lang", "mark"), [("fr", "tournoi e4"), ("es", "torneo e4"), ("en", "tournament e4")])
def test_the_history_marks_a_tournament_table_s_games(lang, mark):
    """docs/tournaments.md, "Results": history marks a tournament table's games with their event."""
    game = {"round": "r6-04884a4d-1", "game": "president", "rules": "classic", "ended": "2026-12-06T12:47:00Z",
            "place": 1, "points": 2, "title": "president", "won": True}
    text = render_reply("history", {"history": [{**game, "tournament": "e4", "table": "e4.3"}, game]}, lang,
                        TermStyle(80, True, False))
    assert text.count(mark) == 1, text


def test_a_page_of_rooms_says_what_to_type_for_the_next():
    style = TermStyle(80, True, False)
    rooms = [{"room": f"r{i}", "game": "president", "rules": "classic", "seats": 4, "players": ["a"],
              "status": "waiting"} for i in range(50)]
    assert "Page 1 sur 3\u00a0: tapez tables 2 pour la suivante." in render_rooms(rooms, "fr", style, 120, 1, 3)
    assert "Página 2 de 3: escribe mesas 3 para la siguiente." in render_rooms(rooms, "es", style, 120, 2, 3)
    assert "suivante" not in render_rooms(rooms, "fr", style, 120, 3, 3)
