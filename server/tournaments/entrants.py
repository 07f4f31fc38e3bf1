"""Who entered an event, in the order they entered, and where each one is now."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

ACTIVE = "active"
LEFT = "left"


@dataclass(slots=True)
class Entrant:
    """One entrant: ``status`` is ``active`` or ``left`` (an arena's pause, a Swiss withdrawal;
    both may come back); ``table``: the table they sit at (they may have left it already);
    ``since``: when they last became free to be seated (an arena's waiting order);
    ``first_round``: the first Swiss round they could play."""

    name: str
    rating: float
    status: str = ACTIVE
    table: str | None = None
    since: float = 0.0
    first_round: int = 1

    @property
    def free(self) -> bool:
        """Active and at no table: to be seated."""
        return self.status == ACTIVE and self.table is None


class Entrants:
    def __init__(self) -> None:
        self._by_name: dict[str, Entrant] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Entrant]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)

    def get(self, name: str) -> Entrant | None:
        return self._by_name.get(name)

    def __getitem__(self, name: str) -> Entrant:
        return self._by_name[name]

    def add(self, entrant: Entrant) -> None:
        self._by_name[entrant.name] = entrant

    def remove(self, name: str) -> None:
        del self._by_name[name]

    def active(self) -> list[Entrant]:
        return [e for e in self._by_name.values() if e.status == ACTIVE]

    def free(self) -> list[Entrant]:
        return [e for e in self._by_name.values() if e.free]
