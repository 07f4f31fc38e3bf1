"""What people type about tournaments, in French, Spanish or English.

The handlers of :mod:`server.presenters.text.parse` for ``tournament …`` and ``tournaments``,
added to its table when the text presenter's package is imported. Each typed line becomes one of
the JSON commands of ``docs/protocol.md`` (``tournament_create``, ``tournaments``,
``tournament_join``, ``tournament_leave``, ``tournament_standings``, ``tournament_watch``,
``tournament_stop``), or a :class:`ParseError` saying, in the reader's language, why not::

    tournament create arena president classic 4 in 10m 1h bots streak
    tournoi créer suisse président tdc 5 à 20h30 rondes=4 min=4 points=jetons
    torneo crear arena especulación 5 en 5m 45m ante=2 sin bots
    tournois    tournoi rejoindre e3    torneo clasificación e3    tournament watch e3 12

A start is a delay (``in 10m``, ``dans 1h``, ``en 90s``, ``start=10m``), a time of day in UTC
(``20:30``, ``à 20h30``, ``a las 20:30``: the next one to come) or ``now``; a length is a duration
(``1h``, ``45m``, ``1h30``); switches (``bots``, ``streak``/``série``/``racha``, ``rated``) are on
when named alone, off with ``=no``/``=non`` or after ``without``/``sans``/``sin``.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import re
import time
from collections.abc import Sequence

from server.commands.roles import NOW_WORDS, UNITS, parse_duration
from server.messages.errors import error_message
from server.messages.translations import translation
from server.presenters.text.context import Command, CommandContext, ParseError
from server.presenters.text.parse import _HANDLERS, _int, _room_arg
from server.presenters.text.tournament_words import (
    ACTIONS,
    AT_WORDS,
    IN_WORDS,
    KEYS,
    KINDS,
    LATE,
    NO_WORDS,
    SCORING,
    SWITCHES,
    shown,
)
from server.presenters.text.words import (
    GAME_WORDS,
    OFF_WORDS,
    ON_WORDS,
    RATED_WORDS,
    RULE_WORDS,
    create_words,
    fold,
    switch_word,
    typed_word,
    verb,
)
from server.protocol import JSONValue

_CLOCK = re.compile(r"^(\d{1,2})[:h](\d{2})$")
_HOUR = re.compile(r"^(\d{1,2})h$")
_HOURS_MINUTES = re.compile(r"^(\d+)h(\d{1,2})$")

_INT_KEYS = frozenset({"event_rounds", "rounds", "min_seats", "max_entrants", "seats", "stake", "ante"})


# --------------------------------------------------------------------------- values


def clock_seconds(token: str, now: float, *, bare_hour: bool = False) -> float | None:
    """Seconds from ``now`` to the next ``HH:MM`` (or ``HHhMM``; ``HHh`` when ``bare_hour``) in UTC;
    ``None``: not a time of day."""
    f = fold(token)
    m = _CLOCK.match(f) or (_HOUR.match(f) if bare_hour else None)
    if m is None:
        return None
    hour = int(m.group(1))
    minute = int(m.group(2)) if m.lastindex and m.lastindex >= 2 else 0
    if hour > 23 or minute > 59:
        return None
    at = _dt.datetime.fromtimestamp(now, _dt.UTC)
    target = at.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if target.timestamp() <= now:
        target += _dt.timedelta(days=1)
    return float(round(target.timestamp() - now))


def duration_seconds(token: str) -> float | None:
    """Seconds of ``10m``, ``1h``, ``1h30``, ``90s``, ``2h30m`` (units of the three languages);
    ``None``: not a duration (a bare number has no unit, so is none)."""
    f = fold(token)
    m = _HOURS_MINUTES.match(f)
    if m is not None:
        minutes = int(m.group(2))
        return float(int(m.group(1)) * 3600 + minutes * 60) if minutes < 60 else None
    try:
        got = parse_duration(f, forever=False)
    except ValueError:
        return None
    return None if got is None else float(got)


def _two_word_duration(tokens: Sequence[str], i: int) -> tuple[float | None, int]:
    """The duration at ``tokens[i]`` (``10m``, or ``10 min`` in two words) and the words it took."""
    if i >= len(tokens):
        return None, 0
    if tokens[i].isdigit() and i + 1 < len(tokens) and fold(tokens[i + 1]) in UNITS:
        return duration_seconds(tokens[i] + fold(tokens[i + 1])), 2
    return duration_seconds(tokens[i]), 1


def _switch(word: str) -> bool | None:
    w = fold(word)
    if w in ON_WORDS:
        return True
    if w in OFF_WORDS:
        return False
    return None


# --------------------------------------------------------------------------- usages


def _examples(lang: str) -> tuple[str, str]:
    head = f"{verb(lang, 'tournament')} {shown(lang, 'tournament_create')}"
    game = f"{typed_word(lang, 'president')} {typed_word(lang, 'classic')} 4"
    return (f"{head} {shown(lang, 'arena')} {game} {shown(lang, 'in')} 10m 1h",
            f"{head} {shown(lang, 'swiss')} {game} {shown(lang, 'in')} 10m {shown(lang, 'rounds')}=5")


def create_usage(lang: str) -> str:
    """How to open a tournament, with two examples and the options, in ``lang``."""
    t = translation(lang)
    first, second = _examples(lang)
    options = ", ".join(f"{shown(lang, w)}=" for w in ("start", "length", "rounds", "deals", "min", "max",
                                                         "bots", "streak", "scoring", "late"))
    return str(t.gettext("Open a tournament like this: {example1} or {example2}. Other options: {options}")
               .format(example1=first, example2=second, options=options))


def actions_usage(lang: str) -> str:
    """The tournament commands, in ``lang``."""
    t = translation(lang)
    v = verb(lang, "tournament")
    doing = ", ".join(f"{v} {shown(lang, a)} ID" for a in ("tournament_join", "tournament_leave",
                                                            "tournament_standings", "tournament_watch",
                                                            "tournament_stop"))
    return str(t.gettext("Tournaments: {list} lists them; {create} opens one; then {commands}.").format(
        list=verb(lang, "tournaments"), create=f"{v} {shown(lang, 'tournament_create')} …", commands=doing))


def _bad(lang: str, value: str, expected: str | None = None) -> ParseError:
    if expected:
        return ParseError("bad_argument", error_message(lang, "bad_argument", value=value, expected=expected))
    return ParseError("bad_argument", error_message(lang, "bad_argument", value=value))


def _bad_time(lang: str, value: str) -> ParseError:
    t = translation(lang)
    return ParseError("bad_argument", t.gettext(
        "“{value}” is neither a delay nor a time of day: write {delay} or {time} (UTC).").format(
            value=value, delay=f"{shown(lang, 'in')} 10m", time="20:30"))


def _bad_duration(lang: str, value: str) -> ParseError:
    t = translation(lang)
    return ParseError("bad_argument", t.gettext("“{value}” is not a duration: write it like 45m, 1h or 1h30.")
                      .format(value=value))


# --------------------------------------------------------------------------- handlers


def _h_tournaments(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if rest:
        return ParseError("bad_argument", actions_usage(lang))
    return Command("tournaments", {})


def _h_tournament(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    return parse_tournament(rest, lang)


def parse_tournament(rest: Sequence[str], lang: str, now: float | None = None) -> Command | ParseError:
    """The words after ``tournament`` → a protocol command; ``now``: the wall clock (epoch seconds)
    a time of day is counted from (the real one when ``None``)."""
    if not rest:
        return Command("tournaments", {})
    action = ACTIONS.get(fold(rest[0]))
    if action is None:
        if len(rest) == 1 and any(ch.isdigit() for ch in rest[0]):  # "tournoi e3": its standings
            return Command("tournament_standings", {"tournament": _tid(rest[0])})
        return _unknown_action(rest[0], lang)
    if action == "tournaments":
        return Command("tournaments", {})
    if action == "tournament_create":
        return parse_create(rest[1:], lang, time.time() if now is None else now)
    if len(rest) < 2:
        t = translation(lang)
        return ParseError("bad_argument", t.gettext("Which tournament? Type {list} to see them, then for example "
                                                    "{example}.").format(
            list=verb(lang, "tournaments"), example=f"{verb(lang, 'tournament')} {shown(lang, action)} e1"))
    args: dict[str, JSONValue] = {"tournament": _tid(rest[1])}
    if action == "tournament_watch" and len(rest) > 2:
        args["table"] = _room_arg(rest[2])
        extra = rest[3:]
    else:
        extra = rest[2:]
    if extra:
        return _bad(lang, extra[0])
    return Command(action, args)


def _unknown_action(raw: str, lang: str) -> ParseError:
    """``tournoi danser``: the word not understood named, then the closest action of the session's
    language (``rejoindr`` → « rejoindre »), else every action."""
    actions = ("tournament_create", "tournament_join", "tournament_leave", "tournament_standings",
               "tournament_watch", "tournament_stop")
    words = {fold(shown(lang, a)): shown(lang, a) for a in actions}
    guess = difflib.get_close_matches(fold(raw), list(words), n=1, cutoff=0.7)
    if guess:
        return ParseError("unknown_command", error_message(lang, "bad_argument", value=raw,
                                                           suggestion=words[guess[0]]))
    return ParseError("unknown_command", error_message(lang, "bad_argument", value=raw) + " " + actions_usage(lang))


def _tid(token: str) -> str:
    """A tournament's id as typed (``e3``, ``#e3``: ``e3``; the server also reads ``3``)."""
    return token.strip().lstrip("#").rstrip(".,;")


