"""Public pages (no login) and the same as JSON under ``/api/`` for other sites.

* ``/who`` who is online (a hidden table stays hidden: ``hide``);
* ``/tables`` the open tables, each with a link to watch it on the play page;
* ``/leaderboard`` every table kind's board (points or chips won) and its rating board;
* ``/player/NAME`` a player's profile, as ``finger`` shows it to a stranger, and their last rounds;
* ``/replay/ROUND`` a stored round step by step, as a spectator saw it (``static/replay.js``);
* ``/verify/ROUND`` the deal's fairness record checked as ``verify`` checks it for a spectator.

Every text that comes from people (names, bios) is escaped; the pages carry no script of
their own but ``/static/*.js``, under the Content-Security-Policy of :mod:`server.web.security`.
"""

from __future__ import annotations

import asyncio
import html
import json
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from aiohttp import web

from server.commands.accounts import GAMES
from server.commands.fair import fingerprint, verify_reply
from server.community.replays import public_replay
from server.games import ADAPTERS
from server.messages.fair_events import step_text
from server.operations.limits import TokenBucket
from server.storage.api import is_match
from server.web.security import client_address, cookie_options

LABELS: dict[str, dict[str, str]] = {
    "en": {"server_check": "Server", "browser_check": "Your browser", "browser_ok": "Your browser checked it too: the deal checks out.",
           "browser_bad": "Your browser finds that the deal does NOT check out.",
           "browser_cannot": "Your browser does not check this record itself (Président records only, over TLS or on this machine).",
           "checking": "Your browser is checking…", "who": "Who is online", "tables": "Open tables", "leaderboard": "Leaderboards", "play": "Play",
           "terminal": "Terminal", "name": "Name", "table": "Table", "seat": "Seat", "guest": "guest",
           "nobody": "Nobody.", "none": "None.", "game": "Game", "players": "Players", "status": "Status",
           "watch": "watch", "rank": "Rank", "score": "Score", "rating": "Rating", "games": "Games",
           "player": "Player", "registered": "Registered", "last_seen": "Last seen", "online": "Online",
           "yes": "yes", "no": "no", "rounds": "Rounds", "ended": "Ended", "replay": "replay",
           "verify": "verify", "step": "Step", "previous": "Previous", "next": "Next",
           "deal_check": "Deal check", "ok": "The deal checks out.", "not_ok": "The deal does NOT check out.",
           "not_found": "Not found.", "points": "points", "chips": "chips won", "by_rating": "by rating",
           "bio": "About", "place": "Place", "record": "The published record", "hidden": "hidden"},
    "fr": {"server_check": "Serveur", "browser_check": "Votre navigateur",
           "browser_ok": "Votre navigateur l’a vérifiée aussi : la donne est vérifiée.",
           "browser_bad": "Pour votre navigateur, la donne NE se vérifie PAS.",
           "browser_cannot": "Votre navigateur ne vérifie pas lui-même cet enregistrement (Président seulement, en TLS ou sur cette machine).",
           "checking": "Votre navigateur vérifie…", "who": "Qui est là", "tables": "Tables ouvertes", "leaderboard": "Classements", "play": "Jouer",
           "terminal": "Terminal", "name": "Nom", "table": "Table", "seat": "Place", "guest": "invité",
           "nobody": "Personne.", "none": "Aucune.", "game": "Jeu", "players": "Joueurs", "status": "État",
           "watch": "regarder", "rank": "Rang", "score": "Score", "rating": "Cote", "games": "Parties",
           "player": "Joueur", "registered": "Inscrit le", "last_seen": "Vu le", "online": "En ligne",
           "yes": "oui", "no": "non", "rounds": "Donnes", "ended": "Fin", "replay": "revoir",
           "verify": "vérifier", "step": "Étape", "previous": "Précédent", "next": "Suivant",
           "deal_check": "Vérification de la donne", "ok": "La donne est vérifiée.",
           "not_ok": "La donne NE se vérifie PAS.", "not_found": "Introuvable.", "points": "points",
           "chips": "jetons gagnés", "by_rating": "par cote", "bio": "À propos", "place": "Rang final",
           "record": "L’enregistrement publié", "hidden": "cachée"},
    "es": {"server_check": "Servidor", "browser_check": "Tu navegador",
           "browser_ok": "Tu navegador también lo ha comprobado: el reparto se verifica.",
           "browser_bad": "Según tu navegador, el reparto NO se verifica.",
           "browser_cannot": "Tu navegador no comprueba este registro por sí mismo (solo Presidente, con TLS o en esta máquina).",
           "checking": "Tu navegador está comprobando…", "who": "Quién está conectado", "tables": "Mesas abiertas", "leaderboard": "Clasificaciones",
           "play": "Jugar", "terminal": "Terminal", "name": "Nombre", "table": "Mesa", "seat": "Asiento",
           "guest": "invitado", "nobody": "Nadie.", "none": "Ninguna.", "game": "Juego",
           "players": "Jugadores", "status": "Estado", "watch": "mirar", "rank": "Puesto",
           "score": "Puntuación", "rating": "Valoración", "games": "Partidas", "player": "Jugador",
           "registered": "Registrado", "last_seen": "Visto", "online": "Conectado", "yes": "sí", "no": "no",
           "rounds": "Rondas", "ended": "Fin", "replay": "repetir", "verify": "verificar", "step": "Paso",
           "previous": "Anterior", "next": "Siguiente", "deal_check": "Verificación del reparto",
           "ok": "El reparto se verifica.", "not_ok": "El reparto NO se verifica.",
           "not_found": "No encontrado.", "points": "puntos", "chips": "fichas ganadas",
           "by_rating": "por valoración", "bio": "Acerca de", "place": "Puesto final",
           "record": "El registro publicado", "hidden": "oculta"},
}

