"""Help in context: what the player can type now, in the words of their language.

:func:`help_text` lists the commands that make sense where the player is (lobby,
a Président table on their turn, a tdc exchange, a Speculation auction or
turning, a finished table), each with a typed example and one line of explanation. The command
words come from :data:`server.presenters.text.words.VERBS`, so help and parser never
disagree.
"""

from __future__ import annotations

from server.messages.terminal import BOLD, PLAIN, TermStyle, display_width, finish, paint, wrap_text
from server.messages.translations import translation
from server.presenters.text.context import CommandContext
from server.presenters.text.moderation import STAFF_TOPICS, staff_help
from server.presenters.text.tournament_words import shown as tshown
from server.presenters.text.words import VERB_TABLES, VERBS, fold, lang_code, switch_word, typed_word, verb


def help_text(lang: str, ctx: CommandContext, style: TermStyle = PLAIN, topic: str | None = None, *,
              guest: bool = True, resume: str | None = None) -> str:
    """The commands available now, with examples, fitting ``style.width``; ``guest``: the reader has
    no account yet (``register`` is offered only then); ``resume``: a guest's resume code, said
    again at the end (server/people/resume.py)."""
    t = translation(lang)

    def v(cmd: str) -> str:
        return verb(lang, cmd)

    entries: list[tuple[str, str]] = []
    on_off = f"{switch_word(lang, True)}|{switch_word(lang, False)}"
    title = t.gettext("What you can do now:")

    over = ctx.where == "room" and ctx.phase == "over"
    if over:
        if not ctx.spectator:
            entries.append((v("rematch"), t.gettext("a new match at this table, same options, same players")))
        entries += [
            (v("leave"), t.gettext("leave the table, back to the lobby")),
            (v("rooms"), t.gettext("list the open rooms")),
        ]
    elif ctx.where != "room":
        entries += [
            (v("rooms"), t.gettext("list the open rooms")),
            (
                f"{v('create')} {_word(lang, 'president')} {_word(lang, 'classic')} 4 bots=3",
                t.gettext("open a Président table for 4 with 3 bots (rules: classic or tdc)"),
            ),
            (
                f"{v('create')} {_word(lang, 'speculation')} 5 bots=4 ante=1",
                t.gettext("open a Speculation table for 5 with 4 bots"),
            ),
            (f"{v('join')} 3", t.gettext("sit at room 3")),
            (f"{v('watch')} 3", t.gettext("watch room 3 without playing")),
            (v("who"), t.gettext("who is online")),
            (v("whoami"), t.gettext("your name, chips and language")),
            (v("history"), t.gettext("your last rounds and matches (history NAME: another player's)")),
            (v("leaderboard"), t.gettext("the best players")),
            *([(v("register"), t.gettext("create an account to keep your chips"))] if guest else []),
            (f"{v('finger')} ana", t.gettext("who ana is: tables, ratings, where she plays")),
            (f"{v('friend')} ana, {v('friends')}", t.gettext("keep ana on your friends list; who of them is on")),
            (f"{v('message')} ana …", t.gettext("a message ana reads at her next login")),
            (f"{v('seek')} {_word(lang, 'president')} {_word(lang, 'tdc')} 4",
             t.gettext("a table for whoever accepts first (challenge ana …: for ana)")),
            (f"{v('replay')}", t.gettext("your last round again, step by step")),
            (v("tournaments"), t.gettext("the tournaments: arenas and Swiss events ({help}: how to enter and "
                                         "open them)").format(help=f"{v('help')} {v('tournament')}")),
            (f"{v('ignore')} ana", t.gettext("no longer see ana's chat and tells ({unignore} ana: again)").format(
                unignore=v("unignore"))),
        ]
    elif ctx.bids_table:
        entries += _speculation_entries(lang, ctx)
    else:
        entries += _president_entries(lang, ctx)

    if ctx.where == "room" and ctx.cards_table:
        entries.append((v("tricks"), t.gettext("the tricks played so far in this round")))
    if ctx.where == "room" and not over:
        entries += [
            (v("state") + " " + t.gettext("(or an empty line)"), t.gettext("show the table again")),
            (v("extend"), t.gettext("more time for your decision, from your time bank for the match")),
            (v("leave"), t.gettext("leave the table (a bot takes your seat during a match)")),
        ]
    entries += [
        (f"{v('seed')} …", t.gettext("your own randomness, mixed into every deal you play ({seed}: show it, "
                                     "{seed} {off}: remove it)").format(seed=v("seed"), off=switch_word(lang, False))),
        (v("verify") + " [" + t.pgettext("placeholder", "ROUND") + "]",
         t.gettext("check that your last deal (or ROUND) was fair, step by step")),
        (f"{v('say')} …  " + t.gettext("or") + " '…", t.gettext("talk to the table or the lobby")),
        (f"{v('tell')} ana …, {v('reply')} …", t.gettext("talk to one person, wherever they are")),
        (f"{v('lang')} fr|es|en", t.gettext("change language")),
        (f"{v('colour')} {on_off}, {v('unicode')} {on_off}", t.gettext("colours and card symbols")),
        (f"{v('reader')} {on_off}", t.gettext("screen-reader mode: cards and counts in words, one fact per line")),
        (f"{v('help')} ", t.gettext("this help")),
        (f"{v('help')} {_STAFF_TOPIC.get(lang_code(lang), 'staff')}", t.gettext("the commands of moderators and admins")),
        (v("quit"), t.gettext("disconnect")),
    ]
    lines: list[str] = []
    width = style.width
    if topic and fold(topic) in STAFF_TOPICS:
        return staff_help(lang, style)
    if topic and VERB_TABLES[lang_code(lang)].get(fold(topic)) in ("tournament", "tournaments"):
        return tournament_help(lang, style)
    if topic:
        lines += _topic_lines(lang, topic, width)
    lines.append(paint(title, BOLD, style))
    lines += entry_lines(entries, style)
    if not over:
        lines += wrap_text(_cards_hint(lang, ctx), width)
    if resume:
        lines += wrap_text(t.gettext("Your resume code: {code} (it gives your seat back after a lost "
                                     "connection or a restart).").format(code=resume), width)
    return finish(lines, style)


