"""The play page's own labels, from the server's gettext catalogs.

The page fetches ``/api/i18n/<lang>`` once and draws every label from it; the messages, events
and errors it shows arrive already in the session's language. The texts here are ordinary
msgids in the context ``web`` (so short words never clash with the terminal's), extracted by
``make i18n`` and translated in ``i18n/*/LC_MESSAGES/donne.po`` like every other text.
Counted labels are pairs (singular, plural form) and the page picks one with the language's
plural rule.
"""

from __future__ import annotations

from gettext import NullTranslations

from server.messages.labels import RANK_CODES, SUIT_CODES, card_words, rank_label
from server.messages.translations import LANGS, normalize_lang, translation

Label = str | list[str]


def page_labels(lang: str | None) -> dict[str, Label]:
    """Every label of the play page in ``lang`` (English when donne does not speak it)."""
    t = translation(normalize_lang(lang) or "en")
    labels: dict[str, Label] = {**_words(t), **_sentences(t), **_counted(t), **card_labels(lang)}
    return labels


def card_labels(lang: str | None) -> dict[str, str]:
    """How cards are drawn and said (``static/cards.js``): ``rank_Q`` the letter printed on a rank
    (fr ``D``), ``card_Qh`` a card in words for screen readers (fr ``dame de cœur``)."""
    code = normalize_lang(lang) or "en"
    out = {f"rank_{r}": rank_label(code, r) for r in RANK_CODES}
    out.update({f"card_{r}{s}": card_words(r + s, code) for r in RANK_CODES for s in SUIT_CODES})
    return out


