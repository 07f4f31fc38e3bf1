"""A person's terminal: words typed in their language in, tables and news drawn for them out.

:class:`TextPresenter` reads a typed line with :func:`~server.presenters.text.parse.parse_line`
(in the context of the last state the person received), answers help and lines that
are not commands itself, and draws what arrives: the table when it matters
(:func:`~server.presenters.text.alerts.state_update`), news
(:func:`~server.presenters.text.news.render_event`), replies
(:func:`~server.presenters.text.replies.render_reply`) and refusals, every line within
the terminal's width. While the person has a decision to make it announces the
time left at a few marks (30, 10, 5 s).

The modules: ``words`` (the vocabulary of each language), ``cards`` (cards as people
type them), ``context`` (what the parser knows of the reader's situation), ``parse``,
``help``, ``draw`` (what drawings share), ``president`` and ``speculation`` (each
game's table, found through ``games``), ``alerts``, ``news``, ``replies``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from server.messages.errors import error_message
from server.messages.events import event_text
from server.messages.games import deals
from server.messages.table_events import commitment_explained
from server.messages.translations import translation
from server.presenters import Action, Local, Quit, Request, Viewer
from server.presenters.text import (
    alerts,
    forbidden,
    games,
    news,
    parse_social,
    parse_tournaments,
    replies,
    tournaments,
)
from server.presenters.text.cards import parse_cards
from server.presenters.text.context import CommandContext, ParseError, context_from_state
from server.presenters.text.help import help_text
from server.presenters.text.parse import _int, parse_line
from server.presenters.text.reader import spoken_numbers
from server.presenters.text.replay import ReplayViewer, close_word, help_line, pace
from server.presenters.text.words import REPLAY_WORDS, VERB_TABLES, fold, verb
from server.protocol import JSONValue, Push, Result, Shared

log = logging.getLogger(__name__)

_OVERTAKEN = frozenset({"not_your_turn", "cut_moved_on", "phase"})
"""Refusals that mean the situation changed under the person's fingers."""

OWN_EVENTS = frozenset({"hello", "notice", "replaced", "commitment", "contributed", "round_result"})
SPOKEN_OWN = frozenset({"commitment", "contributed", "round_result"})
"""Of :data:`OWN_EVENTS`, those whose numbers a screen reader hears in words (a deal's number, a
count); the others may hold what is typed or copied as written (resume codes, names)."""
"""The server's own news: said in one plain sentence, never drawn."""


