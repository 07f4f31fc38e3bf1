"""What a sentence needs to know of a game or a table kind, found by its name: the one place the
messages and the text presenter tell games apart (each table is drawn by its game's own module,
``server/presenters/text/games.py``)."""

from __future__ import annotations

ROUND_GAMES = frozenset({"president"})
"""Games whose round is called a round (Président: one deal a round)."""

DEAL_GAMES = frozenset({"speculation"})
"""Games whose round is called a deal, as their table calls it (Speculation)."""

STAKE_RULES = frozenset({"tdc"})
"""Table kinds with a stake per round (Président trou du cul)."""

ANTE_GAMES = frozenset({"speculation"})
"""Games with an ante per deal (Speculation)."""

FORBIDDEN_LAST_RULES = frozenset({"tdc"})
"""Table kinds where some cards may not be a player's last (T8)."""


def deals(game: object) -> bool:
    """A round of ``game`` is called a deal (Speculation)."""
    return game in DEAL_GAMES


def rounds(game: object) -> bool:
    """A round of ``game`` is called a round (Président)."""
    return game in ROUND_GAMES


def staked(rules: object) -> bool:
    """Tables of ``rules`` play for a stake per round."""
    return rules in STAKE_RULES


def has_ante(game: object) -> bool:
    """Tables of ``game`` take an ante per deal."""
    return game in ANTE_GAMES


def forbids_last_cards(rules: object) -> bool:
    """At tables of ``rules`` a hand may not end on certain cards (T8)."""
    return rules in FORBIDDEN_LAST_RULES
