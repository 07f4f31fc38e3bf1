"""Option checks shared by every adapter: seats, bots, their level, the decision time, rounds."""

from __future__ import annotations

import logging

from engine.bots import LEVELS, make_bot
from server.games.base import Settings
from server.protocol import Args, CommandError, JSONValue, arg_bool, arg_int, arg_number, arg_str

log = logging.getLogger(__name__)

STRATEGY_NAMES = ("random", "greedy", "search")


def seats_and_bots(args: Args, lo: int, hi: int) -> tuple[int, int]:
    seats = arg_int(args, "seats", default=4, lo=lo, hi=hi)
    bots = arg_int(args, "bots", default=0, lo=0, hi=seats - 1)
    return seats, bots


def bot_level(args: Args, game: str) -> str:
    level = arg_str(args, "bot_level", default="normal", limit=20).lower()
    if level not in LEVELS and level not in STRATEGY_NAMES:
        raise CommandError("bad_argument", arg="bot_level")
    try:
        make_bot(game, level, 0, b"\0" * 16)  # the strategy exists for this game
    except Exception:
        log.exception("no %s bot for %s", level, game)
        raise CommandError("bad_argument", arg="bot_level") from None
    return level


def turn_seconds(args: Args, default: float) -> float:
    return arg_number(args, "turn_seconds", default=default, lo=1, hi=600)


def rounds(args: Args) -> int | None:
    if args.get("rounds") is None:
        return None
    return arg_int(args, "rounds", lo=1, hi=1000)


def rated(args: Args, bots: int, settings: Settings) -> bool:
    """``rated``: the table's rounds move its players' ratings. By default yes, except at a table
    with bots (unless the server's ``rate_bot_tables`` says so)."""
    default = bots == 0 or bool(getattr(settings, "rate_bot_tables", False))
    return arg_bool(args, "rated", default=default)


def refuse_unless_absent(args: Args, key: str, *absent: JSONValue) -> None:
    """An option this table does not have may only be left out (or given as one of ``absent``)."""
    if key in args and args[key] not in (None, *absent):
        raise CommandError("bad_argument", arg=key)


def window_option(args: Args, key: str) -> dict[str, float]:
    """A table's own length for a window (``cut_window``, ``trade_window``), 0 to 60 s; absent: the server's."""
    if args.get(key) is None:
        return {}
    return {key: arg_number(args, key, default=0.0, lo=0, hi=60)}
