"""What a person sees: the card table, the news, replies, alerts, in any terminal.

Every function takes the session's language and :class:`TermStyle` and returns
text whose lines all fit ``style.width`` columns (ANSI escapes excluded), contain
no ANSI escape when ``style.color`` is off and no non-ASCII character when
``style.unicode`` is off. Lines are joined with ``"\\n"`` (transports turn them
into ``\\r\\n``); no trailing newline.

* :func:`render_state` — the table from a protocol ``state`` message (President
  or Speculation);
* :func:`render_event` — one protocol event as the reader sees it;
* :func:`render_reply` — the reply to a command (rooms, who, whoami, history...);
* :func:`your_turn_alert` and :func:`countdown_due` / :func:`countdown_line`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.messages.events import event_text
from server.messages.labels import (
    SUIT_SYMBOLS,
    card_label,
    game_name,
    ordinal,
    rank_label,
    rules_name,
    suit_name,
    title_name,
)
from server.messages.translations import N_, translation
from server.terminal import (
    BOLD,
    CYAN,
    DIM,
    GREEN,
    RED,
    REVERSE,
    YELLOW,
    TermStyle,
    display_width,
    finish,
    fit,
    pad,
    paint,
    wrap_items,
    wrap_text,
)
from server.text.commands import give_count
from server.text.help import help_text

__all__ = [
    "COUNTDOWN_MARKS",
    "TermStyle",
    "countdown_due",
    "countdown_line",
    "fit_text",
    "help_text",
    "render_event",
    "render_reply",
    "render_rooms",
    "render_state",
    "sort_hand",
    "state_update",
    "your_turn_alert",
]

RANKS = "3456789TJQKA2"
SUITS = "cdhs"


def sort_hand(cards: Sequence[str], order: str = "normal") -> list[str]:
    """Cards weakest first in the order in force (RULES P2, T2); suits c < d < h < s."""

    def key(c: str) -> tuple[int, int]:
        r = RANKS.find(c[0].upper())
        return (12 - r if order == "reversed" else r, SUITS.find(c[1:2].lower()))

    return sorted(cards, key=key)


def _sep(style: TermStyle) -> str:
    return " · " if style.unicode else " | "


def _seconds(value: Any) -> int | None:
    if value is None:
        return None
    try:
        return max(0, round(float(value)))
    except (TypeError, ValueError):
        return None


def _secs(t: Any, n: int) -> str:
    """``(12 s)``, kept on one line when wrapped."""
    return str(t.gettext("({n} s)").format(n=n)).replace(" ", "\u00a0")


def _names(state: Mapping[str, Any], lang: str) -> list[str]:
    t = translation(lang)
    out = []
    for s in state.get("seats") or []:
        name = s.get("name")
        out.append(str(name) if name else t.gettext("(free seat)"))
    return out


# --------------------------------------------------------------------------- state


def render_state(state: Mapping[str, Any], lang: str, style: TermStyle, *, status: bool = True) -> str:
    """The table as a compact block fitting ``style.width`` (40 columns and more).

    ``status=False`` leaves out the last line (whose turn it is), for when an alert follows.
    """
    if state.get("game") == "speculation":
        lines = _speculation_lines(state, lang, style, status)
    else:
        lines = _president_lines(state, lang, style, status)
    return finish(lines, style)


def _header(state: Mapping[str, Any], lang: str, style: TermStyle) -> str:
    t = translation(lang)
    parts = [paint(game_name(lang, state.get("game")), BOLD, style)]
    if state.get("game") == "president" and state.get("rules"):
        parts.append(rules_name(lang, state.get("rules")))
    rnd = state.get("round")
    if rnd:
        rounds = state.get("rounds") or (state.get("deals") if state.get("game") == "speculation" else None)
        if state.get("game") == "speculation":
            parts.append(
                t.gettext("deal {n}/{total}").format(n=rnd, total=rounds)
                if rounds
                else t.gettext("deal {n}").format(n=rnd)
            )
        else:
            parts.append(
                t.gettext("round {n}/{total}").format(n=rnd, total=rounds)
                if rounds
                else t.gettext("round {n}").format(n=rnd)
            )
    if state.get("room") is not None:
        parts.append(t.gettext("room {room}").format(room=state["room"]))
    if state.get("stake"):
        n = int(state["stake"])
        parts.append(t.ngettext("stake {n} chip", "stake {n} chips", n).format(n=n))
    return _sep(style).join(str(p) for p in parts)


def _seat_marker(state: Mapping[str, Any], seat: int, style: TermStyle) -> str:
    if state.get("turn") == seat:
        return paint("▶", YELLOW, style) if style.unicode else ">"
    return " "


def _seat_lines(
    state: Mapping[str, Any], lang: str, style: TermStyle, columns: list[list[str]], flags: list[str]
) -> list[str]:
    """Lay out one line per seat: marker, name, then ``columns`` aligned, then ``flags`` free text."""
    names = _names(state, lang)
    width = style.width
    you = state.get("you")
    name_w = min(max((display_width(n) for n in names), default=4), 14 if width >= 60 else 10)
    col_w = [max((display_width(c[i]) for c in columns), default=0) for i in range(len(columns[0]))] if columns else []
    lines = []
    for seat, name in enumerate(names):
        shown = pad(name, name_w)
        if seat == you:
            shown = paint(shown, BOLD, style)
        parts = [_seat_marker(state, seat, style), shown]
        for i, cell in enumerate(columns[seat] if columns else []):
            if col_w[i]:
                parts.append(pad(cell, col_w[i]))
        line = " ".join(parts).rstrip()
        if flags[seat]:
            line += "  " + flags[seat]
        lines.append(fit(line, width, style))
    return lines


def _president_lines(state: Mapping[str, Any], lang: str, style: TermStyle, status: bool = True) -> list[str]:
    t = translation(lang)
    width = style.width
    narrow = width < 60
    seats = state.get("seats") or []
    names = _names(state, lang)
    you = state.get("you")
    lines = wrap_text(_header(state, lang, style), width)

    columns: list[list[str]] = []
    flags: list[str] = []
    dw = _digits(s.get("cards") for s in seats)
    sw = _digits(s.get("chips") if s.get("chips") is not None else s.get("score") for s in seats)
    for s in seats:
        n = int(s.get("cards") or 0)
        cards = str(n).rjust(dw) if narrow else t.ngettext("{n} card", "{n} cards", n).format(n=str(n).rjust(dw))
        if not state.get("round"):
            cards = ""  # nothing dealt yet
        title = s.get("title")
        title_text = _short_title(lang, title) if narrow else title_name(lang, title)
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
        if s.get("place"):
            flag.append(paint(t.gettext("out {place}").format(place=ordinal(lang, int(s["place"]))), GREEN, style))
        if s.get("passive"):
            flag.append(paint(t.gettext("passive"), DIM, style))
        elif s.get("passed") and not s.get("place"):
            flag.append(t.pgettext("seat state", "passed"))
        if s.get("playing") is False:
            flag.append(t.gettext("sits out"))
        if s.get("connected") is False and s.get("name"):
            flag.append(paint(t.gettext("away"), DIM, style))
        flags.append(" ".join(flag))
    lines += _seat_lines(state, lang, style, columns, flags)

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
                item = f"{who} {_cards(play.get('cards') or [], lang, style)}"
            items.append(item + (_sep(style).rstrip() if i < len(trick) - 1 else ""))
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
                cards=_cards(cut, lang, style.plain), cut=_verb(lang, "cut")
            )
            lines += wrap_text(paint(text, YELLOW, style), width)
    if status:
        lines += _president_status(state, lang, style, names, you)
    return lines


def _digits(values: Any) -> int:
    """The widest number among ``values`` (``None`` skipped), for right-aligned columns."""
    return max((len(str(int(v))) for v in values if v is not None), default=1)


def _verb(lang: str, cmd: str) -> str:
    from server.text.commands import verb

    return verb(lang, cmd)


def _short_title(lang: str, title: str | None) -> str:
    t = translation(lang)
    if title == "president":
        return t.pgettext("short title", "Pres")
    if title == "vice_president":
        return t.pgettext("short title", "VP")
    if title == "vice_last":
        return t.pgettext("short title", "V-Scum")
    if title == "last":
        return t.pgettext("short title", "Scum")
    return ""


def _cards(cards: Sequence[str], lang: str, style: TermStyle) -> str:
    return " ".join(card_label(c, lang, style) for c in cards)


def _deadline_text(state: Mapping[str, Any], lang: str) -> str:
    secs = _seconds(state.get("deadline"))
    if secs is None:
        return ""
    return " " + _secs(translation(lang), secs)


def _president_status(
    state: Mapping[str, Any], lang: str, style: TermStyle, names: Sequence[str], you: int | None
) -> list[str]:
    t = translation(lang)
    phase = state.get("phase")
    turn = state.get("turn")
    dl = _deadline_text(state, lang)
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
    if turn == you:
        trick = state.get("trick") or []
        lead = not any(p.get("cards") for p in trick)
        text = t.gettext("Your turn: lead a card or more.") if lead else t.gettext("Your turn: play or pass.")
        return [paint(text + dl, REVERSE, style)]
    who = names[turn] if 0 <= turn < len(names) else "?"
    return [t.gettext("{name} to play.").format(name=who) + dl]


def _speculation_lines(state: Mapping[str, Any], lang: str, style: TermStyle, status: bool = True) -> list[str]:
    t = translation(lang)
    width = style.width
    narrow = width < 60
    seats = state.get("seats") or []
    names = _names(state, lang)
    you = state.get("you")
    lines = wrap_text(_header(state, lang, style), width)
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
            [f + (_sep(style).rstrip() if i < len(facts) - 1 else "") for i, f in enumerate(facts)], width, indent="  "
        )

    columns: list[list[str]] = []
    flags: list[str] = []
    cw = _digits(s.get("chips") for s in seats)
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
        flag = _cards(up, lang, style)
        if state.get("in_deal") and s.get("seat") == state.get("dealer"):
            flag = (flag + " " if flag else "") + paint(t.gettext("(dealer)"), DIM, style)
        if (s.get("playing") is False or s.get("sitting_out")) and state.get("in_deal"):
            flag = (flag + " " if flag else "") + t.gettext("sits out")
        if s.get("connected") is False and s.get("name"):
            flag = (flag + " " if flag else "") + paint(t.gettext("away"), DIM, style)
        flags.append(flag)
    lines += _seat_lines(state, lang, style, columns, flags)

    auction = state.get("auction")
    if auction:
        owner = auction.get("seat")
        who = names[owner] if isinstance(owner, int) and owner < len(names) else "?"
        card = card_label(str(auction.get("card", "")), lang, style)
        secs = _seconds(auction.get("deadline"))
        dl = " " + _secs(t, secs) if secs is not None else ""
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
        lines.append(fit(text, width, style))
    if status:
        lines += _speculation_status(state, lang, style, names, you)
    return lines


def _speculation_status(
    state: Mapping[str, Any], lang: str, style: TermStyle, names: Sequence[str], you: int | None
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
    dl = _deadline_text(state, lang)
    if turn is None:
        if state.get("over") or state.get("phase") in ("over", "match_over"):
            return [t.gettext("The match is over.")]
        return []
    if turn == you:
        return [paint(t.gettext("Your turn: turn your top card (turn).") + dl, REVERSE, style)]
    who = names[turn] if 0 <= turn < len(names) else "?"
    return [t.gettext("{name} turns next.").format(name=who) + dl]


def fit_text(text: str, style: TermStyle) -> str:
    """Any text made fit for a terminal: long lines word-wrapped, ASCII and colour promises kept.

    The renderers here already fit; this is for sentences written elsewhere (server
    notices, error messages) before they reach a person's screen.
    """
    lines: list[str] = []
    for line in text.split("\n"):
        if display_width(line) <= style.width:
            lines.append(line)
        else:
            indent = "  " + " " * min(len(line) - len(line.lstrip(" ")), style.width // 4)
            room = max(1, style.width - len(indent))
            words: list[str] = []
            for word in line.strip(" ").split(" "):
                # a long word (a seed, a key) is broken, never cut
                while display_width(word) > room and word.isascii():
                    words.append(word[:room])
                    word = word[room:]
                words.append(word)
            lines += wrap_items([w for w in words if w], style.width, indent=indent)
    return finish(lines, style)


# --------------------------------------------------------------------------- what to show when a state arrives


def _decision(state: Mapping[str, Any]) -> str | None:
    """What the reader must decide now (``play``, ``lead``, ``give``, ``turn``, ``sell``), or ``None``."""
    you = state.get("you")
    if you is None:
        return None
    if state.get("game") == "speculation":
        auction = state.get("auction")
        if auction:
            return "sell" if auction.get("seat") == you else None
        return "turn" if state.get("turn") == you else None
    phase = state.get("phase")
    if phase == "exchange":
        return "give" if give_count(state) else None
    if phase == "play" and state.get("turn") == you:
        return "lead" if not any(p.get("cards") for p in state.get("trick") or []) else "play"
    return None


def _signature(state: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        state.get("room"),
        state.get("round"),
        state.get("phase"),
        state.get("turn"),
        repr(state.get("trick")),
        repr(state.get("hand")),
        repr(state.get("cut")),
        repr((state.get("auction") or {}).get("card")),
        state.get("order"),
        # cards on the table: a Speculation turn that comes back to the same player
        tuple((s.get("cards"), repr(s.get("faceup")), s.get("facedown")) for s in state.get("seats") or []),
    )


def _lead_example(state: Mapping[str, Any], lang: str) -> str | None:
    """The weakest rank of the reader's hand as they would type it (``3``, ``v``, ``10``)."""
    hand = sort_hand(state.get("hand") or [], state.get("order") or "normal")
    if not hand:
        return None
    rank = hand[0][0]
    n = sum(1 for c in hand if c[0] == rank)
    label = rank_label(lang, rank).lower()
    return " ".join([label] * n)


