"""One sentence per event, as its reader sees it (the JSON ``text`` field, and text mode's news).

The wording of each event lives with its kind: :mod:`~server.messages.shared_events`
(every game), :mod:`~server.messages.president_events`,
:mod:`~server.messages.speculation_events`, :mod:`~server.messages.table_events`
(tables, the lobby, the server). Each registers itself by event name.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.messages import (
    fair_events,
    moderation,
    president_events,
    shared_events,
    social_events,
    speculation_events,
    table_events,
    tournament_events,
)
from server.messages.kit import EVENTS
from server.messages.terminal import PLAIN, TermStyle
from server.messages.translations import translation
from server.protocol import Push

WORDED = (shared_events, president_events, speculation_events, table_events, social_events, moderation,
          fair_events, tournament_events)
"""The modules whose events are worded (imported for their registrations)."""


def event_text(lang: str, event: Push, names: Sequence[str], you: int | None,
               style: TermStyle = PLAIN) -> str:
    """One sentence telling ``event`` (a protocol event dict) as seat ``you`` sees it.

    ``names[seat]`` are the players' names; ``you`` is the reader's seat (``None``:
    spectator). Sentences speak to the reader ("You play 7♣") about their own moves.
    """
    t = translation(lang)
    name = event.get("event", "")
    fn = EVENTS.get(name)
    if fn is not None:
        text = fn(t, lang, event, names, you, style)
        if text:
            return text
    return t.gettext("Event: {event}.").format(event=name)
