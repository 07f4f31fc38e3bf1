"""Tournament news and refusals in three languages (docs/tournaments.md; docs/protocol.md's events)."""

from __future__ import annotations

import datetime as dt
import itertools
import re
import time
from typing import Any

import pytest

from server.messages import error_message, event_text
from server.messages.kit import reading
from server.messages.tournament_events import clock, ends_text, span, starts_text
from server.messages.translations import translation

NOW = dt.datetime(2026, 12, 6, 20, 25, tzinfo=dt.UTC).timestamp()


def flat(text: str) -> str:
    return re.sub(r"[ \n]+", " ", text).strip()


def said(lang: str, event: dict[str, Any]) -> str:
    return flat(event_text(lang, event, [], None))


def test_moments_are_said_from_now() -> None:
    t = translation("fr")
    assert span(t, 30) == "moins d’une minute"
    assert span(t, 300) == "5 min" and span(t, 299.5) == "5 min" and span(t, 301) == "6 min"
    assert span(t, 3600) == "1 h" and span(t, 3900) == "1 h 5 min"
    assert clock(NOW + 300, NOW) == "20:30 UTC"
    assert clock(NOW + 4 * 3600, NOW) == "2026-12-07 00:25 UTC"
    assert starts_text(t, NOW + 300, NOW) == "commence dans 5 min (20:30 UTC)"
    assert starts_text(t, NOW - 5, NOW) == "commence maintenant"
    assert ends_text(translation("es"), NOW + 2400, NOW) == "termina a las 21:05 UTC (dentro de 40 min)"
    assert ends_text(translation("en"), NOW - 1, NOW) == "time is up: the last tables finish"


OPENED = {"event": "tournament_opened", "tournament": "e3", "kind": "arena", "game": "president", "rules": "tdc",
          "seats": 4, "organiser": "ana", "starts_at": 0.0}


@pytest.mark.parametrize(("lang", "words"), [
    ("fr", ["Nouveau tournoi e3\u00a0: arène, Président trou du cul, 4 places, commence dans 10 min",
            "organisé par ana. Pour y entrer\u00a0: tournoi rejoindre e3"]),
    ("es", ["Nuevo torneo e3: arena, Presidente trou du cul, 4 plazas, empieza dentro de 10 min",
            "Para inscribirte: torneo unirse e3"]),
    ("en", ["New tournament e3: arena, Président trou du cul, 4 seats, starts in 10 min", "tournament join e3"]),
])
def test_an_event_opened_says_what_when_and_how_to_enter(lang: str, words: list[str]) -> None:
    text = said(lang, {**OPENED, "starts_at": time.time() + 600})
    assert all(w in text for w in words), text


