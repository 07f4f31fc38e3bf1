"""Tournament replies as a person reads them: the list and the standings fit the terminal, the
reader's line is marked, moments are said from now, nothing English in French or Spanish."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from server.messages.terminal import TermStyle, display_width
from server.presenters.text.tournaments import render_list, render_standings, render_tournaments

NOW = dt.datetime(2026, 12, 6, 20, 25, tzinfo=dt.UTC).timestamp()

ARENA: dict[str, Any] = {
    "id": "e3", "kind": "arena", "game": "president", "rules": "classic", "seats": 4, "phase": "waiting",
    "entrants": 5, "playing": 0, "tables": 0, "starts_at": NOW + 300, "ends_at": NOW + 3900, "organiser": "ana",
    "scoring": "place", "joined": True}
SWISS: dict[str, Any] = {
    "id": "e4", "kind": "swiss", "game": "speculation", "rules": "speculation", "seats": 5, "phase": "running",
    "entrants": 12, "playing": 10, "tables": 2, "starts_at": NOW - 600, "round": 2, "rounds": 5,
    "organiser": "admin", "scoring": "chips", "joined": False}
RUNNING_ARENA = {**ARENA, "id": "e5", "phase": "running", "starts_at": NOW - 600, "ends_at": NOW + 2400,
                 "playing": 8, "tables": 2, "joined": False, "bots": True}


def _line(rank: int, name: str, points: int, **more: Any) -> dict[str, Any]:
    return {"rank": rank, "name": name, "points": points, "opponents": more.pop("opponents", 0),
            "games": more.pop("games", 3), "wins": more.pop("wins", 1), "byes": more.pop("byes", 0),
            "fire": more.pop("fire", False), "provisional": more.pop("provisional", False),
            "status": more.pop("status", "active")}


STANDINGS: dict[str, Any] = {"tournament": "e4", "kind": "swiss", "final": False, "you": "zoé", "lines": [
    _line(1, "ana", 250, opponents=400, wins=2, fire=True),
    _line(2, "zoé", 150, opponents=380, byes=1, provisional=True),
    _line(2, "bob", 150, opponents=380),
    _line(4, "maximilien_de_la_tour_du_pin", -5, opponents=20, wins=0, status="left")]}


def flat(text: str) -> str:
    """The text on one line (no-break spaces kept)."""
    return re.sub(r"[ \n]+", " ", text).strip()


def style(width: int, **more: Any) -> TermStyle:
    return TermStyle(width, True, False, **more)


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
@pytest.mark.parametrize("width", [30, 40, 60, 80, 132])
def test_the_list_and_the_standings_fit_the_terminal(lang: str, width: int) -> None:
    for text in (render_list([ARENA, SWISS, RUNNING_ARENA], lang, style(width), NOW),
                 render_standings(STANDINGS, lang, style(width))):
        assert all(display_width(line) <= width for line in text.splitlines()), text


def test_the_readers_line_is_marked_and_columns_give_way_when_narrow() -> None:
    wide = render_standings(STANDINGS, "fr", style(80)).splitlines()
    assert wide[0] == "Classement du tournoi e4\u00a0:"
    assert wide[1].split() == ["nom", "pts", "adv.", "parties", "victoires", "exempts"]
    assert [line[0] for line in wide[2:6]] == [" ", ">", " ", " "]
    assert wide[3].split()[:3] == [">", "2.", "zoé"] and "en jeu" in wide[3]
    assert "en série" in wide[2] and "parti" in wide[5]
    narrow = render_standings(STANDINGS, "fr", style(40)).splitlines()
    assert narrow[1].split()[:2] == ["nom", "pts"] and "exempts" not in narrow[1]
    assert any(line.startswith("> ") and "zoé" in line for line in narrow)


def test_an_arenas_standings_have_no_opponents_points_nor_byes_column() -> None:
    arena = {**STANDINGS, "kind": "arena", "lines": [_line(1, "ana", 200), _line(2, "zoé", 100)]}
    head = render_standings(arena, "en", style(80)).splitlines()[1].split()
    assert head == ["name", "pts", "games", "wins"]


def test_final_and_empty_standings() -> None:
    assert render_standings({**STANDINGS, "final": True}, "es", style(80)).startswith(
        "Clasificación final del torneo e4:")
    assert "Personne ne s’est encore inscrit." in render_standings({"tournament": "e9", "lines": []}, "fr", style(80))


def test_a_screen_reader_hears_one_sentence_per_entrant() -> None:
    text = render_standings(STANDINGS, "fr", style(80, reader=True))
    assert "2. zoé (vous)\u00a0: 150\u00a0pts, 3 parties, 1 victoire, en jeu." in text
    assert "|" not in text and "adv." not in text


def test_the_list_says_when_from_now() -> None:
    fr = flat(render_list([ARENA, SWISS, RUNNING_ARENA], "fr", style(200), NOW))
    assert "e3 arène, Président classique, 4 places (vous y êtes inscrit)" in fr
    assert "commence dans 5 min (20:30 UTC)" in fr and "finit à 21:30 UTC (dans 1 h 5 min)" in fr
    assert "e4 suisse, Spéculation, 5 places" in fr and "ronde 2 sur 5" in fr
    assert "12 inscrits, 10 en jeu à 2 tables" in fr and "points aux jetons gagnés" in fr
    assert "finit à 21:05 UTC (dans 40 min)" in fr
    assert "Pour entrer\u00a0: tournoi rejoindre ID\u00a0; le classement\u00a0: tournoi classement ID." in fr
    es = flat(render_list([ARENA], "es", style(200), NOW))
    assert "empieza dentro de 5 min (20:30 UTC)" in es and "torneo unirse ID" in es
    assert render_list([], "es", style(80), NOW).strip() == "No hay ningún torneo abierto."


def test_a_swiss_event_not_begun_says_how_many_rounds_it_has() -> None:
    waiting = {**SWISS, "phase": "waiting", "starts_at": NOW + 300, "round": 0, "rounds": 2}
    assert "commence dans 5 min (20:30 UTC)\u00a0; 2 rondes\u00a0; 12 inscrits" in flat(
        render_list([waiting], "fr", style(200), NOW))
    assert "2 rondas" in flat(render_list([waiting], "es", style(200), NOW))
    assert "ronde" not in flat(render_list([ARENA], "fr", style(200), NOW))


def test_a_list_of_events_all_over_does_not_invite_to_enter() -> None:
    over = {**SWISS, "phase": "over", "joined": True}
    fr = flat(render_list([over], "fr", style(200), NOW))
    assert "Pour entrer" not in fr and "Le classement\u00a0: tournoi classement ID." in fr
    es = flat(render_list([over], "es", style(200), NOW))
    assert "Para inscribirte" not in es and "La clasificación: torneo clasificación ID." in es
    assert "Pour entrer" in flat(render_list([over, ARENA], "fr", style(200), NOW))


def test_an_event_listed_from_the_store_says_so() -> None:
    stale = {**RUNNING_ARENA, "as_stored": True}
    assert "tel qu’enregistré en dernier (son serveur tarde à répondre)." in flat(render_list([stale], "fr", style(200), NOW))
    assert "según lo último guardado" in flat(render_list([stale], "es", style(200), NOW))
    assert "as last saved" not in flat(render_list([RUNNING_ARENA], "en", style(200), NOW))


def test_a_start_on_another_day_says_the_date() -> None:
    tomorrow = {**ARENA, "starts_at": NOW + 86400}
    assert "2026-12-07 20:25 UTC" in render_list([tomorrow], "en", style(200), NOW)


@pytest.mark.parametrize(("cmd", "reply", "said"), [
    ("tournament_create", {"tournament": "e3"}, "Le tournoi e3 est ouvert. On s’y inscrit avec tournoi rejoindre e3"),
    ("tournament_join", {"tournament": "e3"}, "Vous êtes inscrit au tournoi e3."),
    ("tournament_leave", {"tournament": "e3"}, "Pour revenir\u00a0: tournoi rejoindre e3."),
    ("tournament_leave", {"tournament": "e3", "withdrawn": False}, "Pour revenir\u00a0: tournoi rejoindre e3."),
    ("tournament_leave", {"tournament": "e3", "withdrawn": True}, "Votre inscription au tournoi e3 est annulée."),
    ("tournament_stop", {"tournament": "e3"}, "Le tournoi e3 s’arrête"),
    ("tournament_watch", {"room": 12}, "Vous regardez la table 12."),
])
def test_the_other_replies(cmd: str, reply: dict[str, Any], said: str) -> None:
    assert said in flat(render_tournaments(cmd, reply, "fr", style(200), NOW))


def test_spanish_speaks_to_the_reader_with_tu() -> None:
    text = render_tournaments("tournament_leave", {"tournament": "e3"}, "es", style(200), NOW)
    assert "Has salido del torneo e3" in text
    withdrawn = render_tournaments("tournament_leave", {"tournament": "e3", "withdrawn": True}, "es", style(200), NOW)
    assert flat(withdrawn) == "Tu inscripción en el torneo e3 queda anulada."
    assert "Estás inscrito" in render_tournaments("tournament_join", {"tournament": "e3"}, "es", style(200), NOW)


def test_scoring_as_the_server_sends_it() -> None:
    """The hall sends the event's Scoring as {"mode", "streak"}; a plain "place"/"chips" reads the same."""
    fr = flat(render_list([{**ARENA, "scoring": {"mode": "chips", "streak": True}}], "fr", style(200), NOW))
    assert "points aux jetons gagnés\u00a0; bonus de série" in fr
    assert "bonus de série" not in flat(render_list([{**ARENA, "scoring": {"mode": "place", "streak": False}}],
                                                    "fr", style(200), NOW))


def test_the_list_says_whether_bots_fill_the_tables() -> None:
    with_bots = {**ARENA, "bots": True}
    assert "des bots complètent les tables" in flat(render_list([with_bots], "fr", style(200), NOW))
    assert "bots completan las mesas" in flat(render_list([with_bots], "es", style(200), NOW))
    assert "bots" not in flat(render_list([{**ARENA, "bots": False}], "en", style(200), NOW))
