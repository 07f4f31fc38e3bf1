"""Tournaments typed in French, Spanish and English become exactly the tournament_* JSON commands
(docs/protocol.md); a line that cannot become one gets a sentence in the session's language."""

from __future__ import annotations

import datetime as dt

import pytest

import server.presenters.text  # noqa: F401  (registers the tournament handlers into the parser)
from server.presenters.text.context import Command, CommandContext, ParseError
from server.presenters.text.parse import parse_line
from server.presenters.text.parse_tournaments import clock_seconds, duration_seconds, parse_tournament

LOBBY = CommandContext()
NOW = dt.datetime(2026, 12, 6, 10, 0, tzinfo=dt.UTC).timestamp()
"""A fake wall clock: 10:00 UTC."""


def cmd(line: str, lang: str) -> Command:
    got = parse_tournament(line.split()[1:], lang, NOW) if line.split()[0] in ("tournament", "tournoi", "torneo") \
        else parse_line(line, lang, LOBBY)
    assert isinstance(got, Command), got
    return got


def err(line: str, lang: str) -> ParseError:
    got = parse_tournament(line.split()[1:], lang, NOW)
    assert isinstance(got, ParseError), got
    return got


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "tournament create arena president classic 4 in 10m 1h bots streak"),
    ("fr", "tournoi créer arène président classique 4 dans 10m 1h bots série"),
    ("fr", "tournoi creer arene president classique 4 dans 10 min 60m bots=oui serie=oui"),
    ("es", "torneo crear arena presidente clásica 4 en 10m 1h bots racha"),
    ("es", "torneo crear arena presidente clasica 4 en 600s duracion=1h bots=si racha=si"),
])
def test_an_arena_in_every_language(lang: str, line: str) -> None:
    assert cmd(line, lang) == Command("tournament_create", {
        "kind": "arena", "game": "president", "rules": "classic", "seats": 4, "start": 600.0, "length": 3600.0,
        "bots": True, "streak": True})


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "tournament create swiss president tdc 5 at 20:30 rounds=4 min=4 scoring=chips"),
    ("fr", "tournoi créer suisse président tdc 5 à 20h30 rondes=4 min=4 points=jetons"),
    ("fr", "tournoi créer suisse président tdc 5 20:30 4 rondes min 4 jetons"),
    ("es", "torneo crear suizo presidente tdc 5 a las 20:30 rondas=4 mín=4 puntos=fichas"),
    ("es", "torneo crear suizo presidente tdc 5 inicio=20:30 4 rondas mín=4 fichas"),
])
def test_a_swiss_event_in_every_language(lang: str, line: str) -> None:
    """20:30 at 10:00 UTC: 10 h 30 min from now."""
    assert cmd(line, lang) == Command("tournament_create", {
        "kind": "swiss", "game": "president", "rules": "tdc", "seats": 5, "start": 37800.0, "event_rounds": 4,
        "min_seats": 4, "scoring": "chips"})


def test_a_time_of_day_already_past_is_tomorrows() -> None:
    assert clock_seconds("09:00", NOW) == 23 * 3600
    assert clock_seconds("10:00", NOW) == 24 * 3600
    assert clock_seconds("25:00", NOW) is None and clock_seconds("10:75", NOW) is None
    assert clock_seconds("20h", NOW) is None and clock_seconds("20h", NOW, bare_hour=True) == 36000


@pytest.mark.parametrize(("typed", "seconds"), [("10m", 600), ("1h", 3600), ("1h30", 5400), ("2h30m", 9000),
                                                ("90s", 90), ("45min", 2700), ("1h75", None), ("45", None),
                                                ("abc", None)])
def test_durations(typed: str, seconds: float | None) -> None:
    assert duration_seconds(typed) == seconds


def test_rounds_are_the_events_in_a_swiss_and_the_tables_in_an_arena() -> None:
    assert cmd("tournoi créer suisse rondes=5 manches=2", "fr").args == {
        "kind": "swiss", "event_rounds": 5, "rounds": 2, "game": "president", "seats": 4}
    assert cmd("tournoi créer arène rondes=3 1h", "fr").args["rounds"] == 3


def test_the_other_options() -> None:
    got = cmd("tournament create arena speculation 5 now 45m ante=2 time=30 max=40 late=zero unrated without bots",
              "en")
    assert got.args == {"kind": "arena", "game": "speculation", "seats": 5, "start": 0.0, "length": 2700.0, "ante": 2,
                        "turn_seconds": 30, "max_entrants": 40, "late": "zero", "rated": False, "bots": False}
    assert cmd("torneo crear arena sin racha amistosa tarde=mitad 1h", "es").args == {
        "kind": "arena", "streak": False, "rated": False, "late": "half", "length": 3600.0, "game": "president",
        "seats": 4}
    assert cmd("tournoi créer arène sans bots mise=2 temps=45s 1h", "fr").args["turn_seconds"] == 45
    assert cmd("torneo crear suizo pausa=10s", "es").args["round_pause"] == 10.0
    assert cmd("tournoi créer suisse pause 1m", "fr").args["round_pause"] == 60.0


