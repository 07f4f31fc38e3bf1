"""The news of tables and the lobby as sentences: chat, people coming and going, rooms opening and closing."""

from __future__ import annotations

from collections.abc import Sequence

from server.messages.fair_events import window_hint
from server.messages.games import deals, rounds
from server.messages.kit import ANYONE, T, event, named, named_by, seat_name, text_of, to_float, to_int
from server.messages.labels import table_name
from server.messages.terminal import TermStyle
from server.messages.translations import translation
from server.protocol import JSONValue, Push


@event("chat", seats=ANYONE)
def _ev_chat(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or seat_name(names, e.get("seat"), lang)
    return t.gettext("{name}: {text}").format(name=who, text=e.get("text", e.get("message", "")))


@event("joined", seats=ANYONE)
def _ev_joined(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or seat_name(names, e.get("seat"), lang)
    if e.get("watch") or e.get("spectator"):
        return t.gettext("{name} is watching.").format(name=who)
    if e.get("seat") is not None:
        return t.gettext("{name} sits at seat {seat}.").format(name=who, seat=e["seat"])
    return t.gettext("{name} joins.").format(name=who)


@event("left", seats=ANYONE)
def _ev_left(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or seat_name(names, e.get("seat"), lang)
    if e.get("bot") or e.get("replaced_by_bot"):
        return t.gettext("{name} leaves; a bot takes the seat.").format(name=who)
    return t.gettext("{name} leaves.").format(name=who)


@event("disconnected", seats=ANYONE)
def _ev_disconnected(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or seat_name(names, e.get("seat"), lang)
    if e.get("grace"):
        n = round(to_float(e["grace"]))
        return t.ngettext(
            "{name} lost the connection; the seat is kept for {n} second.",
            "{name} lost the connection; the seat is kept for {n} seconds.",
            n,
        ).format(name=who, n=n)
    return t.gettext("{name} lost the connection; the seat is kept for a while.").format(name=who)


@event("reconnected", seats=ANYONE)
def _ev_reconnected(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or seat_name(names, e.get("seat"), lang)
    return t.gettext("{name} is back.").format(name=who)


@event("extended", seats=named("seat"))
def _ev_extended(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    n = round(to_float(e.get("seconds") or 0))
    if you is not None and e.get("seat") == you:  # (a terminal shows the reply instead: server.presenters.text.news)
        return t.ngettext("You take {n} second more.", "You take {n} seconds more.", n).format(n=n)
    return t.ngettext("{name} takes {n} second more.", "{name} takes {n} seconds more.", n).format(
        name=seat_name(names, e.get("seat"), lang), n=n)


@event("room_created", seats=ANYONE)
def _ev_room_created(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    game = table_name(lang, text_of(e.get("game")), text_of(e.get("rules")))
    if e.get("tournament"):  # its people are seated by the event: one watches it, nobody joins
        return t.gettext("Room {room} of tournament {tournament} opens: {game} (watch {room}).").format(
            room=e.get("room"), tournament=e.get("tournament"), game=game)
    who = e.get("name") or e.get("by")
    if not who:  # someone who hides where they sit
        return t.gettext("Room {room} opens: {game} (join {room}).").format(room=e.get("room"), game=game)
    if e.get("seats"):
        n = to_int(e["seats"])
        return t.ngettext(
            "{name} opens room {room}: {game}, {n} seat (join {room}).",
            "{name} opens room {room}: {game}, {n} seats (join {room}).",
            n,
        ).format(name=who, room=e.get("room"), game=game, n=n)
    return t.gettext("{name} opens room {room}: {game}.").format(name=who, room=e.get("room"), game=game)


@event("room_closed", seats=ANYONE)
def _ev_room_closed(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    if e.get("reason") == "waited":
        return t.gettext("Room {room} is closed: nobody came to play for a long while.").format(room=e.get("room"))
    if e.get("reason") == "over":  # (a spectator of a finished room: back in the lobby)
        return t.gettext("Room {room} is closed: its match is over; you are back in the lobby.").format(
            room=e.get("room"))
    if e.get("reason") == "trouble":
        return t.gettext("Room {room} is closed: the server could not keep its record. "
                         "Every stake in play was given back.").format(room=e.get("room"))
    return t.gettext("Room {room} is closed.").format(room=e.get("room"))


@event("rooms_changed", seats=ANYONE)
def _ev_rooms_changed(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    seeks = to_int(e.get("seeks") or 0)
    seek_text = t.ngettext("{n} new seek (type seeks to see the open ones).",
                           "{n} new seeks (type seeks to see the open ones).", seeks).format(n=seeks)
    if seeks and not e.get("opened") and not e.get("closed"):
        return seek_text
    text = t.gettext("Rooms: {opened} opened, {closed} closed since the last news, {open} open now "
                     "(type rooms to see them).").format(opened=e.get("opened", 0), closed=e.get("closed", 0),
                                                         open=e.get("open", 0))
    return f"{text} {seek_text}" if seeks else text


@event("match_started", "started", seats=ANYONE)
def _ev_started(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("Every seat is taken: the match begins.")


@event("shutdown", seats=ANYONE)
def _ev_shutdown(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    if e.get("resume"):
        return t.gettext("The server is restarting: your tables will be back, where they were.")
    return t.gettext("The server is shutting down. Stakes in play are given back.")


@event("shutdown_warning", seats=ANYONE)
def _ev_shutdown_warning(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    n = round(to_float(e.get("seconds") or 0))
    if e.get("resume"):
        text = t.ngettext("The server restarts in {n} second: your tables will be back, where they were.",
                          "The server restarts in {n} seconds: your tables will be back, where they were.", n)
    else:
        text = t.ngettext("The server shuts down in {n} second.", "The server shuts down in {n} seconds.", n)
    text = text.format(n=n)
    reason = str(e.get("reason") or "")
    return f"{text} ({reason})" if reason else text


@event("shutdown_cancelled", seats=ANYONE)
def _ev_shutdown_cancelled(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("The restart is called off: play on.")


@event("resumed", seats=ANYONE)
def _ev_resumed(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("The server restarted; your table {room} is back, where it was.").format(room=e.get("room", ""))


# -- the server's own news


@event("hello", seats=ANYONE)
def _ev_hello(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("Welcome to donne. Type help to see the commands.")


@event("replaced", seats=ANYONE)
def _ev_replaced(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    who = e.get("name") or seat_name(names, e.get("seat"), lang)
    if e.get("until") == "round_end" and deals(e.get("game")):  # a deal, as its table says
        return t.gettext("{name} left: a bot plays the seat to the end of the deal.").format(name=who)
    if e.get("until") == "round_end":
        return t.gettext("{name} left: a bot plays the seat to the end of the round.").format(name=who)
    return t.gettext("A bot now plays for {name}; the points stay with the seat.").format(name=who)


@event("renamed", seats=ANYONE)
def _ev_renamed(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("{name} is now {to}, on the same seat.").format(name=e.get("name", ""), to=e.get("to", ""))


@event("round_result", seats=ANYONE)
def _ev_round_result(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    n = to_int(e.get("chips") or 0)
    room = e.get("room", "")
    if deals(e.get("game")):  # a Speculation deal, called so on its table
        if n > 0:
            return t.ngettext("The deal you left at {room} is over: you win {n} chip.",
                              "The deal you left at {room} is over: you win {n} chips.", n).format(room=room, n=n)
        if n < 0:
            return t.ngettext("The deal you left at {room} is over: you lose {n} chip.",
                              "The deal you left at {room} is over: you lose {n} chips.", -n).format(room=room, n=-n)
        return t.gettext("The deal you left at {room} is over: you break even.").format(room=room)
    if n > 0:
        return t.ngettext("The round you left at {room} is over: you win {n} chip.",
                          "The round you left at {room} is over: you win {n} chips.", n).format(room=room, n=n)
    if n < 0:
        return t.ngettext("The round you left at {room} is over: you lose {n} chip.",
                          "The round you left at {room} is over: you lose {n} chips.", -n).format(room=room, n=-n)
    return t.gettext("The round you left at {room} is over: you break even.").format(room=room)


def _given(e: Push) -> Sequence[JSONValue]:
    given = e.get("given")
    return given if isinstance(given, list) else ()


@event("commitment", seats=named_by(_given, "the seats in 'given' (the other seats share the window's hint)"))
def _ev_commitment(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    if rounds(e.get("game")):  # a Président round has one deal: called a round, as everywhere else
        text = t.gettext("Round {round}: the server committed to its shuffle ({commitment}).")
    else:
        text = t.gettext("Deal {round}: the server committed to its shuffle ({commitment}).")
    text = text.format(round=e.get("round", ""), commitment=str(e.get("commitment", ""))[:16])
    window = e.get("window")
    given = e.get("given")
    if (you is not None and isinstance(window, int | float) and not isinstance(window, bool) and window > 0
            and not (isinstance(given, list) and you in given)):  # a standing seed already gave
        text += " " + window_hint(lang, float(window), style)
    return text


def commitment_explained(lang: str) -> str:
    """What the commitment shown before a deal is and how a deal is checked against it (said
    once per session, after the first one)."""
    return translation(lang).gettext(
        "That code binds the server to its secret shuffle before anyone adds randomness: it can no "
        "longer change it. The deal mixes that secret with every player's seed (seed TEXT), so nobody, "
        "the server included, can choose it. At Président the secret is revealed with the end of the "
        "round; at Speculation only the cards that were shown are opened, the undealt ones stay secret. "
        "Type verify after a round to check it step by step."
    )


@event("notice", seats=ANYONE)
def _ev_notice(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    code = str(e.get("code", ""))
    texts = {
        "login_timeout": t.gettext("Too slow to log in; goodbye."),
        "idle": t.gettext("Disconnected after a long time without activity."),
        "replaced": t.gettext("You logged in from somewhere else; this connection ends."),
        "flood": t.gettext("Too many commands at once; disconnected."),
        "not_enough_players": t.gettext("Fewer than three players can play on: the match ends here."),
        "server_trouble": t.gettext("The server is having trouble; your table is paused. Nothing is lost."),
        "server_ok": t.gettext("The server is fine again; your table goes on."),
        "resume_tried": t.gettext("Someone tried to log in under your name without your resume code; "
                                  "your seat stays yours."),
    }
    if code == "resume_code" and style.browser:  # the page keeps the code and gives it when logging in again
        return t.gettext("Your resume code: {code}. If your connection drops or the server restarts, log in "
                         "again as {name} on this page: it gives the code and your seat comes back.").format(
            code=e.get("resume", ""), name=e.get("name", ""))
    if code == "resume_code":
        return t.gettext("Your resume code: {code}. Keep it: if your connection drops or the server "
                         "restarts, log in again as {name} and give this code to get your seat back "
                         "(whoami shows it again).").format(code=e.get("resume", ""), name=e.get("name", ""))
    return texts.get(code, code)


@event("rematch", seats=ANYONE)
def _ev_rematch(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("{name} asks for a rematch: the same table again; empty seats wait for players.").format(
        name=e.get("name", ""))
