"""What people type: short, forgiving commands in French, Spanish or English.

:func:`parse_line` turns one typed line into a :class:`Command` whose ``cmd`` and
``args`` are exactly a JSON-protocol command (PROTOCOL.md, docs/protocol.md), or
into a :class:`CommandError` with a localized sentence. It is pure: the facts it
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
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.messages.errors import error_message
from server.messages.translations import normalize_lang, translation

RANKS = "3456789TJQKA2"
SUITS = "cdhs"
_SUIT_SYMBOLS = {"♣": "c", "♧": "c", "♦": "d", "♢": "d", "♥": "h", "♡": "h", "♠": "s", "♤": "s"}


@dataclass(frozen=True, slots=True)
class Command:
    """A protocol command: ``Command("play", {"cards": ["7c", "7h"]})``."""

    cmd: str
    args: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"cmd": self.cmd, **self.args}


@dataclass(frozen=True, slots=True)
class CommandError:
    """A line that cannot become a command; ``message`` is in the session's language."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class CommandContext:
    """What the parser knows of the player's situation (see :func:`context_from_state`).

    ``where``: ``"lobby"`` or ``"room"``; ``phase``: ``"play"`` (Président tricks),
    ``"give"`` (tdc exchange choice, T12), ``"auction"`` / ``"turning"`` (Speculation),
    ``"waiting"`` (before the start, between rounds), ``"over"``, or ``None``. ``hand``:
    the reader's cards (``None`` when unknown: spectators, Speculation). ``top``: the play
    to beat in the trick; ``must``: the rank "that or nothing" imposes (P7, T6);
    ``order``: ``"normal"`` or ``"reversed"`` (T10). ``names``: the seats' names, for
    offers by name; ``offers``/``auction``/``facedown``: Speculation facts.
    """

    where: str = "lobby"
    game: str | None = None
    rules: str | None = None
    phase: str | None = None
    hand: tuple[str, ...] | None = None
    your_turn: bool = False
    you: int | None = None
    names: tuple[str, ...] = ()
    top: tuple[str, ...] | None = None
    must: str | None = None
    order: str = "normal"
    give_count: int | None = None
    auction: Mapping[str, Any] | None = None
    offers: tuple[Mapping[str, Any], ...] = ()
    facedown: tuple[int, ...] = ()

    @property
    def spectator(self) -> bool:
        return self.where == "room" and self.you is None


# --------------------------------------------------------------------------- vocabulary

