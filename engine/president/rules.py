"""Rule sets of Président: immutable configuration, found by name (RULES P and T).

One engine plays both tables; a rule set is a :class:`PresidentRules` value and
the ``tdc`` table is the ``classic`` one with a handful of switches turned
(``dataclasses.replace``), not a fork. Every switch cites the rule it implements.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class PresidentRules:
    """Configuration of one Président table (see ``docs/engine.md``)."""

    name: str
    min_seats: int = 3
    """P1 / T1: 3 to 8 players."""
    max_seats: int = 8
    first_lead: str = "3c"
    """``"3c"``: P4 (holder of ``3c`` in round 1, the previous last afterwards);
    ``"qh"``: T3 (holder of ``Qh`` after the exchange, every round)."""
    pass_leaves_trick: bool = False
    """T5: a pass takes the player out of the trick (P8: it does not)."""
    close_on_quad: bool = True
    """P9b: a play of four cards closes the trick."""
    close_on_four_of_rank: bool = False
    """T7b: the trick closes once all four cards of a rank were played in it."""
    forced_passes: bool = True
    """P9 Decision: when "ça ou rien" (P7) demands a rank whose four cards are all played,
    nobody can play: the remaining passes are applied at once and the trick closes (P9c)."""
    close_on_empty: bool = False
    """T7c: a play that empties a hand closes the trick; the next seat leads."""
    revolution: bool = False
    """T10: a quad reverses the order for the rest of the round."""
    cut: bool = False
    """T9: the cut, out of turn."""
    forbidden_last: bool = False
    """T8: going out with a 2 (a 3 in revolution) ranks you last."""
    exchange_choice: bool = False
    """T12: the Président and the Vice-président choose what they give back
    (P13: everything is automatic and simultaneous)."""
    passive_on_timeout: bool = False
    """T14: a turn that times out makes the seat passive for the round.
    Otherwise (classic) a time-out passes, or plays the weakest single when leading."""
    money: bool = False
    """T13: each round has a stake, settled by :func:`engine.president.settle_stakes`."""
    seats_change: bool = False
    """T1: players may join or leave between rounds (``Deal.present``)."""
    default_rounds: int | None = 5
    """P15: 5 rounds; ``None``: the table plays until the room stops it (T1)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PresidentRules:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


CLASSIC = PresidentRules(name="classic")
"""RULES P1–P16."""

TDC = replace(
    CLASSIC,
    name="tdc",
    first_lead="qh",
    pass_leaves_trick=True,
    close_on_quad=False,
    close_on_four_of_rank=True,
    forced_passes=False,
    close_on_empty=True,
    revolution=True,
    cut=True,
    forbidden_last=True,
    exchange_choice=True,
    passive_on_timeout=True,
    money=True,
    seats_change=True,
    default_rounds=None,
)
"""RULES T1–T15: "trou du cul"."""

RULESETS: dict[str, PresidentRules] = {"classic": CLASSIC, "tdc": TDC}