def state_update(
    previous: Mapping[str, Any] | None, state: Mapping[str, Any], lang: str, style: TermStyle
) -> str:
    """What a person's terminal shows when a new ``state`` arrives after ``previous``.

    Rooms push a state after every change; drawing the whole table each time would
    flood the screen while the events already tell the story. The table is drawn when
    the reader has a decision to make (with a bell and a highlighted line, see
    :func:`your_turn_alert`), when a cut becomes possible (tdc, T9), when a round or a
    deal starts, when an auction opens, and the first time (``previous is None``; pass
    ``None`` to force it, e.g. for the ``state`` command). Otherwise ``""``.
    """
    if state.get("status") == "playing" and not state.get("round") and not state.get("hand"):
        return ""  # the match starts: the cards come with the next state
    if previous is None:
        return render_state(state, lang, style)
    now, before = _decision(state), _decision(previous)
    changed = _signature(state) != _signature(previous)
    can_cut = bool(state.get("cut")) and state.get("cut") != previous.get("cut")
    new_round = (state.get("round"), state.get("room")) != (previous.get("round"), previous.get("room")) or (
        state.get("phase") != previous.get("phase") and state.get("phase") in ("exchange", "play")
    )
    new_auction = bool(state.get("auction")) and (state.get("auction") or {}).get("card") != (
        previous.get("auction") or {}
    ).get("card")
    alert = now if now and (now != before or changed) else "cut" if can_cut else None
    parts: list[str] = []
    if alert or new_round or new_auction:
        parts.append(render_state(state, lang, style, status=alert is None))
    if alert:
        secs = _seconds((state.get("auction") or {}).get("deadline") if alert == "sell" else state.get("deadline"))
        plays = [item["cards"] for item in state.get("trick") or [] if item.get("cards")]
        top = plays[-1] if plays else None
        must = plays[-1][0][0] if len(plays) >= 2 and plays[-1][0][0] == plays[-2][0][0] else None
        parts.append(
            your_turn_alert(
                lang, style, alert, secs, top=top, count=give_count(state) or None, must=must,
                example=_lead_example(state, lang),
            )
        )
    return "\n".join(parts)


