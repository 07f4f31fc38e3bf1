"""The words of fair deals (docs/fairness.md): contributions, their refusals, and ``verify``'s steps."""

from __future__ import annotations

import gettext
from collections.abc import Mapping, Sequence

from server.messages.kit import T, event, named, seat_name
from server.messages.terminal import PLAIN, TermStyle
from server.messages.translations import translation
from server.protocol import JSONValue, Push, Result


@event("contributed", seats=named("seat"))
def _ev_contributed(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
                    style: TermStyle) -> str | None:
    seat = e.get("seat")
    if seat == you:
        return t.gettext("Your randomness is in deal {round}.").format(round=e.get("round", ""))
    return t.gettext("{name} added randomness to deal {round}.").format(
        name=seat_name(names, seat, lang), round=e.get("round", ""))


READ_AND_TYPE = 10.0
"""Seconds a person needs to read the commitment line and type ``seed TEXT``: a shorter window is not
offered to them as one they can meet (its seed counts from the next deal, or this one if typed in time)."""


def window_hint(lang: str, seconds: float, style: TermStyle = PLAIN) -> str:
    """Said with a deal's commitment to a seated person: how to add their own randomness (at the play
    page: with its field *Your randomness*, which sends ``seed``)."""
    n = int(seconds) if float(seconds).is_integer() else seconds
    if style.browser:
        if seconds < READ_AND_TYPE:
            return translation(lang).gettext(
                "Mix your own randomness into the next deals with the field “Your randomness”.")
        return translation(lang).gettext(
            "Within {n} s, mix your own randomness into this deal and the next ones with the field "
            "“Your randomness”.").format(n=n)
    if seconds < READ_AND_TYPE:  # a few seconds: nobody reads the line and types a seed in them
        return translation(lang).gettext("Type “seed TEXT” to mix your own randomness into the next deals.")
    return translation(lang).gettext(
        "Type “seed TEXT” within {n} s to mix your own randomness into this deal and the next ones.").format(n=n)


def refusal(t: gettext.NullTranslations, reason: str | None, p: Mapping[str, object]) -> str | None:
    """The sentence of a refused contribution: the error code (``entropy_closed``, ``entropy_given``) or
    the reason of ``bad_entropy`` (``engine.fairness.normalize_contribution``'s)."""
    if reason == "entropy_closed":
        return t.gettext("Too late: the randomness of this deal is collected only in the few seconds after its "
                         "commitment. Your text was not used; a seed you set counts from the next deal.")
    if reason == "entropy_given":
        return t.gettext("Your randomness for this deal is already in; it cannot be changed.")
    if reason == "contribution_characters":
        return t.gettext("A seed may not contain control characters.")
    if reason == "contribution_invisible":
        return t.gettext("A seed may not contain invisible characters (direction marks, zero-width joiners).")
    if reason == "contribution_marks":
        return t.gettext("A seed may carry at most two accents on a letter.")
    if reason == "contribution_too_long":
        return t.gettext("A seed is at most {max} bytes long (letters with accents count double).").format(
            max=p.get("max", 64))
    if reason == "contribution":
        return t.gettext("A seed is a short text, for example: seed 7f3a kiwi 19")
    return None


def not_verifiable(t: gettext.NullTranslations, p: Mapping[str, object]) -> str:
    return t.gettext("Round {round} has no deal record to check (an older round, or one that never finished).").format(
        round=p.get("round", ""))


# -- verify ---------------------------------------------------------------------------------------