@pytest.mark.parametrize(("event", "fr", "es"), [
    ({"event": "tournament_started", "tournament": "e3", "kind": "swiss", "entrants": 9},
     "Le tournoi e3 (suisse) commence avec 9 inscrits.", "El torneo e3 (suizo) empieza con 9 inscritos."),
    ({"event": "tournament_round", "tournament": "e3", "round": 2, "rounds": 4, "tables": 2, "byes": ["bob"]},
     "Tournoi e3\u00a0: la ronde 2 sur 4 commence\u00a0; elle se joue à 2 tables. Exempt\u00a0: bob.",
     "Torneo e3: la ronda 2 de 4 empieza en 2 mesas. Descansa: bob."),
    ({"event": "tournament_round", "tournament": "e3", "round": 1, "rounds": 4, "tables": 1, "byes": []},
     "Tournoi e3\u00a0: la ronde 1 sur 4 commence\u00a0; elle se joue à 1 table.", "Torneo e3: la ronda 1 de 4 empieza en 1 mesa."),
    ({"event": "tournament_seated", "tournament": "e3", "room": 12, "seat": 2, "round": 2},
     "Tournoi e3, ronde 2\u00a0: vous jouez à la table 12, place 2.", "Torneo e3, ronda 2: juegas en la mesa 12, plaza 2."),
    ({"event": "tournament_seated", "tournament": "e3", "room": 12, "seat": 2, "round": 0},
     "Tournoi e3\u00a0: vous jouez à la table 12, place 2.", "Torneo e3: juegas en la mesa 12, plaza 2."),
    ({"event": "tournament_bye", "tournament": "e3", "round": 3, "points": 50, "late": False},
     "Tournoi e3, ronde 3\u00a0: pas de table pour vous cette ronde\u00a0; l’exemption rapporte 50\u00a0pts.",
     "Torneo e3, ronda 3: no hay mesa para ti en esta ronda; el descanso cuenta 50\u00a0ptos."),
    ({"event": "tournament_bye", "tournament": "e3", "round": 1, "points": 0, "late": True},
     "Tournoi e3\u00a0: vous êtes entré après le début de la ronde 1\u00a0; elle vous rapporte 0\u00a0pt.",
     "Torneo e3: te inscribiste después de empezar la ronda 1; te cuenta 0\u00a0ptos."),
    ({"event": "tournament_scored", "tournament": "e3", "room": 12, "round": 2, "results": [
        {"name": "bob", "place": 3, "points": 0}, {"name": "ana", "place": 1, "points": 100},
        {"name": None, "place": 2, "points": 0}]},
     "Tournoi e3, table 12\u00a0: 1. ana 100\u00a0pts, 2. un bot, 3. bob 0\u00a0pt.",
     "Torneo e3, mesa 12: 1. ana 100\u00a0ptos, 2. un bot, 3. bob 0\u00a0ptos."),
    ({"event": "tournament_ended", "tournament": "e3", "reason": "too_few", "top": []},
     "Le tournoi e3 s’arrête\u00a0: il reste trop peu de joueurs pour remplir une table. "
     "Classement\u00a0: tournoi classement e3",
     "El torneo e3 termina: quedan muy pocos jugadores para llenar una mesa. Clasificación: torneo clasificación e3"),
    ({"event": "tournament_ended", "tournament": "e3", "reason": "rounds", "top": [
        {"rank": 1, "name": "ana", "points": 300}, {"rank": 2, "name": "bob", "points": 250}]},
     "Le tournoi e3 est fini\u00a0: toutes les rondes sont jouées. En tête\u00a0: 1. ana (300\u00a0pts), 2. bob (250\u00a0pts).",
     "El torneo e3 ha terminado: se han jugado todas las rondas. En cabeza: 1. ana (300\u00a0ptos), 2. bob (250\u00a0ptos)."),
])
def test_the_news_of_an_event(event: dict[str, Any], fr: str, es: str) -> None:
    assert fr in said("fr", event)
    assert es in said("es", event)
    assert said("en", event) != "Event: {}.".format(event["event"])


def test_a_tables_result_without_its_room() -> None:
    event = {"event": "tournament_scored", "tournament": "e3", "room": None, "round": 1,
             "results": [{"name": "ana", "place": 1, "points": 100}]}
    assert said("fr", event) == "Tournoi e3, résultat d’une table\u00a0: 1. ana 100\u00a0pts."
    assert "None" not in said("es", event) and "None" not in said("en", event)


@pytest.mark.parametrize("reason", ["time", "rounds", "stopped", "too_few"])
def test_every_ending_has_its_sentence(reason: str) -> None:
    texts = {lang: said(lang, {"event": "tournament_ended", "tournament": "t1", "reason": reason, "top": []})
             for lang in ("fr", "es", "en")}
    assert len(set(texts.values())) == 3


def test_a_tournaments_news_read_the_same_for_everyone() -> None:
    """Sent to many (lobby news): worded once and shared."""
    assert reading({**OPENED}, 0) == reading({**OPENED}, None) == reading({**OPENED}, 3)


@pytest.mark.parametrize(("code", "params", "fr", "es"), [
    ("no_such_tournament", {"tournament": "e9"}, "Il n’y a pas de tournoi e9. Tapez tournois pour les voir.",
     "No hay ningún torneo e9. Escribe torneos para verlos."),
    ("not_allowed", {"reason": "staff_only"}, "Sur ce serveur, seule l’équipe ouvre des tournois.",
     "En este servidor, solo el equipo abre torneos."),
    ("not_allowed", {"reason": "guest"}, "Les tournois sont réservés aux comptes",
     "Los torneos son para cuentas"),
    ("not_allowed", {"reason": "organiser_only"}, "Seuls son organisateur et l’équipe peuvent arrêter ce tournoi.",
     "Solo su organizador o el equipo pueden parar este torneo."),
    ("bad_option", {"name": "min_seats", "value": 9},
     "Ce tournoi ne peut pas avoir ce réglage\u00a0: plus petite table (9). La plus petite table a au moins 3 places",
     "Este torneo no admite ese valor: mesa más pequeña (9)."),
    ("bad_option", {"name": "event_rounds"}, "nombre de rondes.", "número de rondas."),
    ("no_such_room", {"tournament": "e3", "room": "e3"}, "Le tournoi e3 n’a pas de table en cours à regarder.",
     "El torneo e3 no tiene ninguna mesa en curso que mirar."),
    ("no_such_room", {"tournament": "e3", "room": "12"}, "Le tournoi e3 n’a pas de table 12 en cours.",
     "El torneo e3 no tiene ninguna mesa 12 en curso."),
    ("bad_option", {"name": "bot_wait"}, "attente avant que des bots complètent une table",
     "espera antes de que los bots completen una mesa"),
    ("not_allowed", {"reason": "tournament"}, "Pas à une table de tournoi",
     "No en una mesa de torneo"),
    ("tournament_not_open", {"tournament": "e3"}, "Le tournoi e3 n’accepte plus d’inscriptions.",
     "El torneo e3 ya no admite inscripciones."),
    ("tournament_already_entered", {"tournament": "e3"}, "Vous êtes déjà inscrit au tournoi e3.",
     "Ya estás inscrito en el torneo e3."),
    ("tournament_not_entered", {"tournament": "e3"}, "Vous n’êtes pas inscrit au tournoi e3.",
     "No estás inscrito en el torneo e3."),
    ("tournament_full", {"tournament": "e3"}, "Le tournoi e3 est complet.", "El torneo e3 está completo."),
])
def test_refusals(code: str, params: dict[str, Any], fr: str, es: str) -> None:
    assert fr in error_message("fr", code, **params)
    assert es in error_message("es", code, **params)
    assert "Refused" not in error_message("en", code, **params)


