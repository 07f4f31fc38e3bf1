"""Président, both tables ("classic", RULES P1–P16; "tdc", T1–T15) in one engine.

    >>> from engine.president import PresidentMatch
    >>> from engine.seeds import seed_from_int
    >>> m = PresidentMatch("classic", seats=4)
    >>> events = m.apply(m.deal_action(seed_from_int(1)))
    >>> [e.name for e in events], m.phase
    (['dealt'], 'play')

See ``docs/engine.md`` for the API, the events, the views and the log.
"""

from __future__ import annotations

from .actions import Action, Cut, Deal, Give, Pass, Play, Timeout, action_from_dict
from .events import (
    CutEvent,
    Dealt,
    Event,
    Exchange,
    MatchOver,
    Out,
    Passed,
    Played,
    Revolution,
    RoundOver,
    TimeoutEvent,
    TrickClosed,
)
from .match import PresidentMatch
from .rules import CLASSIC, RULESETS, TDC, PresidentRules
from .stakes import settle_stakes, stake_debits, stake_payouts, titles_for
from .view import PresidentView, cards_of_mask

__all__ = [
    "CLASSIC",
    "RULESETS",
    "TDC",
    "Action",
    "Cut",
    "CutEvent",
    "Deal",
    "Dealt",
    "Event",
    "Exchange",
    "Give",
    "MatchOver",
    "Out",
    "Pass",
    "Passed",
    "Play",
    "Played",
    "PresidentMatch",
    "PresidentRules",
    "PresidentView",
    "Revolution",
    "RoundOver",
    "Timeout",
    "TimeoutEvent",
    "TrickClosed",
    "action_from_dict",
    "cards_of_mask",
    "settle_stakes",
    "stake_debits",
    "stake_payouts",
    "titles_for",
]