def step_text(lang: str, code: str, result: str, values: Mapping[str, JSONValue], names: Sequence[str] = (),
              decks: bool = False) -> str:
    """One step of a ``verify`` report in words: what was checked and what was found (``names``:
    the round's seats, to name them; ``decks``: the report checks committed decks, not a revealed seed)."""
    t = translation(lang)
    ok = result == "pass"
    v = values

    def _seats(values: Mapping[str, JSONValue], key: str) -> str:
        got = values.get(key)
        if not isinstance(got, list) or not got:
            return "-"
        return ", ".join(seat_name(names, s, lang) for s in got)

    def _one(key: str) -> str:
        return seat_name(names, v.get(key), lang)

    if code == "format":
        return t.gettext("The record is complete and well formed.") if ok else \
            t.gettext("The record is damaged: field “{field}”.").format(field=v.get("field", ""))
    if code == "commitment_seen":
        if result == "note":
            return t.gettext("No announced commitment to compare with.")
        return t.gettext("The record's commitment is the one announced before the deal.") if ok else \
            t.gettext("The record's commitment differs from the one announced before the deal!")
    if code == "commitment" and decks:
        return t.gettext("The 16 committed decks give the announced commitment again.") if ok else \
            t.gettext("The committed decks do NOT give the announced commitment: the deal was changed after it.")
    if code == "commitment":
        return t.gettext("The revealed secret gives the announced commitment again.") if ok else \
            t.gettext("The revealed secret does NOT give the announced commitment: the deal was changed after it.")
    if code == "decks":
        return t.gettext("The {n} decks not dealt, opened in full, are real shuffles.").format(n=v.get("checked", 15)) \
            if ok else t.gettext("Decks not dealt do not match their commitment: {decks}.").format(
                decks=_seats(v, "wrong"))
    if code == "hashes":
        return t.gettext("The card-by-card fingerprints of the dealt deck match its commitment.") if ok else \
            t.gettext("The card-by-card fingerprints do NOT match the dealt deck's commitment.")
    if code == "contributions":
        if ok and not v.get("none"):
            return t.gettext("Every seat contributed ({given}).").format(given=_seats(v, "given"))
        return t.gettext("Contributions from {given}; none from {none}.").format(
            given=_seats(v, "given"), none=_seats(v, "none")) if ok else \
            t.gettext("The contribution of {seat} is malformed.").format(seat=_one("seat"))
    if code == "bots":
        return t.gettext("The bots' contributions are the public ones ({bots}).").format(bots=_seats(v, "bots")) \
            if ok else t.gettext("Bots {seats} did not give their public contribution!").format(
                seats=_seats(v, "wrong"))
    if code == "entropy":
        return t.gettext("Players' randomness went into the deal ({seats}).").format(seats=_seats(v, "players")) \
            if ok else t.gettext("No player added randomness: the server alone chose this deal.")
    if code == "own_contribution":
        if result == "note":
            return t.gettext("You sent no contribution to this deal, or did not play it.")
        if ok and v.get("sent") is None:
            return t.gettext("You added no randomness to this deal, and the record has none from you.")
        return t.gettext("Your own contribution is in the record, unchanged.") if ok else \
            t.gettext("Your contribution is NOT the one in the record!")
    if code in ("deal_seed", "mix"):
        return t.gettext("The shuffle follows from the secret and every contribution.") if ok else \
            t.gettext("The shuffle does NOT follow from the secret and the contributions!")
    if code == "chosen":
        return t.gettext("The deck dealt is the one the contributions chose (deck {deck}).").format(
            deck=v.get("chosen", "")) if ok else t.gettext("The deck dealt is not the one the contributions chose!")
    if code == "order":
        return t.gettext("The dealing order starts at the dealer's left and ends with the dealer.") if ok else \
            t.gettext("The dealing order is wrong!")
    if code == "dealer":
        if result == "note":
            return t.gettext("The dealer followed from the previous deal ({seat}).").format(seat=_one("dealer"))
        return t.gettext("The dealer was drawn from the deal ({seat}).").format(seat=_one("dealer")) \
            if ok else t.gettext("The dealer is not the one drawn from the deal!")
    if code == "hands":
        return t.gettext("Every hand in the record is the one the shuffle deals.") if ok else \
            t.gettext("The hands of {seats} are not the ones the shuffle deals!").format(seats=_seats(v, "wrong"))
    if code == "hands_seen":
        if result == "note":
            return t.gettext("You held no hand in this round.")
        return t.gettext("The hand you were dealt is the one the shuffle deals.") if ok else \
            t.gettext("The hand you were dealt is NOT the one the shuffle deals!")
    if code == "openings":
        return t.gettext("Each of the {n} cards shown was at its committed place.").format(n=v.get("count", "")) \
            if ok else t.gettext("A card shown (index {index}) was not at its committed place ({problem}).").format(
                index=v.get("index", ""), problem=v.get("problem", ""))
    if code == "cards_seen":
        if result == "note":
            return t.gettext("No cards seen to compare with.")
        return t.gettext("The {n} cards you saw are exactly the ones opened.").format(n=v.get("count", "")) \
            if ok else t.gettext("A card you saw (index {index}) is not the one opened!").format(index=v.get("index", ""))
    return code


def verify_title(lang: str, reply: Result) -> str:
    t = translation(lang)
    if reply.get("ok"):
        return t.gettext("Round {round}: the deal checks out, step by step:").format(round=reply.get("round", ""))
    return t.gettext("Round {round}: the deal does NOT check out:").format(round=reply.get("round", ""))


def result_mark(lang: str, result: str) -> str:
    t = translation(lang)
    return {"pass": t.gettext("ok"), "fail": t.gettext("FAILED"), "note": t.gettext("note")}.get(result, result)


def verify_footer(lang: str, checker: str | None = None) -> str:
    """How to check a deal without trusting the server: with the checker the operator offers at
    ``checker`` (``verify_url``), else by the record and the public method."""
    t = translation(lang)
    if checker:
        return t.gettext("This check ran on the server. To check without trusting it, run the independent "
                         "checker from {url} on this round's record (the machine mode, JSON, gives it).").format(
                             url=checker)
    return t.gettext("This check ran on the server. To check without trusting it, ask for this round's record "
                     "in the machine mode (JSON) and check it yourself: the method is public.")