def entry_lines(entries: list[tuple[str, str]], style: TermStyle, *, snug: bool = False) -> list[str]:
    """Help entries, a typed example and what it does, in two columns when the terminal is wide
    enough, else the example on its own line; ``snug``: the first column as wide as the widest
    example that fits in it (not as the widest example of all)."""
    width = style.width
    lines: list[str] = []
    cap = max(12, width // 2 - 2)
    widths = [display_width(c) for c, _ in entries]
    cmd_w = min(max(widths), cap) if not snug else max([w for w in widths if w <= cap] or [cap])
    for cmd, text in entries:
        if display_width(cmd) <= cmd_w and width >= 60:
            first = f"  {cmd}{' ' * (cmd_w - display_width(cmd))}  "
            body = wrap_text(text, width - display_width(first))
            lines.append(first + body[0])
            lines += [" " * display_width(first) + b for b in body[1:]]
        else:
            lines += ["  " + paint(c, BOLD, style) for c in wrap_text(cmd, width - 2)]
            lines += ["    " + b for b in wrap_text(text, width - 4)]
    return lines


def tournament_help(lang: str, style: TermStyle = PLAIN) -> str:
    """``help tournament``: every tournament command, with examples, in the words of ``lang``."""
    t = translation(lang)
    v = verb(lang, "tournament")

    def w(word: str) -> str:
        return tshown(lang, word)

    game = f"{_word(lang, 'president')} {_word(lang, 'classic')} 4"
    entries = [
        (verb(lang, "tournaments"), t.gettext("the tournaments open and lately over")),
        (f"{v} {w('tournament_create')} {w('arena')} {game} {w('in')} 10m 1h",
         t.gettext("open an arena: it starts in 10 minutes and lasts an hour; players join and leave at any "
                   "time and are seated by score whenever a table's worth wait")),
        (f"{v} {w('tournament_create')} {w('swiss')} {game} {w('at')} 20:30 {w('rounds')}=5",
         t.gettext("open a Swiss event of 5 rounds starting at 20:30 (UTC): everyone plays each round, "
                   "seated by standing, meeting new people where possible")),
        (f"{v} {w('tournament_join')} e3", t.gettext("enter tournament e3")),
        (f"{v} {w('tournament_leave')} e3",
         t.gettext("leave it: you are not seated again; your points stay and you may come back")),
        (f"{v} {w('tournament_standings')} e3", t.gettext("its standings, your line marked with >")),
        (f"{v} {w('tournament_watch')} e3 [12]", t.gettext("watch its top table (or its room 12)")),
        (f"{v} {w('tournament_stop')} e3", t.gettext("stop it (its organiser or the staff): the tables under "
                                                     "way finish and count")),
    ]
    on_off = f"{switch_word(lang, True)}|{switch_word(lang, False)}"
    options = [
        (f"{w('bots')}", t.gettext("bots fill the seats nobody takes (they score nothing)")),
        (f"{w('streak')}", t.gettext("the streak bonus: after two wins in a row, points count double")),
        (f"{w('scoring')}={w('place')}|{w('chips')}", t.gettext("points by finishing place (100 for the "
                                                                 "winner … 0 for the last) or by chips won")),
        (f"{w('deals')}=2", t.gettext("rounds (or deals) of each table's game")),
        (f"{w('min')}=3", t.gettext("Swiss: the smallest table, when players do not fill tables of one size")),
        (f"{w('late')}={w('half')}|{w('zero')}", t.gettext("Swiss: what a late entrant scores for each "
                                                             "round missed")),
        (f"{w('pause')}=30s", t.gettext("Swiss: the pause between rounds")),
        (f"{w('max')}=40", t.gettext("the most entrants")),
        (f"{_word(lang, 'stake')}=2 ante=1 {_word(lang, 'time')}=30", t.gettext("the table options, as for a table")),
        (f"{w('bots')}={on_off}", t.gettext("named alone, a switch is on ({alone}); {without} turns it off").format(
            alone=w("bots"), without=f"{w('without')} {w('bots')}")),
    ]
    lines = [paint(t.gettext("Tournaments:"), BOLD, style)]
    lines += entry_lines(entries, style, snug=True)
    lines.append(paint(t.gettext("Options when opening one:"), BOLD, style))
    lines += entry_lines(options, style, snug=True)
    lines += wrap_text(t.gettext("A start is a delay ({delay}) or a time of day in UTC ({time}); a length is "
                                 "written 45m, 1h or 1h30.").format(delay=f"{w('in')} 10m", time="20:30"),
                       style.width)
    return finish(lines, style)


_STAFF_TOPIC = {"fr": "équipe", "es": "equipo"}
"""The word after ``help`` for the staff's commands, as shown (STAFF_TOPICS understands them all)."""


def _word(lang: str, word: str) -> str:
    return typed_word(lang, word)


def _president_entries(lang: str, ctx: CommandContext) -> list[tuple[str, str]]:
    t = translation(lang)

    def v(cmd: str) -> str:
        return verb(lang, cmd)

    out: list[tuple[str, str]] = []
    on_off = f"{switch_word(lang, True)}|{switch_word(lang, False)}"
    if ctx.spectator:
        return [(f"{v('join')} N", t.gettext("take a free seat, if there is one"))]
    if ctx.phase == "give":
        k = ctx.give or 2
        out.append(
            (
                f"{v('give')} 3 4" if k == 2 else f"{v('give')} 3",
                t.ngettext(
                    "give back {n} card of your choice, in return for the strongest you received",
                    "give back {n} cards of your choice, in return for the strongest you received",
                    k,
                ).format(n=k),
            )
        )
        return out
    if ctx.your_turn and ctx.top is None:
        out.append(("7 7  " + t.gettext("or") + f"  {v('play')} 7 7", t.gettext("lead: one to four cards of one rank")))
    elif ctx.your_turn:
        n = len(ctx.top or ()) or 1
        out.append(
            (
                " ".join(["9"] * n) + "  " + t.gettext("or") + f"  {v('play')} " + " ".join(["9"] * n),
                t.ngettext(
                    "play {n} card at least as strong as the top of the trick",
                    "play {n} cards at least as strong as the top of the trick",
                    n,
                ).format(n=n),
            )
        )
        out.append((f"{v('pass')}  " + t.gettext("or") + "  p", t.gettext("pass")))
    else:
        out.append(("7 7", t.gettext("play when your turn comes (cards typed as ranks)")))
        out.append((f"{v('pass')}  " + t.gettext("or") + "  p", t.gettext("pass when your turn comes")))
    if "cut" in ctx.moves:
        out.append(
            (
                v("cut"),
                t.gettext("cut out of turn: play every remaining card of the rank of the single or "
                          "pair just played"),
            )
        )
        out.append((f"{v('autocut')} {on_off}", t.gettext("cut automatically whenever you can")))
    if "autopass" in ctx.moves:
        out.append((f"{v('autopass')} {on_off}", t.gettext("pass automatically when passing is all you can do")))
    return out


def _speculation_entries(lang: str, ctx: CommandContext) -> list[tuple[str, str]]:
    t = translation(lang)

    def v(cmd: str) -> str:
        return verb(lang, cmd)

    if ctx.spectator:
        return [(f"{v('join')} N", t.gettext("take a free seat, if there is one"))]
    out: list[tuple[str, str]] = []
    auction = ctx.auction
    if auction and auction.get("seat") == ctx.you:
        out += [
            (v("sell"), t.gettext("sell your best trump to the best bidder")),
            (v("keep"), t.gettext("keep it")),
        ]
    elif auction:
        out.append((f"{v('bid')} 3  " + t.gettext("or") + "  3", t.gettext("bid 3 chips for the card on sale")))
    else:
        if ctx.your_turn:
            out.append((f"{v('turn')}  " + t.gettext("or") + "  t", t.gettext("turn your top face-down card")))
        out.append(
            (
                f"{v('offer')} ana 2 5",
                t.gettext("offer Ana 5 chips for her top 2 face-down cards"),
            )
        )
    out += [
        (f"{v('accept')} 4 / {v('decline')} 4", t.gettext("answer offer #4 made to you")),
        (f"{v('withdraw')} 4", t.gettext("withdraw your offer #4")),
    ]
    return out


def _cards_hint(lang: str, ctx: CommandContext) -> str:
    t = translation(lang)
    if ctx.where == "room" and not ctx.cards_table:
        return ""
    if lang == "fr":
        ranks = "3 … 10 V D R A 2"
    elif lang == "es":
        ranks = "3 … 10 J Q K A 2"
    else:
        ranks = "3 … 10 J Q K A 2"
    return t.gettext(
        "Cards: type ranks ({ranks}; 10 or T); suits are optional (c d h s, e.g. 7h), the weakest are taken."
    ).format(ranks=ranks)


def _topic_lines(lang: str, topic: str, width: int) -> list[str]:
    """``help play``: the words of that command in the player's language (English ones too)."""
    t = translation(lang)
    cmd = topic if topic in VERBS["en"] else None
    if cmd is None:
        for table in (VERBS.get(lang, {}), VERBS["en"]):
            for name, spellings in table.items():
                if fold(topic) in (fold(w) for w in spellings):
                    cmd = name
    if cmd is None:
        return wrap_text(t.gettext("No command is called “{topic}”.").format(topic=topic), width)
    words: list[str] = list(VERBS.get(lang, VERBS["en"]).get(cmd, ()))
    words += [w for w in VERBS["en"][cmd] if w not in words]
    return wrap_text(
        t.gettext("“{cmd}” can be typed: {words}.").format(cmd=verb(lang, cmd), words=", ".join(words)), width
    )
