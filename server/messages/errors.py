"""The sentences of refusals: one per protocol error code, with the engine's reason when it helps."""

from __future__ import annotations

import gettext
from collections.abc import Mapping, Sequence

from server.messages import fair_events, tournament_events
from server.messages.kit import to_int
from server.messages.labels import (
    cards_param,
    rank_label,
)
from server.messages.moderation import moderation_text
from server.messages.pace import pace_text
from server.messages.terminal import PLAIN, TermStyle
from server.messages.translations import translation
from server.protocol import JSONValue


def error_message(lang: str, code: str, style: TermStyle = PLAIN, **params: JSONValue) -> str:
    """A sentence telling what went wrong, and what would be legal when ``params`` say so.

    ``code`` is a protocol error code; ``params`` may hold ``reason`` (the engine's refusal
    detail: ``too_weak``, ``must_follow_count``, ``ca_ou_rien``, ``must_lead``,
    ``not_in_hand``, ``mixed_ranks``, ``bid_too_low``…) and the facts to cite
    (``count``, ``rank``, ``cards``, ``legal`` (plays as lists of card codes), ``min``,
    ``max``, ``need``, ``have``, ``name``, ``room``, ``cmd``, ``suggestion``…).
    Unknown codes or missing facts give a shorter, still true, sentence.
    """
    t = translation(lang)
    p = dict(params)
    detail = p.pop("detail", None)
    given = p.pop("reason", None)
    reason = (given if isinstance(given, str) else None) or _DETAIL_REASONS.get(str(detail))
    if code == "insufficient_chips" and "have" not in p and isinstance(p.get("chips"), int):
        p["have"] = p["chips"]
    if code == "illegal_play" and reason is None and isinstance(p.get("min"), int):
        reason = "bid_too_low"
    text = (moderation_text(t, code, reason, p) or pace_text(t, code, reason, p)
            or tournament_events.refusal(t, code, reason, p) or _reason_text(t, lang, code, reason, p, style)
            or _code_text(t, lang, code, p, style))
    extra = _legal_suffix(t, lang, code, p, style)
    return f"{text} {extra}".strip() if extra else text


_DETAIL_REASONS = {
    # Refusals of the Speculation engine carry English details and no reason code:
    # the detail only picks the sentence, it is never shown.
    "no deal in progress": "no_deal",
    "no auction": "no_auction",
    "not playing this deal": "sitting_out",
    "the owner does not bid": "own_auction",
    "a bid beats the best bid by at least 1 chip": "bid_too_low",
    "only the owner sells or keeps": "not_owner",
    "no bid to sell to": "no_bid",
    "no such offer": "no_such_offer",
    "only the buyer withdraws an offer": "not_buyer",
    "only the seller accepts or declines an offer": "not_party",
    "no trade while an auction is open (S12c)": "auction_open",
    "no offer while an auction is open (S12c)": "auction_open",
    "offers go to another player of this deal": "bad_target",
    "that many face-down cards are not there": "bad_count",
    "a price is at least 1 chip": "price_too_low",
    "the match is over": "match_over",
    "no such seat": "no_such_seat",
}


def _has(p: Mapping[str, JSONValue], *keys: str) -> bool:
    return all(p.get(k) is not None and p.get(k) != "" for k in keys)


def _browser_text(t: gettext.NullTranslations, code: str, p: dict[str, JSONValue]) -> str | None:
    """The play page's words where the text mode's tell what to type (the page has its buttons)."""
    if code == "unknown_command":
        return t.gettext("The server cannot do that.")
    if code == "no_such_room":
        if _has(p, "room"):
            return t.gettext("There is no room {room}: the lobby lists the open ones.").format(room=p["room"])
        return t.gettext("There is no such room: the lobby lists the open ones.")
    if code == "room_full":
        return t.gettext("That room is full; you can still watch it.")
    if code == "not_in_room":
        return t.gettext("You are not at a table: join one or create one in the lobby.")
    if code == "no_such_seek":
        return t.gettext("That seek or challenge is no longer open.")
    if code == "no_such_round" and _has(p, "round"):
        return t.gettext("There is no finished round {round}.").format(round=p["round"])
    if code == "not_online" and _has(p, "name"):
        return t.gettext("{name} is not online.").format(name=p["name"])
    if code == "no_reply":
        return t.gettext("Nobody has told you anything yet.")
    if code == "account_needed":
        return t.gettext("This needs an account.")
    if code == "resume_needed":  # the page gives the code it kept; this browser has none for the name
        return t.gettext("The guest {name} holds a seat, and only their resume code takes it back: this "
                         "browser does not have it. Choose another name.").format(name=p.get("name", ""))
    return None