@pytest.mark.parametrize(("lang", "line", "want"), [
    ("en", "tournaments", Command("tournaments", {})),
    ("fr", "tournois", Command("tournaments", {})),
    ("es", "torneos", Command("tournaments", {})),
    ("fr", "tournoi", Command("tournaments", {})),
    ("en", "tournament join e3", Command("tournament_join", {"tournament": "e3"})),
    ("fr", "tournoi rejoindre #e3", Command("tournament_join", {"tournament": "e3"})),
    ("es", "torneo unirse e3", Command("tournament_join", {"tournament": "e3"})),
    ("en", "tournament leave e3", Command("tournament_leave", {"tournament": "e3"})),
    ("fr", "tournoi quitter e3", Command("tournament_leave", {"tournament": "e3"})),
    ("es", "torneo salir e3", Command("tournament_leave", {"tournament": "e3"})),
    ("en", "tournament standings e3", Command("tournament_standings", {"tournament": "e3"})),
    ("fr", "tournoi classement e3", Command("tournament_standings", {"tournament": "e3"})),
    ("es", "torneo clasificación e3", Command("tournament_standings", {"tournament": "e3"})),
    ("es", "torneo clasificacion e3", Command("tournament_standings", {"tournament": "e3"})),
    ("fr", "tournoi e3", Command("tournament_standings", {"tournament": "e3"})),
    ("en", "tournament watch e3", Command("tournament_watch", {"tournament": "e3"})),
    ("fr", "tournoi regarder e3 12", Command("tournament_watch", {"tournament": "e3", "table": 12})),
    ("es", "torneo mirar e3", Command("tournament_watch", {"tournament": "e3"})),
    ("en", "tournament stop e3", Command("tournament_stop", {"tournament": "e3"})),
    ("fr", "tournoi arrêter e3", Command("tournament_stop", {"tournament": "e3"})),
    ("fr", "Tournoi Arreter e3", Command("tournament_stop", {"tournament": "e3"})),
    ("es", "torneo parar e3", Command("tournament_stop", {"tournament": "e3"})),
])
def test_the_commands_of_an_event(lang: str, line: str, want: Command) -> None:
    assert parse_line(line, lang, LOBBY) == want


def test_tournament_words_do_not_take_other_commands_words() -> None:
    """"classement" alone is still the leaderboard; "quitter" alone still disconnects; "arrêter" the staff's
    shutdown: only after "tournoi" are they a tournament's."""
    assert parse_line("classement", "fr", LOBBY).cmd == "leaderboard"  # type: ignore[union-attr]
    assert parse_line("quitter", "fr", LOBBY).cmd == "quit"  # type: ignore[union-attr]
    assert parse_line("mirar 3", "es", LOBBY) == Command("watch", {"room": 3})


@pytest.mark.parametrize(("lang", "line", "said"), [
    ("fr", "tournoi créer", "Ouvrez un tournoi ainsi"),
    ("fr", "tournoi créer président 4", "Ouvrez un tournoi ainsi"),  # arena or Swiss?
    ("es", "torneo crear", "Abre un torneo así"),
    ("en", "tournament create", "Open a tournament like this"),
    ("fr", "tournoi créer arène presidnt", "Vouliez-vous dire «\u00a0président\u00a0»"),
    ("es", "torneo crear arena especulacon", "¿Querías decir «especulación»?"),
    ("fr", "tournoi créer arène bots=peut-être", "attendu\u00a0: oui, non"),
    ("es", "torneo crear arena puntos=muchos", "se esperaba: puesto, fichas"),
    ("fr", "tournoi créer arène dans demain", "n’est ni un délai ni une heure"),
    ("es", "torneo crear arena a las 25:00", "no es ni un plazo ni una hora"),
    ("fr", "tournoi créer arène durée=longtemps", "n’est pas une durée"),
    ("fr", "tournoi créer suisse 1h", "Un tournoi suisse se joue en rondes"),
    ("es", "torneo crear suizo duración=1h", "Un torneo suizo se juega por rondas"),
    ("fr", "tournoi créer arène 4 5", "Ouvrez un tournoi ainsi"),
    ("fr", "tournoi rejoindre", "Quel tournoi\u00a0? Tapez tournois"),
    ("es", "torneo unirse", "¿Qué torneo? Escribe torneos"),
    ("fr", "tournoi danser", "tournoi rejoindre ID"),
    ("es", "torneo bailar e3", "torneo unirse ID"),
    ("fr", "tournoi danser e1", "«\u00a0danser\u00a0» n’est pas compris ici."),
    ("es", "torneo bailar e3", "Aquí no se entiende «bailar». Torneos:"),
    ("fr", "tournoi rejoindr e3", "«\u00a0rejoindr\u00a0» n’est pas compris. Vouliez-vous dire «\u00a0rejoindre\u00a0»"),
    ("es", "torneo clasificasion e3", "¿Querías decir «clasificación»?"),
    ("es", "torneo crear suizo rondas=dos", "«rondas=dos»; se esperaba: un número entero"),
    ("fr", "tournoi créer suisse min=trois", "attendu\u00a0: un nombre entier"),
    ("fr", "tournoi rejoindre e3 e4", "«\u00a0e4\u00a0»"),
])
def test_bad_input_is_refused_in_the_sessions_language(lang: str, line: str, said: str) -> None:
    got = err(line, lang)
    assert said in got.message, got.message


def test_tournois_with_words_after_it_says_how_to_use_it() -> None:
    got = parse_line("tournois e3", "fr", LOBBY)
    assert isinstance(got, ParseError) and "tournoi rejoindre ID" in got.message


def test_the_examples_of_docs_playing_are_read_as_documented() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[4] / "docs" / "playing.md").read_text(encoding="utf-8")
    section = docs.split("## Tournaments", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith(("tournoi créer", "torneo crear",
                                                                       "tournament create"))]
    assert len(lines) == 5
    for line in lines:
        lang = {"tournoi": "fr", "torneo": "es"}.get(line.split()[0], "en")
        got = parse_line(line, lang, LOBBY)
        assert isinstance(got, Command) and got.cmd == "tournament_create", (line, got)
