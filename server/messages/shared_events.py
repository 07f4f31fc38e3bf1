"""News every game has, as sentences: the deal, a decision that timed out, the end of a match."""

from __future__ import annotations

from collections.abc import Sequence

from server.messages.kit import T, event, named, named_by, seat_name, seat_of, seats_in, to_int
from server.messages.labels import join_names
from server.messages.terminal import TermStyle
from server.protocol import JSONValue, Push


def _dealt_seats(e: Push) -> list[JSONValue] | None:
    if "players" in e or "facedown" in e:  # Speculation: "you deal" to the dealer
        return [e.get("dealer")]
    if "hand" in e:  # an old form: every seat reads "you are dealt"
        return None
    hands = e.get("hands")
    if isinstance(hands, Sequence):  # each seat whose hand is in this form of the event
        return [s for s, hand in enumerate(hands) if hand is not None]
    return []


_DEALT = named_by(_dealt_seats, "Speculation: the seat in 'dealer'; Président: the seats whose hand is in 'hands'")


@event("dealt", seats=_DEALT)
def _ev_dealt(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    rnd = e.get("round")
    if "players" in e or "facedown" in e:  # Speculation (S4)
        dealer = seat_of(e, "dealer")
        if rnd is not None and you is not None and dealer == you:
            return t.gettext("Deal {round}: you deal three face-down cards to each player.").format(round=rnd)
        if rnd is not None and dealer is not None:
            return t.gettext("Deal {round}: {dealer} deals three face-down cards to each player.").format(
                round=rnd, dealer=seat_name(names, dealer, lang)
            )
        return t.gettext("New deal: three face-down cards to each player.")
    hands = e.get("hands")
    if isinstance(hands, Sequence) and you is not None and you < len(hands) and hands[you] is not None:
        e = {**e, "hand": hands[you]}
    hand = e.get("hand")
    if hand and isinstance(hand, Sequence) and you is not None:
        n = len(hand)
        if rnd is not None:
            return t.ngettext(
                "Round {round}: you are dealt {count} card.",
                "Round {round}: you are dealt {count} cards.",
                n,
            ).format(round=rnd, count=n)
        return t.ngettext("You are dealt {count} card.", "You are dealt {count} cards.", n).format(count=n)
    if rnd is not None:
        return t.gettext("Round {round}: the cards are dealt.").format(round=rnd)
    return t.gettext("The cards are dealt.")



@event("timeout", seats=named("seat"))
def _ev_timeout(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seat = seat_of(e, "seat")
    kind = e.get("kind") or e.get("what")
    mine = you is not None and seat == you
    who = seat_name(names, seat, lang)
    if kind in ("auction",):
        return t.gettext("Time is up for the auction.")
    if kind in ("turn_card", "flip", "turned"):
        if mine:
            return t.gettext("Time is up: your top card is turned for you.")
        return t.gettext("Time is up: {name}'s top card is turned.").format(name=who)
    if kind == "give":
        if mine:
            return t.gettext("Time is up: your weakest cards are given.")
        return t.gettext("Time is up: {name}'s weakest cards are given.").format(name=who)
    # The move made for the player (a pass, or the weakest card when leading) follows as its own event.
    if e.get("passive"):
        if mine:
            return t.gettext("Time is up: you pass, and you will pass at every turn, without leading or "
                             "cutting, until the end of the round.")
        return t.gettext("Time is up for {name}, passive until the end of the round.").format(name=who)
    if mine:
        return t.gettext("Time is up: the server moves for you.")
    return t.gettext("Time is up for {name}.").format(name=who)



_WINNERS = named_by(lambda e: seats_in(e.get("winners")), "the seats in 'winners'")


@event("match_over", seats=_WINNERS)
def _ev_match_over(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    winners = seats_in(e.get("winners"))
    totals = e.get("totals") or []
    if not winners:
        return t.gettext("The match is over.")
    if you is not None and you in winners and len(winners) == 1:
        return t.gettext("The match is over: you win!")
    if you is not None and you in winners:
        return t.gettext("The match is over: you share the win with {names}.").format(
            names=join_names(lang, [seat_name(names, s, lang) for s in winners if s != you])
        )
    who = join_names(lang, [seat_name(names, s, lang) for s in winners])
    best = totals[winners[0]] if isinstance(totals, Sequence) and winners[0] < len(totals) else None
    changes = e.get("changes")
    if isinstance(changes, Sequence) and winners[0] < len(changes):
        n = to_int(changes[winners[0]])
        gain = t.ngettext("{n:+d} chip", "{n:+d} chips", abs(n)).format(n=n)
        return t.ngettext(
            "The match is over. Winner: {names} ({chips}).",
            "The match is over. Winners: {names} ({chips} each).",
            len(winners),
        ).format(names=who, chips=gain)
    if best is not None:
        n = to_int(best)
        if len(winners) > 1:
            return t.ngettext(
                "The match is over. Winners: {names} ({n} point each).",
                "The match is over. Winners: {names} ({n} points each).",
                n,
            ).format(names=who, n=n)
        return t.ngettext(
            "The match is over. Winner: {names} ({n} point).",
            "The match is over. Winner: {names} ({n} points).",
            n,
        ).format(names=who, n=n)
    return t.ngettext(
        "The match is over. Winner: {names}.", "The match is over. Winners: {names}.", len(winners)
    ).format(names=who)