def _code_text(t: gettext.NullTranslations, lang: str, code: str, p: dict[str, JSONValue], style: TermStyle) -> str:
    if style.browser and (text := _browser_text(t, code, p)) is not None:
        return text
    if code == "bad_json":
        return t.gettext("That line is not a JSON object.")
    if code == "unknown_command":
        if _has(p, "cmd", "suggestion"):
            return t.gettext("Unknown command “{cmd}”. Did you mean “{suggestion}”?").format(
                cmd=p["cmd"], suggestion=p["suggestion"]
            )
        if _has(p, "cmd"):
            return t.gettext("Unknown command “{cmd}”. Type help to see what you can do.").format(cmd=p["cmd"])
        return t.gettext("Unknown command. Type help to see what you can do.")
    if code == "bad_argument":
        if _has(p, "value", "expected"):
            return t.gettext("“{value}” is not understood here; expected: {expected}.").format(
                value=p["value"], expected=p["expected"]
            )
        if _has(p, "value", "suggestion"):
            return t.gettext("“{value}” is not understood. Did you mean “{suggestion}”?").format(
                value=p["value"], suggestion=p["suggestion"]
            )
        if _has(p, "value"):
            return t.gettext("“{value}” is not understood here.").format(value=p["value"])
        if p.get("arg") == "bio":
            if _has(p, "max"):
                return t.gettext("A bio fits in {max} columns (a wide character counts two), with no invisible "
                                 "or direction characters and at most two accents on a letter.").format(max=p["max"])
            return t.gettext("A bio has no invisible or direction characters and at most two accents on a letter.")
        if _has(p, "arg"):
            specific = _argument_text(t, str(p["arg"]))
            if specific:
                return specific
            return t.gettext("Missing or wrong value for “{arg}”.").format(arg=_argument_name(t, str(p["arg"])))
        return t.gettext("Missing or wrong argument.")
    if code == "not_logged_in":
        # only machine mode can ask before logging in (a person logs in at the door)
        return t.gettext("Log in first: send the command \"login\" with the field \"name\", and \"password\" "
                         "when the name has an account. A new name plays as a guest; \"register\", with "
                         "the same fields, creates an account.")
    if code == "already_logged_in":
        return t.gettext("You are already logged in.")
    if code == "no_such_room":
        if _has(p, "room"):
            return t.gettext("There is no room {room}. Type rooms to see the open rooms.").format(room=p["room"])
        return t.gettext("There is no such room. Type rooms to see the open rooms.")
    if code == "room_full":
        if _has(p, "room"):
            return t.gettext("Room {room} is full; you can watch it: watch {room}.").format(room=p["room"])
        return t.gettext("That room is full; you can still watch it.")
    if code == "not_in_room":
        return t.gettext("You are not at a table. Type rooms, then join a room or create one.")
    if code == "already_in_room":
        if _has(p, "room"):
            # TRANSLATORS: "leave" is the command as typed in your language (partir, dejar): never the
            # word that logs out (quitter, salir).
            return t.gettext("You are already in room {room}; type leave to leave it first.").format(room=p["room"])
        return t.gettext("You are already in a room; type leave to leave it first.")
    if code == "not_your_turn":
        if _has(p, "name"):
            return t.gettext("It is not your turn: {name} is to play.").format(name=p["name"])
        return t.gettext("It is not your turn.")
    if code == "illegal_play":
        return t.gettext("The rules do not allow that.")
    if code == "not_allowed":
        return t.gettext("You cannot do that now.")
    if code == "insufficient_chips":
        if _has(p, "need", "have"):
            need, have = to_int(p["need"]), to_int(p["have"])
            return t.ngettext(
                "Not enough chips: this needs {need} chip and you have {have}.",
                "Not enough chips: this needs {need} chips and you have {have}.",
                need,
            ).format(need=need, have=have)
        if _has(p, "have"):
            have = to_int(p["have"])
            return t.ngettext(
                "Not enough chips: you have only {have} chip.",
                "Not enough chips: you have only {have} chips.",
                have,
            ).format(have=have)
        return t.gettext("You do not have enough chips for that.")
    if code == "rate_limited":
        return t.gettext("Too many commands at once: wait a moment.")
    if code == "name_taken":
        if _has(p, "name"):
            return t.gettext("The name {name} is taken; choose another one.").format(name=p["name"])
        return t.gettext("That name is taken; choose another one.")
    if code == "resume_needed":
        return t.gettext("The guest {name} holds a seat: only their resume code takes it back. If that is "
                         "you, give the code; otherwise choose another name.").format(name=p.get("name", ""))
    if code == "bad_resume_code":
        return t.gettext("That is not {name}'s resume code.").format(name=p.get("name", ""))
    if code == "bad_name":
        if _has(p, "max"):
            return t.gettext(
                "A name has 2 to {max} characters: letters, digits, “-”, “_” or “.”; it starts with "
                "a letter and does not look like a reserved name (admin, bot1…)."
            ).format(max=p["max"])
        return t.gettext(
            "A name has letters, digits, “-”, “_” or “.”; it starts with a letter and does not "
            "look like a reserved name (admin, bot1…)."
        )
    if code == "bad_password":
        return t.gettext("Wrong name or password.")
    if code == "insecure_transport":
        return t.gettext("A password travels only over an encrypted connection: open this page with https, "
                         "or play as a guest.")
    if code == "weak_password":
        if _has(p, "min"):
            return t.gettext("A password needs at least {min} characters.").format(min=p["min"])
        return t.gettext("That password is too short.")
    if code == "account_needed":
        return t.gettext("This needs an account: register NAME first.")
    if code == "no_such_player":
        if _has(p, "name"):
            return t.gettext("There is nobody called {name} here.").format(name=p["name"])
        return t.gettext("There is nobody by that name here.")
    if code == "no_such_offer":
        if _has(p, "offer"):
            return t.gettext("There is no open offer #{offer}.").format(offer=p["offer"])
        return t.gettext("There is no such open offer.")
    if code == "bad_lang":
        return t.gettext("Languages: fr (français), es (español), en (English).")
    if code == "too_many_registrations":
        return t.gettext("Too many new accounts from your address lately; try again later, or play as a guest.")
    if code == "input_flood":
        return t.gettext("Too much input at once: disconnected.")
    if code == "line_too_long":
        if _has(p, "limit") and not _has(p, "max"):
            p["max"] = p["limit"]
        if _has(p, "max"):
            return t.gettext("That line is too long (at most {max} characters).").format(max=p["max"])
        return t.gettext("That line is too long.")
    if code == "bad_text":
        return t.gettext("That line holds characters that cannot be read; nothing was done.")
    if code == "too_many_rooms":
        return t.gettext("The server has too many rooms open; join one of them or try later.")
    if code == "match_over":
        return t.gettext("This match is over.")
    if code == "spectator":
        return t.gettext("You are watching this table; join a free seat to play.")
    if code == "shutting_down":
        return t.gettext("The server is shutting down; no new games now.")
    if code == "table_moved":
        return t.gettext("Your table is moving to another server; that was not done. Try again in a moment.")
    if code == "server_trouble":
        return t.gettext("The server is having trouble; your table is paused. Try again in a moment.")
    if code == "internal_error":
        return t.gettext("Something went wrong on the server; nothing was changed.")
    social = _social_text(t, code, p)
    if social is not None:
        return social
    # TRANSLATORS: the last resort for an error code without a sentence of its own.
    return t.gettext("Refused ({code}).").format(code=code)