def parse_create(rest: Sequence[str], lang: str, now: float) -> Command | ParseError:
    """``arena|swiss GAME RULES SEATS [options]`` → ``tournament_create`` (docs/protocol.md)."""
    args: dict[str, JSONValue] = {}
    kind: str | None = None
    rounds: int | None = None  # "rounds": the event's for a Swiss, the table's for an arena
    length_token: str | None = None
    tokens = list(rest)
    i = 0
    while i < len(tokens):
        raw = tokens[i]
        tok = fold(raw)
        if "=" in tok or (":" in tok and tok.partition(":")[0] in KEYS):
            key_text, _, value = tok.replace(":", "=", 1).partition("=") if "=" not in tok else tok.partition("=")
            key = KEYS.get(key_text)
            if key is None or not value:
                return _suggest(raw, lang)
            got = _value(key, value, raw, lang, now)
            if isinstance(got, ParseError):
                return got
            if key == "event_rounds":
                rounds = got if isinstance(got, int) else rounds
            else:
                args[key] = got
                if key == "length":
                    length_token = raw
            i += 1
            continue
        if tok in KINDS:
            kind = KINDS[tok]
        elif tok in GAME_WORDS:
            args["game"] = GAME_WORDS[tok]
        elif tok in RULE_WORDS:
            args["rules"] = RULE_WORDS[tok]
        elif tok in RATED_WORDS:
            args["rated"] = RATED_WORDS[tok]
        elif tok in IN_WORDS and i + 1 < len(tokens):
            delay, took = _two_word_duration(tokens, i + 1)
            if delay is None:
                return _bad_time(lang, tokens[i + 1])
            args["start"] = delay
            i += took
        elif tok in AT_WORDS and i + 1 < len(tokens):
            if fold(tokens[i + 1]) in AT_WORDS and i + 2 < len(tokens):  # "a las 20:30"
                i += 1
            at = clock_seconds(tokens[i + 1], now, bare_hour=True)
            if at is None:
                return _bad_time(lang, tokens[i + 1])
            args["start"] = at
            i += 1
        elif tok in NOW_WORDS and tok != "0":
            args["start"] = 0.0
        elif (at := clock_seconds(tok, now)) is not None:
            args["start"] = at
        elif tok in NO_WORDS and i + 1 < len(tokens) and KEYS.get(fold(tokens[i + 1])) in SWITCHES:
            args[KEYS[fold(tokens[i + 1])]] = False
            i += 1
        elif tok in KEYS:
            key = KEYS[tok]
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            got = _value(key, fold(nxt), nxt, lang, now) if nxt is not None else None
            if got is not None and not isinstance(got, ParseError):
                if key == "event_rounds":
                    rounds = got if isinstance(got, int) else rounds
                else:
                    args[key] = got
                    if key == "length" and nxt is not None:
                        length_token = nxt
                i += 1
            elif key in SWITCHES:
                args[key] = True
            elif isinstance(got, ParseError):
                return got
            else:
                return _bad(lang, raw)
        elif tok in SCORING:
            args["scoring"] = SCORING[tok]
        elif (n := _int(tok)) is not None and not (i + 1 < len(tokens) and fold(tokens[i + 1]) in UNITS):
            nxt_key = KEYS.get(fold(tokens[i + 1])) if i + 1 < len(tokens) else None
            if nxt_key in _INT_KEYS:  # "5 rondes", "3 manches"
                if nxt_key == "event_rounds":
                    rounds = n
                else:
                    args[str(nxt_key)] = n
                i += 1
            elif "seats" not in args:
                args["seats"] = n
            else:
                return ParseError("bad_argument", create_usage(lang))
        elif (length := _two_word_duration(tokens, i))[0] is not None:
            args["length"] = length[0]
            length_token = raw
            i += length[1] - 1
        else:
            return _suggest(raw, lang)
        i += 1
    if kind is None:
        return ParseError("bad_argument", create_usage(lang))
    if kind == "swiss" and "length" in args:
        t = translation(lang)
        return ParseError("bad_argument", t.gettext(
            "A Swiss event is played in rounds and has no length (“{value}”): for example {example}.").format(
                value=length_token or "", example=f"{shown(lang, 'rounds')}=5"))
    if rounds is not None:
        args["event_rounds" if kind == "swiss" else "rounds"] = rounds
    args.setdefault("game", "president")
    args.setdefault("seats", 4)  # as create: the server's choice when no seats are named
    return Command("tournament_create", {"kind": kind, **args})