# --------------------------------------------------------------------------- events


def render_event(
    event: Mapping[str, Any], lang: str, style: TermStyle, names: Sequence[str], you: int | None
) -> str | None:
    """One event as lines for the reader, or ``None`` when it needs no line of its own."""
    name = event.get("event")
    if name in ("state",):
        return None
    text = event_text(lang, event, names, you, style)
    if name == "chat":
        who = _printable(str(event.get("name") or ""))
        body = _printable(str(event.get("text", "")))
        text = f"{paint(who, CYAN, style)}: {body}" if who else body
    elif name in ("round_over", "match_over"):
        lines = wrap_text(paint(text, BOLD, style), style.width)
        lines += _score_table(event, lang, style, names)
        return finish(lines, style)
    elif name in ("cut", "revolution"):
        text = paint(text, YELLOW, style)
    elif _about(event, you):
        text = paint(text, BOLD, style)
    return finish(wrap_text(text, style.width, indent="  "), style)


def _printable(text: str) -> str:
    """Someone else's words without control characters: a chat line cannot clear a screen,
    move the cursor or ring bells on the other players' terminals."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else " " for ch in text)


def _about(event: Mapping[str, Any], you: int | None) -> bool:
    if you is None:
        return False
    return any(event.get(k) == you for k in ("seat", "to", "from", "leader"))


def _score_table(event: Mapping[str, Any], lang: str, style: TermStyle, names: Sequence[str]) -> list[str]:
    """One aligned line per player: this round's points (classic) or chips (tdc, T13), and totals."""
    t = translation(lang)
    totals = event.get("totals") or []
    scores = event.get("scores") or []
    chips = event.get("chips")
    changes = event.get("changes")
    if not totals and not chips:
        return []
    order = list(event.get("ranking") or range(len(totals)))
    if event.get("event") == "match_over":
        order = sorted(range(len(totals)), key=lambda s: -int(totals[s] or 0))

    def at(values: Any, s: int) -> int | None:
        return int(values[s]) if values and s < len(values) and values[s] is not None else None

    def width(values: Any, sign: bool) -> int:
        return max((len(f"{v:+d}" if sign else str(v)) for s in order if (v := at(values, s)) is not None), default=1)

    round_points = event.get("event") == "round_over" and not chips and bool(scores)
    cw, pw, tw, gw = width(chips, True), width(scores, False), width(totals, False), width(changes, True)
    rows: list[list[str]] = []
    for s in order:
        row = [names[s] if s < len(names) else "?"]
        if chips:
            c = at(chips, s)
            row.append("" if c is None else t.ngettext("{n} chip", "{n} chips", abs(c)).format(n=f"{c:+d}".rjust(cw)))
        elif round_points:
            p = at(scores, s)
            row.append("" if p is None else t.ngettext("+{n} pt", "+{n} pts", p).format(n=str(p).rjust(pw)))
        total = at(totals, s)
        if changes and total is not None:
            row.append(
                t.ngettext("{n} chip", "{n} chips", total).format(n=str(total).rjust(tw))
                + f" ({(at(changes, s) or 0):+d})".rjust(gw + 3)
            )
        elif total is not None and not chips:
            row.append(t.ngettext("total {n} pt", "total {n} pts", total).format(n=str(total).rjust(tw)))
        rows.append(row)
    widths = [max(display_width(r[i]) for r in rows if i < len(r)) for i in range(max(len(r) for r in rows))]
    widths[0] = min(widths[0], 14)
    return [("  " + "  ".join(pad(cell, widths[i]) for i, cell in enumerate(row))).rstrip() for row in rows]