def _social_text(t: gettext.NullTranslations, code: str, p: dict[str, JSONValue]) -> str | None:
    """Tells, messages, friends, seeks and replays."""
    if code == "not_online":
        if _has(p, "name"):
            return t.gettext("{name} is not online. To leave a message for their next login: message {name} "
                             "TEXT").format(name=p["name"])
        return t.gettext("That player is not online.")
    if code == "ignored":
        return t.gettext("{name} does not want to hear from you.").format(name=p.get("name") or "?")
    if code == "muted":
        return t.gettext("You are muted: you cannot talk to anyone for now.")
    if code == "mailbox_full":
        return t.gettext("Too many of your messages are already waiting for {name}.").format(
            name=p.get("name") or "?")
    if code == "too_many_friends":
        return t.gettext("Your friends list is full ({max} names).").format(max=p.get("max") or "?")
    if code == "no_reply":
        return t.gettext("Nobody has told you anything yet: tell NAME TEXT.")
    if code == "no_such_seek":
        if _has(p, "seek"):
            return t.gettext("There is no open seek or challenge #{id}. Type seeks to list them.").format(id=p["seek"])
        return t.gettext("There is no open seek or challenge for you. Type seeks to list them.")
    if code == "already_seeking":
        return t.gettext("You already have an open seek or challenge; cancel it first.")
    if (fair := fair_events.refusal(t, code, p)) is not None:
        return fair
    if code == "not_verifiable":
        return fair_events.not_verifiable(t, p)
    if code == "no_such_round":
        if _has(p, "round"):
            return t.gettext("There is no finished round {round}. Type history to see round ids.").format(
                round=p["round"])
        return t.gettext("You have no finished round to replay yet.")
    return None


