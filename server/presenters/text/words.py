"""The words people type, per language: verbs, ranks, games, tables, options, on/off.

The first word of each tuple in :data:`VERBS` is the one shown in help texts and messages;
English words are always accepted as well.
"""

from __future__ import annotations

import unicodedata

from server.messages.translations import normalize_lang

RANKS = "3456789TJQKA2"
SUITS = "cdhs"
TYPED_SUITS = {"♣": "c", "♧": "c", "♦": "d", "♢": "d", "♥": "h", "♡": "h", "♠": "s", "♤": "s"}

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
        "rematch": ("rematch", "again"),
        "tricks": ("tricks",),
        "say": ("say", "chat"),
        "rooms": ("rooms", "tables", "list"),
        "who": ("who",),
        "whoami": ("whoami", "me"),
        "state": ("look", "state", "l"),
        "lang": ("lang", "language", "langue", "idioma"),  # the language hint's words, understood everywhere
        "help": ("help", "?", "commands"),
        "quit": ("quit", "exit", "bye", "logout"),
        "autocut": ("autocut",),
        "autopass": ("autopass",),
        "extend": ("more", "extend", "moretime"),
        "colour": ("colour", "color", "colours", "colors"),
        "unicode": ("unicode",),
        "reader": ("reader", "screenreader"),
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
        "tell": ("tell", "whisper", "msg"),
        "reply": ("reply", "re"),
        "message": ("message", "mail"),
        "finger": ("finger", "profile", "whois"),
        "bio": ("bio",),
        "hide": ("hide",),
        "friend": ("friend",),
        "friends": ("friends",),
        "seek": ("seek",),
        "challenge": ("challenge", "defy"),
        "seeks": ("seeks", "challenges"),
        "replay": ("replay",),
        "tournament": ("tournament", "tourney"),
        "tournaments": ("tournaments", "tourneys"),
        "motd": ("motd",),
        "ignore": ("ignore",),
        "unignore": ("unignore",),
        # the staff's (server/commands/moderation.py; who may: server/commands/roles.py)
        "kick": ("kick",),
        "mute": ("mute",),
        "unmute": ("unmute",),
        "ban": ("ban",),
        "unban": ("unban",),
        "bans": ("bans",),
        "announce": ("announce", "broadcast"),
        "shutdown": ("shutdown",),
        "grant": ("grant", "promote"),
        "revoke": ("revoke", "demote"),
        "retire": ("takeback", "retirechips"),  # "retire" is French for withdraw
        "resetpw": ("resetpw",),
        "rename": ("rename",),
        "lock": ("lock",),
        "unlock": ("unlock",),
        "modlog": ("modlog",),
        "standing": ("standing", "account"),  # "whois" is the profile's (social: finger)
        "seed": ("seed",),
        "verify": ("verify",),
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
        "rematch": ("revanche", "rejouer"),
        "tricks": ("plis",),
        "say": ("dire", "dis"),
        "rooms": ("tables", "salles", "salons"),
        "who": ("qui",),
        "whoami": ("moi", "quisuisje"),
        "state": ("voir", "état", "l"),
        "lang": ("langue",),
        "help": ("aide", "?"),
        "quit": ("quitter", "quitte", "bye"),
        "autocut": ("autocoupe", "coupeauto"),
        "autopass": ("passeauto", "autopasse"),
        "extend": ("rallonge", "rallonger", "plus"),
        "colour": ("couleur", "couleurs"),
        "unicode": ("unicode",),
        "reader": ("lecteur", "lecteurdecran"),
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
        "tell": ("susurrer", "chuchoter"),
        "reply": ("répondre", "réponds"),
        "message": ("message", "écrire"),
        "finger": ("profil",),
        "bio": ("bio",),
        "hide": ("cacher",),
        "friend": ("ami",),
        "friends": ("amis",),
        "seek": ("chercher", "cherche"),
        "challenge": ("défier", "défie"),
        "seeks": ("défis", "annonces", "recherches"),  # a seek is "Recherche n° 1" on screen
        "replay": ("revoir",),
        "tournament": ("tournoi",),
        "tournaments": ("tournois",),
        "motd": ("motd", "messagedujour"),
        "ignore": ("ignorer",),
        "unignore": ("désignorer", "designorer"),
        "kick": ("expulser",),
        "mute": ("museler", "bâillonner", "baillonner"),
        "unmute": ("démuseler", "demuseler"),
        "ban": ("bannir",),
        "unban": ("débannir", "debannir", "gracier"),
        "bans": ("bannis", "bannissements"),
        "announce": ("annoncer", "annonce"),
        "shutdown": ("arrêter", "arreter", "arrêt"),
        "grant": ("accorder", "nommer"),
        "revoke": ("révoquer", "revoquer", "destituer"),
        "retire": ("reprendre",),
        "resetpw": ("réinitialiser", "reinitialiser"),
        "rename": ("renommer",),
        "lock": ("verrouiller", "bloquer"),
        "unlock": ("déverrouiller", "deverrouiller", "débloquer", "debloquer"),
        "modlog": ("journal",),
        "standing": ("compte", "situation"),
        "seed": ("graine",),
        "verify": ("vérifier", "vérifie"),
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
        "rematch": ("revancha", "otra"),
        "tricks": ("bazas",),
        "say": ("decir", "digo"),
        "rooms": ("mesas", "salas"),
        "who": ("quién", "quien"),
        "whoami": ("yo", "quiensoy"),
        "state": ("ver", "estado", "l"),
        "lang": ("idioma", "lengua"),
        "help": ("ayuda", "?"),
        "quit": ("salir", "adiós", "chao"),
        "autocut": ("autocorte",),
        "autopass": ("pasoauto", "autopaso"),
        "extend": ("prórroga", "prorroga", "más", "mas"),
        "colour": ("color", "colores"),
        "unicode": ("unicode",),
        "reader": ("lector", "lectordepantalla"),
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
        "tell": ("susurrar", "cuchichear"),
        "reply": ("responder", "contestar"),
        "message": ("mensaje", "escribir"),
        "finger": ("perfil",),
        "bio": ("bio",),
        "hide": ("ocultar",),
        "friend": ("amigo",),
        "friends": ("amigos",),
        "seek": ("buscar", "busco"),
        "challenge": ("desafiar", "retar", "reto"),
        "seeks": ("desafíos", "retos", "búsquedas"),  # a seek is "Búsqueda n.º 1" on screen
        "replay": ("repetir", "repetición"),
        "tournament": ("torneo",),
        "tournaments": ("torneos",),
        "motd": ("motd", "mensajedeldía", "mensajedeldia"),
        "ignore": ("ignorar",),
        "unignore": ("designorar",),
        "kick": ("expulsar",),
        "mute": ("silenciar", "callar"),
        "unmute": ("desilenciar",),
        "ban": ("banear", "vetar"),
        "unban": ("desbanear",),
        "bans": ("baneos", "vetados"),
        "announce": ("anunciar", "anuncio"),
        "shutdown": ("apagar", "apagado"),
        "grant": ("otorgar", "nombrar"),
        "revoke": ("revocar", "destituir"),
        "retire": ("recuperar",),
        "resetpw": ("restablecer",),
        "rename": ("renombrar",),
        "lock": ("bloquear",),
        "unlock": ("desbloquear",),
        "modlog": ("bitácora", "bitacora"),
        "standing": ("cuenta", "situación", "situacion"),
        "seed": ("semilla",),
        "verify": ("verificar", "comprobar"),
    },
}

