"""Président's news as sentences (RULES P and T): exchanges, plays, cuts, tricks, going out, rounds."""

from __future__ import annotations

from collections.abc import Sequence

from server.messages.kit import (
    ANYONE,
    EVERY_SEAT,
    T,
    cards_of,
    event,
    named,
    seat_name,
    seat_of,
    seats_in,
    text_of,
    to_int,
)
from server.messages.labels import cards_param, ordinal, title_name
from server.messages.terminal import TermStyle
from server.protocol import Push


@event("exchange", seats=named("from", "to"))
def _ev_exchange(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    giver, taker = seat_of(e, "from"), seat_of(e, "to")
    cards = e.get("cards")
    if cards:
        shown = cards_param(cards, lang, style)
        if you is not None and giver == you:
            return t.gettext("You give {cards} to {name}.").format(cards=shown, name=seat_name(names, taker, lang))
        if you is not None and taker == you:
            return t.gettext("{name} gives you {cards}.").format(cards=shown, name=seat_name(names, giver, lang))
        return t.gettext("{giver} gives {cards} to {taker}.").format(
            giver=seat_name(names, giver, lang), taker=seat_name(names, taker, lang), cards=shown
        )
    n = to_int(e.get("count") or 0)
    return t.ngettext(
        "{giver} gives {count} card to {taker}.", "{giver} gives {count} cards to {taker}.", n
    ).format(giver=seat_name(names, giver, lang), taker=seat_name(names, taker, lang), count=n)


@event("played", seats=named("seat"))
def _ev_played(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat")
    cards = cards_of(e, lang, style)
    if you is not None and seat == you:
        text = t.gettext("You play {cards}.").format(cards=cards)
    else:
        text = t.gettext("{name} plays {cards}.").format(name=seat_name(names, seat, lang), cards=cards)
    if e.get("ca_ou_rien") or e.get("that_or_nothing"):
        text += " " + t.gettext("That or nothing!")
    return text


@event("passed", seats=named("seat"))
def _ev_passed(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat")
    if you is not None and seat == you and e.get("forced"):
        return t.gettext("You pass: all four cards of the rank “that or nothing” asks for are out, so nobody "
                         "can follow.")
    if you is not None and seat == you:
        return t.gettext("You pass.")
    return t.gettext("{name} passes.").format(name=seat_name(names, seat, lang))


@event("cut", seats=named("seat"))
def _ev_cut(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat")
    cards = cards_of(e, lang, style)
    if you is not None and seat == you:
        return t.gettext("You cut with {cards}! The trick is yours.").format(cards=cards)
    return t.gettext("{name} cuts with {cards}!").format(name=seat_name(names, seat, lang), cards=cards)


@event("trick_closed", seats=named("leader", "next", "lead"))
def _ev_trick_closed(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    leader = seat_of(e, "leader", "next", "lead")
    if leader is None:
        return t.gettext("The trick is closed.")
    if you is not None and leader == you:
        return t.gettext("The trick is closed; you lead.")
    return t.gettext("The trick is closed; {name} leads.").format(name=seat_name(names, leader, lang))


@event("out", seats=named("seat"))
def _ev_out(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat")
    place = e.get("place")
    mine = you is not None and seat == you
    if e.get("forbidden"):
        if mine:
            return t.gettext("You went out on a forbidden last card: you will rank at the bottom.")
        return t.gettext("{name} went out on a forbidden last card and will rank at the bottom.").format(
            name=seat_name(names, seat, lang)
        )
    if place is None:
        if mine:
            return t.gettext("You have no cards left.")
        return t.gettext("{name} has no cards left.").format(name=seat_name(names, seat, lang))
    if mine:
        return t.gettext("You are out, {place}.").format(place=ordinal(lang, to_int(place)))
    return t.gettext("{name} is out, {place}.").format(name=seat_name(names, seat, lang), place=ordinal(lang, to_int(place)))


@event("revolution", seats=ANYONE)
def _ev_revolution(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat")
    if e.get("order", "reversed") == "reversed":
        return t.gettext("Revolution by {name}! The order is reversed: 3 is now the strongest.").format(
            name=seat_name(names, seat, lang) if seat is not None else "?"
        )
    return t.gettext("Another revolution by {name}: the order is back to normal.").format(
        name=seat_name(names, seat, lang) if seat is not None else "?"
    )



def _ranking_text(t: T, lang: str, e: Push, names: Sequence[str], you: int | None) -> str:
    ranking = seats_in(e.get("ranking"))
    titles = e.get("titles") or []
    items = []
    for pos, seat in enumerate(ranking, 1):
        title = titles[seat] if isinstance(titles, Sequence) and seat < len(titles) else None
        label = seat_name(names, seat, lang)
        if title and title != "neutral":
            label = t.gettext("{name} ({title})").format(name=label, title=title_name(lang, text_of(title)))
        items.append(f"{pos}.\u00a0{label}")
    return ", ".join(items)


@event("round_over", seats=EVERY_SEAT)
def _ev_round_over(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    rnd = e.get("round")
    ranking = _ranking_text(t, lang, e, names, you)
    if rnd is not None and ranking:
        text = t.gettext("Round {round} over: {ranking}.").format(round=rnd, ranking=ranking)
    elif ranking:
        text = t.gettext("Round over: {ranking}.").format(ranking=ranking)
    else:
        text = t.gettext("Round over.")
    chips = e.get("chips")
    if you is not None and isinstance(chips, Sequence) and you < len(chips) and chips[you] is not None:
        delta = to_int(chips[you])
        if delta > 0:
            text += " " + t.ngettext("You win {n} chip.", "You win {n} chips.", delta).format(n=delta)
        elif delta < 0:
            text += " " + t.ngettext("You lose {n} chip.", "You lose {n} chips.", -delta).format(n=-delta)
        else:
            text += " " + t.gettext("You break even.")
    scores = e.get("scores")
    if you is not None and chips is None and isinstance(scores, Sequence) and you < len(scores):
        n = to_int(scores[you] or 0)
        text += " " + t.ngettext("You score {n} point.", "You score {n} points.", n).format(n=n)
    return text
