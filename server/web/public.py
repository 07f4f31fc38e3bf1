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
from collections.abc import Awaitable, Callable, Mapping
from typing import NotRequired, TypedDict
from urllib.parse import quote

from aiohttp import web

from server.commands.accounts import GAMES
from server.commands.fair import fingerprint, verify_reply
from server.community.replays import public_replay
from server.games import ADAPTERS
from server.lobby.directory import WhoEntry
from server.messages.events import event_text
from server.messages.fair_events import step_text
from server.messages.translations import normalize_lang
from server.operations.limits import TokenBucket
from server.protocol import JSONObject, JSONValue, items_in, objects_in, strings_in
from server.storage.api import is_match
from server.web.host import WebHost
from server.web.labels import card_labels
from server.web.public_labels import LANG_COOKIE, LANG_NAMES, lang_of, public_labels
from server.web.security import client_address, cookie_options

VERIFY_PER_MINUTE = 20.0
"""Deal checks (milliseconds of CPU each) one address may ask of the public pages per minute."""


RUNNING: web.AppKey[WebHost] = web.AppKey("running")


class Ranked(TypedDict):
    rank: int
    name: JSONValue
    score: JSONValue


class Rated(TypedDict):
    rank: int
    name: str
    rating: float
    games: int


class Board(TypedDict):
    """A table kind's leaderboards: by chips or points won, and by rating."""

    game: str
    rules: str
    by: str
    leaderboard: list[Ranked]
    ratings: list[Rated]


class Where(TypedDict):
    room: str
    seat: int | None


class PlayedRound(TypedDict):
    round: str
    game: str
    rules: str
    ended: str | None
    players: list[str | None]


class PlayerInfo(TypedDict):
    """``finger`` as a stranger sees it, and the last rounds (a guest: name, online, where)."""

    name: str
    guest: bool
    online: bool
    where: Where | None
    rounds: list[PlayedRound]
    registered: NotRequired[str | None]
    last_seen: NotRequired[str | None]
    bio: NotRequired[str]
    tables: NotRequired[list[dict[str, object]]]  # each table kind played (storage's row) with its rating


class ReplayInfo(TypedDict):
    """A round as a spectator saw it."""

    round: str
    game: str
    rules: str
    seats: list[str | None]
    steps: list[list[JSONObject]]
    result: JSONObject
    verify: str


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def page(request: web.Request, lang: str, title: str, body: str, *,
         scripts: tuple[str, ...] = ()) -> web.Response:
    """A public page: the navigation, the language chooser (each language by its own name, the
    page again with ``?lang=``), the title and ``body`` (HTML already escaped)."""
    t = public_labels(lang)
    chosen = bool(request.query.get("lang") or request.cookies.get(LANG_COOKIE))
    play = f"/?lang={lang}" if chosen else "/"
    nav = " ".join(f'<a href="{esc(href)}">{esc(t[key])}</a>' for key, href in (
        ("play", play), ("who", "/who"), ("tables", "/tables"), ("leaderboard", "/leaderboard"),
        ("terminal", "/term")))
    langs = " ".join(
        f'<a href="{esc(request.path)}?lang={code}" hreflang="{code}" lang="{code}"'
        + (' aria-current="true"' if code == lang else "") + f">{esc(name)}</a>"
        for code, name in LANG_NAMES.items())
    tags = "".join(f'<script src="/static/{name}" defer></script>' for name in scripts)
    text = (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{esc(title)} · donne</title><link rel="icon" href="data:,">'
            f'<link rel="stylesheet" href="/static/public.css">{tags}</head>'
            f'<body><header><nav aria-label="donne">{nav}</nav>'
            f'<nav class="langs" aria-label="{esc(t["language"])}">{langs}</nav></header>'
            f"<main><h1>{esc(title)}</h1>{body}</main></body></html>")
    return web.Response(text=text, content_type="text/html", charset="utf-8")


def not_found(lang: str) -> web.HTTPNotFound:
    return web.HTTPNotFound(text=public_labels(lang)["not_found"])


def game_name(t: Mapping[str, str], rules: str) -> str:
    return t.get(rules, rules) if rules in ADAPTERS else rules


