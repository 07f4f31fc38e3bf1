"""Tournaments from the text mode, as people over telnet live them.

An operator (an admin) opens an arena, then a Swiss event, typing French; players join in French
and in Spanish, are seated by the event, play their tables as people do (reading their hand on the
screen, leading the weakest card, beating a single with the weakest stronger one, else passing),
hear the results and the end, then read the standings. Everything they read is in their language
and fits their terminal.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

import pytest

from server.messages.terminal import display_width, strip_ansi
from tests.kits.servers import start_server
from tests.kits.staffkit import Text, community

pytestmark = pytest.mark.e2e
pytest.importorskip("server.lobby.tournaments", reason="the tournaments' hall is not in this tree yet")

RANKS = "3456789TJQKA2"
LABELS = {"V": "J", "D": "Q", "R": "K", "J": "J", "Q": "Q", "K": "K", "A": "A", "10": "T"}


@dataclass(frozen=True)
class Words:
    lang: str
    join: str
    joined: str
    standings: str
    hand: str
    lead: str
    beat: str
    that_or_nothing: str
    ended: str
    letters: dict[str, str]
    pass_: str


FRENCH = Words(
    lang="fr", join="tournoi rejoindre {id}", joined=r"Vous êtes inscrit au tournoi {id}",
    standings="tournoi classement {id}", hand=r"Votre main \((\d+)\)\s*:(.*)", lead=r"▶ À vous\W+vous\s+entamez",
    beat=r"▶ À vous\W+battez\s+([^(]+?)\s+\(\d\s+carte", that_or_nothing=r"▶ À vous\W+ça\s+ou\s+rien",
    ended=r"Le tournoi {id} (?:est fini|a été arrêté|s’arrête)", letters={"J": "v", "Q": "d", "K": "r", "A": "a"},
    pass_="passe")
SPANISH = Words(
    lang="es", join="torneo unirse {id}", joined=r"Estás inscrito en el torneo {id}",
    standings="torneo clasificación {id}", hand=r"Tu mano \((\d+)\)\s*:(.*)", lead=r"▶ Te toca\W+abres\s+tú",
    beat=r"▶ Te toca\W+supera\s+([^(]+?)\s+\(\d\s+carta", that_or_nothing=r"▶ Te toca\W+o\s+eso\s+o\s+nada",
    ended=r"El torneo {id} (?:ha terminado|lo ha parado|termina)", letters={"J": "j", "Q": "q", "K": "k", "A": "a"},
    pass_="paso")


def _rank(label: str) -> str:
    body = re.sub(r"[♣♦♥♠cdhs]$", "", label)
    return LABELS.get(body, body)


def _typed(rank: str, w: Words) -> str:
    return w.letters.get(rank, rank.replace("T", "10")).lower()


async def play_event(person: Text, w: Words, tid: str, timeout: float = 120.0, pause: float = 0.0) -> int:
    """Play every table the event seats ``person`` at until the event ends, ``pause`` seconds before each
    move; the turns played."""
    alerts = re.compile("|".join(f"(?P<{k}>{p})" for k, p in (
        ("lead", w.lead), ("beat", w.beat), ("nothing", w.that_or_nothing), ("ended", w.ended.format(id=tid)))))
    turns = 0
    while True:
        chunk = strip_ansi(await person.expect(alerts.pattern, timeout))
        found = list(alerts.finditer(chunk))[-1]
        if found.lastgroup == "ended":
            return turns
        turns += 1
        await asyncio.sleep(pause)
        if found.lastgroup == "nothing":
            person.type(w.pass_)
            continue
        screen = strip_ansi(person.screen[:person.seen])
        hands = list(re.finditer(w.hand, screen))
        assert hands, screen[-800:]
        ranks = [_rank(label) for label in hands[-1].group(2).split()]
        if found.lastgroup == "lead":
            person.type(_typed(ranks[0], w))
            continue
        beaten = re.search(w.beat, found.group(0))
        top = [_rank(x) for x in (beaten.group(1) if beaten else "").split()]
        better = [r for r in ranks if top and top[0] in RANKS and RANKS.index(r) >= RANKS.index(top[0])]
        person.type(_typed(better[0], w) if len(top) == 1 and better else w.pass_)


def check_screen(person: Text, lang: str, width: int = 80) -> None:
    text = strip_ansi(person.screen)
    text = text[re.search(r"Symboles Unicode|Símbolos Unicode", text).end():]  # type: ignore[union-attr]  # after the login
    assert "Traceback" not in text
    for line in text.split("\n"):
        assert display_width(line) <= width, line
    english = ("Tournament", "tournament", "Standings", "entrants", "Swiss", "Event:", "Refused")
    assert not [w for w in english if w in text], [w for w in english if w in text]


async def _open(operator: Text, line: str) -> str:
    operator.type(line)
    said = await operator.expect(r"Le tournoi (e\d+) est ouvert")
    found = re.search(r"Le tournoi (e\d+) est ouvert", said)
    assert found is not None
    return found.group(1)


async def _enter(players: list[tuple[Text, Words]], tid: str) -> None:
    for person, w in players:
        await person.expect(rf"(?:Nouveau tournoi|Nuevo torneo) {tid}")  # the lobby's news
        await person.command(w.join.format(id=tid), w.joined.format(id=tid))


async def _watch(person: Text, tid: str, timeout: float = 60.0) -> str:
    """``tournoi regarder``, again until the event has a table under way; the room watched."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        said = await person.command(f"tournoi regarder {tid}",
                                    r"Vous\s+regardez\s+la\s+table\s+r\d+|n’a\s+pas\s+de\s+table\s+en\s+cours")
        found = re.search(r"Vous\s+regardez\s+la\s+table\s+(r\d+)", said)
        if found is not None:
            return found.group(1)
        assert "Vous êtes déjà" not in said and loop.time() < deadline, said
        await asyncio.sleep(0.1)


