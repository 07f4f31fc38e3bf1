"""The tables donne offers, one adapter each (see :mod:`server.games.base`).

``ADAPTERS`` maps a table kind (``rules`` in the protocol) to its adapter;
:func:`parse_options` reads a ``create`` command's arguments. This registry is
the one place of ``server/`` that knows games by name.
"""

from __future__ import annotations

from server.games.base import GameAdapter, Settings, TableOptions
from server.games.president import ClassicAdapter, TdcAdapter
from server.games.speculation import SpeculationAdapter
from server.protocol import Args, CommandError, arg_str

ADAPTERS: dict[str, GameAdapter] = {a.name: a for a in (ClassicAdapter(), TdcAdapter(), SpeculationAdapter())}
"""Table kind -> adapter."""

DEFAULT_RULES: dict[str, str] = {"president": "classic", "speculation": "speculation"}
"""The table a game gets when ``create`` names no rules."""

TABLES: dict[str, tuple[str, ...]] = {game: tuple(a.name for a in ADAPTERS.values() if a.game == game)
                                     for game in DEFAULT_RULES}
"""Game -> its tables, the default first."""


def adapter(rules: str) -> GameAdapter:
    return ADAPTERS[rules]


def parse_options(args: Args, settings: Settings) -> TableOptions:
    """The ``create`` arguments, checked; ``CommandError("bad_argument")`` names the first bad one."""
    game = arg_str(args, "game", limit=20).lower()
    if game not in DEFAULT_RULES:
        raise CommandError("bad_argument", arg="game")
    raw = args.get("rules")
    rules = DEFAULT_RULES[game] if raw is None else arg_str(args, "rules", limit=20).lower()
    chosen = ADAPTERS.get(rules)
    if chosen is None or chosen.game != game:
        raise CommandError("bad_argument", arg="rules")
    return chosen.options(args, settings)


__all__ = ["ADAPTERS", "DEFAULT_RULES", "TABLES", "GameAdapter", "TableOptions", "adapter", "parse_options"]
