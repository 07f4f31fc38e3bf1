"""The public pages' words, from the server's gettext catalogs.

Like the play page's labels (:mod:`server.web.labels`) they are msgids in the context ``web``,
extracted by ``make i18n`` and translated in ``i18n/*/LC_MESSAGES/donne.po``; nothing on a public
page is written in code. The language is the one :func:`lang_of` picks for the request.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from server.messages.translations import LANGS, normalize_lang, translation

LANG_COOKIE = "donne_lang"

LANG_NAMES = {"fr": "Français", "es": "Español", "en": "English"}
"""Each language by its own name (the language chooser's links): the same in every page."""


def lang_of(request: web.Request) -> str:
    """``?lang=``, else the language chosen before (a cookie), else the browser's first language we
    speak (``Accept-Language``, in its order of preference), else English."""
    for asked in (request.query.get("lang", ""), request.cookies.get(LANG_COOKIE, "")):
        lang = normalize_lang(asked[:16])
        if lang is not None:
            return lang
    for lang in accepted(request.headers.get("Accept-Language", "")):
        return lang
    return "en"


def accepted(header: str) -> list[str]:
    """The languages of an ``Accept-Language`` header that donne speaks, the preferred first."""
    weighted = []
    for i, part in enumerate(header[:500].split(",")):
        code, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        lang = normalize_lang(code)
        if lang is not None and q > 0:
            weighted.append((-q, i, lang))
    out: list[str] = []
    for _q, _i, lang in sorted(weighted):
        if lang not in out:
            out.append(lang)
    return out


def public_labels(lang: str) -> Mapping[str, str]:
    """Every word of the public pages in ``lang`` (English when donne does not speak it)."""
    t = translation(lang if lang in LANGS else "en")
    return {
        # the navigation
        "play": t.pgettext("web", "Play"),
        "who": t.pgettext("web", "Who is online"),
        "tables": t.pgettext("web", "Open tables"),
        "leaderboard": t.pgettext("web", "Leaderboards"),
        "terminal": t.pgettext("web", "Terminal"),
        "language": t.pgettext("web", "Language"),
        # tables' headings and cells
        "name": t.pgettext("web", "Name"),
        "table": t.pgettext("web", "Table"),
        "seat": t.pgettext("web", "Seat"),
        "guest": t.pgettext("web", "guest"),
        "game": t.pgettext("web", "Game"),
        "players": t.pgettext("web", "Players"),
        "status": t.pgettext("web", "Status"),
        "watch": t.pgettext("web", "Watch"),
        "rank": t.pgettext("web", "Rank"),
        "score": t.pgettext("web", "Score"),
        "rating": t.pgettext("web", "Rating"),
        "games": t.pgettext("web", "Games"),
        "player": t.pgettext("web", "Player"),
        "rounds": t.pgettext("web", "Rounds"),
        "ended": t.pgettext("web", "Ended"),
        "nobody": t.pgettext("web", "Nobody."),
        "none": t.pgettext("web", "None."),
        "status_waiting": t.pgettext("web", "waiting"),
        "status_playing": t.pgettext("web", "playing"),
        "status_over": t.pgettext("web", "over"),
        "classic": t.pgettext("web", "Président"),
        "tdc": t.pgettext("web", "Président (tdc)"),
        "speculation": t.pgettext("web", "Speculation"),
        # TRANSLATORS: a leaderboard's heading: "Président — points".
        "by_points": t.pgettext("web", "points"),
        # TRANSLATORS: a leaderboard's heading: "Speculation — chips won".
        "by_chips": t.pgettext("web", "chips won"),
        # TRANSLATORS: a leaderboard's heading: "Président — by rating".
        "by_rating": t.pgettext("web", "by rating"),
        # a profile
        "online": t.pgettext("web", "Online"),
        "yes": t.pgettext("web", "yes"),
        "no": t.pgettext("web", "no"),
        "registered": t.pgettext("web", "Registered"),
        "last_seen": t.pgettext("web", "Last seen"),
        "bio": t.pgettext("web", "About"),
        "replay": t.pgettext("web", "Replay"),
        "verify": t.pgettext("web", "Check the deal"),
        # the replay viewer
        "replay_of": t.pgettext("web", "Replay of {round}"),
        "step": t.pgettext("web", "Step"),
        "previous": t.pgettext("web", "Previous"),
        "next": t.pgettext("web", "Next"),
        "step_of": t.pgettext("web", "Step {n} of {total}"),
        "cards_shown": t.pgettext("web", "Cards shown"),
        # the deal's check
        "deal_check": t.pgettext("web", "Deal check"),
        "deal_check_of": t.pgettext("web", "Deal check of {round}"),
        "server_check": t.pgettext("web", "Server"),
        "browser_check": t.pgettext("web", "Your browser"),
        "ok": t.pgettext("web", "The deal checks out."),
        "not_ok": t.pgettext("web", "The deal does NOT check out."),
        "browser_ok": t.pgettext("web", "Your browser checked it too: the deal checks out."),
        "browser_bad": t.pgettext("web", "Your browser finds that the deal does NOT check out."),
        "browser_cannot": t.pgettext("web", "Your browser does not check this record itself (Président records only, "
                                   "over TLS or on this machine)."),
        "checking": t.pgettext("web", "Your browser is checking…"),
        "record": t.pgettext("web", "The published record"),
        "not_verifiable": t.pgettext("web", "This round has no fairness record to check."),
        "not_found": t.pgettext("web", "Not found."),
        "too_many": t.pgettext("web", "Too many checks from your address: wait a minute."),
    }


__all__ = ["LANG_COOKIE", "LANG_NAMES", "accepted", "lang_of", "public_labels"]