VERBS: dict[str, dict[str, tuple[str, ...]]] = {
    # The first word of each tuple is the one shown in help texts and messages.
    "en": {
        "play": ("play", "pl"),
        "pass": ("pass", "p"),
        "cut": ("cut",),
        "give": ("give",),
        "bid": ("bid",),
        "sell": ("sell",),
        "keep": ("keep",),
        "turn": ("turn", "flip", "t"),
        "offer": ("offer", "buy"),
        "accept": ("accept",),
        "decline": ("decline", "refuse", "reject"),
        "withdraw": ("withdraw", "cancel"),
        "create": ("create", "new"),
        "join": ("join", "sit"),
        "watch": ("watch", "spectate", "observe"),
        "leave": ("leave", "stand"),
        "say": ("say", "chat"),
        "rooms": ("rooms", "tables", "list"),
        "who": ("who",),
        "whoami": ("whoami", "me"),
        "state": ("look", "state", "l"),
        "lang": ("lang", "language"),
        "help": ("help", "?", "commands"),
        "quit": ("quit", "exit", "bye", "logout"),
        "autocut": ("autocut",),
        "colour": ("colour", "color", "colours", "colors"),
        "unicode": ("unicode",),
        "width": ("width",),
        "register": ("register", "signup"),
        "login": ("login",),
        "history": ("history",),
        "leaderboard": ("leaderboard", "top", "ranking"),
        "addkey": ("addkey",),
        "keys": ("keys",),
        "delkey": ("delkey",),
        "passwd": ("passwd", "password"),
        "balance": ("balance", "chips"),
        "ping": ("ping",),
        "limits": ("limits",),
    },
    "fr": {
        "play": ("jouer", "joue", "poser", "pose", "entamer", "entame"),
        "pass": ("passe", "passer", "p"),
        "cut": ("couper", "coupe"),
        "give": ("donner", "donne"),
        "bid": ("enchérir", "enchère", "enchere", "miser"),
        "sell": ("vendre", "vends"),
        "keep": ("garder", "garde"),
        "turn": ("retourner", "retourne", "tourner", "tourne", "t"),
        "offer": ("offrir", "offre", "proposer", "propose", "acheter", "achète"),
        "accept": ("accepter", "accepte"),
        "decline": ("refuser", "refuse"),
        "withdraw": ("retirer", "retire", "annuler", "annule"),
        "create": ("créer", "crée", "nouvelle", "ouvrir"),
        "join": ("rejoindre", "asseoir", "s'asseoir", "entrer"),
        "watch": ("regarder", "regarde", "observer", "observe"),
        "leave": ("partir", "pars", "lever"),
        "say": ("dire", "dis"),
        "rooms": ("tables", "salles", "salons"),
        "who": ("qui",),
        "whoami": ("moi", "quisuisje"),
        "state": ("voir", "état", "l"),
        "lang": ("langue",),
        "help": ("aide", "?"),
        "quit": ("quitter", "quitte", "bye"),
        "autocut": ("autocoupe", "coupeauto"),
        "colour": ("couleur", "couleurs"),
        "unicode": ("unicode",),
        "width": ("largeur",),
        "register": ("inscrire", "s'inscrire", "inscription"),
        "login": ("connexion", "connecter"),
        "history": ("historique",),
        "leaderboard": ("classement", "palmarès"),
        "addkey": ("ajoutercle", "ajouterclé"),
        "keys": ("clés", "cles"),
        "delkey": ("supprimercle", "supprimerclé", "retirercle"),
        "passwd": ("motdepasse", "mdp"),
        "balance": ("solde", "jetons"),
        "ping": ("ping",),
        "limits": ("limites",),
    },
    "es": {
        "play": ("jugar", "juego", "juega", "echar", "echo", "tirar", "tiro", "abrir", "abro"),
        "pass": ("paso", "pasar", "p"),
        "cut": ("cortar", "corto", "corte"),
        "give": ("dar", "doy"),
        "bid": ("pujar", "pujo", "puja"),
        "sell": ("vender", "vendo"),
        "keep": ("quedar", "quedo", "quedarse", "guardar", "guardo"),
        "turn": ("destapar", "destapo", "girar", "giro", "voltear", "t"),
        "offer": ("ofrecer", "ofrezco", "oferta", "comprar", "compro"),
        "accept": ("aceptar", "acepto"),
        "decline": ("rechazar", "rechazo"),
        "withdraw": ("retirar", "retiro", "anular", "anulo"),
        "create": ("crear", "creo", "nueva"),
        "join": ("sentarse", "unirse", "entrar", "siento"),
        "watch": ("mirar", "miro", "observar"),
        "leave": ("levantarse", "irse", "dejar"),
        "say": ("decir", "digo"),
        "rooms": ("mesas", "salas"),
        "who": ("quién", "quien"),
        "whoami": ("yo", "quiensoy"),
        "state": ("ver", "estado", "l"),
        "lang": ("idioma", "lengua"),
        "help": ("ayuda", "?"),
        "quit": ("salir", "adiós", "chao"),
        "autocut": ("autocorte",),
        "colour": ("color", "colores"),
        "unicode": ("unicode",),
        "width": ("ancho", "anchura"),
        "register": ("registrarse", "registrar", "registro"),
        "login": ("acceder", "identificarse"),
        "history": ("historial",),
        "leaderboard": ("clasificación", "ranking"),
        "addkey": ("añadirclave", "anadirclave"),
        "keys": ("claves",),
        "delkey": ("borrarclave", "quitarclave"),
        "passwd": ("contraseña", "clavenueva"),
        "balance": ("saldo", "fichas"),
        "ping": ("ping",),
        "limits": ("límites", "limites"),
    },
}