EVENT_WORDS: dict[str, dict[str, str]] = {
    "en": {"dealt": "deal", "exchange": "exchange", "played": "plays", "passed": "passes", "trick_closed": "trick closed",
           "out": "goes out", "round_over": "end of the round", "match_over": "end of the match", "cut": "cuts",
           "revolution": "revolution", "ante": "ante", "auction": "auction", "bid": "bids", "sold": "sold",
           "kept": "kept", "turned": "turns", "offered": "offers", "traded": "trade", "declined": "declines",
           "withdrawn": "withdraws", "lapsed": "lapsed", "pool_won": "wins the pool", "deal_over": "end of the deal",
           "trump": "trump", "revealed": "shows"},
    "fr": {"dealt": "donne", "exchange": "échange", "played": "joue", "passed": "passe", "trick_closed": "pli fermé",
           "out": "sort", "round_over": "fin de la manche", "match_over": "fin de la partie", "cut": "coupe",
           "revolution": "révolution", "ante": "mise", "auction": "enchères", "bid": "enchérit", "sold": "vendue",
           "kept": "gardée", "turned": "retourne", "offered": "propose", "traded": "échange conclu",
           "declined": "refuse", "withdrawn": "retire", "lapsed": "expirée", "pool_won": "gagne la cagnotte",
           "deal_over": "fin de la donne", "trump": "atout", "revealed": "montre"},
    "es": {"dealt": "reparto", "exchange": "intercambio", "played": "juega", "passed": "pasa",
           "trick_closed": "baza cerrada", "out": "sale", "round_over": "fin de la ronda",
           "match_over": "fin de la partida", "cut": "corta", "revolution": "revolución", "ante": "apuesta",
           "auction": "subasta", "bid": "puja", "sold": "vendida", "kept": "guardada", "turned": "voltea",
           "offered": "ofrece", "traded": "trato cerrado", "declined": "rechaza", "withdrawn": "retira",
           "lapsed": "caducada", "pool_won": "gana el bote", "deal_over": "fin del reparto", "trump": "triunfo",
           "revealed": "muestra"},
}
"""The replay viewer's words for the engine's events (others are shown without a word)."""

GAME_NAMES = {"classic": "Président", "tdc": "Président (tdc)", "speculation": "Spéculation"}