# --------------------------------------------------------------------------- alerts and countdowns

COUNTDOWN_MARKS = (30, 10, 5)
"""Remaining-seconds marks announced during a long wait (not more: no flood)."""


def countdown_due(previous: float | None, remaining: float, total: float | None = None) -> int | None:
    """The mark to announce when the remaining time went from ``previous`` to ``remaining``.

    A mark is announced once, when it is crossed (``remaining <= mark < previous``), and
    only when the decision had more time than that mark (``total``), so a 20-second turn
    never shows "30 s". Returns the smallest crossed mark, or ``None``.
    """
    crossed = None
    for mark in COUNTDOWN_MARKS:
        if total is not None and total <= mark:
            continue
        if remaining <= mark and (previous is None or previous > mark):
            crossed = mark
    return crossed


def countdown_marks(total: float) -> tuple[int, ...]:
    """The marks a wait of ``total`` seconds will announce."""
    return tuple(m for m in COUNTDOWN_MARKS if total > m)


def countdown_line(lang: str, style: TermStyle, seconds: int, mine: bool = True) -> str:
    t = translation(lang)
    if mine:
        text = t.ngettext("{n} second left to decide.", "{n} seconds left to decide.", seconds).format(n=seconds)
    else:
        text = t.ngettext("{n} second left.", "{n} seconds left.", seconds).format(n=seconds)
    return finish([paint(text, YELLOW if seconds > 5 else RED, style)], style)