def test_a_refusal_without_its_tournament_still_says_what() -> None:
    assert error_message("fr", "no_such_room", room="r9").startswith("Il n’y a pas de table r9.")  # a plain watch
    assert error_message("en", "tournament_full") == "That tournament is full."
    assert error_message("fr", "no_such_tournament") == "Ce tournoi n’existe pas. Tapez tournois pour les voir."
    assert error_message("en", "not_allowed") == "You cannot do that now."  # other refusals keep theirs


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_a_table_s_result_never_parts_a_number_from_its_points(lang: str) -> None:
    """Seen over ssh at 80 columns: « … 3. un bot, 4. ana 0 » then « pt. » on the next line."""
    from server.messages.terminal import TermStyle
    from server.presenters.text.news import render_event

    scored = {"event": "tournament_scored", "tournament": "e10", "room": "r11", "round": 0, "results": [
        {"name": "bruno", "place": 1, "points": 100}, {"name": "carmen", "place": 2, "points": 67},
        {"name": None, "place": 3, "points": 0}, {"name": "ana", "place": 4, "points": 0}]}
    for width in range(30, 90):
        text = render_event(scored, lang, TermStyle(width, True, False), (), None) or ""
        pairs = itertools.pairwise(text.splitlines())
        assert not any(re.search(r"\d$", a) and re.match(r"\s*pto?s?\b", b) for a, b in pairs), text


def test_an_arenas_start_says_until_when() -> None:
    event = {"event": "tournament_started", "tournament": "e4", "kind": "arena", "entrants": 3,
             "ends_at": time.time() + 600}
    fr, es = said("fr", event), said("es", event)
    assert re.fullmatch(r"Le tournoi e4 \(arène\) commence avec 3 inscrits\u00a0; il finit à \d\d:\d\d UTC "
                        r"\(dans 10 min\)\.", fr), fr
    assert re.fullmatch(r"El torneo e4 \(arena\) empieza con 3 inscritos; termina a las \d\d:\d\d UTC "
                        r"\(dentro de 10 min\)\.", es), es
    assert said("en", {**event, "ends_at": time.time() - 5}) == "Tournament e4 (arena) begins with 3 entrants."


@pytest.mark.parametrize(("tables", "fr", "es"), [
    (1, "sa table en cours finit et compte.", "su mesa en curso termina y cuenta."),
    (2, "ses 2 tables en cours finissent et comptent.", "sus 2 mesas en curso terminan y cuentan."),
    (0, "les tables en cours finissent et comptent.", "las mesas en curso terminan y cuentan."),
])
def test_a_stop_is_said_at_once_with_what_happens_next(tables: int, fr: str, es: str) -> None:
    event = {"event": "tournament_stopping", "tournament": "e4", "tables": tables}
    assert said("fr", event).startswith("Le tournoi e4 est arrêté par son organisateur ou l’équipe\u00a0: aucune "
                                         "nouvelle table ne s’ouvre\u00a0; ")
    assert said("fr", event).endswith(fr)
    assert said("es", event).startswith("Su organizador o el equipo paran el torneo e4: no se abre ninguna mesa "
                                        "nueva; ") and said("es", event).endswith(es)
    assert said("en", event) != "Event: tournament_stopping."