def _words(t: NullTranslations) -> dict[str, Label]:
    return {
        "who": t.pgettext("web", "Who"),
        "tables": t.pgettext("web", "Tables"),
        "leaderboard": t.pgettext("web", "Leaderboards"),
        "terminal": t.pgettext("web", "Terminal"),
        "language": t.pgettext("web", "Language"),
        "name": t.pgettext("web", "Name"),
        "password": t.pgettext("web", "Password (accounts only)"),
        "login": t.pgettext("web", "Log in"),
        "register": t.pgettext("web", "Create my account"),
        "lobby": t.pgettext("web", "Lobby"),
        "new_table": t.pgettext("web", "New table"),
        "game": t.pgettext("web", "Game"),
        "classic": t.pgettext("web", "Président"),
        "tdc": t.pgettext("web", "Président (tdc)"),
        "speculation": t.pgettext("web", "Speculation"),
        "seats": t.pgettext("web", "Seats"),
        "bots": t.pgettext("web", "Bots"),
        "create": t.pgettext("web", "Create"),
        "seek": t.pgettext("web", "Seek players"),
        "rooms": t.pgettext("web", "Tables"),
        "seeks": t.pgettext("web", "Seeks"),
        "leave": t.pgettext("web", "Leave"),
        "your_hand": t.pgettext("web", "Your hand"),
        "messages": t.pgettext("web", "Messages"),
        "chat": t.pgettext("web", "Chat"),
        "chat_placeholder": t.pgettext("web", "Say something"),
        "send": t.pgettext("web", "Send"),
        "join": t.pgettext("web", "Join"),
        "watch": t.pgettext("web", "Watch"),
        "accept": t.pgettext("web", "Accept"),
        "play": t.pgettext("web", "Play"),
        "pass": t.pgettext("web", "Pass"),
        "give": t.pgettext("web", "Give"),
        "cut": t.pgettext("web", "Cut"),
        "turn": t.pgettext("web", "Turn a card"),
        "sell": t.pgettext("web", "Sell"),
        "keep": t.pgettext("web", "Keep"),
        "bid": t.pgettext("web", "Bid"),
        "offer": t.pgettext("web", "Offer"),
        "decline": t.pgettext("web", "Decline"),
        "withdraw": t.pgettext("web", "Withdraw"),
        "rematch": t.pgettext("web", "Play again"),
        "lobby_back": t.pgettext("web", "Back to the lobby"),
        "round": t.pgettext("web", "round"),
        # TRANSLATORS: a Speculation deal, as the table's messages call it.
        "deal": t.pgettext("web", "deal"),
        "you": t.pgettext("web", "you"),
        "bot": t.pgettext("web", "bot"),
        "chips": t.pgettext("web", "chips"),
        "passed": t.pgettext("web", "passed"),
        "trump": t.pgettext("web", "trump"),
        "pool": t.pgettext("web", "pool"),
        "auction": t.pgettext("web", "On sale"),
        "best_bid": t.pgettext("web", "best bid"),
        "price": t.pgettext("web", "price"),
        "to": t.pgettext("web", "to"),
        "offer_cards": t.pgettext("web", "cards"),
        # TRANSLATORS: before the offer's fields at Speculation: to whom, how many cards, at what price (S9).
        "offer_what": t.pgettext("web", "Buy face-down cards"),
        "guest": t.pgettext("web", "guest"),
        "playing": t.pgettext("web", "playing"),
        "seat": t.pgettext("web", "seat"),
        "status_waiting": t.pgettext("web", "waiting"),
        "status_playing": t.pgettext("web", "playing"),
        "status_over": t.pgettext("web", "over"),
        # TRANSLATORS: between a label and its value ("On sale: …"); French puts a no-break space first.
        "colon": t.pgettext("web", ": "),
        "title_president": t.pgettext("web", "President"),
        "title_vice_president": t.pgettext("web", "Vice-President"),
        "title_neutral": t.pgettext("web", "Neutral"),
        "title_vice_last": t.pgettext("web", "Vice-Scum"),
        "title_last": t.pgettext("web", "Scum"),
        "tell": t.pgettext("web", "Tell"),
        "tell_to": t.pgettext("web", "To whom"),
        "reply": t.pgettext("web", "Reply"),
        "challenge": t.pgettext("web", "Challenge"),
        "challenges": t.pgettext("web", "Challenges"),
        "no_challenges": t.pgettext("web", "No challenge."),
        "offer_clock": t.pgettext("web", "answer within"),
        "cut_window": t.pgettext("web", "cut window"),
        "trade_window": t.pgettext("web", "time to trade"),
        "extend": t.pgettext("web", "More time"),
        "rounds_count": t.pgettext("web", "Rounds in the match"),
        "deals_count": t.pgettext("web", "Deals in the match"),
        # TRANSLATORS: the placeholder of the create form's rounds field, left empty for the game's usual number.
        "rounds_usual": t.pgettext("web", "usual"),
        "standings": t.pgettext("web", "Final standings"),
        # TRANSLATORS: the field where a player mixes their own randomness into the fair deals (the words
        # "Your randomness" are quoted by the server's sentence after a deal's commitment: keep them alike).
        "seed_label": t.pgettext("web", "Your randomness"),
        "seed_placeholder": t.pgettext("web", "any text: it is shown in the deal's record"),
        "seed_give": t.pgettext("web", "Mix in"),
        "seed_set": t.pgettext("web", "Mixed into every deal you play from now on."),
        "seed_set_now": t.pgettext("web", "Mixed into deal {n} and every deal you play from now on."),
        "tournaments": t.pgettext("web", "Tournaments"),
        "tour_arena": t.pgettext("web", "arena"),
        "tour_swiss": t.pgettext("web", "Swiss"),
        "tour_over": t.pgettext("web tournament", "over"),
        "tour_round": t.pgettext("web", "round {n} of {m}"),
        "tour_joined": t.pgettext("web", "you are in"),
        "tour_join": t.pgettext("web", "Enter"),
        "tour_leave": t.pgettext("web tournament", "Withdraw"),
        "tour_standings": t.pgettext("web", "Standings"),
        "tour_rank": t.pgettext("web", "Rank"),
        "tour_points": t.pgettext("web", "Points"),
        # TRANSLATORS: a Swiss event's first tie-break: the sum of the points of everyone one played.
        "tour_opponents": t.pgettext("web", "Opponents' points"),
        # TRANSLATORS: the column of the opponents' points, short (its full name shows on hover).
        "tour_opp": t.pgettext("web", "Opp."),
        "tour_games": t.pgettext("web", "Games"),
        "tour_wins": t.pgettext("web", "Wins"),
        "tour_notes": t.pgettext("web", "Notes"),
        "tour_fire": t.pgettext("web", "on a streak"),
        "tour_provisional": t.pgettext("web", "still playing"),
        "tour_left": t.pgettext("web", "withdrew"),
        "tour_final": t.pgettext("web", "Final standings of tournament {id}"),
        "tour_live": t.pgettext("web", "Standings of tournament {id}"),
        "close": t.pgettext("web", "Close"),
    }