STAFF_WORDS: dict[str, dict[str, str]] = {
    # folded words of the staff's commands: roles, "set"/"clear" (motd), "cancel" (shutdown), fillers
    "role": {"player": "player", "joueur": "player", "jugador": "player",
             "moderator": "moderator", "mod": "moderator", "moderateur": "moderator", "moderador": "moderator",
             "admin": "admin", "administrator": "admin", "administrateur": "admin", "administrador": "admin"},
    "set": {"set": "set", "definir": "set", "mettre": "set", "poner": "set", "fijar": "set", "cambiar": "set"},
    "clear": {"clear": "clear", "effacer": "clear", "supprimer": "clear", "borrar": "clear", "quitar": "clear"},
    "cancel": {"cancel": "cancel", "annuler": "cancel", "cancelar": "cancel", "anular": "cancel"},
    "in": {"in": "in", "dans": "in", "en": "in"},
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
FREE_WORDS = {"free", "open", "libre", "libres", "libro", "disponible", "disponibles"}
"""``rooms free``: only the rooms with a seat one may take now."""

STATUS_WORDS = {
    "waiting": "waiting",
    "attente": "waiting",
    "espera": "waiting",
    "playing": "playing",
    "jeu": "playing",
    "encours": "playing",
    "juego": "playing",
    "over": "over",
    "finie": "over",
    "fini": "over",
    "terminee": "over",
    "terminada": "over",
    "acabada": "over",
}
"""``rooms waiting`` and the like: the rooms in that status."""
RATED_WORDS = {
    # a table whose rounds move the ratings, or not (create, seek, challenge)
    "rated": True,
    "classee": True,
    "classe": True,
    "puntuable": True,
    "clasificatoria": True,
    "unrated": False,
    "amical": False,
    "amicale": False,
    "amistosa": False,
    "amistoso": False,
}
RATING_WORDS = {"rating", "ratings", "elo", "cote", "cotes", "niveau", "puntuacion", "valoracion"}
"""``leaderboard rating``: the board by OpenSkill rating."""
FILL_WORDS = {"fill", "remplir", "completer", "completar", "rellenar"}
"""A seek that lapses opens with bots in its empty seats."""
ADD_WORDS = {"add", "ajouter", "ajoute", "anadir", "agregar"}
REMOVE_WORDS = {"remove", "delete", "del", "retirer", "retire", "enlever", "supprimer", "quitar", "borrar",
                "eliminar"}
TO_WORDS = {"a"}
"""``dire à bob …`` (fr), ``decir a ana …`` (es): say to one person is a tell."""
REPLAY_WORDS: dict[str, str] = {
    # the replay viewer's own words (the text presenter reads them while a replay is open)
    "next": "next", "n": "next", "suivant": "next", "suivante": "next", "siguiente": "next", "sig": "next",
    "prev": "prev", "previous": "prev", "back": "prev", "b": "prev", "precedent": "prev",
    "precedente": "prev", "anterior": "prev", "atras": "prev",
    "go": "go", "goto": "go", "aller": "go", "va": "go", "ir": "go", "ve": "go",
    # the word shown for "play" (autoplay, lire, reproducir) is never a move at a table: "play"/"jouer"/
    # "jugar" too are the viewer's only where no move is typed (the lobby, watching)
    "autoplay": "play", "auto": "play", "play": "play", "jouer": "play", "lire": "play", "reproducir": "play",
    "jugar": "play",
    "stop": "stop", "pause": "stop", "arreter": "stop", "arrete": "stop", "parar": "stop", "detener": "stop",
    "pausa": "stop",
    "end": "end", "fin": "end", "hands": "end", "mains": "end", "manos": "end",
}

SWITCH_WORDS = {"en": ("on", "off"), "fr": ("oui", "non"), "es": ("sí", "no")}
"""The words shown for a switch's two positions (help, examples, refusals); all of ON_WORDS and
OFF_WORDS are understood in every language."""


TYPED_WORDS = {
    # a game, rules or option word as shown in examples in each language (the parser folds accents
    # and knows them all: GAME_WORDS, RULE_WORDS, CREATE_KEYS)
    "fr": {"president": "président", "speculation": "spéculation", "classic": "classique", "stake": "mise",
           "seats": "places", "time": "temps", "rounds": "manches", "level": "niveau"},
    "es": {"president": "presidente", "speculation": "especulación", "classic": "clásica", "stake": "apuesta",
           "seats": "plazas", "time": "tiempo", "rounds": "rondas", "level": "nivel"},
}


_CREATE_SHOWN = {
    # the words of a table's description a person of each language is shown (suggestions)
    "en": ("president", "speculation", "classic", "tdc", "seats", "bots", "level", "easy", "normal", "hard", "time",
           "stake", "ante", "rounds", "rated", "unrated"),
    "fr": ("président", "spéculation", "classique", "tdc", "places", "bots", "niveau", "facile", "moyen",
           "difficile", "temps", "mise", "ante", "manches", "classée", "amicale"),
    "es": ("presidente", "especulación", "clásica", "tdc", "plazas", "bots", "nivel", "fácil", "normal", "difícil",
           "tiempo", "apuesta", "ante", "rondas", "puntuable", "amistosa"),
}


def create_words(lang: str) -> dict[str, str]:
    """The ``create`` words of ``lang``, folded → as shown (``"president" → "président"``)."""
    return {fold(w): w for w in _CREATE_SHOWN[lang_code(lang)]}


def typed_word(lang: str, word: str) -> str:
    """``word`` (an English game, rules or option word) as a person of ``lang`` types it."""
    return TYPED_WORDS.get(lang_code(lang), {}).get(word, word)


def switch_word(lang: str, on: bool) -> str:
    """``oui``/``non`` (fr), ``sí``/``no`` (es), ``on``/``off`` (en)."""
    return SWITCH_WORDS[lang_code(lang)][0 if on else 1]


ON_WORDS = {"on", "oui", "si", "yes", "1", "true", "activer", "activar", "y", "o", "s"}
OFF_WORDS = {"off", "non", "no", "0", "false", "desactiver", "desactivar", "n"}


def fold(word: str) -> str:
    """Lower case, accents and apostrophes dropped: ``"Enchère"`` → ``"enchere"``."""
    w = unicodedata.normalize("NFKD", word.strip().lower())
    return "".join(c for c in w if not unicodedata.combining(c)).replace("'", "").replace("’", "")


def lang_code(lang: str) -> str:
    return normalize_lang(lang) or "en"


def verb_table(lang: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for code in ("en", lang_code(lang)):  # the session's language wins
        for cmd, words in VERBS[code].items():
            for w in words:
                table[fold(w)] = cmd
    return table


VERB_TABLES = {code: verb_table(code) for code in VERBS}


def verb(lang: str, cmd: str) -> str:
    """The word shown for ``cmd`` in ``lang`` (``verb("fr", "pass") == "passe"``)."""
    words = VERBS[lang_code(lang)].get(cmd) or VERBS["en"].get(cmd) or (cmd,)
    return words[0]