def _argument_text(t: gettext.NullTranslations, arg: str) -> str | None:
    """What a command argument must be, for the arguments people get wrong."""
    if arg == "seats":
        return t.gettext("Président is played by 3 to 8 players, Speculation by 3 to 9.")
    if arg == "bots":
        return t.gettext("Bots: from 0 to one less than the number of seats.")
    if arg == "turn_seconds":
        return t.gettext("Time per decision: 1 to 600 seconds.")
    if arg == "stake":
        return t.gettext("The stake is an even number of chips.")
    if arg == "bot_level":
        return t.gettext("Bot levels: easy, normal, hard.")
    if arg == "rules":
        return t.gettext("The Président rules are classic or tdc.")
    if arg == "game":
        return t.gettext("Games: president, speculation.")
    if arg in ("password", "new"):
        return t.gettext("The two passwords differ, or the password is empty.")
    if arg == "text":
        return t.gettext("Say something after the command.")
    if arg == "on":
        return t.gettext("Say on or off.")
    if arg == "width":
        return t.gettext("A width is a number of columns from 20 to 400.")
    if arg == "lang":
        return t.gettext("Languages: fr (français), es (español), en (English).")
    if arg == "page":
        return t.gettext("Pages of the room list are numbered from 1.")
    if arg == "free":
        return t.gettext("free is on (only the rooms with a free seat) or off (all of them).")
    if arg == "status":
        return t.gettext("A room is waiting, playing or over.")
    return None


def _argument_name(t: gettext.NullTranslations, arg: str) -> str:
    """An argument's name in the language (the protocol's name when it has no word)."""
    names = {
        "name": t.pgettext("argument", "name"),
        "room": t.pgettext("argument", "room"),
        "key": t.pgettext("argument", "key"),
        "old": t.pgettext("argument", "old password"),
        "seat": t.pgettext("argument", "seat"),
        "ante": t.pgettext("argument", "ante"),
        "rounds": t.pgettext("argument", "rounds"),
        "limit": t.pgettext("argument", "count"),
        "width": t.pgettext("argument", "width"),
        "amount": t.pgettext("argument", "amount"),
        "price": t.pgettext("argument", "price"),
        "cards": t.pgettext("argument", "cards"),
        "offer": t.pgettext("argument", "offer"),
        "to": t.pgettext("argument", "player"),
        "min_games": t.pgettext("argument", "minimum of games"),
        "seek": t.pgettext("argument", "seek number"),
        "round": t.pgettext("argument", "round"),
        "notify": t.pgettext("argument", "notices"),
        "fill": t.pgettext("argument", "fill with bots"),
        "rated": t.pgettext("argument", "rated"),
        "clear": t.pgettext("argument", "clear (remove the seed)"),
        "resume": t.pgettext("argument", "resume code"),
        "browser": t.pgettext("argument", "browser (the play page)"),
    }
    return names.get(arg, arg)