class TextPresenter:
    mode = "text"

    def __init__(self, viewer: Viewer) -> None:
        self.viewer = viewer
        self.shown_state: Push | None = None  # the last state drawn
        self._leaving: str | None = None  # "leave"/"quit" asked to confirm: a round with chips at stake
        self._risky: tuple[str, tuple[str, ...]] | None = None  # a play leaving forbidden last cards (T8), said
        self._countdowns: list[asyncio.TimerHandle] = []
        self._commitment_told = False  # what a deal's commitment is: said once per session
        self._autocut_told = False  # the first cut a person could make comes with a word on autocut
        self.replay: ReplayViewer | None = None  # the replay being looked at (``replay``)
        self._playing: asyncio.TimerHandle | None = None
        self._tournament_rooms: dict[str, str] = {}  # room -> the tournament that seated the reader there
        self._last_rounds: set[str] = set()  # the Swiss events whose last round the reader plays

    @property
    def lang(self) -> str:
        return self.viewer.lang

    def render_key(self) -> tuple[Hashable, ...]:
        style = self.viewer.style
        return ("text", self.viewer.lang, style.width, style.unicode, style.color, style.reader)

    def _render(self, fn: Callable[..., str | None], *args: object) -> str:
        """Words for people; a rendering bug costs a sentence, never a session."""
        try:
            return fn(*args) or ""
        except Exception:
            log.exception("rendering with %s failed", getattr(fn, "__name__", fn))
            return ""

    def text(self, text: str) -> str:
        """``text`` made fit for the terminal (every line within its width), ``""`` for nothing."""
        if not text:
            return ""
        return news.fit_text(text.rstrip("\n"), self.viewer.style) + "\n"

    # -- reading ----------------------------------------------------------------------------------

    def start(self) -> str:
        if self.viewer.welcomed:
            return ""
        _ = translation(self.lang).gettext
        return self.text(_("Hello {name}! Type help to see the commands.").format(name=self.viewer.name or ""))

    def read(self, line: str) -> Action:
        state, where = self.viewer.where()
        context = context_from_state(state, where)
        if self.replay is not None:
            local = self._replay_line(line, context)
            if local is not None:
                return Local(local)
        parsed = parse_line(line, self.lang, context)
        said, self._risky = self._risky, None  # a play said first (T8) is made only by the very next line
        if isinstance(parsed, ParseError):
            if self.replay is not None and parsed.code == "unknown_command" and len(line.split()) <= 2 \
                    and (word := close_word(line.split()[0], self.lang)) is not None:
                # a replay is open: a mistyped replay word is suggested as the replay's
                return Local(self.text(error_message(self.lang, "unknown_command", cmd=line.split()[0],
                                                     suggestion=word)))
            return Local(self.text(parsed.message))
        confirming, self._leaving = self._leaving, None
        if parsed.cmd in ("leave", "quit") and confirming != parsed.cmd and state is not None:
            at_stake = state.get("at_stake")
            if isinstance(at_stake, int) and at_stake > 0 and state.get("status") == "playing":
                self._leaving = parsed.cmd  # say what leaving costs first; the same command again confirms
                cost = _leave_cost if parsed.cmd == "leave" else _quit_cost
                deal = deals(state.get("game"))  # a Speculation deal is called a deal, as on its table
                return Local(self.text(cost(self.lang, at_stake, line.split()[0], deal)))
        if parsed.cmd == "quit":
            return Quit(self.text(translation(self.lang).gettext("Goodbye!")))
        if parsed.cmd == "help":
            topic = parsed.args.get("topic")
            return Local(self.text(help_text(self.lang, context_from_state(state, where), self.viewer.style,
                                             topic if isinstance(topic, str) else None, guest=self.viewer.guest,
                                             resume=getattr(self.viewer, "resume_code", None))))
        if parsed.cmd == "state":
            if where == "lobby":
                return None  # an empty line in the lobby: nothing to redraw
            self.shown_state = None  # asked for: draw the whole table
        left = forbidden.risky_play(state, parsed.cmd, parsed.args)
        if left is not None and state is not None:
            chosen = parsed.args.get("cards")
            cards = tuple(c for c in chosen if isinstance(c, str)) if isinstance(chosen, list) else ()
            play = (parsed.cmd, cards)
            if said != play:  # T8: say what it costs first; the same play again makes it
                self._risky = play
                cut = state.get("cut") or ()
                count = len(cards) if cards else len(cut) if isinstance(cut, Sequence) else 0
                return Local(self.text(forbidden.risky_warning(left, count, state.get("order") == "reversed",
                                                               line.strip(), self.lang, self.viewer.style)))
        return Request(parsed.cmd, parsed.args)

    # -- writing ----------------------------------------------------------------------------------

    def ok(self, req_id: JSONValue, cmd: str, result: Result | None) -> str:
        if cmd == "replay" and result is not None:
            self._stop_playing()
            self.replay = ReplayViewer(result)
            return self.text(self._render(self.replay.page, self.lang, self.viewer.style))
        reply = {"type": "ok", **(result or {})}
        if cmd == "tournament_standings":
            reply.setdefault("you", self.viewer.name)  # the reader's own line is marked
        if cmd == "leave" and deals((self.shown_state or {}).get("game")):
            reply["deal"] = True  # the table left was a Speculation one: its round is called a deal
        return self.text(self._render(replies.render_reply, cmd, reply, self.lang, self.viewer.style))

    def error(self, req_id: JSONValue, code: str, params: Mapping[str, Any]) -> str:  # spread as sentence params
        try:
            message = error_message(self.lang, code, **params)
        except Exception:  # a message must never break a reply
            message = error_message(self.lang, code)
        if code in _OVERTAKEN or params.get("reason") in _OVERTAKEN:
            # the table moved on while the person typed (a bot played, a cut came): the new situation
            # first, drawn whole, then why the command was refused
            state, _ = self.viewer.where()
            if state is not None:
                self.shown_state = state
                table = self._render(games.render_state, state, self.lang, self.viewer.style)
                return self.text(table) + self.text(message)
        return self.text(message)

    def event(self, event: Push, names: tuple[str, ...] | None, you: int | None) -> str:
        return self._event(event, names, you) + self._after_event(event, you)

    def _after_event(self, event: Push, you: int | None) -> str:
        """What this reader alone is told after an event: at a match's end, a player hears what they
        can do next (a spectator has no rematch to ask for; at a tournament's table, the event seats
        them next)."""
        if event.get("event") == "tournament_seated":
            self._tournament_rooms[str(event.get("room"))] = str(event.get("tournament"))
        if event.get("event") == "tournament_round":
            event_id, rnd, rounds = str(event.get("tournament")), event.get("round"), event.get("rounds")
            if isinstance(rnd, int) and isinstance(rounds, int) and rnd >= rounds:
                self._last_rounds.add(event_id)
            else:
                self._last_rounds.discard(event_id)
        if event.get("event") == "match_over" and you is not None:
            t = translation(self.lang)
            room, _ = self.viewer.where()
            tid = self._tournament_rooms.get(str(event.get("room") or (room or {}).get("room")))
            if tid is not None:
                return self.text(tournaments.after_a_table(self.lang, tid, last=tid in self._last_rounds))
            return self.text(t.gettext("What next? {rematch}: a new match at this table, same options; "
                                       "{leave}: back to the lobby.").format(rematch=verb(self.lang, "rematch"),
                                                                             leave=verb(self.lang, "leave")))
        return ""

    def _event(self, event: Push, names: tuple[str, ...] | None, you: int | None) -> str:
        if event.get("event") in OWN_EVENTS:
            text = self._render(event_text, self.lang, event, list(names or ()), you)
            if self.viewer.style.reader and event.get("event") in SPOKEN_OWN:
                text = spoken_numbers(text, self.lang)  # "Donne un : ..." (not a code, not a resume code)
            if event.get("event") == "commitment" and not self._commitment_told and text:
                self._commitment_told = True
                text += "\n" + self._render(commitment_explained, self.lang)
            return self.text(text)
        if event.get("event") == "chat" and "text" not in event:
            event = {**event, "text": event.get("message", "")}
        style = self.viewer.style
        text = self._render(news.render_event, event, self.lang, style, list(names or ()), you)
        if style.reader and event.get("event") not in ("chat", "tell", "message"):
            text = spoken_numbers(text, self.lang)  # a screen reader: counts in words (not what people wrote)
        return self.text(text)

    def shared(self, shared: Shared, you: int | None) -> str:
        if shared.event.get("event") == "commitment" and not self._commitment_told:
            return self.event(shared.event, shared.names, you)  # with what it is, for this reader only
        key = (self.render_key(), news.reading(shared.event, you))  # readers who read it alike share it
        line = shared.cache.get(key)
        if line is None:
            line = shared.cache[key] = self._event(shared.event, shared.names, you)
        return line + self._after_event(shared.event, you)

    def state(self, state: Push) -> str:
        # The table only when it matters (the reader's turn, a new round...); nothing drawn yet (or
        # asked for): the whole table, with the alert if it is the reader's turn.
        style = self.viewer.style
        text = self._render(alerts.state_update, self.shown_state or {}, state, self.lang, style)
        if text and state.get("cut") and not self._autocut_told and isinstance(moves := state.get("moves"), list) \
                and "autocut" in moves:
            self._autocut_told = True
            text += "\n" + alerts.autocut_tip(self.lang)
        self.shown_state = state
        self._countdown(state)
        if style.reader:
            text = spoken_numbers(text, self.lang)  # the counts the alert gives, in words
        return self.text(text)

    def _countdown(self, state: Push) -> None:
        """Announce the time left on the reader's own decision at a few marks (30, 10, 5 s)."""
        self._cancel_countdowns()
        deadline = state.get("deadline")
        if not isinstance(deadline, int | float) or deadline <= 0 or not my_decision(state):
            return
        loop = asyncio.get_running_loop()
        for mark in alerts.countdown_marks(deadline):
            self._countdowns.append(loop.call_later(deadline - mark, self._announce, state, mark))

    def _announce(self, state: Push, seconds: int) -> None:
        current, _ = self.viewer.where()
        if self.shown_state is state and current is not None and current.get("room") == state.get("room"):
            # still at that table (never "10 seconds left" once back in the lobby)
            self.viewer.send_raw(self.text(alerts.countdown_line(self.lang, self.viewer.style, seconds, mine=True)))

    def _cancel_countdowns(self) -> None:
        for handle in self._countdowns:
            handle.cancel()
        self._countdowns = []

    # -- the replay viewer ----------------------------------------------------------------------

    def _replay_line(self, line: str, context: CommandContext) -> str | None:
        """A line for the open replay (``next``, ``go 5``, ``replay play 2``...), or None: not one."""
        words = line.split()
        if not words:
            return None
        if len(words) > 1 and VERB_TABLES[self.lang].get(fold(words[0])) == "replay" \
                and fold(words[1]) in REPLAY_WORDS:
            words = words[1:]  # "replay next": always the viewer's
        elif context.where == "room" and not context.spectator and _a_move(line, self.lang, context):
            return None  # seated: a word that is also a move ("play 2") stays the move
        what = REPLAY_WORDS.get(fold(words[0]))
        if what is None or len(words) > 2:
            return None
        arg = _int(words[1]) if len(words) > 1 else None
        if len(words) > 1 and arg is None and what != "play":
            return None
        viewer = self.replay
        assert viewer is not None
        if what == "play":
            seconds = arg if arg is not None else _seconds(words[1]) if len(words) > 1 else None
            if len(words) > 1 and seconds is None:
                return None
            self._stop_playing()
            if viewer.at >= viewer.last:
                viewer.move(0)
            self._play_next(pace(None if seconds is None else float(seconds)))
            return ""
        self._stop_playing()
        if what == "stop":
            return self.text(help_line(self.lang))
        if what == "next":
            viewer.move(viewer.at + (arg or 1))
        elif what == "prev":
            viewer.move(viewer.at - (arg or 1))
        elif what == "go":
            if arg is None:
                return self.text(help_line(self.lang))
            viewer.move(arg)
        elif what == "end":
            viewer.move(viewer.last)
        return self.text(self._render(viewer.page, self.lang, self.viewer.style))

    def _play_next(self, seconds: float) -> None:
        viewer = self.replay
        if viewer is None:
            return
        viewer.move(viewer.at + 1)
        self.viewer.send_raw(self.text(self._render(viewer.page, self.lang, self.viewer.style)))
        if viewer.at < viewer.last:
            self._playing = asyncio.get_running_loop().call_later(seconds, self._play_next, seconds)
        else:
            self._playing = None

    def _stop_playing(self) -> None:
        if self._playing is not None:
            self._playing.cancel()
            self._playing = None

    def close(self) -> None:
        self._cancel_countdowns()
        self._stop_playing()


