"""Speculation's news as sentences (RULES S): antes, the trump, auctions, turned cards, trades, the pool."""

from __future__ import annotations

import gettext
from collections.abc import Mapping, Sequence

from server.messages.kit import (
    ANYONE,
    EVERY_SEAT,
    T,
    event,
    named,
    named_by,
    seat_name,
    seat_of,
    text_of,
    to_int,
)
from server.messages.labels import card_label, cards_param, punct, suit_name
from server.messages.terminal import TermStyle
from server.protocol import JSONValue, Push


def _payers(e: Push) -> list[JSONValue]:
    payments = e.get("payments") or []
    return [p.get("seat") for p in payments if isinstance(p, Mapping)] if isinstance(payments, Sequence) else []


_PAYERS = named_by(_payers, "the seats in 'payments'")
"""``ante``: "You paid 2 chips." for each seat that paid."""


@event("trump", seats=named("seat"))
def _ev_trump(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    card = str(e.get("card", ""))
    suit = suit_name(lang, text_of(e.get("suit")) or card[1:2])
    shown = card_label(card, lang, style)
    if you is not None and e.get("seat") == you:
        return t.gettext("You turn up {card}: {suit} are trumps, and the card is yours.").format(card=shown, suit=suit)
    return t.gettext("{name} turns up {card}: {suit} are trumps.").format(
        name=seat_name(names, e.get("seat"), lang), card=shown, suit=suit
    )


@event("deal_over", seats=EVERY_SEAT)
def _ev_deal_over(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    text = t.gettext("Deal {round} is over.").format(round=e.get("round"))
    chips = e.get("chips")
    if you is not None and isinstance(chips, Sequence) and you < len(chips):
        n = to_int(chips[you])
        text += " " + t.ngettext("You have {n} chip.", "You have {n} chips.", n).format(n=n)
    return text


@event("ante", seats=_PAYERS)
def _ev_ante(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    pool = to_int(e.get("pool") or 0)
    text = t.ngettext("Antes are in: the pool holds {n} chip.", "Antes are in: the pool holds {n} chips.", pool).format(
        n=pool
    )
    payments = e.get("payments") or []
    for p in payments if isinstance(payments, Sequence) else ():
        if you is not None and isinstance(p, Mapping) and p.get("seat") == you:
            n = to_int(p.get("amount") or 0)
            text += " " + t.ngettext("You paid {n} chip.", "You paid {n} chips.", n).format(n=n)
    return text


@event("turned", seats=named("seat"))
def _ev_turned(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat")
    card = card_label(str(e.get("card", "")), lang, style)
    mine = you is not None and seat == you
    if e.get("best"):
        if mine:
            return t.gettext("You turn {card}: the new best trump!").format(card=card)
        return t.gettext("{name} turns {card}: the new best trump!").format(name=seat_name(names, seat, lang), card=card)
    if mine:
        return t.gettext("You turn {card}.").format(card=card)
    return t.gettext("{name} turns {card}.").format(name=seat_name(names, seat, lang), card=card)


@event("auction", seats=named("seat", "owner"))
def _ev_auction(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat", "owner")
    card = card_label(str(e.get("card", "")), lang, style)
    if style.browser:  # the page draws Sell / Keep and the bid's field
        if you is not None and seat == you:
            return t.gettext("Your {card} is up for auction: sell it for the best bid, or keep it.").format(card=card)
        return t.gettext("{name} puts {card} up for auction: bid now.").format(name=seat_name(names, seat, lang),
                                                                              card=card)
    if you is not None and seat == you:
        return t.gettext("Your {card} is up for auction: type sell to take the best bid, or keep.").format(card=card)
    return t.gettext("{name} puts {card} up for auction: bid now (bid N).").format(
        name=seat_name(names, seat, lang), card=card
    )


@event("bid", seats=named("seat", "bidder"))
def _ev_bid(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat", "bidder")
    n = to_int(e.get("amount") or 0)
    if you is not None and seat == you:
        return t.ngettext("You bid {n} chip.", "You bid {n} chips.", n).format(n=n)
    return t.ngettext("{name} bids {n} chip.", "{name} bids {n} chips.", n).format(
        name=seat_name(names, seat, lang), n=n
    )


@event("sold", seats=named("seat", "from", "seller", "to", "buyer"))
def _ev_sold(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seller, buyer = seat_of(e, "seat", "from", "seller"), seat_of(e, "to", "buyer")
    n = to_int(e.get("price") or e.get("amount") or 0)
    card = card_label(str(e.get("card", "")), lang, style)
    price = _chips(t, n)
    if you is not None and seller == you:
        return t.gettext("You sell {card} to {buyer} for {price}.").format(
            card=card, buyer=seat_name(names, buyer, lang), price=price
        )
    if you is not None and buyer == you:
        return t.gettext("You buy {card} from {seller} for {price}.").format(
            card=card, seller=seat_name(names, seller, lang), price=price
        )
    return t.gettext("{seller} sells {card} to {buyer} for {price}.").format(
        seller=seat_name(names, seller, lang), buyer=seat_name(names, buyer, lang), card=card, price=price
    )


@event("kept", seats=named("seat"))
def _ev_kept(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat")
    card = card_label(str(e.get("card", "")), lang, style)
    if e.get("timeout"):
        if you is not None and seat == you:
            return t.gettext("Time is up: you keep {card}.").format(card=card)
        return t.gettext("Time is up: {name} keeps {card}.").format(name=seat_name(names, seat, lang), card=card)
    if you is not None and seat == you:
        return t.gettext("You keep {card}.").format(card=card)
    return t.gettext("{name} keeps {card}.").format(name=seat_name(names, seat, lang), card=card)


@event("offered", seats=named("from", "to"))
def _ev_offered(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    buyer, seller = seat_of(e, "from"), seat_of(e, "to")
    k = to_int(e.get("cards") or 0)
    price = to_int(e.get("price") or 0)
    oid = e.get("offer")
    if you is not None and seller == you:
        if style.browser:  # the page draws Accept / Decline
            text = t.ngettext(
                "Offer #{offer}: {buyer} offers you {price} for your top face-down card.",
                "Offer #{offer}: {buyer} offers you {price} for your top {k} face-down cards.",
                k,
            ).format(offer=oid, buyer=seat_name(names, buyer, lang), price=_chips(t, price), k=k)
        else:
            text = t.ngettext(
                "Offer #{offer}: {buyer} offers you {price} for your top face-down card (accept {offer} / decline {offer}).",
                "Offer #{offer}: {buyer} offers you {price} for your top {k} face-down cards (accept {offer} / decline {offer}).",
                k,
            ).format(offer=oid, buyer=seat_name(names, buyer, lang), price=_chips(t, price), k=k)
        seconds = e.get("answer_seconds")
        if isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds > 0:
            # the seller's own time to answer: their card is not turned meanwhile (S9)
            text += " " + t.ngettext("You have {n} second to answer.", "You have {n} seconds to answer.",
                                     round(seconds)).format(n=round(seconds))
        return text
    if you is not None and buyer == you:
        return t.ngettext(
            "Offer #{offer}: you offer {price} to {seller} for their top face-down card.",
            "Offer #{offer}: you offer {price} to {seller} for their top {k} face-down cards.",
            k,
        ).format(offer=oid, seller=seat_name(names, seller, lang), price=_chips(t, price), k=k)
    return t.ngettext(
        "Offer #{offer}: {buyer} offers {price} to {seller} for {k} face-down card.",
        "Offer #{offer}: {buyer} offers {price} to {seller} for {k} face-down cards.",
        k,
    ).format(offer=oid, buyer=seat_name(names, buyer, lang), seller=seat_name(names, seller, lang), price=_chips(t, price), k=k)


def _chips(t: gettext.NullTranslations, n: int) -> str:
    return t.ngettext("{n} chip", "{n} chips", n).format(n=n)


@event("declined", seats=ANYONE)
def _ev_declined(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    if e.get("timeout"):  # nobody answered in time: the table declined for the seller (S9)
        return t.gettext("Time is up: offer #{offer} is declined.").format(offer=e.get("offer"))
    return t.gettext("Offer #{offer} is declined.").format(offer=e.get("offer"))


@event("withdrawn", seats=ANYONE)
def _ev_withdrawn(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("Offer #{offer} is withdrawn.").format(offer=e.get("offer"))


@event("lapsed", seats=ANYONE)
def _ev_lapsed(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    reason = e.get("reason")
    if reason == "cards":
        return t.gettext("Offer #{offer} lapses: those cards have left the stack.").format(offer=e.get("offer"))
    if reason == "chips":
        return t.gettext("Offer #{offer} lapses: the buyer no longer has the chips.").format(offer=e.get("offer"))
    return t.gettext("Offer #{offer} no longer holds.").format(offer=e.get("offer"))


@event("traded", seats=named("from", "buyer", "to", "seller"))
def _ev_traded(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    buyer, seller = seat_of(e, "from", "buyer"), seat_of(e, "to", "seller")
    k = to_int(e.get("cards") or e.get("count") or 0)
    price = _chips(t, to_int(e.get("price") or 0))
    if you is not None and seller == you:
        return t.ngettext(
            "You sell your top face-down card to {buyer} for {price}.",
            "You sell your top {k} face-down cards to {buyer} for {price}.",
            k,
        ).format(k=k, buyer=seat_name(names, buyer, lang), price=price)
    if you is not None and buyer == you:
        return t.ngettext(
            "You buy {seller}'s top face-down card for {price}.",
            "You buy {seller}'s top {k} face-down cards for {price}.",
            k,
        ).format(k=k, seller=seat_name(names, seller, lang), price=price)
    return t.ngettext(
        "{seller} sells {k} face-down card to {buyer} for {price}.",
        "{seller} sells {k} face-down cards to {buyer} for {price}.",
        k,
    ).format(seller=seat_name(names, seller, lang), buyer=seat_name(names, buyer, lang), k=k, price=price)


@event("pool_won", seats=named("seat"))
def _ev_pool_won(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat")
    n = to_int(e.get("amount") or e.get("pool") or 0)
    card = e.get("card")
    if card:
        if you is not None and seat == you:
            return t.gettext("You take the pool ({chips}) with {card}.").format(
                chips=_chips(t, n), card=card_label(str(card), lang, style)
            )
        return t.gettext("{name} takes the pool ({chips}) with {card}.").format(
            name=seat_name(names, seat, lang), chips=_chips(t, n), card=card_label(str(card), lang, style)
        )
    if you is not None and seat == you:
        return t.gettext("You take the pool ({chips}).").format(chips=_chips(t, n))
    return t.gettext("{name} takes the pool ({chips}).").format(name=seat_name(names, seat, lang), chips=_chips(t, n))


@event("revealed", seats=ANYONE)
def _ev_revealed(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    hands = e.get("hands") or e.get("stacks") or e.get("cards")
    parts = []
    if isinstance(hands, Mapping):
        items = sorted(((int(k), v) for k, v in hands.items()), key=lambda kv: kv[0])
    elif isinstance(hands, Sequence):
        items = list(enumerate(hands))
    else:
        items = []
    for seat, cards in items:
        if cards:
            parts.append(f"{seat_name(names, seat, lang)} {cards_param(cards, lang, style)}")
    if not parts:
        return t.gettext("The remaining cards are shown.")
    return t.gettext("Cards shown: {list}.").format(list=(punct(lang, ";") + " ").join(parts))
