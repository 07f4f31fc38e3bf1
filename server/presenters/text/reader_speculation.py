"""A Speculation table for a screen reader (``style.reader``, RULES S): one fact per line, the
prompt last, nothing drawn as a table; cards, counts and seconds in words.

::

    Spéculation, donne un sur quatre.
    Atout : cœur.
    Meilleure carte : dix de cœur, à Dmitri.
    Pot : cinq jetons.
    Zoé, vous : dix-neuf jetons, trois cartes cachées, à retourner.
    Dmitri : dix-huit jetons, trois cartes cachées, retournée : dix de cœur, donneur.
    Enchères sur dix de cœur (Dmitri) : pas encore d’offre.
    À vous : retournez votre carte du dessus (retourner). Trente secondes.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.games.states import State
from server.messages.labels import card_words, game_name, suit_name
from server.messages.spoken import number_words
from server.messages.terminal import TermStyle, wrap_text
from server.messages.translations import translation
from server.presenters.text.draw import seat_names, seconds_of, window_text
from server.presenters.text.reader import cards_count, count_words, said, sentence, spoken_seconds


def chips_words(n: int, lang: str) -> str:
    t = translation(lang)
    return str(t.ngettext("{n} chip", "{n} chips", abs(n))).format(n=count_words(n, lang, "chip"))


def name_of(names: Sequence[str], seat: object) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"


def spoken_header(state: State, lang: str) -> str:
    """``Spéculation, donne un sur quatre, salle 3``."""
    t = translation(lang)
    parts = [game_name(lang, state.get("game"))]
    rnd = state.get("round")
    if rnd:
        total = state.get("deals") or state.get("rounds")  # (no key of State: no table sends it; read as before)
        n = number_words(int(rnd), lang)
        # TRANSLATORS: a screen reader's Speculation header: "deal one of four" (numbers in words).
        parts.append(t.gettext("deal {n} of {total}").format(n=n, total=number_words(int(total), lang))
                     if isinstance(total, int) and total else t.gettext("deal {n}").format(n=n))
    if state.get("room") is not None:
        parts.append(t.gettext("room {room}").format(room=state["room"]))
    return ", ".join(str(p) for p in parts)


def speculation_lines(state: State, lang: str, style: TermStyle, status: bool = True) -> list[str]:
    t = translation(lang)
    width = style.width
    names = seat_names(state, lang)
    you = state.get("you")
    lines = wrap_text(sentence(spoken_header(state, lang)), width)
    trump = state.get("trump")
    if trump:
        # TRANSLATORS: a screen reader's Speculation line: "Trumps: hearts."
        lines.append(t.gettext("Trumps: {suit}.").format(suit=suit_name(lang, trump)))
    best = state.get("best")
    if best and best.get("card"):
        # TRANSLATORS: a screen reader's Speculation line: "Best card: ten of hearts, Dmitri's."
        lines += wrap_text(t.gettext("Best card: {card}, held by {name}.").format(
            card=card_words(best["card"], lang), name=name_of(names, best.get("seat"))), width)
    if state.get("pool") is not None:
        # TRANSLATORS: a screen reader's Speculation line: "Pool: five chips."
        lines.append(t.gettext("Pool: {chips}.").format(chips=chips_words(int(state["pool"]), lang)))
    for seat, s in enumerate(state.get("seats") or []):
        name = names[seat] if seat < len(names) else "?"
        if seat == you:
            name = t.gettext("{name}, you").format(name=name)
        facts: list[str] = []
        if s.get("chips") is not None:
            facts.append(chips_words(int(s["chips"]), lang))
        down = int(s.get("facedown") or 0)
        if down:
            # TRANSLATORS: a screen reader's seat fact: "three cards face down" ({cards}: "three cards").
            facts.append(t.gettext("{cards} face down").format(cards=cards_count(down, lang)))
        up = s.get("faceup") or []
        if up:
            # TRANSLATORS: a screen reader's seat fact: "face up: ten of hearts".
            facts.append(t.gettext("face up: {cards}").format(cards=", ".join(card_words(c, lang) for c in up)))
        if state.get("in_deal") and s.get("seat", seat) == state.get("dealer"):
            # TRANSLATORS: a screen reader's seat fact: this seat deals.
            facts.append(t.pgettext("screen reader", "dealer"))
        if (s.get("playing") is False or s.get("sitting_out")) and state.get("in_deal"):
            facts.append(t.gettext("sits out"))
        if s.get("connected") is False and s.get("name"):
            facts.append(t.gettext("away"))
        if state.get("turn") == seat and not state.get("auction"):
            # TRANSLATORS: a screen reader says whose turn it is to turn a card, in the seat's line.
            facts.append(t.gettext("to turn"))
        lines += wrap_text(sentence(said(lang, name, ", ".join(facts)) if facts else name), width, indent="  ")
    auction = state.get("auction")
    if auction:
        owner = name_of(names, auction.get("seat"))
        card = card_words(str(auction.get("card", "")), lang)
        if auction.get("best_bid"):
            n = int(auction["best_bid"])
            text = t.ngettext(
                "Auction of {card} ({owner}): best bid {n} chip by {bidder}.",
                "Auction of {card} ({owner}): best bid {n} chips by {bidder}.",
                n,
            ).format(card=card, owner=owner, n=count_words(n, lang, "chip"),
                     bidder=name_of(names, auction.get("bidder")))
        else:
            text = t.gettext("Auction of {card} ({owner}): no bid yet.").format(card=card, owner=owner)
        lines += wrap_text(text, width)
    for o in state.get("offers") or []:
        k, price = int(o.get("cards") or 0), int(o.get("price") or 0)
        # TRANSLATORS: a screen reader's open offer; {offer} is its number, typed to answer it.
        text = t.gettext("Offer #{offer}: {buyer} to {seller}, {cards} for {price}.").format(
            offer=o.get("offer"), buyer=name_of(names, o.get("from")), seller=name_of(names, o.get("to")),
            cards=cards_count(k, lang), price=chips_words(price, lang))
        left = seconds_of(o.get("left"))
        if left is not None:
            text += " " + spoken_seconds(lang, left)
        lines += wrap_text(text, width, indent="  ")
    if status:
        lines += [line for text in status_texts(state, lang, names, you) for line in wrap_text(text, width)]
    return lines


def status_texts(state: State, lang: str, names: Sequence[str], you: int | None) -> list[str]:
    """The prompt, said last."""
    t = translation(lang)
    auction = state.get("auction")
    if auction:
        secs = seconds_of(auction.get("deadline"))
        left = f" {spoken_seconds(lang, secs)}" if secs is not None else ""
        if auction.get("seat") == you:
            return [t.gettext("Your card is on sale: sell or keep.") + left]
        if you is not None:
            return [t.gettext("Bid with: bid N (or just the number).") + left]
        return []
    turn = state.get("turn")
    if turn is None:
        if state.get("over") or state.get("phase") in ("over", "match_over"):
            return [t.gettext("The match is over.")]
        return []
    secs = seconds_of(state.get("deadline"))
    left = f" {spoken_seconds(lang, secs)}" if secs is not None else ""
    window = window_text(state, lang)
    lines = [window] if window is not None else []
    if turn == you:
        return [*lines, t.gettext("Your turn: turn your top card (turn).") + left]
    return [*lines, t.gettext("{name} turns next.").format(name=name_of(names, turn)) + left]