def table_html(headers: list[str], rows: list[list[str]], empty: str) -> str:
    """Cells are HTML already escaped by the caller."""
    if not rows:
        return f"<p>{esc(empty)}</p>"
    head = "".join(f"<th scope=\"col\">{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def player_link(name: str) -> str:
    return f'<a href="/player/{quote(name, safe="")}">{esc(name)}</a>'


def api(data: object, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda v: json.dumps(v, ensure_ascii=False),
                             headers={"Access-Control-Allow-Origin": "*"})


class Public:
    """The public pages of one running server."""

    def __init__(self, running: WebHost) -> None:
        self.running = running
        self.verify_budgets: dict[str, TokenBucket] = {}

    # -- data (what /api/ answers) ---------------------------------------------------------

    def who(self) -> list[WhoEntry]:
        return sorted(self.running.lobby.who(None), key=lambda p: str(p["name"]).casefold())

    def tables(self) -> list[JSONObject]:
        out = []
        for summary, free in self.running.lobby.room_list():
            keep = ("room", "game", "rules", "seats", "players", "spectators", "status", "stake", "round")
            out.append({**{k: summary.get(k) for k in keep}, "free": free, "watch": f"/?watch={summary['room']}"})
        return out

    async def leaderboards(self) -> list[Board]:
        store = self.running.store
        min_games = self.running.config.rating_min_games
        boards: list[Board] = []
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

    async def player(self, name: str) -> PlayerInfo | None:
        """``finger`` as a stranger sees it (a hidden table stays hidden), and the last rounds."""
        from server.commands.social import _rating_fields

        lobby, store = self.running.lobby, self.running.store
        online = next((p for p in lobby.online() if p.name.casefold() == name.casefold()), None)
        profile = await store.social.profile(name)
        where: Where | None = None
        if online is not None and online.room is not None and not online.extra.get("hide_where"):
            where = {"room": online.room.id, "seat": online.seat}
        if profile is None:
            if online is None:
                return None
            return {"name": online.name, "guest": True, "online": True, "where": where, "rounds": []}
        ratings = {(r.game, r.rules): r for r in await store.ratings.of(profile.name)}
        tables: list[dict[str, object]] = []
        for t in await store.social.tables_played(profile.name):
            tables.append({**t, **_rating_fields(ratings.pop((t["game"], t["rules"]), None))})
        played = await store.history.played(profile.name, 20)
        rounds: list[PlayedRound] = [{"round": p.record.round_id, "game": p.record.game, "rules": p.record.rules,
                   "ended": _iso(p.record.finished_at), "players": list(p.record.seats)}
                  for p in played if not is_match(p.record.round_id)]
        return {"name": profile.name, "guest": False, "online": online is not None, "where": where,
                "registered": _iso(profile.registered), "last_seen": _iso(profile.last_seen),
                "bio": profile.bio, "tables": tables, "rounds": rounds}

    async def replay(self, round_id: str, lang: str = "en") -> ReplayInfo | None:
        """The round as a spectator saw it: the public events of each step, each with the sentence a
        spectator read (``text``, in ``lang``), and its result."""
        record = await self.running.store.history.get(round_id[:200])
        if record is None or record.rules not in ADAPTERS or is_match(record.round_id):
            return None
        try:
            replay = await asyncio.to_thread(public_replay, record, ADAPTERS[record.rules])
        except ValueError:
            return None
        names = [n or "" for n in replay.seats]
        return {"round": replay.round_id, "game": replay.game, "rules": replay.rules, "seats": list(replay.seats),
                "steps": [[{**ev, "text": event_text(lang, ev, names, None)} for ev in step] for step in replay.steps],
                "result": dict(replay.result),
                "verify": f"/verify/{quote(replay.round_id, safe='')}"}

    async def verify(self, round_id: str, address: str) -> JSONObject | None:
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
                    fresh = await asyncio.to_thread(verify_reply, record, ADAPTERS[record.rules], None)
                    pace.verified.put(key, reply := fresh)
        return {**dict(reply), "verifiable": True}

    # -- pages ---------------------------------------------------------------------------

    async def who_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = public_labels(lang)
        rows = [[player_link(str(p["name"])) + (f" ({esc(t['guest'])})" if p["guest"] else ""),
                 _room_link(_text(p["room"]), t), esc(_seat_number(p["seat"]))] for p in self.who()]
        return page(request, lang, t["who"], table_html([t["name"], t["table"], t["seat"]], rows, t["nobody"]))

    async def tables_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = public_labels(lang)
        rows = [[esc(r["room"]), esc(game_name(t, str(r["rules"]))),
                 ", ".join(player_link(n) for n in items_in(r["players"]) if isinstance(n, str) and n),
                 esc(t.get(f"status_{r['status']}", r["status"])),
                 f'<a href="{esc(r["watch"])}">{esc(t["watch"])}</a>'] for r in self.tables()]
        return page(request, lang, t["tables"],
                    table_html([t["table"], t["game"], t["players"], t["status"], ""], rows, t["none"]))

    async def leaderboard_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = public_labels(lang)
        parts = []
        for board in await self.leaderboards():
            name = game_name(t, board["rules"])
            parts.append(f"<h2>{esc(name)} — {esc(t['by_points'] if board['by'] == 'points' else t['by_chips'])}</h2>")
            parts.append(table_html([t["rank"], t["player"], t["score"]],
                                    [[esc(r["rank"]), player_link(str(r["name"])), esc(r["score"])]
                                     for r in board["leaderboard"]], t["none"]))
            parts.append(f"<h3>{esc(name)} — {esc(t['by_rating'])}</h3>")
            parts.append(table_html([t["rank"], t["player"], t["rating"], t["games"]],
                                    [[esc(r["rank"]), player_link(r["name"]), esc(r["rating"]), esc(r["games"])]
                                     for r in board["ratings"]], t["none"]))
        return page(request, lang, t["leaderboard"], "".join(parts))

    async def player_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = public_labels(lang)
        info = await self.player(request.match_info["name"][:100])
        if info is None:
            raise not_found(lang)
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
                               [[esc(game_name(t, str(x["rules"]))), esc(x.get("rounds", 0)),
                                 esc("" if x.get("rating") is None else x["rating"])] for x in info["tables"]], "")
        if info["rounds"]:
            body += f"<h2>{esc(t['rounds'])}</h2>" + table_html(
                [t["ended"], t["game"], t["players"], ""],
                [[esc(r["ended"] or ""), esc(game_name(t, r["rules"])),
                  ", ".join(player_link(n) for n in r["players"] if n),
                  f'<a href="/replay/{quote(r["round"], safe="")}">{esc(t["replay"])}</a> · '
                  f'<a href="/verify/{quote(r["round"], safe="")}">{esc(t["verify"])}</a>'] for r in info["rounds"]],
                "")
        title = info["name"] + (f" ({t['guest']})" if info["guest"] else "")
        return page(request, lang, title, body)

    async def replay_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = public_labels(lang)
        info = await self.replay(request.match_info["round"], lang)
        if info is None:
            raise not_found(lang)
        labels = {**{k: t[k] for k in ("step_of", "cards_shown")}, **card_labels(lang)}
        body = (f'<p>{esc(game_name(t, info["rules"]))} · '
                + ", ".join(player_link(n) for n in info["seats"] if n) + "</p>"
                f'<div id="replay" data-round="{esc(info["round"])}" data-lang="{lang}" '
                f'data-labels="{esc(json.dumps(labels, ensure_ascii=False))}">'
                f'<p class="controls"><button type="button" id="prev" aria-keyshortcuts="ArrowLeft">'
                f'{esc(t["previous"])}</button> <span id="where" aria-live="polite"></span> '
                f'<button type="button" id="next" aria-keyshortcuts="ArrowRight">{esc(t["next"])}</button></p>'
                '<ol id="steps" class="steps"></ol></div>'
                f'<p><a href="{esc(info["verify"])}">{esc(t["verify"])}</a></p>')
        return page(request, lang, t["replay_of"].format(round=info["round"]), body,
                    scripts=("cards.js", "replay.js"))

    async def verify_page(self, request: web.Request) -> web.Response:
        lang = lang_of(request)
        t = public_labels(lang)
        try:
            info = await self.verify(request.match_info["round"], client_address(request, self.running.web_proxies))
        except web.HTTPTooManyRequests:
            raise web.HTTPTooManyRequests(text=t["too_many"]) from None
        if info is None:
            raise not_found(lang)
        title = t["deal_check_of"].format(round=info["round"])
        if not info["verifiable"]:
            return page(request, lang, title, f"<p>{esc(t['not_verifiable'])}</p>")
        marks = {"pass": "✔", "fail": "✘"}
        names = strings_in(info.get("names"))
        rows = "".join(f'<tr data-step="{esc(s["code"])}"><td>{esc(marks.get(str(s["result"]), "·"))}</td>'
                       f'<td>{esc(step_text(lang, str(s["code"]), str(s["result"]), _object(s.get("values")), names))}</td>'
                       '<td class="mine"></td></tr>' for s in objects_in(info["steps"]))
        steps = (f'<table><thead><tr><th>{esc(t["server_check"])}</th><th>{esc(t["step"])}</th>'
                 f'<th>{esc(t["browser_check"])}</th></tr></thead><tbody>{rows}</tbody></table>')
        verdict = t["ok"] if info["ok"] else t["not_ok"]
        browser = (f'<p id="browser-verdict" class="verdict" data-ok="{esc(t["browser_ok"])}" '
                   f'data-bad="{esc(t["browser_bad"])}" data-cannot="{esc(t["browser_cannot"])}">'
                   f'{esc(t["checking"])}</p>')
        body = (f'<p class="verdict {"good" if info["ok"] else "bad"}">{esc(verdict)}</p>{browser}{steps}'
                f"<h2>{esc(t['record'])}</h2>"
                f'<pre id="record" translate="no">{esc(json.dumps(info["record"], indent=1, ensure_ascii=False))}</pre>'
                f'<p><a href="/replay/{quote(str(info["round"]), safe="")}">{esc(t["replay"])}</a></p>')
        return page(request, lang, title, body, scripts=("verify.js",))

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
        info = await self.replay(request.match_info["round"], lang_of(request))
        return api(info) if info is not None else api({"error": "no_such_round"}, 404)

    async def api_verify(self, request: web.Request) -> web.Response:
        info = await self.verify(request.match_info["round"], client_address(request, self.running.web_proxies))
        return api(info) if info is not None else api({"error": "no_such_round"}, 404)


