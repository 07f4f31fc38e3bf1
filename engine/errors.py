"""Typed refusals: a rule forbids an action, with a stable code and no prose.

The server turns the code (and its ``params``) into a sentence in each
player's language. A refusal never carries a hidden card of another seat.
"""

from __future__ import annotations

from typing import Any


class Refusal(ValueError):
    """An action the rules forbid. The state did not change."""

    code = "not_allowed"

    def __init__(self, detail: str = "", **params: Any) -> None:
        super().__init__(detail or self.code)
        self.detail = detail
        self.params = params


class NotYourTurn(Refusal):
    code = "not_your_turn"


class IllegalPlay(Refusal):
    code = "illegal_play"


class NotAllowed(Refusal):
    code = "not_allowed"


class InsufficientChips(Refusal):
    code = "insufficient_chips"


class BadArgument(Refusal):
    code = "bad_argument"
