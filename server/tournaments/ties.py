"""Ties broken by the event's seed: a key per name, the same for the same seed and salt.

The seed is the event's (its configuration); the salt says which decision it
breaks ties for (a round, a table count), so one player is not always first
among equals. Nothing here reads the global ``random``.
"""

from __future__ import annotations

import hashlib


def tie_key(seed: str, salt: str, name: str) -> bytes:
    return hashlib.sha256(f"{seed}\x00{salt}\x00{name}".encode()).digest()