VERIFY_PER_MINUTE = 20.0
"""Deal checks (milliseconds of CPU each) one address may ask of the public pages per minute."""


LANG_COOKIE = "donne_lang"
RUNNING: web.AppKey[Any] = web.AppKey("running")


def lang_of(request: web.Request) -> str:
    """``?lang=``, else the language chosen before (a cookie), else the browser's first language we
    speak, else English."""
    for asked in (request.query.get("lang", ""), request.cookies.get(LANG_COOKIE, "")):
        if asked[:2].lower() in LABELS:
            return asked[:2].lower()
    for part in request.headers.get("Accept-Language", "").split(","):
        code = part.split(";")[0].strip()[:2].lower()
        if code in LABELS:
            return code
    return "en"


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def page(lang: str, title: str, body: str, *, scripts: tuple[str, ...] = ()) -> web.Response:
    t = LABELS[lang]
    nav = " · ".join(f'<a href="{href}">{esc(t[key])}</a>' for key, href in (
        ("play", "/"), ("who", "/who"), ("tables", "/tables"), ("leaderboard", "/leaderboard"),
        ("terminal", "/term")))
    tags = "".join(f'<script src="/static/{name}" defer></script>' for name in scripts)
    text = (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{esc(title)} · donne</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/static/public.css">{tags}</head>'
            f'<body><header><nav aria-label="donne">{nav}</nav></header><main><h1>{esc(title)}</h1>{body}</main>'
            "</body></html>")
    return web.Response(text=text, content_type="text/html", charset="utf-8")


