"""A Speculation table as a person's terminal shows it (RULES S)."""

from __future__ import annotations

from collections.abc import Sequence

from server.games.states import State
from server.messages.labels import (
    SUIT_SYMBOLS,
    card_label,
    suit_name,
)
from server.messages.terminal import (
    DIM,
    RED,
    REVERSE,
    YELLOW,
    TermStyle,
    paint,
    wrap_items,
    wrap_text,
)
from server.messages.translations import translation
from server.presenters.text.draw import (
    SUITS,
    cards_text,
    deadline_text,
    digits,
    header,
    seat_lines,
    seat_names,
    seconds_of,
    seconds_text,
    sep,
    window_line,
)


def table_lines(state: State, lang: str, style: TermStyle, status: bool = True) -> list[str]:
    t = translation(lang)
    width = style.width
    narrow = width < 60
    seats = state.get("seats") or []
    names = seat_names(state, lang)
    you = state.get("you")
    lines = wrap_text(header(state, lang, style, deals=True), width)
    facts = []
    trump = state.get("trump")
    if trump:
        sym = SUIT_SYMBOLS[SUITS.index(trump)] if style.unicode and trump in SUITS else str(trump)
        if trump in "dh":
            sym = paint(sym, RED, style)
        facts.append(t.gettext("trumps {suit} ({name})").format(suit=sym, name=suit_name(lang, trump)))
    best = state.get("best")
    if best and best.get("card"):
        holder = names[best["seat"]] if isinstance(best.get("seat"), int) and best["seat"] < len(names) else "?"
        facts.append(
            t.gettext("best {card} ({name})").format(card=card_label(best["card"], lang, style), name=holder)
        )
    if state.get("pool") is not None:
        n = int(state["pool"])
        facts.append(t.ngettext("pool {n} chip", "pool {n} chips", n).format(n=n))
    if facts:
        lines += wrap_items(
            [f + (sep(style).rstrip() if i < len(facts) - 1 else "") for i, f in enumerate(facts)], width, indent="  "
        )

    columns: list[list[str]] = []
    flags: list[str] = []
    cw = digits(s.get("chips") for s in seats)
    for s in seats:
        chips = s.get("chips")
        chips_text = ""
        if chips is not None:
            c = int(chips)
            chips_text = t.ngettext("{n} chip", "{n} chips", abs(c)).format(n=str(c).rjust(cw))
        down = int(s.get("facedown") or 0)
        down_text = ("▮" * down if style.unicode else "#" * down) if narrow else t.ngettext(
            "{n} face down", "{n} face down", down
        ).format(n=down)
        columns.append([chips_text, down_text])
        up = s.get("faceup") or []
        flag = cards_text(up, lang, style)
        if state.get("in_deal") and s.get("seat") == state.get("dealer"):
            flag = (flag + " " if flag else "") + paint(t.gettext("(dealer)"), DIM, style)
        if (s.get("playing") is False or s.get("sitting_out")) and state.get("in_deal"):
            flag = (flag + " " if flag else "") + t.gettext("sits out")
        if s.get("connected") is False and s.get("name"):
            flag = (flag + " " if flag else "") + paint(t.gettext("away"), DIM, style)
        flags.append(flag)
    lines += seat_lines(state, lang, style, columns, flags)

    auction = state.get("auction")
    if auction:
        owner = auction.get("seat")
        who = names[owner] if isinstance(owner, int) and owner < len(names) else "?"
        card = card_label(str(auction.get("card", "")), lang, style)
        secs = seconds_of(auction.get("deadline"))
        dl = " " + seconds_text(t, secs) if secs is not None else ""
        if auction.get("best_bid"):
            bidder = auction.get("bidder")
            bname = names[bidder] if isinstance(bidder, int) and bidder < len(names) else "?"
            n = int(auction["best_bid"])
            text = t.ngettext(
                "Auction of {card} ({owner}): best bid {n} chip by {bidder}.",
                "Auction of {card} ({owner}): best bid {n} chips by {bidder}.",
                n,
            ).format(card=card, owner=who, n=n, bidder=bname)
        else:
            text = t.gettext("Auction of {card} ({owner}): no bid yet.").format(card=card, owner=who)
        lines += wrap_text(paint(text + dl, YELLOW, style), width)
    for o in state.get("offers") or []:
        buyer, seller = o.get("from"), o.get("to")
        k, price = int(o.get("cards") or 0), int(o.get("price") or 0)
        text = t.ngettext(
            "#{offer} {buyer} → {seller}: {k} card for {price}",
            "#{offer} {buyer} → {seller}: {k} cards for {price}",
            k,
        ).format(
            offer=o.get("offer"),
            buyer=names[buyer] if isinstance(buyer, int) and buyer < len(names) else "?",
            seller=names[seller] if isinstance(seller, int) and seller < len(names) else "?",
            k=k,
            price=t.ngettext("{n} chip", "{n} chips", price).format(n=price),
        )
        left = seconds_of(o.get("left"))  # a person's time to answer it (S9)
        if left is not None:
            text += " " + seconds_text(t, left)
        lines.append(text)
    if status:
        lines += status_lines(state, lang, style, names, you)
    return lines


def status_lines(
    state: State, lang: str, style: TermStyle, names: Sequence[str], you: int | None
) -> list[str]:
    t = translation(lang)
    auction = state.get("auction")
    if auction:
        if auction.get("seat") == you:
            return [paint(t.gettext("Your card is on sale: sell or keep."), REVERSE, style)]
        if you is not None:
            return [t.gettext("Bid with: bid N (or just the number).")]
        return []
    turn = state.get("turn")
    dl = deadline_text(state, lang)
    window = window_line(state, lang, style)
    if turn is None:
        if state.get("over") or state.get("phase") in ("over", "match_over"):
            return [t.gettext("The match is over.")]
        return []
    lines = [window] if window is not None else []
    if turn == you:
        return [*lines, paint(t.gettext("Your turn: turn your top card (turn).") + dl, REVERSE, style)]
    who = names[turn] if 0 <= turn < len(names) else "?"
    return [*lines, t.gettext("{name} turns next.").format(name=who) + dl]
