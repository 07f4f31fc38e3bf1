"""The replay viewer: a stored round, step by step, as a spectator saw it; then the hands.

The server's ``replay`` reply (``server/community/replays.py``) holds the round's steps: per action,
its events in the form spectators received them. The viewer shows one step at a time
(``next``, ``prev``, ``go N``), or all of them at a chosen pace (``play [SECONDS]``,
``stop``); after the last step, the page of the hands (``end``): what was hidden during
the round (Président: each hand as dealt and the exchanged cards; Speculation: the
face-down cards its end showed, S12h). Words in :data:`~server.presenters.text.words.REPLAY_WORDS`.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from server.messages.kit import text_of
from server.messages.labels import cards_label, punct, table_name
from server.messages.terminal import BOLD, TermStyle, finish, paint, wrap_text
from server.messages.translations import translation
from server.presenters.text.news import render_event
from server.presenters.text.words import fold, verb
from server.protocol import JSONValue, Result, items_in, objects_in, strings_in

MIN_PACE, MAX_PACE, PACE = 0.2, 10.0, 1.5
"""Seconds between two steps when playing (the range a person may choose, the default)."""


class ReplayViewer:
    def __init__(self, reply: Result) -> None:
        self.round_id = str(reply.get("round") or "")
        self.game = text_of(reply.get("game"))
        self.rules = text_of(reply.get("rules"))
        self.names = [str(n) for n in items_in(reply.get("seats"))]
        self.steps: list[Sequence[Mapping[str, JSONValue]]] = [objects_in(s) for s in items_in(reply.get("steps"))]
        self.revealed: list[Mapping[str, JSONValue]] = objects_in(reply.get("revealed"))
        self.at = 0  # 0: the title page; 1..len(steps): a step; len(steps) + 1: the hands

    @property
    def last(self) -> int:
        return len(self.steps) + 1

    def move(self, to: int) -> bool:
        """Go to page ``to`` (kept within the replay); False when already there."""
        to = max(0, min(self.last, to))
        moved = to != self.at
        self.at = to
        return moved

    def page(self, lang: str, style: TermStyle) -> str:
        if self.at == 0:
            return self._title(lang, style)
        if self.at == self.last:
            return self._hands(lang, style)
        t = translation(lang)
        head = t.gettext("Replay {round}, step {n} of {total}").format(round=self.round_id, n=self.at,
                                                                        total=len(self.steps))
        lines = [paint(head, BOLD, style)]
        for event in self.steps[self.at - 1]:
            text = render_event(event, lang, style, self.names, None)
            if text:
                lines.append(text.rstrip("\n"))
        return finish(lines, style)

    def _title(self, lang: str, style: TermStyle) -> str:
        t = translation(lang)
        what = table_name(lang, self.game, self.rules)
        lines = [paint(t.gettext("Replay of round {round}: {game}").format(round=self.round_id, game=what), BOLD, style)]
        lines += wrap_text(t.gettext("Players: {names}.").format(names=", ".join(n or "?" for n in self.names)),
                           style.width, indent="  ")
        n = len(self.steps)
        lines += wrap_text(t.ngettext(
            "{n} step, as a spectator saw it, then the hands. Type {next} (or n), {prev}, {go} N, {play} [seconds], "
            "{stop}, {end}.",
            "{n} steps, as a spectator saw them, then the hands. Type {next} (or n), {prev}, {go} N, {play} "
            "[seconds], {stop}, {end}.", n).format(n=n, **_words(lang)), style.width)
        return finish(lines, style)

    def _hands(self, lang: str, style: TermStyle) -> str:
        t = translation(lang)
        lines = [paint(t.gettext("Replay {round}: the hands").format(round=self.round_id),
                       BOLD, style)]
        for event in self.revealed:
            if event.get("event") == "dealt" and isinstance(event.get("hands"), list):
                lines.append("  " + t.gettext("As dealt:"))
                for seat, hand in enumerate(items_in(event["hands"])):
                    if hand:
                        lines.append(f"    {self._name(seat, lang)}{punct(lang, ':')} "
                                     f"{cards_label(strings_in(hand), lang, style)}")
            elif event.get("event") == "exchange" and event.get("cards"):
                lines.append("  " + t.gettext("{giver} gives {receiver}: {cards}").format(
                    giver=self._name(event.get("from"), lang), receiver=self._name(event.get("to"), lang),
                    cards=cards_label(strings_in(event["cards"]), lang, style)))
        for step in self.steps:
            for event in step:
                if event.get("event") == "revealed" and isinstance(event.get("stacks"), list):
                    lines.append("  " + t.gettext("Face-down cards at the end:"))
                    for seat, stack in enumerate(items_in(event["stacks"])):
                        if stack:
                            lines.append(f"    {self._name(seat, lang)}{punct(lang, ':')} "
                                         f"{cards_label(strings_in(stack), lang, style)}")
        if len(lines) == 1:
            lines.append("  " + t.gettext("Nothing was hidden from the spectators."))
        return finish(lines, style)

    def _name(self, seat: JSONValue, lang: str) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return translation(lang).gettext("seat {seat}").format(seat=seat)


def _words(lang: str) -> dict[str, str]:
    t = translation(lang)
    return {"next": t.pgettext("replay", "next"), "prev": t.pgettext("replay", "prev"),
            "go": t.pgettext("replay", "go"), "play": t.pgettext("replay", "autoplay"),
            "stop": t.pgettext("replay", "stop"), "end": t.pgettext("replay", "end")}


def close_word(word: str, lang: str) -> str | None:
    """The replay word of ``lang`` that ``word`` looks like a typo of (``suivnt`` → ``suivant``), or None."""
    shown = {fold(w): w for w in _words(lang).values()}
    match = difflib.get_close_matches(fold(word), list(shown), n=1, cutoff=0.7)
    return shown[match[0]] if match else None


def pace(value: float | None) -> float:
    """Seconds between steps when playing, within the allowed range."""
    if value is None:
        return PACE
    return max(MIN_PACE, min(MAX_PACE, value))


def help_line(lang: str) -> str:
    return translation(lang).gettext("A replay takes: {next}, {prev}, {go} N, {play} [seconds], {stop}, {end}; "
                                     "{replay} ROUND opens another.").format(replay=verb(lang, "replay"),
                                                                             **_words(lang))
