"""What people type: short, forgiving commands in French, Spanish or English.

:func:`parse_line` turns one typed line into a :class:`Command` whose ``cmd`` and
``args`` are exactly a JSON-protocol command (PROTOCOL.md, docs/protocol.md), or
into a :class:`ParseError` with a localized sentence. It is pure: the facts it
needs (where the player is, which game, the hand, whose turn) come in a
:class:`CommandContext`, usually built by :func:`context_from_state` from the last
state sent to the player.

The words of every language are in :data:`VERBS`; English words are always
accepted as well. Highlights (documented for players in ``docs/playing.md``):

* cards are typed as ranks, suits optional: ``7 7``, ``10``, ``t`` (ten), ``v d r``
  (fr valet/dame/roi), ``j q k`` (en; es jota/dama/rey are ``j``/``q``/``k`` and also
  ``d``/``r``), ``a`` (ace), ``2``; ``77`` and ``7x2`` mean two sevens; with a suit:
  ``7h``, ``10h``, ``Th``, ``dh`` (fr: dame de cœur), ``7♥``. Suit letters are always
  the protocol's ``c d h s``. When the suit is left out the weakest suits of that
  rank in the hand are taken (in Président suits never change who wins a trick);
* a line made only of cards is a play when it is your turn, a cut when those cards
  complete the rank on top of the trick (tdc, RULES T9), the cards to give during
  a tdc exchange (T12);
* one-letter forms that never collide with a rank letter: ``p`` pass, ``t`` turn a
  card (Speculation only; in Président ``t`` is a ten), ``l`` look (state), ``?`` help;
  an empty line shows the table; ``'text`` says text;
* in a Speculation auction, a bare number is a bid.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from server.games import ADAPTERS
from server.messages.errors import error_message
from server.messages.kit import T
from server.messages.translations import normalize_lang, translation
from server.presenters.text.cards import CardSpec, parse_cards, resolve_cards
from server.presenters.text.context import Command, CommandContext, ParseError
from server.presenters.text.moderation import HANDLERS as STAFF_HANDLERS
from server.presenters.text.words import (
    CREATE_KEYS,
    FREE_WORDS,
    GAME_WORDS,
    LEVEL_WORDS,
    OFF_WORDS,
    ON_WORDS,
    RATED_WORDS,
    RATING_WORDS,
    REPLAY_WORDS,
    RULE_WORDS,
    STATUS_WORDS,
    TO_WORDS,
    VERB_TABLES,
    VERBS,
    create_words,
    fold,
    lang_code,
    switch_word,
    typed_word,
    verb,
)
from server.protocol import JSONValue, parse_int

# --------------------------------------------------------------------------- parsing


def parse_line(line: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    """One typed line → a protocol :class:`Command`, or a :class:`ParseError` saying why not."""
    lang = lang_code(lang)
    text = line.strip()
    if not text:
        return Command("state", {})
    if text[0] in "'\"":
        return _say(text[1:].strip(), lang)
    if text[0] == "/" and len(text) > 1:
        text = text[1:].lstrip()
    if text[0] == "?" and len(text) > 1:
        text = "? " + text[1:]
    tokens = text.split()
    head = fold(tokens[0])
    rest = tokens[1:]
    table = VERB_TABLES[lang]

    # A line of cards where moves are cards — checked before verbs so that "t", "d", "r" are ranks.
    if ctx.where == "room" and ctx.cards_table:
        specs, bad = parse_cards(tokens, lang)
        if bad is None:
            return _cards_command(None, specs, lang, ctx)
    # A bare number where moves are bids is a bid.
    amount = parse_int(head) if ctx.bids_table and not rest else None
    if amount is not None:
        return Command("bid", {"amount": amount})

    cmd = table.get(head)
    if cmd is None and head.strip("¿¡?!.,;:") in table:  # "¿ayuda?", "passe."
        cmd = table[head.strip("¿¡?!.,;:")]
    if cmd is None:
        return _unknown(tokens[0], lang, ctx)
    handler = _HANDLERS.get(cmd)
    if handler is None:
        return Command(cmd, {})
    return handler(cmd, rest, text, lang, ctx)


def _unknown(word: str, lang: str, ctx: CommandContext) -> ParseError:
    t = translation(lang)
    if fold(word) in REPLAY_WORDS:  # "suivant" with no replay open
        return ParseError("unknown_command", t.gettext(
            "“{word}” moves through a replay; open one first: {replay} (your last round) or {replay} ROUND "
            "(a round id from {history}).").format(word=word, replay=verb(lang, "replay"),
                                                   history=verb(lang, "history")))
    # suggestions in the session's own words (English ones are understood, never suggested in French or
    # Spanish); "?" and one-letter forms are too short to be a likely meaning
    words = [w for cmd_words in VERBS[lang].values() for w in cmd_words if len(w) > 1]
    folded = {fold(w): w for w in reversed(words)}
    match = difflib.get_close_matches(fold(word), list(folded), n=1, cutoff=0.6)
    if match:
        return ParseError(
            "unknown_command", error_message(lang, "unknown_command", cmd=word, suggestion=folded[match[0]])
        )
    if ctx.where == "room" and ctx.cards_table and _looks_like_cards(word):
        return ParseError(
            "bad_argument",
            t.gettext("“{value}” is not a card. Cards are typed like 7, 10, {ranks}, or with a suit: 7h.").format(
                value=word, ranks=_rank_letters(lang)
            ),
        )
    return ParseError("unknown_command", error_message(lang, "unknown_command", cmd=word))


def _looks_like_cards(word: str) -> bool:
    return any(ch.isdigit() for ch in word) or len(word) <= 3


def _rank_letters(lang: str) -> str:
    if lang == "fr":
        return "V D R A"
    return "J Q K A"


def _say(text: str, lang: str) -> Command | ParseError:
    if not text:
        t = translation(lang)
        return ParseError(
            "bad_argument", t.gettext("Say what? For example: {say} hello").format(say=verb(lang, "say"))
        )
    return Command("say", {"text": text})


def _h_say(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if lang != "en" and len(rest) >= 3 and fold(rest[0]) in TO_WORDS:  # dire à bob …, decir a ana …
        return _HANDLERS["tell"]("tell", rest[1:], text.split(None, 2)[2], lang, ctx)
    body = text.split(None, 1)
    return _say(body[1].strip() if len(body) > 1 else "", lang)


def _not_at_a_table(ctx: CommandContext, lang: str) -> ParseError | None:
    if ctx.where == "room":
        return None
    return ParseError("not_in_room", error_message(lang, "not_in_room"))


def _h_cards(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    t = translation(lang)
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    if ctx.moves and cmd not in ctx.moves:
        return ParseError("not_allowed", error_message(lang, "not_allowed"))
    if not rest:
        if cmd == "cut":
            return Command("cut", {})  # the cards held for it, or the table says why there is no cut
        example = "7 7" if cmd != "give" else "3 4"
        return ParseError(
            "bad_argument",
            t.gettext("Which cards? For example: {example}").format(example=f"{verb(lang, cmd)} {example}"),
        )
    specs, bad = parse_cards(rest, lang)
    if bad is not None:
        return ParseError(
            "bad_argument",
            t.gettext("“{value}” is not a card. Cards are typed like 7, 10, {ranks}, or with a suit: 7h.").format(
                value=bad, ranks=_rank_letters(lang)
            ),
        )
    return _cards_command(cmd, specs, lang, ctx)


def _cards_command(
    cmd: str | None, specs: Sequence[CardSpec], lang: str, ctx: CommandContext
) -> Command | ParseError:
    if ctx.spectator:
        return ParseError("not_allowed", error_message(lang, "spectator"))
    if cmd is None and ctx.phase == "give":
        cmd = "give"
    if len(specs) > 4 and cmd != "give":
        return ParseError("illegal_play", error_message(lang, "illegal_play", reason="too_many"))
    if cmd in (None, "play", "cut") and len({s.rank for s in specs}) > 1:
        return ParseError("illegal_play", error_message(lang, "illegal_play", reason="mixed_ranks"))
    cards = resolve_cards(specs, ctx.hand, lang)
    if isinstance(cards, ParseError):
        return cards
    if cmd is None:
        # the cards the reader may cut with now (the view's cut): a cut; else a play (the table
        # decides whether it follows)
        cmd = "cut" if ctx.cut is not None and sorted(cards) == sorted(ctx.cut) else "play"
    return Command(cmd, {"cards": cards})


def _h_bid(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    n = _int(rest[0]) if rest else None
    if n is None or n < 1:
        t = translation(lang)
        return ParseError(
            "bad_argument", t.gettext("How much? For example: {example}").format(example=f"{verb(lang, 'bid')} 3")
        )
    return Command("bid", {"amount": n})


def _int(token: str) -> int | None:
    """A number typed by a person: ASCII digits only (``#3``, ``3.`` too); "²" or "٣" are no number."""
    tok = token.strip().rstrip(".,;")
    if tok.startswith("#"):
        tok = tok[1:]
    return parse_int(tok)


def _seat_of(token: str, ctx: CommandContext) -> int | None:
    n = _int(token)
    if n is not None and 0 <= n < max(len(ctx.names), 10):
        return n
    f = fold(token)
    exact = [i for i, name in enumerate(ctx.names) if fold(name) == f]
    if exact:
        return exact[0]
    prefix = [i for i, name in enumerate(ctx.names) if fold(name).startswith(f)]
    if len(prefix) == 1:
        return prefix[0]
    return None


def _h_offer(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    t = translation(lang)
    usage = t.gettext("Offer like this: {example} (player, number of face-down cards, price).").format(
        example=f"{verb(lang, 'offer')} {ctx.names[1] if len(ctx.names) > 1 else 'ana'} 2 5"
    )
    words = [w for w in rest if fold(w) not in _FILLERS]
    if len(words) < 3:
        return ParseError("bad_argument", usage)
    seat = _seat_of(words[0], ctx)
    if seat is None:
        return ParseError("no_such_player", error_message(lang, "no_such_player", name=words[0]) + " " + usage)
    count, price = _int(words[1]), _int(words[2])
    if count is None or price is None:
        return ParseError("bad_argument", usage)
    return Command("offer", {"to": seat, "cards": count, "price": price})


_FILLERS = {"for", "pour", "por", "cards", "cartes", "cartas", "chips", "jetons", "fichas", "a", "to", "x"}


_SEEK_ANSWERS = {"accept": "accept_seek", "decline": "decline_seek", "withdraw": "cancel_seek"}


def _h_offer_answer(
    cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext
) -> Command | ParseError:
    if ctx.where == "lobby":  # in the lobby there is no offer: a seek or a challenge is answered
        n = _int(rest[0]) if rest else None
        if rest and n is None:
            return ParseError("bad_argument", error_message(lang, "bad_argument", value=rest[0]))
        return Command(_SEEK_ANSWERS[cmd], {} if n is None else {"seek": n})
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    t = translation(lang)
    if rest:
        n = _int(rest[0])
        if n is None:
            return ParseError("bad_argument", error_message(lang, "bad_argument", value=rest[0]))
        return Command(cmd, {"offer": n})
    if cmd == "withdraw":
        mine = [o for o in ctx.offers if o.get("from") == ctx.you]
    else:
        mine = [o for o in ctx.offers if o.get("to") == ctx.you]
    if len(mine) == 1:
        return Command(cmd, {"offer": mine[0].get("offer")})
    if not mine:
        return ParseError("no_such_offer", error_message(lang, "no_such_offer"))
    ids = ", ".join(f"{verb(lang, cmd)} {o.get('offer')}" for o in mine)
    return ParseError("bad_argument", t.gettext("Which offer? {choices}").format(choices=ids))


def _h_create(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    t = translation(lang)
    args: dict[str, JSONValue] = {}
    numbers: list[int] = []
    i = 0
    tokens = list(rest)
    while i < len(tokens):
        raw = tokens[i]
        tok = fold(raw)
        key: str | None = None
        value: str | None = None
        if tok in RATED_WORDS:
            args["rated"] = RATED_WORDS[tok]
            i += 1
            continue
        if "=" in tok and tok.partition("=")[0] in RATED_WORDS:
            flag = tok.partition("=")[2]
            if flag not in ON_WORDS and flag not in OFF_WORDS:
                return ParseError("bad_argument", error_message(lang, "bad_argument", value=raw))
            args["rated"] = flag in ON_WORDS
            i += 1
            continue
        if "=" in tok or ":" in tok:
            key_text, _, value = tok.replace(":", "=").partition("=")
            key = CREATE_KEYS.get(key_text)
            if key is None:
                return ParseError("bad_argument", error_message(lang, "bad_argument", value=raw))
        elif tok in CREATE_KEYS and i + 1 < len(tokens) and _int(tokens[i + 1]) is not None:
            key, value = CREATE_KEYS[tok], tokens[i + 1]
            i += 1
        elif tok in GAME_WORDS:
            args["game"] = GAME_WORDS[tok]
        elif tok in RULE_WORDS:
            args["rules"] = RULE_WORDS[tok]
        elif tok in LEVEL_WORDS:
            args["bot_level"] = LEVEL_WORDS[tok]
        elif tok in CREATE_KEYS and CREATE_KEYS[tok] == "bots" and numbers:
            args["bots"] = numbers.pop()
        elif (number := _int(tok)) is not None:
            numbers.append(number)
        else:
            shown = create_words(lang)  # suggested in the session's words: « présidnt » → « président »
            guess = difflib.get_close_matches(tok, list(shown), n=1)
            return ParseError(
                "bad_argument",
                error_message(lang, "bad_argument", value=raw, suggestion=shown[guess[0]])
                if guess
                else _create_usage(t, lang),
            )
        if key is not None:
            if key == "bot_level":
                level = LEVEL_WORDS.get(fold(value or ""))
                if level is None:
                    return ParseError("bad_argument", error_message(lang, "bad_argument", value=value))
                args[key] = level
            else:
                n = _int(value or "")
                if n is None:
                    return ParseError("bad_argument", error_message(lang, "bad_argument", value=value))
                args[key] = n
        i += 1
    if "game" not in args:
        args["game"] = "president"
    if numbers:
        args.setdefault("seats", numbers.pop(0))
    if numbers:
        args.setdefault("bots", numbers.pop(0))
    if numbers:
        return ParseError("bad_argument", _create_usage(t, lang))
    args.setdefault("seats", 4)  # the game's default table when no rules are named: the server's choice
    return Command("create", args)


def _create_usage(t: T, lang: str) -> str:
    return str(
        t.gettext(
            "Create a table like this: {example1} or {example2} (game, rules, seats, {options})."
        ).format(
            example1=f"{verb(lang, 'create')} {typed_word(lang, 'president')} {typed_word(lang, 'classic')} 4 bots=3",
            example2=f"{verb(lang, 'create')} {typed_word(lang, 'speculation')} 5 bots=4",
            options=", ".join(f"{typed_word(lang, w)}=" for w in ("bots", "time", "stake", "ante", "rounds")),
        )
    )


def _room_arg(token: str) -> int | str:
    n = _int(token)
    return n if n is not None else token


def _h_room(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        t = translation(lang)
        return ParseError(
            "bad_argument",
            t.gettext("Which room? Type {rooms} to list them, then {example}.").format(
                rooms=verb(lang, "rooms"), example=f"{verb(lang, cmd)} 1"
            ),
        )
    return Command(cmd, {"room": _room_arg(rest[0])})


def _h_lang(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return Command("lang", {})
    code = normalize_lang(rest[0])
    if code is None:
        return ParseError("bad_argument", error_message(lang, "bad_lang"))
    return Command("lang", {"lang": code})


def _h_switch(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return Command(cmd, {})
    w = fold(rest[0])
    if w in ON_WORDS:
        return Command(cmd, {"on": True})
    if w in OFF_WORDS:
        return Command(cmd, {"on": False})
    t = translation(lang)
    return ParseError(
        "bad_argument",
        t.gettext("Say {on} or {off}, for example: {example}").format(
            on=switch_word(lang, True), off=switch_word(lang, False),
            example=f"{verb(lang, cmd)} {switch_word(lang, False)}"),
    )


def _h_width(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return Command("width", {})
    n = _int(rest[0])
    if n is None or not 20 <= n <= 400:
        t = translation(lang)
        return ParseError(
            "bad_argument", t.gettext("A width is a number of columns from 20 to 400, for example: {example}").format(
                example=f"{verb(lang, 'width')} 60"
            )
        )
    return Command("width", {"width": n})


def _h_account(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    args: dict[str, JSONValue] = {}
    if cmd == "login" and not rest:  # a person is logged in already (at the door): to an account
        return ParseError("bad_argument", translation(lang).gettext(
            "To log in to your account, type {login} NAME; the password is asked next.").format(
                login=verb(lang, "login")))
    if rest:
        args["name"] = rest[0]
    if len(rest) > 1:
        args["password"] = rest[1]
    return Command(cmd, args)


def _h_leaderboard(
    cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext
) -> Command | ParseError:
    args: dict[str, JSONValue] = {}
    for raw in rest:
        tok = fold(raw)
        if tok in GAME_WORDS:
            args["game"] = GAME_WORDS[tok]
        elif tok in RULE_WORDS:
            args["rules"] = RULE_WORDS[tok]
        elif tok in RATING_WORDS:
            args["by"] = "rating"
        elif _int(tok) is not None:
            args["limit"] = _int(tok)
        else:
            return ParseError("bad_argument", error_message(lang, "bad_argument", value=raw))
    rules = args.get("rules")
    if isinstance(rules, str):
        args.setdefault("game", ADAPTERS[rules].game)
    elif "game" in args:
        tables = [a.name for a in ADAPTERS.values() if a.game == args["game"]]
        if len(tables) == 1:  # a game with one table: its board
            args["rules"] = tables[0]
    return Command(cmd, args)


def _h_rooms(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    """``rooms [PAGE] [game] [rules] [free|waiting|playing|over]``, in any order."""
    args: dict[str, JSONValue] = {}
    for raw in rest:
        tok = fold(raw)
        if _int(tok) is not None:
            args["page"] = _int(tok)
        elif tok in GAME_WORDS:
            args["game"] = GAME_WORDS[tok]
        elif tok in RULE_WORDS:
            args["rules"] = RULE_WORDS[tok]
        elif tok in FREE_WORDS:
            args["free"] = True
        elif tok in STATUS_WORDS:
            args["status"] = STATUS_WORDS[tok]
        else:
            return ParseError("bad_argument", error_message(lang, "bad_argument", value=raw))
    return Command(cmd, args)


def _h_history(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    args: dict[str, JSONValue] = {}
    for raw in rest:
        n = _int(raw)
        if n is not None:
            args["limit"] = n
        else:
            args["name"] = raw
    return Command(cmd, args)


def _h_rest_key(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    body = text.split(None, 1)
    if len(body) < 2:
        t = translation(lang)
        return ParseError(
            "bad_argument",
            t.gettext("Paste the public key after the command: {example}").format(
                example=f"{verb(lang, cmd)} ssh-ed25519 AAAA…"
            ),
        )
    return Command(cmd, {"key": body[1].strip()})


def _h_help(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if rest:
        topic = fold(rest[0])
        return Command("help", {"topic": VERB_TABLES[lang].get(topic, topic)})
    return Command("help", {})


def _h_spec_simple(
    cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext
) -> Command | ParseError:
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    if ctx.moves and cmd not in ctx.moves:
        return ParseError("not_allowed", error_message(lang, "not_allowed"))
    if ctx.spectator:
        return ParseError("not_allowed", error_message(lang, "spectator"))
    return Command(cmd, {})


def _h_pass(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    if ctx.moves and cmd not in ctx.moves:
        return ParseError("not_allowed", error_message(lang, "not_allowed"))
    if ctx.spectator:
        return ParseError("not_allowed", error_message(lang, "spectator"))
    return Command("pass", {})


_HANDLERS = {
    "play": _h_cards,
    "cut": _h_cards,
    "give": _h_cards,
    "pass": _h_pass,
    "bid": _h_bid,
    "sell": _h_spec_simple,
    "keep": _h_spec_simple,
    "turn": _h_spec_simple,
    "offer": _h_offer,
    "accept": _h_offer_answer,
    "decline": _h_offer_answer,
    "withdraw": _h_offer_answer,
    "create": _h_create,
    "join": _h_room,
    "watch": _h_room,
    "say": _h_say,
    "lang": _h_lang,
    "autocut": _h_switch,
    "autopass": _h_switch,
    "colour": _h_switch,
    "unicode": _h_switch,
    "reader": _h_switch,
    "width": _h_width,
    "register": _h_account,
    "login": _h_account,
    "history": _h_history,
    "rooms": _h_rooms,
    "help": _h_help,
    "addkey": _h_rest_key,
    "delkey": _h_rest_key,
    "leaderboard": _h_leaderboard,
    "balance": _h_history,
    "hide": _h_switch,
    **STAFF_HANDLERS,  # running a community: kick, mute, ban, announce, motd, ignore... (staff.py)
}
"""Verb -> the handler of its words; ``parse_social`` adds the social commands' (tell, friend,
seek, replay...) when the text presenter's package is imported."""
