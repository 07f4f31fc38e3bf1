"""Replies to the tournament commands as a person reads them: the list of events, standings, entries.

Every line fits the terminal: the list wraps each event's facts under its id; the standings are a
table whose columns give way (byes, wins, games, opponents' points) on a narrow terminal, the
reader's own line marked with ``>``; a screen reader hears one sentence per entrant instead.
Moments are said from now (``starts in 5 min (20:30 UTC)``), as the news say them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from server.messages.kit import T, text_of, to_int
from server.messages.labels import punct, table_name
from server.messages.terminal import BOLD, TermStyle, display_width, finish, pad, paint, wrap_text
from server.messages.tournament_events import ends_text, kind_name, points_text, starts_text
from server.messages.translations import translation
from server.presenters.text.tournament_words import shown
from server.presenters.text.words import verb
from server.protocol import JSONValue, Result, objects_in

COMMANDS = frozenset({"tournament_create", "tournaments", "tournament_join", "tournament_leave",
                      "tournament_standings", "tournament_watch", "tournament_stop"})


def command(lang: str, action: str, tid: str) -> str:
    """``tournoi rejoindre t3``: a tournament command as typed in ``lang``."""
    return f"{verb(lang, 'tournament')} {shown(lang, action)} {tid}"


def render_tournaments(cmd: str, reply: Result, lang: str, style: TermStyle, now: float | None = None) -> str:
    """The reply to ``cmd`` (one of :data:`COMMANDS`) for a person; ``reply["you"]``: the reader's name."""
    t = translation(lang)
    now = time.time() if now is None else now
    tid = str(reply.get("tournament") or "?")
    width = style.width
    if cmd == "tournaments":
        return render_list(objects_in(reply.get("tournaments")), lang, style, now)
    if cmd == "tournament_standings":
        return render_standings(reply, lang, style)
    if cmd == "tournament_create":
        text = t.gettext("Tournament {id} is open. Players enter with {join}; you stop it with {stop}.").format(
            id=tid, join=command(lang, "tournament_join", tid), stop=command(lang, "tournament_stop", tid))
    elif cmd == "tournament_join":
        text = t.gettext("You are entered in tournament {id}. You will be told where to sit; the standings: "
                         "{standings}.").format(id=tid, standings=command(lang, "tournament_standings", tid))
    elif cmd == "tournament_leave" and reply.get("withdrawn"):  # before the start: the entry taken back
        text = t.gettext("Your entry in tournament {id} is withdrawn.").format(id=tid)
    elif cmd == "tournament_leave":
        text = t.gettext("You left tournament {id}: nobody seats you again, and a game under way still counts. "
                         "To come back: {join}.").format(id=tid, join=command(lang, "tournament_join", tid))
    elif cmd == "tournament_stop":
        text = t.gettext("Tournament {id} stops: no new table opens; the tables under way finish and count.").format(
            id=tid)
    elif cmd == "tournament_watch":
        text = t.gettext("You watch room {room}.").format(room=reply.get("room", "?"))
    else:
        return ""
    return finish(wrap_text(text, width), style)


def after_a_table(lang: str, tid: str, *, last: bool = False) -> str:
    """What a person reads when their tournament table's match ends (no rematch there); ``last``:
    it was a Swiss event's last round, so no table comes next (an arena's end is not known here)."""
    t = translation(lang)
    standings = command(lang, "tournament_standings", tid)
    if last:
        return str(t.gettext("This game counts for tournament {id}; it was its last round: the final standings "
                             "come when its last table ends ({standings}).").format(id=tid, standings=standings))
    return str(t.gettext("This game counts for tournament {id}; while it goes on, you will be told where you play "
                         "next. The standings: {standings}.").format(id=tid, standings=standings))


# --------------------------------------------------------------------------- the list


def _phase(t: T, s: Result, now: float) -> str:
    phase = s.get("phase")
    if phase == "over":
        return t.pgettext("tournament", "over")
    if phase == "waiting":
        return starts_text(t, s.get("starts_at"), now)
    if s.get("kind") == "swiss":
        return t.gettext("round {round} of {rounds}").format(round=s.get("round", "?"), rounds=s.get("rounds", "?"))
    return ends_text(t, s.get("ends_at"), now)


