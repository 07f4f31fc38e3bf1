"""The sentences of the limits on reaching people (``server/lobby/pace.py``): ``rate_limited`` with the
``reason`` of the budget that refused (tells, challenges, seeks, ``verify``)."""

from __future__ import annotations

import gettext
from collections.abc import Mapping


def pace_text(t: gettext.NullTranslations, code: str, reason: str | None, p: Mapping[str, object]) -> str | None:
    """The sentence of a refusal by one of those budgets, or None (another refusal)."""
    if code != "rate_limited":
        return None
    name = p.get("name") if isinstance(p.get("name"), str) and p.get("name") else None
    if reason == "tells":
        return t.gettext("You are sending tells too fast: wait a moment before the next one.")
    if reason == "tells_to":
        if name:
            return t.gettext("{name} is receiving too many tells: wait a moment, or send a message later.").format(
                name=name)
        return t.gettext("That person is receiving too many tells: wait a moment.")
    if reason == "challenges":
        return t.gettext("You are challenging too often: wait a minute before the next challenge.")
    if reason == "challenges_to":
        if name:
            return t.gettext("{name} is receiving too many challenges: wait a minute.").format(name=name)
        return t.gettext("That person is receiving too many challenges: wait a minute.")
    if reason == "seeks":
        return t.gettext("You are seeking too often: wait a minute before the next seek.")
    if reason == "verify":
        return t.gettext("Checking deals takes the server time: wait a moment before the next verify.")
    if reason == "logins":
        return t.gettext("Too many logins to this account lately: wait a minute before the next one.")
    if reason == "replay":
        return t.gettext("Replaying rounds takes the server time: wait a moment before the next replay.")
    return None
