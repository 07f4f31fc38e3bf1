"""Machine mode (PROTOCOL.md): one UTF-8 JSON object per line, both ways.

Every request gets exactly one reply echoing its ``id``; a line that is not a
JSON object gets ``bad_json`` (with ``id`` null). Events carry their ``text`` in
the session's language; an event many readers receive is encoded once and each
reader's ``text`` spliced in after its fields (the same bytes as encoding the
whole object).
"""

from __future__ import annotations

import json.encoder
import logging
from collections.abc import Hashable, Mapping
from typing import Any

from server.messages.errors import error_message
from server.messages.events import event_text
from server.messages.kit import reading
from server.messages.terminal import BROWSER, PLAIN, TermStyle
from server.presenters import Action, Local, Request, Viewer
from server.protocol import VERSION, JSONValue, Push, Result, Shared, decode, encode, plain_id

log = logging.getLogger(__name__)

_encode_str = json.encoder.encode_basestring  # a str as json.dumps writes it


class JsonPresenter:
    mode = "json"

    def __init__(self, viewer: Viewer) -> None:
        self.viewer = viewer
        self.words: TermStyle = PLAIN  # BROWSER once the play page said it is one (for_browser)

    def for_browser(self) -> None:
        """The reader is a person at the play page: sentences without typing instructions."""
        self.words = BROWSER

    def render_key(self) -> tuple[Hashable, ...]:
        return ("json", self.viewer.lang, self.words.browser)

    def start(self) -> str:
        v = self.viewer
        return self.event({"event": "hello", "version": VERSION, "name": v.name,
                           "guest": v.guest if v.logged_in else None, "lang": v.lang}, None, None)

    def read(self, line: str) -> Action:
        if not line or line.isspace():  # (not line.strip(), without making the stripped line)
            return None
        obj = decode(line)
        if obj is None:
            return Local(self.error(None, "bad_json", {}))
        req_id = obj.get("id")
        if req_id.__class__ is not int and not plain_id(req_id):
            req_id = None
        cmd = obj.get("cmd")
        if not isinstance(cmd, str) or not cmd or len(cmd) > 40:
            return Local(self.error(req_id, "bad_json", {}))
        args = dict(obj)  # the other fields, in their order
        del args["cmd"]
        args.pop("id", None)
        return Request(cmd, args, req_id)

    def ok(self, req_id: JSONValue, cmd: str, result: Result | None) -> str:
        return encode({"type": "ok", "id": req_id, **result} if result else {"type": "ok", "id": req_id})

    def error(self, req_id: JSONValue, code: str, params: Mapping[str, object]) -> str:
        return encode({"type": "error", "id": req_id, "code": code,
                       "message": _error_message(self.viewer.lang, code, params, self.words)})

    def _words(self, event: Push, names: tuple[str, ...] | None, you: int | None) -> str:
        try:
            return event_text(self.viewer.lang, _worded(event), names or (), you, self.words)
        except Exception:  # a rendering bug costs a sentence, never a session
            log.exception("wording %s failed", event.get("event"))
            return ""

    def event(self, event: Push, names: tuple[str, ...] | None, you: int | None) -> str:
        return encode({"type": "event", **event, "text": self._words(event, names, you)})

    def shared(self, shared: Shared, you: int | None) -> str:
        # readers with the same reading of the event (server.messages.kit.Readers) are shown the same
        # words: worded once, for the first of them
        event = shared.event
        cache = shared.cache
        key = (self.render_key(), reading(event, you))
        line = cache.get(key)
        if line is not None:
            return line
        prefix = cache.get("json-prefix")
        if prefix is None:
            prefix = _prefix(shared)
        if prefix:
            line = prefix + _encode_str(self._words(event, shared.names, you)) + "}\n"
        else:
            line = self.event(event, shared.names, you)
        cache[key] = line
        return line

    def state(self, state: Push) -> str:
        return encode({"type": "state", **state})

    def text(self, text: str) -> str:
        return ""

    def close(self) -> None:
        pass


def _error_message(lang: str, code: str, params: Mapping[str, Any], style: TermStyle) -> str:  # a refusal's params, spread
    try:
        return error_message(lang, code, style, **params)
    except Exception:  # a message must never break a reply
        return error_message(lang, code, style)


def _worded(event: Push) -> Push:
    if event.get("event") == "chat" and "text" not in event:
        return {**event, "text": event.get("message", "")}
    return event


def _prefix(shared: Shared) -> str:
    """``{"type":"event",<fields>,"text":`` ("" when the event cannot be spliced), made once."""
    prefix = shared.cache.get("json-prefix")
    if prefix is None:
        event = shared.event
        if not event or "type" in event or "text" in event:
            prefix = ""
        else:
            prefix = '{"type":"event",' + encode(event)[1:-2] + ',"text":'
        shared.cache["json-prefix"] = prefix
    return prefix