def _facts(t: T, s: Result, now: float) -> list[str]:
    """An event's facts after its table: when, who, how scored, who opened it."""
    facts = [_phase(t, s, now)]
    if s.get("kind") != "swiss" and s.get("phase") == "waiting" and isinstance(s.get("ends_at"), int | float):
        facts.append(ends_text(t, s.get("ends_at"), now))
    rounds = s.get("rounds")
    if s.get("kind") == "swiss" and s.get("phase") == "waiting" and isinstance(rounds, int):
        facts.append(t.npgettext("tournament", "{n} round", "{n} rounds", rounds).format(n=rounds))
    n = to_int(s.get("entrants") or 0)
    entrants = t.ngettext("{n} entrant", "{n} entrants", n).format(n=n)
    playing = to_int(s.get("playing") or 0)
    tables = to_int(s.get("tables") or 0)
    if playing and s.get("phase") == "running":
        entrants += ", " + t.ngettext("{n} playing", "{n} playing", playing).format(n=playing)
        entrants += " " + t.ngettext("at {n} table", "at {n} tables", tables).format(n=tables)
    facts.append(entrants)
    scoring = s.get("scoring")  # "place"/"chips", or {"mode": …, "streak": …}
    mode = scoring.get("mode") if isinstance(scoring, Mapping) else scoring
    if mode == "chips":
        facts.append(t.gettext("points by chips won"))
    elif mode == "place":
        facts.append(t.gettext("points by place"))
    if isinstance(scoring, Mapping) and scoring.get("streak"):
        facts.append(t.gettext("streak bonus"))
    if s.get("bots"):
        facts.append(t.gettext("bots fill the tables"))
    if s.get("organiser"):
        facts.append(t.gettext("organised by {name}").format(name=s["organiser"]))
    if s.get("as_stored"):
        facts.append(t.gettext("as last saved (its server is slow to answer)"))
    return [f for f in facts if f]


def render_list(items: Sequence[Result], lang: str, style: TermStyle, now: float) -> str:
    """The open (and lately finished) events, each: its id, kind and table, then its facts wrapped."""
    t = translation(lang)
    if not items:
        return finish(wrap_text(t.gettext("No tournament is open."), style.width), style)
    lines = [paint(t.gettext("Tournaments:"), BOLD, style)]
    for s in items:
        tid = str(s.get("id") or "?")
        seats = s.get("seats")
        head = f"{tid}  {kind_name(t, s.get('kind'))}, {table_name(lang, text_of(s.get('game')), text_of(s.get('rules')))}"
        if isinstance(seats, int):
            head += ", " + t.ngettext("{n} seat", "{n} seats", seats).format(n=seats)
        if s.get("joined"):
            head += " " + t.gettext("(you are in)")
        lines += wrap_text(head, style.width, indent="    ")
        lines += ["    " + line for line in wrap_text(f"{punct(lang, ';')} ".join(_facts(t, s, now)) + ".", style.width - 4)]
    if any(s.get("phase") != "over" for s in items):  # an event over takes no entry
        lines += wrap_text(t.gettext("To enter: {join}; the standings: {standings}.").format(
            join=command(lang, "tournament_join", "ID"), standings=command(lang, "tournament_standings", "ID")),
            style.width)
    else:
        lines += wrap_text(t.gettext("The standings: {standings}.").format(
            standings=command(lang, "tournament_standings", "ID")), style.width)
    return finish(lines, style)


# --------------------------------------------------------------------------- standings

Column = tuple[str, Callable[[Result], str], bool]  # header, cell, right-aligned


def _flags(t: T, line: Result) -> str:
    flags = []
    if line.get("fire"):
        flags.append(t.pgettext("standings", "on fire"))
    if line.get("provisional"):
        flags.append(t.pgettext("standings", "playing"))
    if line.get("status") == "left":
        flags.append(t.pgettext("standings", "left"))
    return ", ".join(flags)


def _count(value: JSONValue) -> str:
    return str(to_int(value if isinstance(value, int | float) and not isinstance(value, bool) else 0))