RANK_WORDS: dict[str, dict[str, str]] = {
    # Letters and words for ranks, per language (folded: lower case, no accents).
    "en": {"t": "T", "j": "J", "q": "Q", "k": "K", "a": "A", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"},
    "fr": {"v": "J", "d": "Q", "r": "K", "valet": "J", "dame": "Q", "roi": "K", "as": "A", "dix": "T"},
    "es": {
        "d": "Q",
        "r": "K",
        "jota": "J",
        "dama": "Q",
        "reina": "Q",
        "rey": "K",
        "as": "A",
        "diez": "T",
    },
}

GAME_WORDS = {
    "president": "president",
    "pres": "president",
    "presidente": "president",
    "speculation": "speculation",
    "spec": "speculation",
    "especulacion": "speculation",
    "spekulyatsiya": "speculation",
}
RULE_WORDS = {
    "classic": "classic",
    "classique": "classic",
    "clasica": "classic",
    "clasico": "classic",
    "tdc": "tdc",
    "trou": "tdc",
    "troudcul": "tdc",
    "trouducul": "tdc",
    "culo": "tdc",
}
LEVEL_WORDS = {
    "easy": "easy",
    "facile": "easy",
    "facil": "easy",
    "normal": "normal",
    "moyen": "normal",
    "hard": "hard",
    "difficile": "hard",
    "dificil": "hard",
}
CREATE_KEYS = {
    "seats": "seats",
    "places": "seats",
    "sieges": "seats",
    "joueurs": "seats",
    "asientos": "seats",
    "plazas": "seats",
    "jugadores": "seats",
    "players": "seats",
    "bots": "bots",
    "robots": "bots",
    "level": "bot_level",
    "niveau": "bot_level",
    "nivel": "bot_level",
    "bot_level": "bot_level",
    "time": "turn_seconds",
    "turn": "turn_seconds",
    "temps": "turn_seconds",
    "tiempo": "turn_seconds",
    "turn_seconds": "turn_seconds",
    "stake": "stake",
    "mise": "stake",
    "apuesta": "stake",
    "ante": "ante",
    "rounds": "rounds",
    "manches": "rounds",
    "rondas": "rounds",
    "deals": "rounds",
    "donnes": "rounds",
    "manos": "rounds",
}
ON_WORDS = {"on", "oui", "si", "yes", "1", "true", "activer", "activar", "y", "o", "s"}
OFF_WORDS = {"off", "non", "no", "0", "false", "desactiver", "desactivar", "n"}


def fold(word: str) -> str:
    """Lower case, accents and apostrophes dropped: ``"Enchère"`` → ``"enchere"``."""
    w = unicodedata.normalize("NFKD", word.strip().lower())
    return "".join(c for c in w if not unicodedata.combining(c)).replace("'", "").replace("’", "")


def _lang(lang: str) -> str:
    return normalize_lang(lang) or "en"


def _verb_table(lang: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for code in ("en", _lang(lang)):  # the session's language wins
        for cmd, words in VERBS[code].items():
            for w in words:
                table[fold(w)] = cmd
    return table


_VERB_TABLES = {code: _verb_table(code) for code in VERBS}


def verb(lang: str, cmd: str) -> str:
    """The word shown for ``cmd`` in ``lang`` (``verb("fr", "pass") == "passe"``)."""
    words = VERBS[_lang(lang)].get(cmd) or VERBS["en"].get(cmd) or (cmd,)
    return words[0]


# --------------------------------------------------------------------------- cards


@dataclass(frozen=True, slots=True)
class _CardSpec:
    rank: str  # "3".."2" code letter
    suit: str | None
    token: str


def _parse_card_token(token: str, lang: str) -> list[_CardSpec] | None:
    """Cards named by one token, or ``None`` when it names no card."""
    raw = token.strip()
    t = fold(raw)
    for sym, letter in _SUIT_SYMBOLS.items():
        t = t.replace(sym, letter)
    if not t:
        return None
    words = {**RANK_WORDS["en"], **RANK_WORDS[_lang(lang)]}
    # "7x2": two sevens
    if "x" in t[1:]:
        head, _, times = t.rpartition("x")
        if times.isdigit() and 1 <= int(times) <= 4:
            one = _parse_card_token(head, lang)
            if one and len(one) == 1 and one[0].suit is None:
                return one * int(times)
    rank = _rank_of(t, words)
    if rank is not None:
        return [_CardSpec(rank, None, raw)]
    # rank + suit: "7h", "10h", "th", "dh" (fr), "as" is a word in fr/es (any ace)
    if len(t) >= 2 and t[-1] in SUITS:
        rank = _rank_of(t[:-1], words)
        if rank is not None:
            return [_CardSpec(rank, t[-1], raw)]
    # "77", "jj": the same rank symbol repeated
    if 2 <= len(t) <= 4 and len(set(t)) == 1:
        rank = _rank_of(t[0], words)
        if rank is not None:
            return [_CardSpec(rank, None, raw)] * len(t)
    return None


def _rank_of(text: str, words: Mapping[str, str]) -> str | None:
    if text in words:
        return words[text]
    if text == "10":
        return "T"
    if len(text) == 1 and text.upper() in RANKS:
        return text.upper()
    return None


def _parse_cards(tokens: Sequence[str], lang: str) -> tuple[list[_CardSpec], str | None]:
    specs: list[_CardSpec] = []
    for tok in tokens:
        got = _parse_card_token(tok, lang)
        if got is None:
            return specs, tok
        specs.extend(got)
    return specs, None


def _resolve(specs: Sequence[_CardSpec], hand: Sequence[str] | None, lang: str) -> list[str] | CommandError:
    """Card codes for ``specs``: explicit cards as named, bare ranks with the weakest suits held."""
    t = translation(lang)
    if hand is None:
        if all(s.suit for s in specs):
            return [s.rank + s.suit for s in specs if s.suit]
        return CommandError(
            "bad_argument", t.gettext("Name the suits too (for example 7h), or wait for your cards.")
        )
    held = [c for c in hand]
    chosen: list[str] = []
    for s in specs:
        if s.suit is not None:
            code = s.rank + s.suit
            if code in chosen:
                return CommandError("illegal_play", error_message(lang, "illegal_play", reason="duplicate"))
            if code not in held:
                return CommandError(
                    "illegal_play", error_message(lang, "illegal_play", reason="not_in_hand", cards=[code])
                )
            chosen.append(code)
    for s in specs:
        if s.suit is None:
            options = [c for c in held if c[0] == s.rank and c not in chosen]
            options.sort(key=lambda c: SUITS.index(c[1]))
            if not options:
                have = sum(1 for c in held if c[0] == s.rank)
                if have == 0:
                    return CommandError(
                        "illegal_play",
                        t.gettext("You hold no {rank}.").format(rank=_rank_text(lang, s.rank)),
                    )
                return CommandError(
                    "illegal_play",
                    error_message(lang, "illegal_play", reason="not_enough", rank=s.rank, have=have),
                )
            chosen.append(options[0])
    return chosen


def _rank_text(lang: str, rank: str) -> str:
    from server.messages.labels import rank_label

    return rank_label(lang, rank)


# --------------------------------------------------------------------------- parsing


def parse_line(line: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    """One typed line → a protocol :class:`Command`, or a :class:`CommandError` saying why not."""
    lang = _lang(lang)
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
    table = _VERB_TABLES[lang]

    # A line of cards (Président) — checked before verbs so that "t", "d", "r" are ranks.
    if ctx.where == "room" and ctx.game == "president":
        specs, bad = _parse_cards(tokens, lang)
        if bad is None:
            return _cards_command(None, specs, lang, ctx)
    # A bare number in a Speculation auction is a bid.
    if ctx.game == "speculation" and head.isdigit() and not rest:
        return Command("bid", {"amount": int(head)})

    cmd = table.get(head)
    if cmd is None and head.strip("¿¡?!.,;:") in table:  # "¿ayuda?", "passe."
        cmd = table[head.strip("¿¡?!.,;:")]
    if cmd is None:
        return _unknown(tokens[0], lang, ctx)
    handler = _HANDLERS.get(cmd)
    if handler is None:
        return Command(cmd, {})
    return handler(cmd, rest, text, lang, ctx)


def _unknown(word: str, lang: str, ctx: CommandContext) -> CommandError:
    words = [w for cmd_words in VERBS[lang].values() for w in cmd_words if len(w) > 1]
    words += [w for cmd_words in VERBS["en"].values() for w in cmd_words if len(w) > 1 and w not in words]
    folded = {fold(w): w for w in reversed(words)}
    match = difflib.get_close_matches(fold(word), list(folded), n=1, cutoff=0.6)
    if match:
        return CommandError(
            "unknown_command", error_message(lang, "unknown_command", cmd=word, suggestion=folded[match[0]])
        )
    t = translation(lang)
    if ctx.where == "room" and ctx.game == "president" and _looks_like_cards(word):
        return CommandError(
            "bad_argument",
            t.gettext("“{value}” is not a card. Cards are typed like 7, 10, {ranks}, or with a suit: 7h.").format(
                value=word, ranks=_rank_letters(lang)
            ),
        )
    return CommandError("unknown_command", error_message(lang, "unknown_command", cmd=word))


def _looks_like_cards(word: str) -> bool:
    return any(ch.isdigit() for ch in word) or len(word) <= 3


def _rank_letters(lang: str) -> str:
    if lang == "fr":
        return "V D R A"
    return "J Q K A"


def _no_args(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    return Command(cmd, {})


def _say(text: str, lang: str) -> Command | CommandError:
    if not text:
        t = translation(lang)
        return CommandError(
            "bad_argument", t.gettext("Say what? For example: {say} hello").format(say=verb(lang, "say"))
        )
    return Command("say", {"text": text})


def _h_say(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    body = text.split(None, 1)
    return _say(body[1].strip() if len(body) > 1 else "", lang)


def _not_at_a_table(ctx: CommandContext, lang: str) -> CommandError | None:
    if ctx.where == "room":
        return None
    return CommandError("not_in_room", error_message(lang, "not_in_room"))


def _h_cards(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    t = translation(lang)
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    if ctx.game is not None and ctx.game != "president":
        return CommandError("not_allowed", error_message(lang, "not_allowed"))
    if not rest:
        if cmd == "cut":
            return _auto_cut(lang, ctx)
        example = "7 7" if cmd != "give" else "3 4"
        return CommandError(
            "bad_argument",
            t.gettext("Which cards? For example: {example}").format(example=f"{verb(lang, cmd)} {example}"),
        )
    specs, bad = _parse_cards(rest, lang)
    if bad is not None:
        return CommandError(
            "bad_argument",
            t.gettext("“{value}” is not a card. Cards are typed like 7, 10, {ranks}, or with a suit: 7h.").format(
                value=bad, ranks=_rank_letters(lang)
            ),
        )
    return _cards_command(cmd, specs, lang, ctx)


def _cards_command(
    cmd: str | None, specs: Sequence[_CardSpec], lang: str, ctx: CommandContext
) -> Command | CommandError:
    if ctx.spectator:
        return CommandError("not_allowed", error_message(lang, "spectator"))
    if cmd is None and ctx.phase == "give":
        cmd = "give"
    if len(specs) > 4 and cmd != "give":
        return CommandError("illegal_play", error_message(lang, "illegal_play", reason="too_many"))
    if cmd in (None, "play", "cut") and len({s.rank for s in specs}) > 1:
        return CommandError("illegal_play", error_message(lang, "illegal_play", reason="mixed_ranks"))
    cards = _resolve(specs, ctx.hand, lang)
    if isinstance(cards, CommandError):
        return cards
    if cmd is None:
        cmd = "cut" if _is_cut(cards, ctx) else "play"
    if cmd == "play":
        refused = _check_follow(cards, lang, ctx)
        if refused is not None:
            return refused
    return Command(cmd, {"cards": cards})


def _strength(rank: str, order: str) -> int:
    i = RANKS.index(rank)
    return 12 - i if order == "reversed" else i


def _check_follow(cards: Sequence[str], lang: str, ctx: CommandContext) -> CommandError | None:
    """A play that cannot follow the trick (P6, P7; T4, T6), refused here with what would be legal.

    Only when the answer is certain: it is your turn in a Président trick with a top play
    and the hand is known. The engine still decides everything else.
    """
    if ctx.game != "president" or ctx.phase != "play" or not ctx.your_turn or not ctx.top or ctx.hand is None:
        return None
    n = len(ctx.top)
    top_rank = ctx.top[0][0]
    rank = cards[0][0]
    if len(cards) == n and (rank == ctx.must if ctx.must else _strength(rank, ctx.order) >= _strength(top_rank, ctx.order)):
        return None
    legal = []
    for r in sorted({c[0] for c in ctx.hand}, key=lambda x: _strength(x, ctx.order)):
        held = sorted((c for c in ctx.hand if c[0] == r), key=lambda c: SUITS.index(c[1]))
        if len(held) < n:
            continue
        if ctx.must and r != ctx.must:
            continue
        if not ctx.must and _strength(r, ctx.order) < _strength(top_rank, ctx.order):
            continue
        legal.append(held[:n])
    if ctx.must:
        reason = "ca_ou_rien"
    elif len(cards) != n:
        reason = "must_follow_count"
    else:
        reason = "too_weak"
    return CommandError(
        "illegal_play", error_message(lang, "illegal_play", reason=reason, count=n, rank=ctx.must or top_rank, legal=legal)
    )


def _cut_possible(ctx: CommandContext) -> tuple[str, int] | None:
    """The rank and number of cards a cut needs now (RULES T9), or ``None``."""
    if ctx.rules != "tdc" or not ctx.top or len(ctx.top) > 2:
        return None
    rank = ctx.top[0][0]
    strongest = "3" if ctx.order == "reversed" else "2"
    if rank == strongest:
        return None
    return rank, 4 - len(ctx.top)


def _is_cut(cards: Sequence[str], ctx: CommandContext) -> bool:
    need = _cut_possible(ctx)
    return need is not None and len(cards) == need[1] and all(c[0] == need[0] for c in cards)


def _auto_cut(lang: str, ctx: CommandContext) -> Command | CommandError:
    need = _cut_possible(ctx)
    if need is None or ctx.hand is None:
        return CommandError("illegal_play", error_message(lang, "illegal_play", reason="cannot_cut"))
    rank, count = need
    mine = [c for c in ctx.hand if c[0] == rank]
    if len(mine) != count:
        return CommandError(
            "illegal_play", error_message(lang, "illegal_play", reason="cannot_cut", rank=rank, count=count)
        )
    return Command("cut", {"cards": mine})


def _h_bid(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    n = _int(rest[0]) if rest else None
    if n is None or n < 1:
        t = translation(lang)
        return CommandError(
            "bad_argument", t.gettext("How much? For example: {example}").format(example=f"{verb(lang, 'bid')} 3")
        )
    return Command("bid", {"amount": n})


def _int(token: str) -> int | None:
    tok = token.strip().rstrip(".,;")
    if tok.startswith("#"):
        tok = tok[1:]
    try:
        return int(tok)
    except ValueError:
        return None


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


def _h_offer(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    t = translation(lang)
    usage = t.gettext("Offer like this: {example} (player, number of face-down cards, price).").format(
        example=f"{verb(lang, 'offer')} {ctx.names[1] if len(ctx.names) > 1 else 'ana'} 2 5"
    )
    words = [w for w in rest if fold(w) not in _FILLERS]
    if len(words) < 3:
        return CommandError("bad_argument", usage)
    seat = _seat_of(words[0], ctx)
    if seat is None:
        return CommandError("no_such_player", error_message(lang, "no_such_player", name=words[0]) + " " + usage)
    count, price = _int(words[1]), _int(words[2])
    if count is None or price is None:
        return CommandError("bad_argument", usage)
    return Command("offer", {"to": seat, "cards": count, "price": price})


_FILLERS = {"for", "pour", "por", "cards", "cartes", "cartas", "chips", "jetons", "fichas", "a", "to", "x"}


def _h_offer_answer(
    cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext
) -> Command | CommandError:
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    t = translation(lang)
    if rest:
        n = _int(rest[0])
        if n is None:
            return CommandError("bad_argument", error_message(lang, "bad_argument", value=rest[0]))
        return Command(cmd, {"offer": n})
    if cmd == "withdraw":
        mine = [o for o in ctx.offers if o.get("from") == ctx.you]
    else:
        mine = [o for o in ctx.offers if o.get("to") == ctx.you]
    if len(mine) == 1:
        return Command(cmd, {"offer": mine[0].get("offer")})
    if not mine:
        return CommandError("no_such_offer", error_message(lang, "no_such_offer"))
    ids = ", ".join(f"{verb(lang, cmd)} {o.get('offer')}" for o in mine)
    return CommandError("bad_argument", t.gettext("Which offer? {choices}").format(choices=ids))


def _h_create(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    t = translation(lang)
    args: dict[str, Any] = {}
    numbers: list[int] = []
    i = 0
    tokens = list(rest)
    while i < len(tokens):
        raw = tokens[i]
        tok = fold(raw)
        key: str | None = None
        value: str | None = None
        if "=" in tok or ":" in tok:
            key_text, _, value = tok.replace(":", "=").partition("=")
            key = CREATE_KEYS.get(key_text)
            if key is None:
                return CommandError("bad_argument", error_message(lang, "bad_argument", value=raw))
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
        elif _int(tok) is not None:
            numbers.append(_int(tok))  # type: ignore[arg-type]
        else:
            guess = difflib.get_close_matches(tok, [*GAME_WORDS, *RULE_WORDS, *LEVEL_WORDS, *CREATE_KEYS], n=1)
            return CommandError(
                "bad_argument",
                error_message(lang, "bad_argument", value=raw, suggestion=guess[0])
                if guess
                else _create_usage(t, lang),
            )
        if key is not None:
            if key == "bot_level":
                level = LEVEL_WORDS.get(fold(value or ""))
                if level is None:
                    return CommandError("bad_argument", error_message(lang, "bad_argument", value=value))
                args[key] = level
            else:
                n = _int(value or "")
                if n is None:
                    return CommandError("bad_argument", error_message(lang, "bad_argument", value=value))
                args[key] = n
        i += 1
    if "game" not in args:
        args["game"] = "president"
    if numbers:
        args.setdefault("seats", numbers.pop(0))
    if numbers:
        args.setdefault("bots", numbers.pop(0))
    if numbers:
        return CommandError("bad_argument", _create_usage(t, lang))
    if args["game"] == "president":
        args.setdefault("rules", "classic")
    else:
        args.pop("rules", None)
    args.setdefault("seats", 4)
    return Command("create", args)


def _create_usage(t: Any, lang: str) -> str:
    return str(
        t.gettext(
            "Create a table like this: {example1} or {example2} (game, rules, seats, bots=, time=, stake=, ante=, rounds=)."
        ).format(
            example1=f"{verb(lang, 'create')} president classic 4 bots=3",
            example2=f"{verb(lang, 'create')} speculation 5 bots=4",
        )
    )


def _room_arg(token: str) -> Any:
    n = _int(token)
    return n if n is not None else token


def _h_room(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    if not rest:
        t = translation(lang)
        return CommandError(
            "bad_argument",
            t.gettext("Which room? Type {rooms} to list them, then {example}.").format(
                rooms=verb(lang, "rooms"), example=f"{verb(lang, cmd)} 1"
            ),
        )
    return Command(cmd, {"room": _room_arg(rest[0])})


def _h_lang(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    if not rest:
        return Command("lang", {})
    code = normalize_lang(rest[0])
    if code is None:
        return CommandError("bad_argument", error_message(lang, "bad_lang"))
    return Command("lang", {"lang": code})


def _h_switch(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    if not rest:
        return Command(cmd, {})
    w = fold(rest[0])
    if w in ON_WORDS:
        return Command(cmd, {"on": True})
    if w in OFF_WORDS:
        return Command(cmd, {"on": False})
    t = translation(lang)
    return CommandError(
        "bad_argument",
        t.gettext("Say on or off, for example: {example}").format(example=f"{verb(lang, cmd)} off"),
    )


def _h_width(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    if not rest:
        return Command("width", {})
    n = _int(rest[0])
    if n is None or not 20 <= n <= 400:
        t = translation(lang)
        return CommandError(
            "bad_argument", t.gettext("A width is a number of columns from 20 to 400, for example: {example}").format(
                example=f"{verb(lang, 'width')} 60"
            )
        )
    return Command("width", {"width": n})


def _h_account(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    args: dict[str, Any] = {}
    if rest:
        args["name"] = rest[0]
    if len(rest) > 1:
        args["password"] = rest[1]
    return Command(cmd, args)


def _h_leaderboard(
    cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext
) -> Command | CommandError:
    args: dict[str, Any] = {}
    for raw in rest:
        tok = fold(raw)
        if tok in GAME_WORDS:
            args["game"] = GAME_WORDS[tok]
        elif tok in RULE_WORDS:
            args["rules"] = RULE_WORDS[tok]
        elif _int(tok) is not None:
            args["limit"] = _int(tok)
        else:
            return CommandError("bad_argument", error_message(lang, "bad_argument", value=raw))
    if args.get("game") == "speculation":
        args["rules"] = "speculation"
    elif "rules" in args:
        args.setdefault("game", "president")
    return Command(cmd, args)


def _h_history(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    args: dict[str, Any] = {}
    for raw in rest:
        n = _int(raw)
        if n is not None:
            args["limit"] = n
        else:
            args["name"] = raw
    return Command(cmd, args)


def _h_rest_key(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    body = text.split(None, 1)
    if len(body) < 2:
        t = translation(lang)
        return CommandError(
            "bad_argument",
            t.gettext("Paste the public key after the command: {example}").format(
                example=f"{verb(lang, cmd)} ssh-ed25519 AAAA…"
            ),
        )
    return Command(cmd, {"key": body[1].strip()})


def _h_help(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    if rest:
        topic = fold(rest[0])
        return Command("help", {"topic": _VERB_TABLES[lang].get(topic, topic)})
    return Command("help", {})


def _h_spec_simple(
    cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext
) -> Command | CommandError:
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    if ctx.game is not None and ctx.game != "speculation":
        return CommandError("not_allowed", error_message(lang, "not_allowed"))
    if ctx.spectator:
        return CommandError("not_allowed", error_message(lang, "spectator"))
    return Command(cmd, {})


def _h_pass(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | CommandError:
    if (refused := _not_at_a_table(ctx, lang)) is not None:
        return refused
    if ctx.game is not None and ctx.game != "president":
        return CommandError("not_allowed", error_message(lang, "not_allowed"))
    if ctx.spectator:
        return CommandError("not_allowed", error_message(lang, "spectator"))
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
    "colour": _h_switch,
    "unicode": _h_switch,
    "width": _h_width,
    "register": _h_account,
    "login": _h_account,
    "history": _h_history,
    "help": _h_help,
    "addkey": _h_rest_key,
    "delkey": _h_rest_key,
    "leaderboard": _h_leaderboard,
    "balance": _h_history,
}


# --------------------------------------------------------------------------- context


def context_from_state(state: Mapping[str, Any] | None, where: str | None = None) -> CommandContext:
    """A :class:`CommandContext` from the last ``state`` message sent to a player (or the lobby)."""
    if not state:
        return CommandContext(where=where or "lobby")
    you = state.get("you")
    seats = state.get("seats") or []
    names = tuple(str(s.get("name") or "") for s in seats)
    game = state.get("game")
    turn = state.get("turn")
    hand = state.get("hand")
    trick = state.get("trick") or []
    plays = [tuple(item["cards"]) for item in trick if item.get("cards") and not item.get("pass")]
    top = plays[-1] if plays else None
    # "that or nothing" (P7, T6): the top play covers one of the same rank
    must = plays[-1][0][0] if len(plays) >= 2 and plays[-1][0][0] == plays[-2][0][0] else None
    auction = state.get("auction")
    give = give_count(state)
    raw_phase = state.get("phase")
    phase: str | None
    if game == "speculation":
        if state.get("over"):
            phase = "over"
        elif auction:
            phase = "auction"
        elif state.get("in_deal", True):
            phase = "turning"
        else:
            phase = "waiting"
    elif raw_phase == "exchange":
        phase = "give" if give else "waiting"
    elif raw_phase in ("deal", "round_over"):
        phase = "waiting"
    elif raw_phase == "match_over":
        phase = "over"
    else:
        phase = raw_phase if isinstance(raw_phase, str) else None
    facedown = tuple(int(s.get("facedown") or 0) for s in seats)
    return CommandContext(
        where=where or "room",
        game=game,
        rules=state.get("rules"),
        phase=phase,
        hand=tuple(hand) if hand is not None else None,
        your_turn=you is not None and turn == you,
        you=you,
        names=names,
        top=top,
        must=must,
        order=state.get("order") or "normal",
        give_count=give or None,
        auction=auction,
        offers=tuple(state.get("offers") or ()),
        facedown=facedown,
    )


def give_count(state: Mapping[str, Any]) -> int:
    """How many cards the viewer still has to give back in a tdc exchange (T12), from a state.

    The Président and the Vice-président choose 2 and 1 cards; once their exchange event
    lists a gift from them, nothing is due. A ``give`` field in the state, when the server
    adds one, wins.
    """
    if state.get("phase") != "exchange":
        return 0
    given = state.get("give")
    if isinstance(given, int):
        return given
    you = state.get("you")
    seats = state.get("seats") or []
    if not isinstance(you, int) or you >= len(seats):
        return 0
    title = seats[you].get("title")
    k = 2 if title == "president" else 1 if title == "vice_president" else 0
    if k and any(e.get("from") == you for e in state.get("exchange") or []):
        return 0
    return k