def _reason_text(
    t: gettext.NullTranslations, lang: str, code: str, reason: str | None, p: dict[str, JSONValue], style: TermStyle
) -> str | None:
    if not reason:
        return None
    shown = p.get("rank")
    rank = rank_label(lang, shown) if _has(p, "rank") and isinstance(shown, str | int) else None
    # the table's own refusals
    if reason == "not_seated":
        return t.gettext("You are watching this table: only its players can do that.")
    if (fair := fair_events.refusal(t, reason, p)) is not None:
        return fair
    if reason == "not_started":
        return t.gettext("The match has not begun: it begins when every seat is taken.")
    if reason == "no_clock":  # extend: the time bank is for a clock that waits for you
        return t.gettext("No clock is waiting for you now: keep your extra time for your turn.")
    if reason == "no_time_left":
        return t.gettext("Your time bank for this match is used up.")
    if reason == "already_seated":
        return t.gettext("You already have a seat at this table.")
    if reason == "resume_attempts":
        return t.gettext("Too many wrong resume codes for this name, or from your address, lately: try "
                         "again in a quarter of an hour.")
    if reason == "at_stake":
        return t.gettext("Your guest chips are in play at this table: log in to an account or register "
                         "once you have left it (leave), or once the match is over.")
    if reason == "account_in_use":
        return t.gettext("{name} is connected or seated elsewhere: leave this table first, then log in."
                         ).format(name=p.get("name", ""))
    if reason == "table_elsewhere":
        return t.gettext("Your table is run by another server of this community: leave it first, then "
                         "log in or register.")
    if reason == "no_tricks":
        return t.gettext("This game has no tricks: every card turned face up is on the table already.")
    if reason == "friend_guest":
        return t.gettext("{name} is a guest: only registered players can be friends. Once {name} has "
                         "registered, add them again.").format(name=p.get("name") or "?")
    if reason == "left_here":
        return t.gettext("The seat you left here is played by a bot to the end of this round, on your stake; "
                         "you can sit down here again once the round is over, or at any other table now.")
    if reason == "over" and style.browser:
        return t.gettext("This match is over: play again at this table, or leave.")
    if reason == "over":
        return t.gettext("This match is over: type rematch to play again at this table, or leave.")
    if reason == "not_over":
        return t.gettext("A rematch comes once the match is over.")
    if reason == "too_many_rooms":
        return t.gettext("The server has as many rooms open as it allows; join one of them, or try again later.")
    if reason == "must_lead":
        return t.gettext("You lead this trick: you must play, you cannot pass.")
    if reason == "must_follow_count":
        if _has(p, "count"):
            n = to_int(p["count"])
            return t.ngettext(
                "Play {count} card, like the top of the trick, or pass.",
                "Play {count} cards, like the top of the trick, or pass.",
                n,
            ).format(count=n)
        return t.gettext("Play as many cards as the top of the trick, or pass.")
    if reason == "too_weak":
        if rank:
            return t.gettext("Too weak: play {rank} or stronger, or pass.").format(rank=rank)
        return t.gettext("Too weak: play as strong as the top of the trick or stronger, or pass.")
    if reason == "ca_ou_rien":
        if rank:
            return t.gettext("“That or nothing”: play {rank} or pass.").format(rank=rank)
        return t.gettext("“That or nothing”: play the same rank again or pass.")
    if reason == "not_in_hand":
        if _has(p, "cards"):
            return t.gettext("You do not hold {cards}.").format(cards=cards_param(p["cards"], lang, style))
        return t.gettext("You do not hold those cards.")
    if reason == "not_enough":
        if rank and _has(p, "have"):
            have = to_int(p["have"])
            return t.ngettext(
                "You hold only {have} card of rank {rank}.",
                "You hold only {have} cards of rank {rank}.",
                have,
            ).format(have=have, rank=rank)
        return t.gettext("You do not hold that many cards of that rank.")
    if reason == "mixed_ranks":
        return t.gettext("All the cards of a play must have the same rank.")
    if reason in ("empty", "no_cards"):
        return t.gettext("Say which cards, for example: 7 7.")
    if reason in ("too_many", "count"):
        return t.gettext("A play has 1 to 4 cards of one rank.")
    if reason == "duplicate":
        return t.gettext("The same card is named twice.")
    if reason == "no_cut":
        return t.gettext("There is no cut at this table (classic rules).")
    if reason == "cannot_cut" and rank and _has(p, "count"):
        n = to_int(p["count"])
        return t.ngettext(
            "No cut for you: it takes the last card of rank {rank}, and you do not hold it.",
            "No cut for you: it takes the {count} remaining cards of rank {rank}, and you do not hold them all.",
            n,
        ).format(count=n, rank=rank)
    if reason == "cannot_cut":
        return t.gettext(
            "No cut possible now: a cut plays the remaining cards of the rank of a single or a pair on top of the trick."
        )
    if reason == "cut_ca_ou_rien":
        if rank:
            return t.gettext(
                "No cut after “that or nothing” on {rank}: nobody can hold the three others. "
                "Play your cards of that rank in turn."
            ).format(rank=rank)
        return t.gettext("No cut after “that or nothing”: play your cards of that rank in turn.")
    if reason == "cut_triple":
        return t.gettext("No cut after a triple: the fourth card of the rank can only follow in turn.")
    if reason == "cut_own":
        return t.gettext("You cannot cut your own play.")
    if reason == "cut_short":
        if rank:
            return t.gettext(
                "No cut on rank {rank}: some of its cards were played before, so nobody holds all the others."
            ).format(rank=rank)
        return t.gettext("No cut: some cards of that rank were played before, so nobody holds all the others.")
    if reason == "cut_closing":
        return t.gettext("No cut on a play that closed the trick.")
    if reason == "cut_moved_on":
        if rank:
            return t.gettext("Too late to cut the {rank}: the trick has moved on.").format(rank=rank)
        return t.gettext("Too late to cut: the trick has moved on.")
    if reason == "not_your_turn":
        return t.gettext("It is not your turn: wait until the play comes round to you.")
    if reason == "number":
        return t.gettext("That must be a whole number.")
    if reason == "cut_cards":
        if rank and _has(p, "count"):
            n = to_int(p["count"])
            return t.ngettext(
                "A cut here is the {count} remaining card of rank {rank}.",
                "A cut here is the {count} remaining cards of rank {rank}.",
                n,
            ).format(count=n, rank=rank)
        return t.gettext("A cut plays all the remaining cards of the rank on top of the trick.")
    if reason == "not_awaited":
        return t.gettext("Nothing is expected from you now.")
    if reason == "phase":
        return t.gettext("Not now: wait for the round to be under way.")
    if reason == "cards":
        return t.gettext("Cards are written like 7h, Th, Qs (rank then suit c, d, h, s).")
    if reason in ("too_few_players", "not_enough_players"):
        return t.gettext("Not enough players for a round.")
    if reason == "no_dealer":
        return t.gettext("Nobody can pay the dealer's double ante: no deal.")
    if reason == "deal_in_progress":
        return t.gettext("A deal is in progress.")
    if reason == "stake":
        return t.gettext("The stake is an even number of chips.")
    if reason == "seats":
        return t.gettext("Président is played by 3 to 8 players, Speculation by 3 to 9.")
    if reason == "rounds":
        return t.gettext("The number of rounds is a positive number.")
    if reason == "rules":
        return t.gettext("The Président rules are classic or tdc.")
    if reason == "fixed_seats":
        return t.gettext("The seats of a classic table are fixed for the whole match.")
    if reason == "passive":
        return t.gettext("You let your time run out: you are passive until the end of the round.")
    if reason == "give_count":
        if _has(p, "count"):
            n = to_int(p["count"])
            return t.ngettext("Give exactly {count} card.", "Give exactly {count} cards.", n).format(count=n)
        return t.gettext("Give the number of cards the exchange asks for.")
    if reason in ("no_exchange", "no_give"):
        return t.gettext("You have no cards to give now.")
    if reason == "no_cards_to_turn":
        return t.gettext("You have no face-down card left to turn.")
    if reason == "holder_turns_not":
        return t.gettext("You hold the best trump: you do not turn.")
    if reason == "auction_open":
        return t.gettext("Wait: an auction is open. Bid, or let it close first.")
    if reason == "no_auction":
        return t.gettext("No auction is open.")
    if reason == "own_auction":
        return t.gettext("You cannot bid on your own card: sell or keep it.")
    if reason == "not_owner":
        return t.gettext("Only the owner of the card on sale can sell or keep it.")
    if reason == "no_bid":
        return t.gettext("Nobody has bid yet: you can only keep the card.")
    if reason == "bid_too_low":
        if _has(p, "min"):
            n = to_int(p["min"])
            return t.ngettext("Bid at least {min} chip.", "Bid at least {min} chips.", n).format(min=n)
        return t.gettext("Bid more than the best bid.")
    if reason in ("bid_over_chips", "price_over_chips"):
        if _has(p, "max"):
            n = to_int(p["max"])
            return t.ngettext(
                "You can offer at most {max} chip.", "You can offer at most {max} chips.", n
            ).format(max=n)
        return t.gettext("You cannot offer more chips than you have.")
    if reason == "price_too_low":
        return t.gettext("A price is at least 1 chip.")
    if reason == "bad_count":
        if _has(p, "max"):
            n = to_int(p["max"])
            return t.ngettext(
                "That player has {max} face-down card: ask for 1 to {max}.",
                "That player has {max} face-down cards: ask for 1 to {max}.",
                n,
            ).format(max=n)
        return t.gettext("Ask for at least one of that player's face-down cards.")
    if reason == "no_deal":
        return t.gettext("No deal is being played now.")
    if reason == "no_such_offer":
        if _has(p, "offer"):
            return t.gettext("There is no open offer #{offer}.").format(offer=p["offer"])
        return t.gettext("There is no such open offer.")
    if reason == "bad_target":
        return t.gettext("Offers go to another player of this deal.")
    if reason == "match_over":
        return t.gettext("This match is over.")
    if reason in ("no_such_seat", "seat"):
        return t.gettext("There is no such seat at this table.")
    if reason == "rooms_per_account":
        if _has(p, "max"):
            n = to_int(p["max"])
            return t.ngettext(
                "You already have {max} room open; join a room, or wait until yours closes.",
                "You already have {max} rooms open; join a room, or wait until one of yours closes.",
                n,
            ).format(max=n)
        return t.gettext("You already have rooms open; join a room, or wait until one of yours closes.")
    if reason == "rooms_per_address":
        if _has(p, "max"):
            n = to_int(p["max"])
            return t.ngettext(
                "Guests from your address already have {max} room open; join an open room, or register to open one.",
                "Guests from your address already have {max} rooms open; join an open room, or register to open one.",
                n,
            ).format(max=n)
        return t.gettext("Guests from your address already have rooms open; join an open room, or register to open one.")
    if reason == "guest_rooms":
        return t.gettext("All the rooms guests may open are taken; join an open room, or register to open one.")
    if reason == "self_offer":
        return t.gettext("You cannot trade with yourself.")
    if reason == "not_party":
        return t.gettext("That offer is not yours to answer.")
    if reason == "not_buyer":
        return t.gettext("Only the player who made the offer can withdraw it.")
    if reason == "sitting_out":
        return t.gettext("You sit this deal out.")
    if reason == "no_trading":
        return t.gettext("Trading is only possible while cards are being turned.")
    return None