def your_turn_alert(
    lang: str,
    style: TermStyle,
    what: str = "play",
    seconds: int | None = None,
    top: Sequence[str] | None = None,
    count: int | None = None,
    must: str | None = None,
    example: str | None = None,
) -> str:
    """A bell and one highlighted line: it is your turn (``what``: play, lead, cut, give, turn, sell, bid).

    ``seconds``: the time left, shown at the end; ``top``: the play to beat (``what="play"``);
    ``count``: the cards to give (``what="give"``); ``must``: the rank that "that or nothing"
    imposes (RULES P7, T6).
    """
    t = translation(lang)
    from server.text.commands import verb

    if what == "lead":
        text = t.gettext("Your turn: you lead (for example {example}).").format(example=example or "7 7")
    elif what == "cut":
        text = t.gettext("You can cut! Type {cut}.").format(cut=verb(lang, "cut"))
    elif what == "give" and count:
        text = t.ngettext(
            "Exchange: choose {n} card to give back ({give} followed by the card).",
            "Exchange: choose {n} cards to give back ({give} followed by the cards).",
            count,
        ).format(n=count, give=verb(lang, "give"))
    elif what == "give":
        text = t.gettext("Choose the cards to give back: {give} followed by the cards.").format(
            give=verb(lang, "give")
        )
    elif what == "turn":
        text = t.gettext("Your turn: turn your top card ({turn} or t).").format(turn=verb(lang, "turn"))
    elif what == "sell":
        text = t.gettext("Your card is on sale: {sell} or {keep}.").format(
            sell=verb(lang, "sell"), keep=verb(lang, "keep")
        )
    elif what == "bid":
        text = t.gettext("An auction is open: {bid} N to bid.").format(bid=verb(lang, "bid"))
    elif must:
        text = t.gettext("Your turn, “that or nothing”: {rank} or {pass_}.").format(
            rank=rank_label(lang, must), pass_=verb(lang, "pass")
        )
    elif top:
        text = t.ngettext(
            "Your turn: beat {cards} ({n} card) or {pass_}.",
            "Your turn: beat {cards} ({n} cards) or {pass_}.",
            len(top),
        ).format(cards=_cards(top, lang, style.plain), n=len(top), pass_=verb(lang, "pass"))
    else:
        text = t.gettext("Your turn: play cards (for example {example}) or {pass_}.").format(
            example="7 7", pass_=verb(lang, "pass")
        )
    if seconds is not None:
        text += " " + _secs(t, seconds)
    mark = "▶ " if style.unicode else "> "
    lines = wrap_text(mark + text, style.width, indent="  ")  # wrapped, never cut: it says what to do
    return "\a" + finish([paint(line, REVERSE + BOLD if style.color else "", style) for line in lines], style)