def _a_move(line: str, lang: str, context: CommandContext) -> bool:
    """The line is a move at this table: cards, or a word of the table's own commands (``play``,
    ``bid``...). The replay's words are chosen so that none of them is one (``next``, ``go 5``,
    ``autoplay``: fr ``lire``, es ``reproducir``)."""
    tokens = line.split()
    if context.cards_table and parse_cards(tokens, lang)[1] is None:
        return True
    if context.bids_table and len(tokens) == 1 and _int(tokens[0]) is not None:
        return True
    return VERB_TABLES[lang].get(fold(tokens[0])) in context.moves


def _seconds(word: str) -> float | None:
    """``0.5``, ``2``, ``1,5``: a pace typed by a person."""
    try:
        value = float(word.replace(",", "."))
    except ValueError:
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None


def _leave_cost(lang: str, at_stake: int, word: str, deal: bool = False) -> str:
    """What leaving now costs; ``word``: the command as the person typed it (they type it again);
    ``deal``: a Speculation deal, called so (a Président round is a round)."""
    t = translation(lang)
    if deal:
        return t.ngettext(
            "A deal is being played with {n} chip of yours at stake. If you leave now, a bot plays your seat "
            "to the end of the deal with it, and you hear how it ends. Type {leave} again to leave.",
            "A deal is being played with {n} chips of yours at stake. If you leave now, a bot plays your seat "
            "to the end of the deal with them, and you hear how it ends. Type {leave} again to leave.",
            at_stake).format(n=at_stake, leave=word)
    return t.ngettext(
        "A round is being played with {n} chip of yours at stake. If you leave now, a bot plays your seat "
        "to the end of the round with it, and you hear how it ends. Type {leave} again to leave.",
        "A round is being played with {n} chips of yours at stake. If you leave now, a bot plays your seat "
        "to the end of the round with them, and you hear how it ends. Type {leave} again to leave.",
        at_stake).format(n=at_stake, leave=word)