def _object(value: JSONValue) -> Mapping[str, JSONValue]:
    return value if isinstance(value, Mapping) else {}


def _text(value: JSONValue) -> str | None:
    return value if isinstance(value, str) else None


def _seat_number(seat: JSONValue) -> int | str:
    """A seat as people count them (from 1); none: empty."""
    return seat + 1 if isinstance(seat, int) else ""


def _room_link(room: str | None, t: Mapping[str, str]) -> str:
    if room is None:
        return ""
    return f'{esc(room)} (<a href="/?watch={quote(room, safe="")}">{esc(t["watch"])}</a>)'


def _iso(when: object) -> str | None:
    if when is None:
        return None
    if isinstance(when, int | float):
        return time.strftime("%Y-%m-%d %H:%M", time.gmtime(when))
    return str(when)[:16].replace("T", " ")


@web.middleware
async def remember_lang(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """A page asked with ``?lang=`` keeps it in a cookie (HttpOnly, SameSite, Secure behind TLS)."""
    response: web.StreamResponse = await handler(request)
    asked = normalize_lang(request.query.get("lang", "")[:16])
    if asked is not None and request.cookies.get(LANG_COOKIE) != asked and not response.prepared:
        running = request.app[RUNNING]
        response.set_cookie(LANG_COOKIE, asked, max_age=365 * 86400,
                            **cookie_options(request, running.web_proxies))
    return response


def add_routes(app: web.Application, running: WebHost) -> None:
    public = Public(running)
    routes: list[tuple[str, Callable[[web.Request], Awaitable[web.StreamResponse]]]] = [
        ("/who", public.who_page), ("/tables", public.tables_page), ("/leaderboard", public.leaderboard_page),
        ("/player/{name}", public.player_page), ("/replay/{round}", public.replay_page),
        ("/verify/{round}", public.verify_page),
        ("/api/who", public.api_who), ("/api/tables", public.api_tables),
        ("/api/leaderboard", public.api_leaderboard), ("/api/player/{name}", public.api_player),
        ("/api/replay/{round}", public.api_replay), ("/api/verify/{round}", public.api_verify),
    ]
    for path, handler in routes:
        app.router.add_get(path, handler)