def render_standings(reply: Result, lang: str, style: TermStyle) -> str:
    """The standings as a table fitting ``style.width`` (columns dropped, names shortened when
    narrow), the reader's line (``reply["you"]``) marked ``>``; one sentence a line for a screen reader."""
    t = translation(lang)
    tid = str(reply.get("tournament") or "?")
    lines_in = objects_in(reply.get("lines"))
    you = reply.get("you")
    final = bool(reply.get("final"))
    head = (t.gettext("Final standings of tournament {id}:") if final
            else t.gettext("Standings of tournament {id}:")).format(id=tid)
    out = wrap_text(paint(head, BOLD, style), style.width)
    if not lines_in:
        out += wrap_text(t.gettext("Nobody has entered yet."), style.width)
        return finish(out, style)
    if style.reader:
        for line in lines_in:
            out += wrap_text(_spoken_line(t, lang, line, line.get("name") == you), style.width, indent="  ")
        return finish(out, style)
    swiss = reply.get("kind") == "swiss"
    any_byes = any(to_int(line.get("byes") or 0) for line in lines_in if isinstance(line.get("byes"), int))
    columns: list[Column] = [
        (t.pgettext("standings", "pts"), lambda line: _count(line.get("points")), True),
        (t.pgettext("standings", "opp."), lambda line: _count(line.get("opponents")), True),
        (t.pgettext("standings", "games"), lambda line: _count(line.get("games")), True),
        (t.pgettext("standings", "wins"), lambda line: _count(line.get("wins")), True),
        (t.pgettext("standings", "byes"), lambda line: _count(line.get("byes")), True),
    ]
    if not swiss:
        columns = [c for i, c in enumerate(columns) if i != 1]  # opponents' points break a Swiss event's ties
    if not any_byes:
        columns = [c for c in columns if c[0] != t.pgettext("standings", "byes")]
    rank_w = max(display_width(f"{line.get('rank', '?')}.") for line in lines_in)
    names = [str(line.get("name") or "?") for line in lines_in]
    flags = [_flags(t, line) for line in lines_in]
    flag_w = max((display_width(f) for f in flags), default=0)
    name_w = min(max(display_width(n) for n in [*names, t.pgettext("standings", "name")]), 16)

    def table_width(cols: Sequence[Column], nw: int) -> int:
        cells = sum(max(display_width(h), *(display_width(c(line)) for line in lines_in)) + 2 for h, c, _ in cols)
        return 2 + rank_w + 1 + nw + cells + (2 + flag_w if flag_w else 0)

    # on a narrow terminal names are shortened to 10 columns, then columns give way (the least
    # telling first), then names are shortened further
    while name_w > 10 and table_width(columns, name_w) > style.width:
        name_w -= 1
    while len(columns) > 1 and table_width(columns, name_w) > style.width:
        columns.pop()
    while name_w > 6 and table_width(columns, name_w) > style.width:
        name_w -= 1
    widths = [max(display_width(h), *(display_width(c(line)) for line in lines_in)) for h, c, _ in columns]
    header = "  " + " " * (rank_w + 1) + pad(t.pgettext("standings", "name"), name_w)
    header += "".join("  " + " " * (w - display_width(h)) + h for (h, _, _), w in zip(columns, widths, strict=True))
    out.append(header.rstrip())
    for line, name, flag in zip(lines_in, names, flags, strict=True):
        mark = ">" if name == you else " "
        rank = f"{line.get('rank', '?')}.".rjust(rank_w)
        row = f"{mark} {rank} {pad(_cut(name, name_w), name_w)}"
        for (_, cell, _), w in zip(columns, widths, strict=True):
            row += "  " + cell(line).rjust(w)
        if flag:
            row += "  " + flag
        out += [row.rstrip()] if display_width(row) <= style.width else wrap_text(row.rstrip(), style.width,
                                                                                   indent="      ")
    if any(line.get("provisional") for line in lines_in):
        out += wrap_text(t.gettext("“playing”: that entrant's table is still playing; their points may change."),
                         style.width)
    return finish(out, style)


def _cut(name: str, width: int) -> str:
    """A name shortened to ``width`` columns, its end replaced by ``…``."""
    if display_width(name) <= width:
        return name
    out = ""
    for ch in name:
        if display_width(out + ch) > width - 1:
            break
        out += ch
    return out + "…"


def _spoken_line(t: T, lang: str, line: Result, mine: bool) -> str:
    """``1. ana: 340 pts, 5 games, 3 wins.`` (a screen reader's line)."""
    games, wins = to_int(_count(line.get("games"))), to_int(_count(line.get("wins")))
    parts = [points_text(t, line.get("points")),
             t.ngettext("{n} game", "{n} games", games).format(n=games),
             t.ngettext("{n} win", "{n} wins", wins).format(n=wins)]
    flags = _flags(t, line)
    if flags:
        parts.append(flags)
    who = str(line.get("name") or "?")
    if mine:
        who = t.gettext("{name} (you)").format(name=who)
    return f"{line.get('rank', '?')}. {who}{punct(lang, ':')} " + ", ".join(parts) + "."