async def test_an_operator_opens_an_arena_and_a_swiss_event_in_french_and_people_play_them(tmp_path: Any) -> None:
    running = await start_server(tmp_path, turn_seconds=60.0, bot_delay=0.0, round_pause=0.0)
    people: list[Text] = []
    try:
        await community(running)
        operator = await Text.login(running, "ada", "fr")
        people.append(operator)
        players = [(await Text.login(running, "pat", "fr"), FRENCH), (await Text.login(running, "bob", "es"), SPANISH),
                   (await Text.login(running, "max", "fr"), FRENCH)]
        people += [p for p, _ in players]
        for person in people:  # a UTF-8 terminal that did not say so (raw telnet): symbols asked for
            await person.command("unicode oui", r"Symboles Unicode|Símbolos Unicode")

        # a mistake first: nothing is opened, the operator is told in French
        await operator.command("tournoi créer arène présidnt 3", r"Vouliez-vous\s+dire\s+«\s*président\s*»")

        # the arena: tables of three, one round a table, ten seconds of play
        arena = await _open(operator, "tournoi créer arène président classique 3 manches=1 dans 4s 10s")
        # the operator enters, then takes the entry back before the start: said so
        await operator.command(f"tournoi rejoindre {arena}", rf"Vous êtes inscrit au tournoi {arena}")
        await operator.command(f"tournoi quitter {arena}", rf"Votre\s+inscription\s+au\s+tournoi\s+{arena}\s+est\s+annulée\.")
        await _enter(players, arena)
        listed = await players[1][0].command("torneos", rf"{arena} arena, Presidente clásica, 3 plazas \(estás inscrito\)")
        assert "Torneos:" in listed
        turns = await asyncio.wait_for(asyncio.gather(*(play_event(p, w, arena) for p, w in players)), 150)
        assert sum(turns) >= 3
        # the arena's start said until when
        assert re.search(rf"Le\s+tournoi\s+{arena}\s+\(arène\)\s+commence\s+avec\s+3\s+inscrits\s*;\s+il\s+finit\s+à"
                         rf"\s+\d\d:\d\d\s+UTC\s+\(dans", strip_ansi(players[0][0].screen))
        for (person, w), name in zip(players, ("pat", "bob", "max"), strict=True):
            await person.command(w.standings.format(id=arena), r"(?:Classement final|Clasificación final)")
            mine = await person.expect(r"\n> [^\n]*\n")
            assert name in mine  # the reader's own line is marked

        # the Swiss event: two rounds, a second between them
        swiss = await _open(operator, "tournoi créer suisse président classique 3 manches=1 dans 3s rondes=2 pause=1s")
        await _enter(players, swiss)
        games = asyncio.ensure_future(asyncio.wait_for(asyncio.gather(
            *(play_event(p, w, swiss, pause=0.05) for p, w in players)), 200))  # (slow enough to be watched)
        # the operator watches round 1's table; when it ends, back in the lobby, told so, they hear of
        # round 2's table and are free to watch it
        first = await _watch(operator, swiss)
        await operator.expect(rf"La\s+table\s+{first}\s+est\s+fermée\s*:\s+sa\s+partie\s+est\s+finie\s*;\s+vous"
                              r"\s+voilà\s+de\s+retour\s+au\s+salon\.", 30)  # (not close_after_over later)
        await operator.expect(rf"La\s+table\s+r\d+\s+du\s+tournoi\s+{swiss}\s+s’ouvre", 60)  # the lobby's news
        said = await operator.command(f"tournoi regarder {swiss}",
                                      r"Vous\s+regardez|n’a\s+pas\s+de\s+table|Vous\s+êtes\s+déjà")
        assert "Vous êtes déjà" not in said, said  # (a table still playing, or over already: not « déjà »)
        await games
        french = strip_ansi(players[0][0].screen)
        spanish = strip_ansi(players[1][0].screen)
        assert re.search(rf"Tournoi {swiss}\s*:\s+la ronde 2 sur 2 commence", french)
        assert re.search(rf"Torneo {swiss}: la ronda 2 de 2 empieza", spanish)
        assert re.search(rf"Tournoi {swiss}, (?:table \S+|résultat d’une table)\s*:\s+1\.", french)  # a table's result
        assert re.search(rf"El torneo {swiss} ha terminado: se han jugado todas las rondas", spanish)
        await players[1][0].command(SPANISH.standings.format(id=swiss),
                                    rf"Clasificación final del torneo {swiss}:\n\s+nombre\s+ptos\s+riv\.")
        await operator.command(f"tournoi classement {swiss}", rf"Classement final du tournoi {swiss}")
        # the last round's table promises no next one
        assert re.search(rf"compte pour le tournoi {swiss}\s*;\s+c’était\s+sa\s+dernière\s+ronde", french)
        assert re.search(rf"cuenta para el torneo {swiss};\s+era\s+su\s+última\s+ronda", spanish)
        # afterwards: a profile lists the events entered, the history marks their games
        profile = await operator.command("profil pat", r"Tournois \(meilleure place finale\s*:\s*\d+(?:er|e)\)")
        profile += await operator.expect(rf"\n    {arena} arène, Président classique\s*:\s*\d+(?:er|e) sur 3")
        assert re.search(rf"\n    {swiss} suisse, Président classique\s*:\s*\d+(?:er|e) sur 3", profile), profile
        await players[1][0].command("historial", rf"Presidente\s+clásica\s+torneo\s+{swiss}")
        # a wrong word is named, in the reader's language
        await operator.command(f"tournoi danser {swiss}", r"«\s*danser\s*»\s+n’est\s+pas\s+compris")
        await players[1][0].command(f"torneo bailar {swiss}", r"Aquí\s+no\s+se\s+entiende\s+«bailar»")
        for person, w in players:
            check_screen(person, w.lang)
        check_screen(operator, "fr")
    finally:
        for person in people:
            person.close()
        await asyncio.wait_for(running.stop(), 20)