# --------------------------------------------------------------------------- replies


def render_rooms(rooms: Sequence[Mapping[str, Any]], lang: str, style: TermStyle) -> str:
    """The list of rooms: number, game, rules, players/seats, status."""
    t = translation(lang)
    if not rooms:
        return finish(
            wrap_text(t.gettext("No room is open. Create one, for example: {example}").format(
                example=_create_example(lang)
            ), style.width),
            style,
        )
    lines = [paint(t.gettext("Rooms:"), BOLD, style)]
    for r in rooms:
        game = game_name(lang, r.get("game"))
        rules = rules_name(lang, r.get("rules")) if r.get("game") == "president" else ""
        players = r.get("players")
        if isinstance(players, Sequence) and not isinstance(players, str):
            count = len(players)
            who = ", ".join(str(p.get("name") if isinstance(p, Mapping) else p) for p in players)
        else:
            count = int(players or 0)
            who = ""
        seats = r.get("seats")
        status = _room_status(lang, r.get("status"))
        head = f"{r.get('room')!s:>3}  {game}" + (f" {rules}" if rules else "")
        if seats:
            head += f"  {count}/{seats}"
        if status:
            head += f"  {status}"
        lines.append(fit(head, style.width, style))
        if who:
            lines += ["     " + w for w in wrap_text(who, style.width - 5)[:2]]
    return finish(lines, style)


def _create_example(lang: str) -> str:
    from server.text.commands import verb
    from server.text.help import _word

    return f"{verb(lang, 'create')} {_word(lang, 'president')} {_word(lang, 'classic')} 4 bots=3"


def _room_status(lang: str, status: Any) -> str:
    t = translation(lang)
    if status == "waiting":
        return t.pgettext("room status", "waiting for players")
    if status == "playing":
        return t.pgettext("room status", "playing")
    if status == "over":
        return t.pgettext("room status", "over")
    return str(status or "")