def table_html(headers: list[str], rows: list[list[str]], empty: str) -> str:
    """Cells are HTML already escaped by the caller."""
    if not rows:
        return f"<p>{esc(empty)}</p>"
    head = "".join(f"<th scope=\"col\">{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def player_link(name: str) -> str:
    return f'<a href="/player/{quote(name, safe="")}">{esc(name)}</a>'


def api(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda v: json.dumps(v, ensure_ascii=False),
                             headers={"Access-Control-Allow-Origin": "*"})


class Public:
    """The public pages of one running server."""

    def __init__(self, running: Any) -> None:
        self.running = running
        self.verify_budgets: dict[str, TokenBucket] = {}

    # -- data (what /api/ answers) ---------------------------------------------------------

    def who(self) -> list[dict[str, Any]]:
        return sorted(self.running.lobby.who(None), key=lambda p: str(p["name"]).casefold())

    def tables(self) -> list[dict[str, Any]]:
        out = []
        for summary, free in self.running.lobby.room_list():
            keep = ("room", "game", "rules", "seats", "players", "spectators", "status", "stake", "round")
            out.append({**{k: summary.get(k) for k in keep}, "free": free, "watch": f"/?watch={summary['room']}"})
        return out

    async def leaderboards(self) -> list[dict[str, Any]]:
        store = self.running.store
        min_games = self.running.config.rating_min_games
        boards = []
        for game, tables in GAMES.items():
            for rules in tables:
                adapter = ADAPTERS.get(rules)
                by = adapter.scored_by if adapter is not None else "chips"
                rows = await store.history.standings(game, rules, 20, by=by)
                rated = await store.ratings.board(game, rules, 20, min_games=min_games)
                boards.append({"game": game, "rules": rules, "by": by,
                               "leaderboard": [{"rank": i, "name": r["name"], "score": r[by]}
                                               for i, r in enumerate(rows, 1)],
                               "ratings": [{"rank": i, "name": r.name, "rating": round(r.rating, 2),
                                            "games": r.games} for i, r in enumerate(rated, 1)]})
        return boards

    async def player(self, name: str) -> dict[str, Any] | None:
        """``finger`` as a stranger sees it (a hidden table stays hidden), and the last rounds."""
        from server.commands.social import _rating_fields

        lobby, store = self.running.lobby, self.running.store
        online = next((p for p in lobby.online() if p.name.casefold() == name.casefold()), None)
        profile = await store.social.profile(name)
        where = None
        if online is not None and online.room is not None and not online.extra.get("hide_where"):
            where = {"room": online.room.id, "seat": online.seat}
        if profile is None:
            if online is None:
                return None
            return {"name": online.name, "guest": True, "online": True, "where": where, "rounds": []}
        ratings = {(r.game, r.rules): r for r in await store.ratings.of(profile.name)}
        tables = []
        for t in await store.social.tables_played(profile.name):
            tables.append({**t, **_rating_fields(ratings.pop((t["game"], t["rules"]), None))})
        played = await store.history.played(profile.name, 20)
        rounds = [{"round": p.record.round_id, "game": p.record.game, "rules": p.record.rules,
                   "ended": _iso(p.record.finished_at), "players": list(p.record.seats)}
                  for p in played if not is_match(p.record.round_id)]
        return {"name": profile.name, "guest": False, "online": online is not None, "where": where,
                "registered": _iso(profile.registered), "last_seen": _iso(profile.last_seen),
                "bio": profile.bio, "tables": tables, "rounds": rounds}

    async def replay(self, round_id: str) -> dict[str, Any] | None:
        """The round as a spectator saw it: the public events of each step, and its result."""
        record = await self.running.store.history.get(round_id[:200])
        if record is None or record.rules not in ADAPTERS or is_match(record.round_id):
            return None
        try:
            replay = await asyncio.to_thread(public_replay, record, ADAPTERS[record.rules])
        except ValueError:
            return None
        return {"round": replay.round_id, "game": replay.game, "rules": replay.rules, "seats": list(replay.seats),
                "steps": [list(step) for step in replay.steps], "result": dict(replay.result),
                "verify": f"/verify/{quote(replay.round_id, safe='')}"}

    async def verify(self, round_id: str, address: str) -> dict[str, Any] | None:
        """The deal's checks for a spectator (``verify``'s, without a seat), cached like ``verify``'s."""
        record = await self.running.store.history.get(round_id[:200])
        if record is None or record.rules not in ADAPTERS or is_match(record.round_id):
            return None
        if not isinstance(record.extra.get("fairness"), Mapping):
            return {"round": record.round_id, "verifiable": False}
        pace = self.running.lobby.pace
        key = (record.round_id, None, fingerprint(record))
        reply = pace.verified.get(key)
        if reply is None:
            budget = self.verify_budgets.setdefault(address, TokenBucket(VERIFY_PER_MINUTE / 60.0, 5.0))
            if len(self.verify_budgets) > 10_000:
                self.verify_budgets.clear()
            if not budget.take(time.monotonic(), 1):
                raise web.HTTPTooManyRequests(text="rate_limited")
            async with pace.verifying:
                reply = pace.verified.get(key)
                if reply is None:
                    reply = await asyncio.to_thread(verify_reply, record, ADAPTERS[record.rules], None)
                    pace.verified.put(key, reply)
        return {**dict(reply), "verifiable": True}

    # -- pages ---------------------------------------------------------------------------

    async def who_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = LABELS[lang]
        rows = [[player_link(p["name"]) + (f" ({esc(t['guest'])})" if p["guest"] else ""),
                 _room_link(p["room"], t), esc("" if p["seat"] is None else p["seat"] + 1)] for p in self.who()]
        return page(lang, t["who"], table_html([t["name"], t["table"], t["seat"]], rows, t["nobody"]))

    async def tables_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = LABELS[lang]
        rows = [[esc(r["room"]), esc(GAME_NAMES.get(r["rules"], r["rules"])),
                 ", ".join(player_link(n) for n in r["players"] if n), esc(r["status"]),
                 f'<a href="{esc(r["watch"])}">{esc(t["watch"])}</a>'] for r in self.tables()]
        return page(lang, t["tables"], table_html([t["table"], t["game"], t["players"], t["status"], ""], rows,
                                                  t["none"]))

    async def leaderboard_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = LABELS[lang]
        parts = []
        for board in await self.leaderboards():
            name = GAME_NAMES.get(board["rules"], board["rules"])
            parts.append(f"<h2>{esc(name)} — {esc(t['points'] if board['by'] == 'points' else t['chips'])}</h2>")
            parts.append(table_html([t["rank"], t["player"], t["score"]],
                                    [[esc(r["rank"]), player_link(r["name"]), esc(r["score"])]
                                     for r in board["leaderboard"]], t["none"]))
            parts.append(f"<h3>{esc(name)} — {esc(t['by_rating'])}</h3>")
            parts.append(table_html([t["rank"], t["player"], t["rating"], t["games"]],
                                    [[esc(r["rank"]), player_link(r["name"]), esc(r["rating"]), esc(r["games"])]
                                     for r in board["ratings"]], t["none"]))
        return page(lang, t["leaderboard"], "".join(parts))

    async def player_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = LABELS[lang]
        info = await self.player(request.match_info["name"][:100])
        if info is None:
            raise web.HTTPNotFound(text=t["not_found"])
        facts = [(t["online"], esc(t["yes"] if info["online"] else t["no"]))]
        if info["where"] is not None:
            facts.append((t["table"], _room_link(info["where"]["room"], t)))
        if not info["guest"]:
            facts += [(t["registered"], esc(info["registered"] or "")), (t["last_seen"], esc(info["last_seen"] or ""))]
            if info["bio"]:
                facts.append((t["bio"], esc(info["bio"])))
        body = "<dl>" + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in facts) + "</dl>"
        if info.get("tables"):
            body += table_html([t["game"], t["rounds"], t["rating"]],
                               [[esc(GAME_NAMES.get(x["rules"], x["rules"])), esc(x.get("rounds", 0)),
                                 esc("" if x.get("rating") is None else x["rating"])] for x in info["tables"]], "")
        if info["rounds"]:
            body += f"<h2>{esc(t['rounds'])}</h2>" + table_html(
                [t["ended"], t["game"], t["players"], ""],
                [[esc(r["ended"] or ""), esc(GAME_NAMES.get(r["rules"], r["rules"])),
                  ", ".join(player_link(n) for n in r["players"] if n),
                  f'<a href="/replay/{quote(r["round"], safe="")}">{esc(t["replay"])}</a> · '
                  f'<a href="/verify/{quote(r["round"], safe="")}">{esc(t["verify"])}</a>'] for r in info["rounds"]],
                "")
        title = info["name"] + (f" ({t['guest']})" if info["guest"] else "")
        return page(lang, title, body)

    async def replay_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = LABELS[lang]
        info = await self.replay(request.match_info["round"])
        if info is None:
            raise web.HTTPNotFound(text=t["not_found"])
        labels = {k: t[k] for k in ("step", "previous", "next", "verify")}
        body = (f'<p>{esc(GAME_NAMES.get(info["rules"], info["rules"]))} · '
                + ", ".join(player_link(n) for n in info["seats"] if n) + "</p>"
                f'<div id="replay" data-round="{esc(info["round"])}" data-labels="{esc(json.dumps(labels))}" '
                f'data-events="{esc(json.dumps(EVENT_WORDS[lang]))}">'
                f'<p class="controls"><button type="button" id="prev">{esc(t["previous"])}</button> '
                f'<span id="where" aria-live="polite"></span> '
                f'<button type="button" id="next">{esc(t["next"])}</button></p>'
                '<ol id="steps" class="steps"></ol></div>'
                f'<p><a href="{esc(info["verify"])}">{esc(t["verify"])}</a></p>')
        return page(lang, f"{t['replay']} {info['round']}", body, scripts=("cards.js", "replay.js"))

    async def verify_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = LABELS[lang]
        info = await self.verify(request.match_info["round"], client_address(request, self.running.web_proxies))
        if info is None:
            raise web.HTTPNotFound(text=t["not_found"])
        if not info["verifiable"]:
            return page(lang, t["deal_check"], f"<p>{esc(t['not_found'])}</p>")
        marks = {"pass": "✔", "fail": "✘"}
        rows = "".join(f'<tr data-step="{esc(s["code"])}"><td>{esc(marks.get(s["result"], "·"))}</td>'
                       f'<td>{esc(step_text(lang, s["code"], s["result"], s.get("values") or {}, info.get("names") or ()))}</td>'
                       '<td class="mine"></td></tr>' for s in info["steps"])
        steps = (f'<table><thead><tr><th>{esc(t["server_check"])}</th><th>{esc(t["step"])}</th>'
                 f'<th>{esc(t["browser_check"])}</th></tr></thead><tbody>{rows}</tbody></table>')
        verdict = t["ok"] if info["ok"] else t["not_ok"]
        browser = (f'<p id="browser-verdict" class="verdict" data-ok="{esc(t["browser_ok"])}" '
                   f'data-bad="{esc(t["browser_bad"])}" data-cannot="{esc(t["browser_cannot"])}">'
                   f'{esc(t["checking"])}</p>')
        body = (f'<p class="verdict {"good" if info["ok"] else "bad"}">{esc(verdict)}</p>{browser}{steps}'
                f"<h2>{esc(t['record'])}</h2>"
                f'<pre id="record">{esc(json.dumps(info["record"], indent=1, ensure_ascii=False))}</pre>'
                f'<p><a href="/replay/{quote(info["round"], safe="")}">{esc(t["replay"])}</a></p>')
        return page(lang, f"{t['deal_check']} {info['round']}", body, scripts=("verify.js",))

    # -- /api/ ---------------------------------------------------------------------------

    async def api_who(self, request: web.Request) -> web.Response:
        return api({"players": self.who()})

    async def api_tables(self, request: web.Request) -> web.Response:
        return api({"tables": self.tables()})

    async def api_leaderboard(self, request: web.Request) -> web.Response:
        return api({"boards": await self.leaderboards()})

    async def api_player(self, request: web.Request) -> web.Response:
        info = await self.player(request.match_info["name"][:100])
        return api(info) if info is not None else api({"error": "no_such_player"}, 404)

    async def api_replay(self, request: web.Request) -> web.Response:
        info = await self.replay(request.match_info["round"])
        return api(info) if info is not None else api({"error": "no_such_round"}, 404)

    async def api_verify(self, request: web.Request) -> web.Response:
        info = await self.verify(request.match_info["round"], client_address(request, self.running.web_proxies))
        return api(info) if info is not None else api({"error": "no_such_round"}, 404)