def _rank_plays(plays: Sequence[JSONValue], lang: str, limit: int = 4) -> list[str]:
    """Plays as people type them: ``9 9``, ``D D`` (any cards of that rank: suits never matter)."""
    shown = []
    for play in plays[:limit]:
        if isinstance(play, Sequence) and len(play) == 2 and isinstance(play[1], int):
            shown.append(" ".join([rank_label(lang, str(play[0]))] * play[1]))
    return shown


def _can_play(t: gettext.NullTranslations, shown: Sequence[str], total: int) -> str:
    """``You can play: 7, 8, 9, Q and 2 other plays.``: a play's cards never part across lines (no-break
    spaces), and what is left out is counted, not hinted at with an ellipsis."""
    plays = ", ".join(p.replace(" ", "\u00a0") for p in shown)
    more = total - len(shown)
    if more > 0:
        return t.ngettext("You can play: {plays} and {n} other play.",
                          "You can play: {plays} and {n} other plays.", more).format(plays=plays, n=more)
    return t.gettext("You can play: {plays}.").format(plays=plays)


def _legal_suffix(t: gettext.NullTranslations, lang: str, code: str, p: dict[str, JSONValue], style: TermStyle) -> str:
    if "legal" not in p:
        return ""
    legal = p["legal"]
    if isinstance(legal, Mapping):  # the engine's compact form: {"plays": [[rank, count]...], "pass": bool}
        plays = legal.get("plays")
        if not isinstance(plays, Sequence):
            return ""
        if not plays:
            return t.gettext("You can only pass.") if legal.get("pass") else ""
        return _can_play(t, _rank_plays(plays, lang), len(plays))
    if isinstance(legal, Sequence) and not isinstance(legal, str):
        plays = [x for x in legal if x]
        if not plays:
            return t.gettext("You can only pass.")
        return _can_play(t, [cards_param(p, lang, style) for p in plays[:4]], len(plays))
    return ""


