"""The words of tournaments (docs/tournaments.md): their news, their refusals, and their moments.

An event is called "tournament ID" in every sentence (in French *tournoi*, in Spanish *torneo*:
one gender whatever the kind), its kind said beside it (an arena, a Swiss event). Moments are said
from the reader's present: ``in 5 min (20:30 UTC)``, ``at 21:30 UTC (in 40 min)``; the day is
added when it is not today (UTC), as ``2026-12-07 20:30 UTC``.
"""

from __future__ import annotations

import datetime as _dt
import gettext
import math
import time
from collections.abc import Callable, Mapping, Sequence

from server.messages.kit import ANYONE, T, event, text_of, to_float, to_int
from server.messages.labels import table_name
from server.messages.terminal import TermStyle
from server.protocol import JSONValue, Push, objects_in, strings_in


def kind_name(t: T, kind: JSONValue) -> str:
    """``arena``, ``Swiss`` (fr ``arène``, ``suisse``; es ``arena``, ``suizo``)."""
    if kind == "swiss":
        return t.pgettext("tournament kind", "Swiss")
    return t.pgettext("tournament kind", "arena")


def clock(ts: float, now: float) -> str:
    """``20:30 UTC``, or ``2026-12-07 20:30 UTC`` when that moment is not on ``now``'s day (UTC)."""
    at = _dt.datetime.fromtimestamp(ts, _dt.UTC)
    if at.date() == _dt.datetime.fromtimestamp(now, _dt.UTC).date():
        return at.strftime("%H:%M UTC")
    return at.strftime("%Y-%m-%d %H:%M UTC")


def span(t: T, seconds: float) -> str:
    """``5 min``, ``1 h 20 min``, ``2 h``, ``less than a minute``: a delay, in minutes rounded up."""
    if seconds < 60:
        return t.gettext("less than a minute")
    minutes = math.ceil(seconds / 60 - 1e-9)
    hours, rest = divmod(minutes, 60)
    if not hours:
        return t.gettext("{m} min").format(m=rest)
    if not rest:
        return t.gettext("{h} h").format(h=hours)
    return t.gettext("{h} h {m} min").format(h=hours, m=rest)


def starts_text(t: T, starts_at: JSONValue, now: float | None = None) -> str:
    """``starts in 5 min (20:30 UTC)``, ``starting now``."""
    if not isinstance(starts_at, int | float) or isinstance(starts_at, bool):
        return ""
    now = time.time() if now is None else now
    if starts_at - now < 1:
        return t.gettext("starting now")
    return t.gettext("starts in {span} ({clock})").format(span=span(t, starts_at - now), clock=clock(starts_at, now))


def ends_text(t: T, ends_at: JSONValue, now: float | None = None) -> str:
    """``ends at 21:30 UTC (in 40 min)``; ``no new table: the last ones finish`` once past."""
    if not isinstance(ends_at, int | float) or isinstance(ends_at, bool):
        return ""
    now = time.time() if now is None else now
    if ends_at - now < 1:
        return t.gettext("time is up: the last tables finish")
    return t.gettext("ends at {clock} (in {span})").format(clock=clock(ends_at, now), span=span(t, ends_at - now))


def points_text(t: T, points: JSONValue) -> str:
    """``100 pts``, ``1 pt``, ``-5 pts`` (points by chips may be negative), the number and its unit
    joined by a no-break space: a line never parts them (``… 4. ana 0`` / ``pt.``)."""
    n = to_int(points if isinstance(points, int | float) and not isinstance(points, bool) else 0)
    return str(t.ngettext("{n} pt", "{n} pts", abs(n)).format(n=n)).replace(" ", "\u00a0")


def _tid(e: Mapping[str, object]) -> str:
    return str(e.get("tournament") or "?")