def _room_link(room: str | None, t: Mapping[str, str]) -> str:
    if room is None:
        return ""
    return f'{esc(room)} (<a href="/?watch={quote(room, safe="")}">{esc(t["watch"])}</a>)'


def _iso(when: Any) -> str | None:
    if when is None:
        return None
    if isinstance(when, int | float):
        return time.strftime("%Y-%m-%d %H:%M", time.gmtime(when))
    return str(when)[:16].replace("T", " ")


@web.middleware
async def remember_lang(request: web.Request, handler: Any) -> web.StreamResponse:
    """A page asked with ``?lang=`` keeps it in a cookie (HttpOnly, SameSite, Secure behind TLS)."""
    response: web.StreamResponse = await handler(request)
    asked = request.query.get("lang", "")[:2].lower()
    if asked in LABELS and request.cookies.get(LANG_COOKIE) != asked and not response.prepared:
        running = request.app[RUNNING]
        response.set_cookie(LANG_COOKIE, asked, max_age=365 * 86400,
                            **cookie_options(request, running.web_proxies))
    return response


def add_routes(app: web.Application, running: Any) -> None:
    public = Public(running)
    routes: list[tuple[str, Callable[[web.Request], Any]]] = [
        ("/who", public.who_page), ("/tables", public.tables_page), ("/leaderboard", public.leaderboard_page),
        ("/player/{name}", public.player_page), ("/replay/{round}", public.replay_page),
        ("/verify/{round}", public.verify_page),
        ("/api/who", public.api_who), ("/api/tables", public.api_tables),
        ("/api/leaderboard", public.api_leaderboard), ("/api/player/{name}", public.api_player),
        ("/api/replay/{round}", public.api_replay), ("/api/verify/{round}", public.api_verify),
    ]
    for path, handler in routes:
        app.router.add_get(path, handler)
