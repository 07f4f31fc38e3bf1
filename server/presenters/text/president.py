"""A Président table as a person's terminal shows it (both rule sets: RULES P and T)."""

from __future__ import annotations

from collections.abc import Sequence

from server.games.states import State
from server.messages.labels import (
    card_label,
    ordinal,
    title_name,
)
from server.messages.terminal import (
    DIM,
    GREEN,
    RED,
    REVERSE,
    YELLOW,
    TermStyle,
    paint,
    wrap_items,
    wrap_text,
)
from server.messages.translations import translation
from server.presenters.text.context import give_count
from server.presenters.text.draw import (
    cards_text,
    deadline_text,
    digits,
    header,
    seat_lines,
    seat_names,
    sep,
    short_title,
    sort_hand,
    verb_word,
    window_line,
)


def table_lines(state: State, lang: str, style: TermStyle, status: bool = True) -> list[str]:
    t = translation(lang)
    width = style.width
    narrow = width < 60
    seats = state.get("seats") or []
    names = seat_names(state, lang)
    you = state.get("you")
    lines = wrap_text(header(state, lang, style), width)

    columns: list[list[str]] = []
    flags: list[str] = []
    dw = digits(s.get("cards") for s in seats)
    sw = digits(s.get("chips") if s.get("chips") is not None else s.get("score") for s in seats)
    for s in seats:
        n = int(s.get("cards") or 0)
        cards = str(n).rjust(dw) if narrow else t.ngettext("{n} card", "{n} cards", n).format(n=str(n).rjust(dw))
        if not state.get("round"):
            cards = ""  # nothing dealt yet
        title = s.get("title")
        title_text = short_title(lang, title) if narrow else title_name(lang, title)
        score = s.get("score")
        score_text = ""
        if s.get("chips") is not None:
            c = int(s["chips"])  # tdc: chips won or lost at this table so far (T13)
            score_text = t.ngettext("{n} chip", "{n} chips", abs(c)).format(n=f"{c:+d}".rjust(sw + 1))
        elif score is not None:
            p = int(score)
            score_text = t.ngettext("{n} pt", "{n} pts", p).format(n=str(p).rjust(sw))
        columns.append([cards, title_text, score_text])
        flag = []
        place = s.get("place")
        if place:
            flag.append(paint(t.gettext("out {place}").format(place=ordinal(lang, int(place))), GREEN, style))
        if s.get("passive"):
            flag.append(paint(t.gettext("passive"), DIM, style))
        elif s.get("passed") and not s.get("place"):
            flag.append(t.pgettext("seat state", "passed"))
        if s.get("playing") is False:
            flag.append(t.gettext("sits out"))
        if s.get("connected") is False and s.get("name"):
            flag.append(paint(t.gettext("away"), DIM, style))
        flags.append(" ".join(flag))
    lines += seat_lines(state, lang, style, columns, flags)

    if state.get("order") == "reversed":
        lines.append(paint(t.gettext("Revolution: order reversed, 3 is the strongest."), RED, style))
    trick = state.get("trick") or []
    if trick:
        items = []
        for i, play in enumerate(trick):
            who = names[play["seat"]] if 0 <= play.get("seat", -1) < len(names) else "?"
            if play.get("pass"):
                item = t.gettext("{name} passes").format(name=who)
            else:
                item = f"{who} {cards_text(play.get('cards') or [], lang, style)}"
            items.append(item + (sep(style).rstrip() if i < len(trick) - 1 else ""))
        lines += wrap_items(items, width, indent="  ", first=t.gettext("Trick:") + " ")
    elif state.get("phase") == "play":
        lines.append(t.gettext("Trick: empty table."))

    hand = state.get("hand")
    if hand is not None:
        ordered = sort_hand(hand, state.get("order") or "normal")
        first = t.gettext("Your hand ({n}):").format(n=len(ordered)) + " "
        items = [card_label(c, lang, style) for c in ordered] or ["—"]
        lines += wrap_items(items, width, indent="  ", first=first)
        cut = state.get("cut")
        if cut:
            text = t.gettext("You can cut with {cards}: type {cut}.").format(
                cards=cards_text(cut, lang, style.plain), cut=verb_word(lang, "cut")
            )
            lines += wrap_text(paint(text, YELLOW, style), width)
    if status:
        lines += status_lines(state, lang, style, names, you)
    return lines



def status_lines(
    state: State, lang: str, style: TermStyle, names: Sequence[str], you: int | None
) -> list[str]:
    t = translation(lang)
    phase = state.get("phase")
    turn = state.get("turn")
    dl = deadline_text(state, lang)
    if phase == "exchange":
        k = give_count(state)
        if k:
            line = t.ngettext(
                "Exchange: choose {n} card to give back (give …).",
                "Exchange: choose {n} cards to give back (give …).",
                k,
            ).format(n=k)
            return [paint(line + dl, REVERSE, style)]
        return [t.gettext("Exchange in progress…") + dl]
    if phase in ("round_over", "deal"):
        return [t.gettext("Waiting for the next round…")]
    if phase == "match_over":
        return [t.gettext("The match is over.")]
    if turn is None:
        return []
    window = window_line(state, lang, style)
    if window is not None:
        return [window]  # the turn is prompted once the cut window has passed
    if turn == you:
        trick = state.get("trick") or []
        lead = not any(p.get("cards") for p in trick)
        text = t.gettext("Your turn: lead a card or more.") if lead else t.gettext("Your turn: play or pass.")
        return [paint(text + dl, REVERSE, style)]
    who = names[turn] if 0 <= turn < len(names) else "?"
    return [t.gettext("{name} to play.").format(name=who) + dl]