def _sentences(t: NullTranslations) -> dict[str, Label]:
    return {
        "welcome": t.pgettext("web", "Welcome to donne"),
        "guest_hint": t.pgettext("web", "Without a password you play as a guest."),
        "register_hint": t.pgettext(
            "web", "New here? Choose a name and a password, then create your account."
        ),
        "no_rooms": t.pgettext("web", "No table open yet."),
        "no_seeks": t.pgettext("web", "No seek."),
        "your_turn": t.pgettext("web", "Your turn."),
        "lead": t.pgettext("web", "Your turn: lead any cards of one rank."),
        "follow": t.pgettext("web", "Your turn: beat the play or pass."),
        "watching": t.pgettext("web", "You are watching."),
        "waiting": t.pgettext("web", "Waiting for players…"),
        "over": t.pgettext("web", "The match is over."),
        "turn_of": t.pgettext("web", "{name} to play"),
        "must": t.pgettext("web", "That or nothing: {rank}"),
        "seconds": t.pgettext("web", "{n} s"),
        "spectator_hand": t.pgettext("web", "Spectators see no hand."),
        "select_hint": t.pgettext("web", "Select cards, then Play."),
        "tell_placeholder": t.pgettext("web", "A private message"),
        "challenged_by": t.pgettext("web", "{name} challenges you"),
        "no_tournaments": t.pgettext("web", "No tournament open."),
    }


def _counted(t: NullTranslations) -> dict[str, Label]:
    return {
        "cards": [
            t.npgettext("web", "{n} card", "{n} cards", 1),
            t.npgettext("web", "{n} card", "{n} cards", 2),
        ],
        "points": [t.npgettext("web", "{n} pt", "{n} pts", 1), t.npgettext("web", "{n} pt", "{n} pts", 2)],
        "chips_n": [t.npgettext("web", "{n} chip", "{n} chips", 1), t.npgettext("web", "{n} chip", "{n} chips", 2)],
        "seats_n": [t.npgettext("web", "{n} seat", "{n} seats", 1), t.npgettext("web", "{n} seat", "{n} seats", 2)],
        "tour_starts": [t.npgettext("web", "starts in {n} minute", "starts in {n} minutes", 1),
                        t.npgettext("web", "starts in {n} minute", "starts in {n} minutes", 2)],
        "tour_ends": [t.npgettext("web", "ends in {n} minute", "ends in {n} minutes", 1),
                      t.npgettext("web", "ends in {n} minute", "ends in {n} minutes", 2)],
        "tour_entrants": [t.npgettext("web", "{n} entrant", "{n} entrants", 1),
                          t.npgettext("web", "{n} entrant", "{n} entrants", 2)],
        "give_now": [
            t.npgettext("web", "Choose {n} card to give.", "Choose {n} cards to give.", 1),
            t.npgettext("web", "Choose {n} card to give.", "Choose {n} cards to give.", 2),
        ],
    }


__all__ = ["LANGS", "Label", "card_labels", "page_labels"]
