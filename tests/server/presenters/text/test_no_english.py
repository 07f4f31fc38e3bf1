"""No English word in what a French or Spanish person reads.

A scripted session types, in French and in Spanish, the lines a newcomer types in an evening
(help everywhere, mistakes, switches, seeds, seeks), and the replies and events of the evening
are drawn in that language; with the golden transcripts of whole matches, every word read is
checked against the English words the code once let through: command words, option values
(``on``/``off``), game and rules names, table options. The catalogs are checked by
``test_catalogs``; this catches the words composed in code around them (examples, usages).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from server.messages import error_message, event_text
from server.messages.terminal import TermStyle
from server.presenters import Local
from server.presenters.text import TextPresenter
from server.presenters.text.context import CommandContext
from server.presenters.text.help import help_text
from server.presenters.text.moderation import staff_help
from server.presenters.text.replies import render_reply

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
STYLE = TermStyle(80, True, False)

_ENGLISH_WORDS = """
off yes president classic speculation seed seeds create join watch leave rematch help quit password
stake rounds round seats seat level easy hard fill rated unrated free seek seeks challenge accept decline
withdraw cancel friend friends sit play pass cut give bid sell keep turn offer verify replay history
leaderboard whoami register login say tell reply message profile finger ignore the and you your with
for not from this that there time staff clear set player players chips chip room rooms table
tournament tournaments swiss standings entrant entrants streak bye byes scoring organised wins games
"""
ENGLISH = frozenset(_ENGLISH_WORDS.split())
"""English words that are no word of French or Spanish (``on`` is a French pronoun: checked apart)."""

ALLOWED = {
    "fr": frozenset({"table", "tables", "message"}),  # French words too
    "es": frozenset(),
}
WORD = re.compile(r"[A-Za-zÀ-ÿ]+")


class Viewer:
    def __init__(self, lang: str, state: Mapping[str, Any] | None = None) -> None:
        self.lang = lang
        self.name = "zoe"
        self.guest = True
        self.logged_in = True
        self.welcomed = False
        self.style = STYLE
        self.state = state
        self.sent: list[str] = []

    def send_raw(self, text: str) -> None:
        self.sent.append(text)

    def where(self) -> tuple[Mapping[str, Any] | None, str]:
        return self.state, "room" if self.state is not None else "lobby"


LOBBY_LINES = {
    "fr": ["aide", "aide équipe", "créer", "créer presidnt", "créer président 4 5 6", "couleur peut-être",
           "couleur", "unicode peut-être", "passeauto peut-être", "défier", "chercher président tdc 4 mise=3 xx",
           "ami", "largeur 3", "graine", "vérifier", "bannir", "bannir ana jamais", "aide tournoi", "tournoi",
           "tournoi créer", "tournoi créer arène presidnt", "tournoi créer arène bots=peut", "tournoi rejoindre",
           "tournoi créer suisse 1h", "tournoi créer arène dans demain", "tournoi danser", "tournoi créer arène "
           "durée=longtemps", "tournoi créer arène points=beaucoup", "tournoi créer arène retard=bof"],
    "es": ["ayuda", "ayuda equipo", "crear", "crear presidnte", "crear presidente 4 5 6", "color quizás",
           "color", "unicode quizás", "pasoauto quizás", "desafiar", "buscar presidente tdc 4 apuesta=3 xx",
           "amigo", "ancho 3", "semilla", "verificar", "banear", "banear ana nunca", "ayuda torneo", "torneo",
           "torneo crear", "torneo crear arena presidnte", "torneo crear arena bots=quizás", "torneo unirse",
           "torneo crear suizo 1h", "torneo crear arena en mañana", "torneo bailar", "torneo crear arena "
           "duración=mucho", "torneo crear arena puntos=muchos", "torneo crear arena tarde=bah"],
}

SEEK = {"seek": 2, "name": "marc", "game": "president", "rules": "tdc", "seats": 4, "bots": 0, "bot_level": "normal",
        "turn_seconds": 30.0, "stake": 2, "ante": 1, "rounds": None, "options": {}, "rated": True, "fill": False,
        "missing": 3, "accepted": [], "to": "zoe"}

REPLIES: list[tuple[str, dict[str, Any]]] = [
    ("seeks", {"seeks": []}),
    ("seeks", {"seeks": [SEEK]}),
    ("seek", SEEK),
    ("challenge", SEEK),
    ("seed", {"seed": "kiwi", "set": True}),
    ("seed", {"seed": None, "set": False}),
    ("friends", {"friends": []}),
    ("finger", {"name": "ana", "online": True, "tables": [{"game": "president", "rules": "classic", "rounds": 2,
                                                           "matches": 1}]}),
    ("leaderboard", {"game": "president", "rules": "tdc", "by": "chips", "leaderboard": [],
                     "you": {"name": "zoe", "rounds": 2, "chips": 4, "points": 0, "matches": 0, "provisional": True}}),
    ("tournaments", {"tournaments": []}),
    ("tournaments", {"tournaments": [
        {"id": "e3", "kind": "arena", "game": "president", "rules": "tdc", "seats": 4, "phase": "waiting",
         "entrants": 5, "playing": 0, "tables": 0, "starts_at": 4e9, "ends_at": 4e9 + 3600, "organiser": "ana",
         "scoring": "place", "joined": True},
        {"id": "e4", "kind": "swiss", "game": "speculation", "rules": "speculation", "seats": 5, "phase": "running",
         "entrants": 12, "playing": 10, "tables": 2, "starts_at": 1e9, "round": 2, "rounds": 5, "organiser": "ana",
         "scoring": "chips", "joined": False},
        {"id": "e5", "kind": "arena", "game": "president", "rules": "classic", "seats": 4, "phase": "running",
         "entrants": 8, "playing": 8, "tables": 2, "starts_at": 1e9, "ends_at": 1e9, "organiser": "ana",
         "scoring": "place", "joined": False}]}),
    ("tournament_standings", {"tournament": "e4", "kind": "swiss", "final": True, "you": "zoe", "lines": [
        {"rank": 1, "name": "ana", "points": 250, "opponents": 400, "games": 3, "wins": 2, "byes": 1, "fire": True,
         "provisional": True, "status": "left"},
        {"rank": 2, "name": "zoe", "points": 100, "opponents": 300, "games": 3, "wins": 1, "byes": 0,
         "fire": False, "provisional": False, "status": "active"}]}),
    ("tournament_standings", {"tournament": "e4", "lines": []}),
    ("tournament_create", {"tournament": "e3"}),
    ("tournament_join", {"tournament": "e3"}),
    ("tournament_leave", {"tournament": "e3"}),
    ("tournament_stop", {"tournament": "e3"}),
    ("tournament_watch", {"room": 4}),
    ("verify", {"round": "r1-ab-1", "ok": True, "names": ["zoe", "bob"], "steps": [
        {"code": "contributions", "result": "pass", "values": {"given": [1], "none": [0]}},
        {"code": "own_contribution", "result": "pass", "values": {"seat": 0, "sent": None, "found": None}}]}),
]

EVENTS = [
    {"event": "seek", **SEEK}, {"event": "challenge", **SEEK},
    {"event": "seek_started", "seek": 2, "room": "r3", "seat": 1, "name": "marc", "challenge": True},
    {"event": "passed", "seat": 0, "auto": True, "forced": True},
    {"event": "chat", "name": "bob", "text": "bien joué"},
    {"event": "commitment", "round": 1, "commitment": "ab" * 32, "window": 2, "given": [], "game": "president"},
    {"event": "tournament_opened", "tournament": "e3", "kind": "swiss", "game": "president", "rules": "classic",
     "seats": 4, "organiser": "ana", "starts_at": 4e9},
    {"event": "tournament_started", "tournament": "e3", "kind": "arena", "entrants": 9},
    {"event": "tournament_round", "tournament": "e3", "round": 2, "rounds": 4, "tables": 2, "byes": ["bob", "ana"]},
    {"event": "tournament_seated", "tournament": "e3", "room": 12, "seat": 2, "round": 2},
    {"event": "tournament_bye", "tournament": "e3", "round": 3, "points": 50, "late": False},
    {"event": "tournament_bye", "tournament": "e3", "round": 1, "points": 50, "late": True},
    {"event": "tournament_scored", "tournament": "e3", "room": 12, "round": 2, "results": [
        {"name": "ana", "place": 1, "points": 100}, {"name": None, "place": 2, "points": 0}]},
    *({"event": "tournament_ended", "tournament": "e3", "reason": r, "top": [{"rank": 1, "name": "ana",
                                                                             "points": 300}]}
      for r in ("time", "rounds", "stopped", "too_few")),
]


def _said(lang: str) -> list[str]:
    out: list[str] = []
    presenter = TextPresenter(Viewer(lang))
    for line in LOBBY_LINES[lang]:
        action = presenter.read(line)
        if isinstance(action, Local):
            out.append(action.text)
    contexts = [CommandContext(),
                CommandContext(where="room", moves=frozenset({"play", "pass", "cut", "give"}), phase="play", you=0,
                               your_turn=True, decision="follow", hand=("3c", "7c")),
                CommandContext(where="room", moves=frozenset({"play", "pass", "cut", "give"}), phase="give", give=2,
                               you=0),
                CommandContext(where="room", moves=frozenset({"bid", "turn", "offer"}), phase="turning", you=0),
                CommandContext(where="room", phase="over", you=0)]
    out += [help_text(lang, ctx, STYLE) for ctx in contexts]
    out.append(staff_help(lang, STYLE))
    out += [render_reply(cmd, reply, lang, STYLE) for cmd, reply in REPLIES]
    out += [event_text(lang, e, ["zoe", "bob", "carmen", "dmitri"], 0, STYLE) for e in EVENTS]
    for code, params in [("bad_argument", {"arg": "on"}), ("bad_argument", {"arg": "rules"}),
                         ("bad_argument", {"arg": "free"}), ("bad_argument", {"arg": "game"}),
                         ("no_such_tournament", {"tournament": "e9"}), ("not_allowed", {"reason": "guest"}),
                         ("not_allowed", {"reason": "staff_only"}), ("not_allowed", {"reason": "organiser_only"}),
                         *(("bad_option", {"name": n, "value": 3}) for n in (
                             "kind", "game", "rules", "seats", "start", "length", "event_rounds", "rounds",
                             "min_seats", "max_entrants", "scoring", "late", "stake", "ante", "turn_seconds",
                             "streak", "bots", "rated", "round_pause", "bot_wait", "rematch_wait", "bot_level")),
                         ("not_allowed", {"reason": "tournament"}),
                         ("tournament_not_open", {"tournament": "e3"}), ("tournament_full", {}),
                         ("tournament_already_entered", {"tournament": "e3"}),
                         ("tournament_not_entered", {"tournament": "e3"}),
                         ("illegal_play", {"reason": "too_weak", "legal": {"plays": [[r, 1] for r in "789QKA"],
                                                                           "pass": True}})]:
        out.append(error_message(lang, code, **params))
    out += [p.read_text(encoding="utf-8") for p in sorted(GOLDEN.glob(f"*_{lang}.txt"))]
    return out


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_no_english_word_in_french_or_spanish_output(lang: str) -> None:
    found: dict[str, str] = {}
    for text in _said(lang):
        for word in WORD.findall(text):
            w = word.lower()
            if w in ENGLISH and w not in ALLOWED[lang]:
                found.setdefault(w, text.strip().splitlines()[0][:100])
        if re.search(r"\bon\s*\|\s*off\b|\bon ou off\b|\bon u off\b", text):
            found.setdefault("on|off", text[:100])
    assert not found, found


@pytest.mark.parametrize(("lang", "on", "off"), [("fr", "oui", "non"), ("es", "sí", "no")])
def test_switch_values_are_shown_in_the_session_language(lang: str, on: str, off: str) -> None:
    texts = "\n".join(_said(lang))
    assert f"{on}|{off}" in texts
    presenter = TextPresenter(Viewer(lang))
    for word in (on, off, "on", "off"):  # the session's words, and the English ones still understood
        assert not isinstance(presenter.read(f"{'couleur' if lang == 'fr' else 'color'} {word}"), Local)


def test_accepting_a_challenge_is_not_called_a_seek() -> None:
    """The table opened at once: its seek_started event tells the person (a challenge's table is not
    "la table de la recherche"); the reply does not say it a second time, after the match began."""
    reply = {**SEEK, "room": "r1", "seat": 1}
    assert render_reply("accept_seek", reply, "fr", STYLE) == ""
    assert render_reply("accept_seek", {**reply, "to": None}, "fr", STYLE) == ""
    started = {"event": "seek_started", "seek": 2, "room": "r1", "seat": 1, "name": "ann", "challenge": True}
    assert "La table du défi de ann est ouverte" in " ".join(event_text("fr", started, [], None).split())
    waiting = render_reply("accept_seek", {**reply, "room": None, "to": None}, "fr", STYLE)
    assert waiting.startswith("Recherche n° 2 acceptée")


@pytest.mark.parametrize(("lang", "pattern"), [
    ("fr", r"[Tt]apez (?:encore )?«?\s*([^\s»,.;:()]+)"),
    ("es", r"[Ee]scribe (?:otra vez )?«?\s*([^\s»,.;:()]+)"),
])
def test_every_command_a_catalog_tells_to_type_is_a_command_of_that_language(lang: str, pattern: str) -> None:
    """"Tapez défis", "Escribe aceptar": the word is one the parser reads in that language."""
    from babel.messages.pofile import read_po

    from server.messages.translations import po_path
    from server.presenters.text.words import VERB_TABLES, fold

    not_commands = {"les", "los", "como", "algo"}  # "tapez les hauteurs", "se escribe como…"
    with po_path(lang).open("rb") as f:
        catalog = read_po(f, locale=lang)
    unknown = []
    for msg in catalog:
        for text in (msg.string if isinstance(msg.string, list | tuple) else [msg.string]):
            for word in re.findall(pattern, text or ""):
                if not word.startswith("{") and word not in not_commands and fold(word) not in VERB_TABLES[lang]:
                    unknown.append((word, text))
    assert not unknown, unknown


def test_french_output_has_a_space_before_high_punctuation() -> None:
    """« Président classique : 2 manches », « zoe : 3♣ » — never « classique: », « zoe: »."""
    glued = re.compile(r"[^\s\u00a0\u202f\d«][:;!?](?=\s|$)")
    found = [line for text in _said("fr") for line in text.splitlines() if glued.search(line)]
    assert not found, found