def render_reply(cmd: str, reply: Mapping[str, Any], lang: str, style: TermStyle) -> str:
    """The reply to ``cmd`` for a person; ``""`` when the events and the state say it all."""
    t = translation(lang)
    width = style.width
    if cmd == "rooms":
        return render_rooms(reply.get("rooms") or [], lang, style)
    if cmd == "who":
        people = reply.get("players") or reply.get("who") or reply.get("people") or []
        if not people:
            return finish([t.gettext("Nobody else is here.")], style)
        items = []
        for p in people:
            if isinstance(p, Mapping):
                item = str(p.get("name"))
                if p.get("room") is not None:
                    item += " " + t.gettext("(room {room})").format(room=p["room"])
            else:
                item = str(p)
            items.append(item)
        n = len(items)
        head = t.ngettext("{n} player online:", "{n} players online:", n).format(n=n)
        return finish(wrap_items([i + "," for i in items[:-1]] + items[-1:], width, indent="  ", first=head + " "), style)
    if cmd == "whoami":
        name = reply.get("name")
        parts = [t.gettext("You are {name}.").format(name=name)]
        if reply.get("guest"):
            parts.append(t.gettext("Guest (register to keep your chips)."))
        if reply.get("chips") is not None:
            n = int(reply["chips"])
            parts.append(t.ngettext("{n} chip.", "{n} chips.", n).format(n=n))
        if reply.get("lang"):
            parts.append(t.gettext("Language: {lang}.").format(lang=reply["lang"]))
        return finish(wrap_text(" ".join(parts), width), style)
    if cmd == "create":
        return finish(wrap_text(t.gettext("Room {room} is open; you sit at it.").format(room=reply.get("room")), width), style)
    if cmd == "join":
        if reply.get("seat") is not None:
            text = t.gettext("You sit in room {room}, seat {seat}.").format(room=reply.get("room"), seat=reply["seat"])
        else:
            text = t.gettext("You sit in room {room}.").format(room=reply.get("room"))
        return finish(wrap_text(text, width), style)
    if cmd == "watch":
        return finish(wrap_text(t.gettext("You watch room {room}.").format(room=reply.get("room")), width), style)
    if cmd == "leave":
        return finish(wrap_text(t.gettext("You are back in the lobby."), width), style)
    if cmd == "lang":
        from server.messages.translations import LANG_NAMES

        code = reply.get("lang")
        return finish([t.gettext("Language: {lang}.").format(lang=LANG_NAMES.get(str(code), str(code)))], style)
    if cmd in ("login", "register"):
        name = reply.get("name")
        text = (
            t.gettext("Account {name} created. Welcome!").format(name=name)
            if cmd == "register"
            else t.gettext("Welcome back, {name}.").format(name=name)
        )
        if reply.get("chips") is not None:
            n = int(reply["chips"])
            text += " " + t.ngettext("You have {n} chip.", "You have {n} chips.", n).format(n=n)
        return finish(wrap_text(text, width), style)
    if cmd == "history":
        return _render_history(reply, lang, style)
    if cmd == "leaderboard":
        return _render_leaderboard(reply, lang, style)
    if cmd == "offer" and reply.get("offer") is not None:
        return finish([t.gettext("Offer #{offer} made.").format(offer=reply["offer"])], style)
    if cmd in ("colour", "color"):
        return finish([t.gettext("Colours on.") if reply.get("on", style.color) else t.gettext("Colours off.")], style)
    if cmd == "unicode":
        return finish(
            [t.gettext("Unicode symbols on.") if reply.get("on", style.unicode) else t.gettext("Plain ASCII from now on.")],
            style,
        )
    if cmd == "autocut":
        return finish(
            [t.gettext("Automatic cut on.") if reply.get("on") else t.gettext("Automatic cut off.")], style
        )
    if cmd == "width":
        return finish([t.gettext("Width: {n} columns.").format(n=reply.get("width", width))], style)
    if cmd == "addkey":
        return finish(wrap_text(t.gettext("Key added: you can now log in with it over SSH."), width), style)
    if cmd == "delkey":
        return finish(wrap_text(t.gettext("Key removed."), width), style)
    if cmd == "keys":
        keys = reply.get("keys") or []
        if isinstance(keys, int) or not keys:
            n = keys if isinstance(keys, int) else 0
            return finish([t.ngettext("{n} SSH key.", "{n} SSH keys.", n).format(n=n)], style)
        lines = [paint(t.gettext("Your SSH keys:"), BOLD, style)]
        lines += [fit("  " + str(k), width, style) for k in keys]
        return finish(lines, style)
    if cmd == "passwd":
        return finish(wrap_text(t.gettext("Password changed."), width), style)
    if cmd == "balance":
        n = int(reply.get("chips") or 0)
        lines = wrap_text(t.ngettext("Balance: {n} chip.", "Balance: {n} chips.", n).format(n=n), width)
        for e in reply.get("entries") or []:
            when = str(e.get("at") or "")[:16].replace("T", " ")
            delta = int(e.get("delta") or 0)
            lines.append(fit(f"  {when}  {delta:+d}  {_ledger_kind(lang, e.get('kind'))}", width, style))
        return finish(lines, style)
    if cmd == "ping":
        return finish(["pong"], style)
    if cmd == "limits":
        items = [f"{k}={v}" for k, v in sorted(reply.items()) if k not in ("type", "id")]
        return finish(wrap_items(items, width, indent="  "), style)
    return ""