def _value(key: str, value: str, raw: str | None, lang: str, now: float) -> JSONValue | ParseError:
    """The value typed for ``key`` (folded), or a ParseError naming ``raw``."""
    shown_raw = raw or value
    if key == "start":
        if value in NOW_WORDS:
            return 0.0
        at = clock_seconds(value, now)
        if at is not None:
            return at
        delay = duration_seconds(value)
        return delay if delay is not None else _bad_time(lang, shown_raw)
    if key in ("length", "round_pause"):
        got = duration_seconds(value)
        return got if got is not None else _bad_duration(lang, shown_raw)
    if key == "turn_seconds":
        n = _int(value)
        if n is not None:
            return n
        got = duration_seconds(value)
        return int(got) if got is not None else _bad(lang, shown_raw)
    if key in SWITCHES:
        on = _switch(value)
        if on is None:
            return _bad(lang, shown_raw, f"{switch_word(lang, True)}, {switch_word(lang, False)}")
        return on
    if key == "scoring":
        if value in SCORING:
            return SCORING[value]
        return _bad(lang, shown_raw, f"{shown(lang, 'place')}, {shown(lang, 'chips')}")
    if key == "late":
        if value in LATE:
            return LATE[value]
        return _bad(lang, shown_raw, f"{shown(lang, 'half')}, {shown(lang, 'zero')}")
    n = _int(value)
    if n is None:
        return _bad(lang, shown_raw, translation(lang).gettext("a whole number"))
    return n


def _suggest(raw: str, lang: str) -> ParseError:
    """A word not understood: the closest word of the session's language, or the usage."""
    words = [shown(lang, w) for w in ("arena", "swiss", "bots", "streak", "scoring", "rounds", "deals", "late",
                                      "length", "start", "place", "chips")]
    words += list(create_words(lang).values())  # the games, rules and table options, as shown in lang
    folded = {fold(w): w for w in words}
    guess = difflib.get_close_matches(fold(raw).partition("=")[0], list(folded), n=1)
    if guess:
        return ParseError("bad_argument", error_message(lang, "bad_argument", value=raw,
                                                        suggestion=folded[guess[0]]))
    return ParseError("bad_argument", create_usage(lang))


_HANDLERS.update({
    "tournament": _h_tournament,
    "tournaments": _h_tournaments,
})
