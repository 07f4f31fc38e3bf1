"""The words of tournaments, per language: what follows ``tournament``/``tournoi``/``torneo``.

Every word is folded (lower case, no accents: :func:`server.presenters.text.words.fold`) and
understood in every language; :data:`SHOWN` holds the ones shown in help texts and examples.
"""

from __future__ import annotations

ACTIONS: dict[str, str] = {
    # tournament ACTION ...: the protocol command it becomes
    **dict.fromkeys(("create", "new", "open", "creer", "cree", "ouvrir", "nouveau", "crear", "creo", "nuevo",
                     "abrir"), "tournament_create"),
    **dict.fromkeys(("join", "enter", "rejoindre", "entrer", "inscrire", "sinscrire", "participer", "unirse",
                     "unirme", "entrar", "inscribirse", "inscribirme", "apuntarse", "apuntarme", "participar"),
                    "tournament_join"),
    **dict.fromkeys(("leave", "withdraw", "quitter", "quitte", "partir", "abandonner", "salir", "salirse",
                     "salirme", "retirarse", "retirarme", "abandonar"), "tournament_leave"),
    **dict.fromkeys(("standings", "standing", "results", "ranking", "classement", "resultats", "clasificacion",
                     "resultados"), "tournament_standings"),
    **dict.fromkeys(("watch", "spectate", "observe", "regarder", "observer", "mirar", "observar"),
                    "tournament_watch"),
    **dict.fromkeys(("stop", "end", "arreter", "terminer", "parar", "detener", "terminar"), "tournament_stop"),
    **dict.fromkeys(("list", "all", "liste", "tous", "lista", "todos"), "tournaments"),
}

SHOWN: dict[str, dict[str, str]] = {
    # the words of each language shown in help texts, examples and usages
    "en": {"tournament_create": "create", "tournament_join": "join", "tournament_leave": "leave",
           "tournament_standings": "standings", "tournament_watch": "watch", "tournament_stop": "stop",
           "arena": "arena", "swiss": "swiss", "in": "in", "at": "at", "rounds": "rounds", "bots": "bots",
           "streak": "streak", "scoring": "scoring", "place": "place", "chips": "chips", "late": "late",
           "half": "half", "zero": "zero", "pause": "pause", "min": "min", "max": "max", "deals": "deals", "length": "length",
           "start": "start", "without": "without"},
    "fr": {"tournament_create": "créer", "tournament_join": "rejoindre", "tournament_leave": "quitter",
           "tournament_standings": "classement", "tournament_watch": "regarder", "tournament_stop": "arrêter",
           "arena": "arène", "swiss": "suisse", "in": "dans", "at": "à", "rounds": "rondes", "bots": "bots",
           "streak": "série", "scoring": "points", "place": "rang", "chips": "jetons", "late": "retard",
           "half": "moitié", "zero": "zéro", "pause": "pause", "min": "min", "max": "max", "deals": "manches", "length": "durée",
           "start": "début", "without": "sans"},
    "es": {"tournament_create": "crear", "tournament_join": "unirse", "tournament_leave": "salir",
           "tournament_standings": "clasificación", "tournament_watch": "mirar", "tournament_stop": "parar",
           "arena": "arena", "swiss": "suizo", "in": "en", "at": "a las", "rounds": "rondas", "bots": "bots",
           "streak": "racha", "scoring": "puntos", "place": "puesto", "chips": "fichas", "late": "tarde",
           "half": "mitad", "zero": "cero", "pause": "pausa", "min": "mín", "max": "máx", "deals": "manos", "length": "duración",
           "start": "inicio", "without": "sin"},
}

KINDS = {"arena": "arena", "arene": "arena", "swiss": "swiss", "suisse": "swiss", "suizo": "swiss",
         "suiza": "swiss"}

IN_WORDS = frozenset({"in", "dans", "en"})
"""``dans 10m``: the start, a delay from now."""
AT_WORDS = frozenset({"at", "a", "las", "vers"})
"""``à 20h30``, ``a las 20:30``: the start, a time of day (UTC)."""
NO_WORDS = frozenset({"without", "no", "sans", "sin"})
"""``sans bots``, ``sin bots``: a switch off."""

KEYS: dict[str, str] = {
    # key=value (or ``key value``) of an event: the argument it fills (``rounds``: the event's or the
    # table's, chosen by the kind)
    **dict.fromkeys(("start", "starts", "debut", "depart", "commence", "inicio", "empieza", "comienzo"), "start"),
    **dict.fromkeys(("length", "duration", "duree", "long", "duracion"), "length"),
    **dict.fromkeys(("rounds", "rondes", "tours", "rondas", "event_rounds"), "event_rounds"),
    **dict.fromkeys(("deals", "games", "manches", "donnes", "parties", "manos", "partidas", "table_rounds"),
                    "rounds"),
    **dict.fromkeys(("min", "minimum", "min_seats", "mini", "minimo"), "min_seats"),
    **dict.fromkeys(("max", "maximum", "max_entrants", "maxi", "maximo", "entrants", "inscrits", "inscritos"),
                    "max_entrants"),
    **dict.fromkeys(("bots", "robots", "bot"), "bots"),
    **dict.fromkeys(("streak", "fire", "serie", "racha"), "streak"),
    **dict.fromkeys(("scoring", "score", "points", "decompte", "puntuacion", "puntos"), "scoring"),
    **dict.fromkeys(("late", "retard", "retraso", "tarde", "tardios"), "late"),
    **dict.fromkeys(("pause", "pausa", "break", "round_pause"), "round_pause"),
    **dict.fromkeys(("rated", "classe", "classee", "puntuable"), "rated"),
    **dict.fromkeys(("seats", "places", "sieges", "joueurs", "asientos", "plazas", "jugadores", "players"), "seats"),
    **dict.fromkeys(("time", "turn", "temps", "tiempo", "turn_seconds"), "turn_seconds"),
    **dict.fromkeys(("stake", "mise", "apuesta"), "stake"),
    "ante": "ante",
}

SWITCHES = frozenset({"bots", "streak", "rated"})
"""The keys that are yes or no (alone: yes)."""

SCORING = {"place": "place", "rank": "place", "rang": "place", "classement": "place", "puesto": "place",
           "lugar": "place", "posicion": "place", "chips": "chips", "jetons": "chips", "fichas": "chips"}
LATE = {"half": "half", "moitie": "half", "demi": "half", "mitad": "half", "medio": "half", "media": "half",
        "zero": "zero", "rien": "zero", "nothing": "zero", "cero": "zero", "nada": "zero", "0": "zero"}


def shown(lang: str, word: str) -> str:
    """``word`` (an English tournament word or a command) as a person of ``lang`` reads it."""
    return SHOWN.get(lang, SHOWN["en"]).get(word, word)
