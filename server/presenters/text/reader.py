"""The table for a screen reader (``style.reader``): one fact per line, the prompt last.

No box drawing, no columns padded with spaces, no symbols (``▶``, ``·``, suits), no colour;
cards, counts and seconds in words, in the player's language: ``Bob : dix-sept cartes, trois
points.``, ``Ta main, dix-sept cartes : trois de trèfle, …``. Président is said here, Speculation
in :mod:`server.presenters.text.reader_speculation`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from server.games.states import State
from server.messages.kit import seats_in, to_int
from server.messages.labels import card_words, game_name, rules_name, title_name
from server.messages.spoken import before_noun, number_words, ordinal_words
from server.messages.terminal import TermStyle, wrap_text
from server.messages.translations import normalize_lang, translation
from server.presenters.text.context import give_count
from server.presenters.text.draw import seat_names, seconds_of, sort_hand, verb_word, window_line
from server.protocol import JSONValue, Push, items_in

FEMININE = {"card": ("fr", "es"), "second": ("fr",), "chip": ("es",), "point": ()}
"""The nouns counted here that are feminine, per language (fr une carte, es una carta...)."""


def count_words(n: int, lang: str, noun: str) -> str:
    """``n`` in words agreeing with ``noun`` (card, second, chip, point), which follows it."""
    code = normalize_lang(lang) or "en"
    feminine = code in FEMININE.get(noun, ())
    words = number_words(n, lang, feminine=feminine)
    return before_noun(words) if code == "es" and not feminine else words  # un punto, veintiún segundos


def cards_count(n: int, lang: str) -> str:
    t = translation(lang)
    return str(t.ngettext("{n} card", "{n} cards", n)).format(n=count_words(n, lang, "card"))


def seconds_words(n: int, lang: str) -> str:
    """``trente secondes``: a time left, in words."""
    t = translation(lang)
    # TRANSLATORS: a time left said in words for a screen reader ("thirty seconds").
    return str(t.ngettext("{n} second", "{n} seconds", n)).format(n=count_words(n, lang, "second"))


def spoken_seconds(lang: str, n: int) -> str:
    """The time left at the end of a prompt: ``Trente secondes.``"""
    return sentence(seconds_words(n, lang).capitalize())


def spoken_countdown(lang: str, n: int, mine: bool) -> str:
    t = translation(lang)
    words = seconds_words(n, lang)
    # TRANSLATORS: a screen reader's countdown; {time} is "ten seconds" in words.
    text = t.gettext("{time} left to decide.").format(time=words) if mine else \
        t.gettext("{time} left.").format(time=words)
    return text[:1].upper() + text[1:]


_NUMBER = re.compile(r"(?<![\w.,=])([+-]?\d{1,6})(?![\w.,]\w|\d)(\s+([^\W\d_]+)(?![=\w]))")
_COLUMNS = re.compile(r"(?<=\S) {2,}")
PLUS = {"fr": "plus", "es": "más", "en": "plus"}
_FEMININE_WORDS = {
    "fr": ("carte", "cartes", "seconde", "secondes", "manche", "manches", "partie", "parties", "place", "places"),
    "es": ("carta", "cartas", "ficha", "fichas", "ronda", "rondas", "partida", "partidas"),
}


def spoken_numbers(text: str, lang: str) -> str:
    """The counts of a sentence in words (``17 cartes`` -> ``dix-sept cartes``), agreeing with the
    noun that follows; a number no word follows (``place 0``, ``par exemple 3``: what is typed) and
    numbers inside words (``r12``, a hash) stay as they are."""
    feminine = _FEMININE_WORDS.get(normalize_lang(lang) or "en", ())

    code = normalize_lang(lang) or "en"

    def said(m: re.Match[str]) -> str:
        digits, noun = m.group(1), m.group(3) or ""
        female = noun.lower() in feminine
        words = number_words(int(digits), lang, feminine=female)
        if code == "es" and noun.isalpha() and not female:
            words = before_noun(words)  # un punto, veintiún puntos
        if digits.startswith("+"):
            words = f"{PLUS.get(code, 'plus')} {words}"
        return words + (m.group(2) or "")

    text = spoken_ordinals(spoken_times(text, lang), lang)
    return _COLUMNS.sub(" ", _NUMBER.sub(said, text))  # (columns padded with spaces: one space)


_ORDINAL = {
    "fr": re.compile(r"(?<![\w.#])(\d{1,2})(er|re|e)(?!\w)"),
    "es": re.compile(r"(?<![\w.#])(\d{1,2})\.([ºª])(?!\w)"),
    "en": re.compile(r"(?<![\w.#])(\d{1,2})(st|nd|rd|th)(?!\w)"),
}
_RANKING = re.compile(r"(?<![\w.,#:])(\d{1,2})\.[ \u00a0](?=[^\W\d_])")
_LABEL = re.compile(r"(?<=[^\W\d_] )(\d{1,4})(?=[ \u00a0]?:(?!\d))")
_SECONDS = re.compile(r"(?<![\w.,#])(\d{1,4})[ \u00a0]s(?!\w)")


def spoken_ordinals(text: str, lang: str) -> str:
    """Places in words: ``1er rang`` -> ``premier rang``, ``en 1.º lugar`` -> ``en primer lugar``,
    ``out, 3rd`` -> ``out, third``; a ranking ``1. Carmen, 2. Zoé`` -> ``premier Carmen, deuxième
    Zoé``; a numbered label ``Manche 2 :`` -> ``Manche deux :``."""
    code = normalize_lang(lang) or "en"

    def place(m: re.Match[str]) -> str:
        n, mark = int(m.group(1)), m.group(2)
        before = code == "es" and text[m.end():m.end() + 6].strip().startswith("lugar")
        words = ordinal_words(n, lang, feminine=mark in ("re", "ª"), before=before)
        return words if words is not None else m.group(0)

    def ranked(m: re.Match[str]) -> str:
        words = ordinal_words(int(m.group(1)), lang)
        return f"{words}\u00a0" if words is not None else m.group(0)

    text = _ORDINAL.get(code, _ORDINAL["en"]).sub(place, text)
    text = _RANKING.sub(ranked, text)
    return _LABEL.sub(lambda m: number_words(int(m.group(1)), lang), text)


def spoken_times(text: str, lang: str) -> str:
    """Seconds in words: ``dans les 2 s`` -> ``dans les deux secondes``, ``(12 s)`` -> ``(douze
    secondes)``."""
    return _SECONDS.sub(lambda m: seconds_words(int(m.group(1)), lang), text)


def score_lines(event: Push, lang: str, names: Sequence[str]) -> list[str]:
    """A round's or a match's scores, one sentence a player: ``Carmen : plus trois points, total
    trois points.`` (where the drawn table aligns columns)."""
    t = translation(lang)
    totals, scores = items_in(event.get("totals")), items_in(event.get("scores"))
    chips, changes = event.get("chips"), event.get("changes")
    if not totals and not chips:
        return []
    order = seats_in(event.get("ranking")) or list(range(len(totals)))
    if event.get("event") == "match_over":
        order = sorted(range(len(totals)), key=lambda s: -to_int(totals[s] or 0))

    def at(values: JSONValue, s: int) -> int | None:
        got = items_in(values)
        return to_int(got[s]) if s < len(got) and got[s] is not None else None

    def points(n: int) -> str:
        return str(t.ngettext("{n} point", "{n} points", abs(n))).format(n=count_words(n, lang, "point"))

    def chip_count(n: int) -> str:
        return str(t.ngettext("{n} chip", "{n} chips", abs(n))).format(n=count_words(n, lang, "chip"))

    lines = []
    for s in order:
        facts = []
        if chips:
            c = at(chips, s)
            if c is not None:
                plus = PLUS.get(normalize_lang(lang) or "en", "plus") + " " if c > 0 else ""
                facts.append(plus + chip_count(c))  # (a loss: "moins trois jetons")
        elif event.get("event") == "round_over" and scores:
            p = at(scores, s)
            if p is not None:
                facts.append(points(p))
        total = at(totals, s)
        if total is not None:
            # TRANSLATORS: a screen reader's score line: "total: three points".
            facts.append(t.gettext("total: {n}").format(n=chip_count(total) if changes else points(total)))
        name = names[s] if s < len(names) else "?"
        lines.append("  " + sentence(said(lang, name, ", ".join(facts))))
    return lines


def said(lang: str, name: str, facts: str) -> str:
    """``Zoé : dix-sept cartes`` (the language's colon)."""
    # TRANSLATORS: a screen reader's line about a seat or a play: "Zoé: seventeen cards, three points".
    return str(translation(lang).pgettext("screen reader", "{name}: {facts}")).format(name=name, facts=facts)


def sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?…:" else text + "."


def spoken_header(state: State, lang: str) -> str:
    """The game, the table, the round (in words), the room and the stake, as one sentence."""
    t = translation(lang)
    parts = [game_name(lang, state.get("game"))]
    rules = rules_name(lang, state.get("rules"))
    if rules:
        parts.append(rules)
    rnd = state.get("round")
    if rnd:
        total = state.get("rounds")  # (no key of State: no table sends it; read as before)
        n = number_words(int(rnd), lang)
        parts.append(t.gettext("round {n} of {total}").format(n=n, total=number_words(int(total), lang))
                     if isinstance(total, int) and total
                     else t.gettext("round {n}").format(n=n))
    if state.get("room") is not None:
        parts.append(t.gettext("room {room}").format(room=state["room"]))
    if state.get("stake"):
        k = int(state["stake"])
        parts.append(str(t.ngettext("stake {n} chip", "stake {n} chips", k)).format(n=count_words(k, lang, "chip")))
    return ", ".join(str(p) for p in parts)


def president_lines(state: State, lang: str, style: TermStyle, status: bool = True) -> list[str]:
    t = translation(lang)
    width = style.width
    names = seat_names(state, lang)
    you = state.get("you")
    lines = wrap_text(sentence(spoken_header(state, lang)), width)
    dealt = bool(state.get("round"))
    for seat, s in enumerate(state.get("seats") or []):
        name = names[seat]
        if seat == you:
            # TRANSLATORS: a screen reader names the reader's own seat so ("Zoé, you").
            name = t.gettext("{name}, you").format(name=name)
        facts: list[str] = []
        if dealt:
            facts.append(cards_count(int(s.get("cards") or 0), lang))
        if s.get("chips") is not None:
            c = int(s["chips"])
            facts.append(str(t.ngettext("{n} chip", "{n} chips", abs(c))).format(n=count_words(c, lang, "chip")))
        elif s.get("score") is not None:
            p = int(s["score"])
            facts.append(str(t.ngettext("{n} point", "{n} points", p)).format(n=count_words(p, lang, "point")))
        title = title_name(lang, s.get("title"))
        if title:
            facts.append(title)
        place = s.get("place")
        if place:
            facts.append(t.gettext("out {place}").format(place=number_words(int(place), lang)))
        if s.get("passive"):
            facts.append(t.gettext("passive"))
        elif s.get("passed") and not s.get("place"):
            facts.append(t.pgettext("seat state", "passed"))
        if s.get("playing") is False:
            facts.append(t.gettext("sits out"))
        if s.get("connected") is False and s.get("name"):
            facts.append(t.gettext("away"))
        if state.get("turn") == seat:
            # TRANSLATORS: a screen reader says whose turn it is in the seat's line.
            facts.append(t.gettext("to play"))
        lines += wrap_text(sentence(said(lang, name, ", ".join(facts)) if facts else name), width, indent="  ")
    if state.get("order") == "reversed":
        lines.append(t.gettext("Revolution: order reversed, 3 is the strongest."))
    trick = state.get("trick") or []
    if trick:
        lines.append(t.gettext("Trick:"))
        for play in trick:
            who = names[play["seat"]] if 0 <= play.get("seat", -1) < len(names) else "?"
            if play.get("pass"):
                text = t.gettext("{name} passes").format(name=who)
            else:
                text = said(lang, who, ", ".join(card_words(c, lang) for c in play.get("cards") or []))
            lines += wrap_text(sentence(text), width, indent="  ")
    elif state.get("phase") == "play":
        lines.append(t.gettext("Trick: empty table."))
    hand = state.get("hand")
    if hand is not None:
        ordered = sort_hand(hand, state.get("order") or "normal")
        # TRANSLATORS: a screen reader's hand: "Your hand, seventeen cards: three of clubs, ..."
        first = t.ngettext("Your hand, {n} card:", "Your hand, {n} cards:", len(ordered)).format(
            n=count_words(len(ordered), lang, "card"))
        lines += wrap_text(sentence(f"{first} {', '.join(card_words(c, lang) for c in ordered) or '-'}"), width,
                           indent="  ")
        cut = state.get("cut")
        if cut:
            lines += wrap_text(t.gettext("You can cut with {cards}: type {cut}.").format(
                cards=", ".join(card_words(c, lang) for c in cut), cut=verb_word(lang, "cut")), width)
    if status:
        lines += [line for text in status_texts(state, lang, style, names, you) for line in wrap_text(text, width)]
    return lines


def status_texts(state: State, lang: str, style: TermStyle, names: Sequence[str],
                 you: int | None) -> list[str]:
    """The prompt, said last: whose turn, and the time left in words."""
    t = translation(lang)
    phase = state.get("phase")
    turn = state.get("turn")
    secs = seconds_of(state.get("deadline"))
    left = f" {spoken_seconds(lang, secs)}" if secs is not None else ""
    if phase == "exchange":
        k = give_count(state)
        if k:
            return [t.ngettext("Exchange: choose {n} card to give back (give …).",
                               "Exchange: choose {n} cards to give back (give …).", k).format(
                n=count_words(k, lang, "card")) + left]
        return [t.gettext("Exchange in progress…") + left]
    if phase in ("round_over", "deal"):
        return [t.gettext("Waiting for the next round…")]
    if phase == "match_over":
        return [t.gettext("The match is over.")]
    if turn is None:
        return []
    window = window_line(state, lang, style)
    if window is not None:
        return [window]
    if turn == you:
        trick = state.get("trick") or []
        lead = not any(p.get("cards") for p in trick)
        text = t.gettext("Your turn: lead a card or more.") if lead else t.gettext("Your turn: play or pass.")
        return [text + left]
    who = names[turn] if 0 <= turn < len(names) else "?"
    return [t.gettext("{name} to play.").format(name=who) + left]
