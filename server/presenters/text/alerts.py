"""When a state arrives: what to draw, the alert when the reader must decide, and countdowns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.president.forbidden import stranded
from server.messages.games import forbids_last_cards
from server.messages.labels import rank_label, rank_words
from server.messages.terminal import (
    BOLD,
    RED,
    REVERSE,
    YELLOW,
    TermStyle,
    finish,
    paint,
    wrap_text,
)
from server.messages.translations import translation
from server.presenters.text.context import give_count
from server.presenters.text.draw import (
    cards_text,
    glue_seconds,
    seconds_of,
    seconds_text,
    sort_hand,
    window_text,
)
from server.presenters.text.games import render_state
from server.presenters.text.reader import spoken_countdown, spoken_seconds
from server.presenters.text.words import verb

_ALERTS = {"lead": "lead", "follow": "play", "give": "give", "turn": "turn", "auction": "sell"}
"""The view's decision -> the alert that tells the reader (RULES P5/P6, T12, S7, S8)."""


def _decision(state: Mapping[str, Any]) -> str | None:
    """What the reader must decide now (``play``, ``lead``, ``give``, ``turn``, ``sell``), or ``None``.

    The view's ``decision``, held back while a cut window is open: a turn a cut may still take away
    is prompted once the window has passed (T9)."""
    decision = state.get("decision")
    if not isinstance(decision, str):
        return None
    window = state.get("window")
    if isinstance(window, Mapping) and window.get("kind") == "cut" and decision in ("lead", "follow"):
        return None
    return _ALERTS.get(decision)


def _bank(state: Mapping[str, Any]) -> int | None:
    """The reader's time bank left in this match (seconds), from their seat's line of the state."""
    you = state.get("you")
    for entry in state.get("seats") or ():
        if isinstance(entry, Mapping) and entry.get("seat") == you and you is not None:
            return seconds_of(entry.get("bank"))
    return None


def _window_opened(previous: Mapping[str, Any], state: Mapping[str, Any]) -> bool:
    """People's window (a cut may follow, T9; time to trade, S9) opened with this state: a new one
    (another kind, or more time left than the last state showed)."""
    now, before = state.get("window"), previous.get("window")
    if not isinstance(now, Mapping):
        return False
    if not isinstance(before, Mapping) or before.get("kind") != now.get("kind"):
        return True
    return (seconds_of(now.get("left")) or 0) > (seconds_of(before.get("left")) or 0)


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
    """The weakest rank of the reader's hand as the hand shows it, once for each card of it (``3``, ``V V``);
    at a tdc table never a play that leaves only forbidden last cards (T8: the next weakest rank then)."""
    order = state.get("order") or "normal"
    hand = sort_hand(state.get("hand") or [], order)
    if not hand:
        return None
    ranks = list(dict.fromkeys(c[0] for c in hand))
    rank = ranks[0]
    if forbids_last_cards(state.get("rules")):
        rank = next((r for r in ranks if not stranded(hand, [c for c in hand if c[0] == r], order == "reversed")),
                    rank)
    n = sum(1 for c in hand if c[0] == rank)
    label = rank_label(lang, rank)
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
    if (not parts or alert not in (None, "cut")) and _window_opened(previous, state):
        # "a cut may follow", "time to trade": one line, said as it opens (a drawing with its status
        # lines says it already; the alert of a cut says its seconds)
        text = window_text(state, lang)
        if text is not None:
            parts.append(finish([paint(line, YELLOW, style) for line in wrap_text(text, style.width, indent="  ")],
                                style))
    if alert:
        raw = state.get("window")
        window: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        if alert == "sell":
            secs = seconds_of((state.get("auction") or {}).get("deadline"))
        elif alert == "cut":  # the real time left for a cut: the window's, not the turn's
            secs = seconds_of(window.get("left")) if window.get("kind") == "cut" else None
        else:
            secs = seconds_of(state.get("deadline"))
        plays = [item["cards"] for item in state.get("trick") or [] if item.get("cards")]
        parts.append(
            your_turn_alert(
                lang, style, alert, secs, top=plays[-1] if plays else None, count=give_count(state) or None,
                must=state.get("must"), example=_lead_example(state, lang), bank=_bank(state),
            )
        )
    return "\n".join(parts)



def autocut_tip(lang: str) -> str:
    """Said the first time a person can cut (T9): the server can cut for them."""
    return translation(lang).gettext("Tip: type {autocut} on and the server cuts for you whenever you can.").format(
        autocut=verb(lang, "autocut"))


COUNTDOWN_MARKS = (30, 10, 5)
"""Remaining-seconds marks announced during a long wait (not more: no flood)."""


def countdown_marks(total: float) -> tuple[int, ...]:
    """The marks a wait of ``total`` seconds will announce: those it is at least twice as long as, so
    a 30-second turn (or one that starts after a 3-second cut window, 33 s) never says "30 s left"
    as it begins."""
    return tuple(m for m in COUNTDOWN_MARKS if total >= 2 * m)


def countdown_line(lang: str, style: TermStyle, seconds: int, mine: bool = True) -> str:
    t = translation(lang)
    if style.reader:  # a screen reader: the seconds in words
        return spoken_countdown(lang, seconds, mine)
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
    bank: int | None = None,
) -> str:
    """A bell and one highlighted line: it is your turn (``what``: play, lead, cut, give, turn, sell, bid).

    ``seconds``: the time left, shown at the end; ``top``: the play to beat (``what="play"``);
    ``count``: the cards to give (``what="give"``); ``must``: the rank that "that or nothing"
    imposes (RULES P7, T6).
    """
    t = translation(lang)

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
            rank=rank_words(must, lang) if style.reader else rank_label(lang, must), pass_=verb(lang, "pass")
        )
    elif top:
        text = t.ngettext(
            "Your turn: beat {cards} ({n} card) or {pass_}.",
            "Your turn: beat {cards} ({n} cards) or {pass_}.",
            len(top),
        ).format(cards=cards_text(top, lang, style.plain), n=len(top), pass_=verb(lang, "pass"))
    else:
        text = t.gettext("Your turn: play cards (for example {example}) or {pass_}.").format(
            example="7 7", pass_=verb(lang, "pass")
        )
    if seconds is not None:
        text += " " + (spoken_seconds(lang, seconds) if style.reader else seconds_text(t, seconds))
        if bank:  # the time bank: more time on demand (extend)
            text += " " + glue_seconds(t.gettext("Type {extend} for more time ({n} s left in your time bank).").format(
                extend=verb(lang, "extend"), n=bank), bank)
    mark = "" if style.reader else "▶ " if style.unicode else "> "
    lines = wrap_text(mark + text, style.width, indent="  ")  # wrapped, never cut: it says what to do
    return "\a" + finish([paint(line, REVERSE + BOLD if style.color else "", style) for line in lines], style)