def _quit_cost(lang: str, at_stake: int, word: str, deal: bool = False) -> str:
    """What disconnecting now costs; ``word``: the command as the person typed it (they type it again);
    ``deal``: a Speculation deal, called so."""
    t = translation(lang)
    if deal:
        return t.ngettext(
            "A deal is being played with {n} chip of yours at stake. If you disconnect now, your seat waits a "
            "while for you to come back, then a bot plays it to the end of the deal with it. Type {quit} again "
            "to disconnect.",
            "A deal is being played with {n} chips of yours at stake. If you disconnect now, your seat waits a "
            "while for you to come back, then a bot plays it to the end of the deal with them. Type {quit} again "
            "to disconnect.",
            at_stake).format(n=at_stake, quit=word)
    return t.ngettext(
        "A round is being played with {n} chip of yours at stake. If you disconnect now, your seat waits a "
        "while for you to come back, then a bot plays it to the end of the round with it. Type {quit} again "
        "to disconnect.",
        "A round is being played with {n} chips of yours at stake. If you disconnect now, your seat waits a "
        "while for you to come back, then a bot plays it to the end of the round with them. Type {quit} again "
        "to disconnect.",
        at_stake).format(n=at_stake, quit=word)


def my_decision(state: Push) -> bool:
    """The reader must decide something now (the view's ``decision``): their turn, their exchange
    choice, their card on sale."""
    return state.get("status") in (None, "playing") and state.get("decision") is not None


__all__ = ["OWN_EVENTS", "TextPresenter", "my_decision", "parse_social", "parse_tournaments"]
