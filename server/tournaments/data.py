"""What an event's configuration, journal and standings are made of when written down: JSON.

The package imports nothing of the server but itself, so it has its own name for a JSON value
(the same shape as the server's ``protocol.JSONValue``: the two are interchangeable).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JSON: TypeAlias = str | int | float | bool | Sequence["JSON"] | Mapping[str, "JSON"] | None
JSONObject: TypeAlias = dict[str, JSON]