def _what(t: T, lang: str, e: Push) -> str:
    """``arena, Président classic, 4 seats``."""
    parts = [kind_name(t, e.get("kind")), table_name(lang, text_of(e.get("game")), text_of(e.get("rules")))]
    seats = e.get("seats")
    if isinstance(seats, int) and not isinstance(seats, bool):
        parts.append(t.ngettext("{n} seat", "{n} seats", seats).format(n=seats))
    return ", ".join(parts)


def _names(names: Sequence[str]) -> str:
    return ", ".join(names)


# --------------------------------------------------------------------------- events


@event("tournament_opened", seats=ANYONE)
def _ev_opened(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    text = t.gettext("New tournament {id}: {what}, {starts}, organised by {name}.").format(
        id=_tid(e), what=_what(t, lang, e), starts=starts_text(t, e.get("starts_at")), name=e.get("organiser") or "?")
    # TRANSLATORS: "tournament join" is the command as typed in your language (tournoi rejoindre, torneo unirse).
    return text + " " + t.gettext("To enter: tournament join {id}").format(id=_tid(e))


@event("tournament_started", seats=ANYONE)
def _ev_started(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    n = to_int(e.get("entrants") or 0)
    ends_at = e.get("ends_at")
    if isinstance(ends_at, int | float) and not isinstance(ends_at, bool) and ends_at - time.time() >= 1:
        # TRANSLATORS: {ends} is "ends at 21:30 UTC (in 40 min)", as the list of tournaments says it.
        return str(t.ngettext("Tournament {id} ({kind}) begins with {n} entrant; it {ends}.",
                              "Tournament {id} ({kind}) begins with {n} entrants; it {ends}.", n).format(
            id=_tid(e), kind=kind_name(t, e.get("kind")), n=n, ends=ends_text(t, ends_at)))
    return str(t.ngettext("Tournament {id} ({kind}) begins with {n} entrant.",
                          "Tournament {id} ({kind}) begins with {n} entrants.", n).format(
        id=_tid(e), kind=kind_name(t, e.get("kind")), n=n))


@event("tournament_round", seats=ANYONE)
def _ev_round(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    n = to_int(e.get("tables") or 0)
    text = str(t.ngettext("Tournament {id}: round {round} of {rounds} begins at {n} table.",
                          "Tournament {id}: round {round} of {rounds} begins at {n} tables.", n).format(
        id=_tid(e), round=e.get("round", "?"), rounds=e.get("rounds", "?"), n=n))
    byes = strings_in(e.get("byes"))
    if byes:
        text += " " + t.ngettext("Bye: {names}.", "Byes: {names}.", len(byes)).format(names=_names(byes))
    return text


@event("tournament_seated", seats=ANYONE)
def _ev_seated(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    if isinstance(e.get("round"), int) and to_int(e.get("round")) > 0:
        return t.gettext("Tournament {id}, round {round}: you play in room {room}, seat {seat}.").format(
            id=_tid(e), round=e["round"], room=e.get("room", "?"), seat=e.get("seat", "?"))
    return t.gettext("Tournament {id}: you play in room {room}, seat {seat}.").format(
        id=_tid(e), room=e.get("room", "?"), seat=e.get("seat", "?"))


@event("tournament_bye", seats=ANYONE)
def _ev_bye(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    points = points_text(t, e.get("points"))
    if e.get("late"):
        return t.gettext("Tournament {id}: you entered after round {round} began; it scores {points} for you.").format(
            id=_tid(e), round=e.get("round", "?"), points=points)
    return t.gettext("Tournament {id}, round {round}: no table for you this round; the bye scores {points}.").format(
        id=_tid(e), round=e.get("round", "?"), points=points)


@event("tournament_scored", seats=ANYONE)
def _ev_scored(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    results = sorted(objects_in(e.get("results")), key=lambda r: to_float(r.get("place") or 0))
    parts = []
    for r in results:
        who = r.get("name")
        if who is None:
            parts.append(t.gettext("{place}. a bot").format(place=r.get("place", "?")))
        else:
            parts.append(t.gettext("{place}. {name} {points}").format(place=r.get("place", "?"), name=who,
                                                                        points=points_text(t, r.get("points"))))
    if e.get("room") is None:  # the room already gone
        return t.gettext("Tournament {id}, a table's result: {results}.").format(id=_tid(e), results=", ".join(parts))
    return t.gettext("Tournament {id}, room {room}: {results}.").format(id=_tid(e), room=e.get("room", "?"),
                                                                        results=", ".join(parts))


@event("tournament_stopping", seats=ANYONE)
def _ev_stopping(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    n = to_int(e.get("tables") or 0)
    if n < 1:
        return t.gettext("Tournament {id} is being stopped by its organiser or the staff: no new table opens; the "
                         "tables under way finish and count.").format(id=_tid(e))
    return str(t.ngettext("Tournament {id} is being stopped by its organiser or the staff: no new table opens; its "
                          "table under way finishes and counts.",
                          "Tournament {id} is being stopped by its organiser or the staff: no new table opens; its "
                          "{n} tables under way finish and count.", n).format(id=_tid(e), n=n))


_ENDINGS: dict[str, Callable[[T], str]] = {
    "time": lambda t: t.gettext("Tournament {id} is over: its time is up and its last tables have finished."),
    "rounds": lambda t: t.gettext("Tournament {id} is over: every round has been played."),
    "stopped": lambda t: t.gettext("Tournament {id} was stopped by its organiser or the staff."),
    "too_few": lambda t: t.gettext("Tournament {id} ends: too few players are left to fill a table."),
}


@event("tournament_ended", seats=ANYONE)
def _ev_ended(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    ending = _ENDINGS.get(str(e.get("reason")), _ENDINGS["rounds"])
    text = str(ending(t)).format(id=_tid(e))
    top = [f"{r.get('rank', '?')}. {r.get('name') or '?'} ({points_text(t, r.get('points'))})"
           for r in objects_in(e.get("top"))]
    if top:
        text += " " + t.gettext("First: {names}.").format(names=", ".join(top))
    # TRANSLATORS: "tournament standings" is the command as typed in your language (tournoi classement,
    # torneo clasificación).
    return text + " " + t.gettext("Standings: tournament standings {id}").format(id=_tid(e))


# --------------------------------------------------------------------------- refusals


def _option_name(t: gettext.NullTranslations, name: str) -> str:
    names = {
        "kind": t.pgettext("tournament option", "kind of tournament"),
        "game": t.pgettext("tournament option", "game"),
        "rules": t.pgettext("tournament option", "rules"),
        "seats": t.pgettext("tournament option", "number of seats"),
        "start": t.pgettext("tournament option", "start"),
        "starts_at": t.pgettext("tournament option", "start"),
        "length": t.pgettext("tournament option", "length"),
        "event_rounds": t.pgettext("tournament option", "number of rounds"),
        "rounds": t.pgettext("tournament option", "number of rounds"),
        "table_rounds": t.pgettext("tournament option", "number of rounds per table"),
        "min_seats": t.pgettext("tournament option", "smallest table"),
        "max_entrants": t.pgettext("tournament option", "most entrants"),
        "scoring": t.pgettext("tournament option", "scoring"),
        "late": t.pgettext("tournament option", "points of a late entrant"),
        "late_points": t.pgettext("tournament option", "points of a late entrant"),
        "stake": t.pgettext("tournament option", "stake"),
        "ante": t.pgettext("tournament option", "ante"),
        "turn_seconds": t.pgettext("tournament option", "time per turn"),
        "streak": t.pgettext("tournament option", "streak bonus"),
        "bots": t.pgettext("tournament option", "bots"),
        "rated": t.pgettext("tournament option", "rating"),
        "round_pause": t.pgettext("tournament option", "pause between rounds"),
        "bot_wait": t.pgettext("tournament option", "wait before bots fill a table"),
        "rematch_wait": t.pgettext("tournament option", "wait before the same players meet again"),
        "bot_level": t.pgettext("tournament option", "bots' level"),
    }
    return names.get(name, name)


def _option_hint(t: gettext.NullTranslations, name: str) -> str | None:
    hints: dict[str, Callable[[], str]] = {
        "kind": lambda: t.gettext("A tournament is an arena or a Swiss event."),
        "seats": lambda: t.gettext("Président is played by 3 to 8 players, Speculation by 3 to 9."),
        "start": lambda: t.gettext("A start is a delay from now or a time of day (UTC)."),
        "starts_at": lambda: t.gettext("A start is a delay from now or a time of day (UTC)."),
        "length": lambda: t.gettext("An arena lasts a while: some minutes or some hours."),
        "event_rounds": lambda: t.gettext("A Swiss event has one round or more."),
        "min_seats": lambda: t.gettext("The smallest table has at least 3 seats and no more than the table's."),
        "scoring": lambda: t.gettext("Points go by finishing place or by chips won."),
        "late": lambda: t.gettext("A late entrant scores half a bye or nothing for each round missed."),
        "late_points": lambda: t.gettext("A late entrant scores half a bye or nothing for each round missed."),
        "max_entrants": lambda: t.gettext("At least a table's worth of entrants."),
        "stake": lambda: t.gettext("The stake is an even number of chips."),
        "turn_seconds": lambda: t.gettext("Time per decision: 1 to 600 seconds."),
    }
    fn = hints.get(name)
    return fn() if fn is not None else None


def refusal(t: gettext.NullTranslations, code: str, reason: str | None, p: Mapping[str, object]) -> str | None:
    """The sentence of a refused tournament command, or None (not one of them)."""
    tid = p.get("tournament")
    if code == "no_such_room" and tid:  # tournament_watch: no table of the event under way (to watch)
        if p.get("room") and p.get("room") != tid:
            return t.gettext("Tournament {id} has no table {room} under way.").format(id=tid, room=p["room"])
        return t.gettext("Tournament {id} has no table under way to watch.").format(id=tid)
    if code == "no_such_tournament":
        if tid:
            return t.gettext("There is no tournament {id}. Type tournaments to list them.").format(id=tid)
        return t.gettext("There is no such tournament. Type tournaments to list them.")
    if code == "not_allowed" and reason == "staff_only":
        return t.gettext("On this server, only the staff open tournaments.")
    if code == "not_allowed" and reason == "guest":
        return t.gettext("Tournaments are for accounts (their games are rated): register NAME first.")
    if code == "not_allowed" and reason == "tournament":
        return t.gettext("Not at a tournament's table: the event decides who plays there, and when.")
    if code == "not_allowed" and reason == "organiser_only":
        return t.gettext("Only its organiser or the staff can stop this tournament.")
    if code == "bad_option":
        name = str(p.get("name") or p.get("field") or "")
        option = _option_name(t, name)
        value = p.get("value")
        if value is not None and value != "" and not isinstance(value, Mapping | list):
            text = t.gettext("This tournament cannot have that {option} ({value}).").format(option=option,
                                                                                         value=value)
        else:
            text = t.gettext("This tournament cannot have that {option}.").format(option=option)
        hint = _option_hint(t, name)
        return f"{text} {hint}" if hint else text
    if code == "tournament_not_open":
        if tid:
            return t.gettext("Tournament {id} takes no more entries.").format(id=tid)
        return t.gettext("That tournament takes no more entries.")
    if code == "tournament_already_entered":
        if tid:
            return t.gettext("You are already entered in tournament {id}.").format(id=tid)
        return t.gettext("You are already entered in that tournament.")
    if code == "tournament_not_entered":
        if tid:
            return t.gettext("You are not entered in tournament {id}.").format(id=tid)
        return t.gettext("You are not entered in that tournament.")
    if code == "tournament_full":
        if tid:
            return t.gettext("Tournament {id} is full.").format(id=tid)
        return t.gettext("That tournament is full.")
    return None
