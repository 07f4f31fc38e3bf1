"""donne's game rules: pure, deterministic, seedable (see docs/engine.md).

``GAMES`` maps a game name to its match class, imported on first use so that
importing one game never costs the others.
"""

from __future__ import annotations

import importlib
from typing import Any

_GAME_MODULES = {
    "president": ("engine.president", "PresidentMatch"),
    "speculation": ("engine.speculation", "SpeculationMatch"),
}


def game_class(name: str) -> Any:
    """The match class of a game (``"president"``, ``"speculation"``)."""
    try:
        module, attr = _GAME_MODULES[name]
    except KeyError:
        raise KeyError(f"unknown game: {name!r}") from None
    return getattr(importlib.import_module(module), attr)


GAME_NAMES = tuple(_GAME_MODULES)
