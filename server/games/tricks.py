"""The tricks of a round as everyone saw them: the plays made face up, in order, trick by trick.

:func:`public_tricks` reads the public form of a round's events (``event.for_seat(None)``: what a
spectator receives, never a hand or an exchanged card) and groups them: each closed trick with its
plays and passes (and a cut, RULES T9), who closed it and why; then the trick on the table now. It is
what the ``tricks`` command answers (docs/protocol.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from server.protocol import JSONValue

TRICK_EVENTS = frozenset({"played", "passed", "cut", "trick_closed"})


def public_tricks(events: Iterable[Mapping[str, JSONValue]]) -> dict[str, JSONValue]:
    """``{"round", "tricks": [{"plays", "by", "reason"}], "trick"}`` for the last round dealt among
    ``events`` (public forms, in order). A play is ``{"seat", "cards"}`` (with ``"cut": true`` for a
    cut), a pass ``{"seat", "pass": true}``."""
    number: JSONValue = None
    tricks: list[JSONValue] = []
    current: list[JSONValue] = []
    for ev in events:
        name = ev.get("event")
        if name == "dealt":
            number, tricks, current = ev.get("round"), [], []
        elif name in ("played", "cut"):
            cards = ev.get("cards")
            play: dict[str, JSONValue] = {"seat": ev.get("seat"), "cards": list(cards) if isinstance(cards, list) else []}
            if name == "cut":
                play["cut"] = True
            current.append(play)
        elif name == "passed":
            current.append({"seat": ev.get("seat"), "pass": True})
        elif name == "trick_closed":
            tricks.append({"plays": current, "by": ev.get("by"), "reason": ev.get("reason")})
            current = []
    return {"round": number, "tricks": tricks, "trick": current}