_LEDGER_KINDS = {
    # the ledger's kinds (server/storage/api.py), translated when shown
    "grant": N_("chips granted"),
    "retire": N_("chips retired"),
    "stake": N_("stake paid"),
    "payout": N_("winnings"),
    "refund": N_("refund"),
    "transfer": N_("transfer"),
}


def _ledger_kind(lang: str, kind: Any) -> str:
    """A chip movement's kind in words."""
    msgid = _LEDGER_KINDS.get(str(kind or ""))
    return translation(lang).gettext(msgid) if msgid else str(kind or "")


def _render_history(reply: Mapping[str, Any], lang: str, style: TermStyle) -> str:
    t = translation(lang)
    items = reply.get("history") or reply.get("matches") or []
    if not items:
        return finish([t.gettext("No finished match yet.")], style)
    lines = [paint(t.gettext("Your last matches:"), BOLD, style)]
    for m in items:
        game = game_name(lang, m.get("game"))
        when = str(m.get("ended") or m.get("when") or m.get("at") or "")[:16].replace("T", " ")
        parts = [when, game]
        if m.get("rules") and m.get("game") == "president":
            parts.append(rules_name(lang, m["rules"]))
        if m.get("place") is not None:
            parts.append(t.gettext("place {place}").format(place=ordinal(lang, int(m["place"]))))
        if m.get("title") and m.get("title") != "neutral":
            parts.append(title_name(lang, m["title"]))
        if m.get("points") is not None:
            p = int(m["points"])
            parts.append(t.ngettext("+{n} pt", "+{n} pts", p).format(n=p))
        if m.get("chips") is not None:
            parts.append(t.ngettext("{n:+d} chip", "{n:+d} chips", abs(int(m["chips"]))).format(n=int(m["chips"])))
        if m.get("won"):
            parts.append(t.gettext("won"))
        lines.append(fit("  " + "  ".join(p for p in parts if p), style.width, style))
    return finish(lines, style)


def _render_leaderboard(reply: Mapping[str, Any], lang: str, style: TermStyle) -> str:
    t = translation(lang)
    items = reply.get("leaderboard") or reply.get("players") or []
    game = reply.get("game")
    head = t.gettext("Leaderboard:")
    if game:
        what = game_name(lang, game) + (f" {rules_name(lang, reply.get('rules'))}" if game == "president" else "")
        head = t.gettext("Leaderboard, {what}:").format(what=what)
    if not items:
        return finish([t.gettext("Nobody is ranked yet.")], style)
    lines = [paint(head, BOLD, style)]
    by = reply.get("by") or ("chips" if "chips" in items[0] else "points")
    name_w = min(max((display_width(str(p.get("name"))) for p in items), default=4), 16)
    for i, p in enumerate(items, 1):
        n = int(p.get("score") if p.get("score") is not None else p.get(by) or 0)
        score = (
            t.ngettext("{n} pt", "{n} pts", n).format(n=n)
            if by == "points"
            else t.ngettext("{n} chip", "{n} chips", n).format(n=n)
        )
        line = f"{i:>3}. {pad(str(p.get('name')), name_w)}  {score}"
        if p.get("matches") is not None:
            m = int(p["matches"])
            line += "  " + t.ngettext("{n} round", "{n} rounds", m).format(n=m)
        lines.append(fit(line, style.width, style))
    return finish(lines, style)

