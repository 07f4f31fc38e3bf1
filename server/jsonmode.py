"""Machine mode (PROTOCOL.md): one UTF-8 JSON object per line, both ways.

Every request gets exactly one reply echoing its ``id``; lines that are not a
JSON object get ``bad_json`` (with ``id`` null), a line over ``max_line``
characters gets ``line_too_long``. Over telnet nothing but JSON lines is sent
once this mode starts (the transport stops negotiating).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from server import ui
from server.dispatch import dispatch, rate_ok
from server.transports.lines import TOO_LONG

if TYPE_CHECKING:
    from server.session import Session


def encode(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"


def plain_id(value: Any) -> bool:
    """Ids echoed back: null, numbers, short strings (anything else is answered with id null)."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return True
    return isinstance(value, str) and len(value) <= 200


def decode(line: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


async def run_json(session: Session) -> None:
    session.mode = "json"
    machine = getattr(session.conn, "set_machine", None)
    if machine is not None:
        machine()  # no echo (telnet, SSH PTY), and over telnet nothing but JSON lines from now on
    session.push_event({"event": "hello", "version": ui.VERSION, "name": session.name,
                        "guest": session.guest if session.logged_in else None, "lang": session.lang})
    max_line = session.app.config.max_line
    while True:
        line = await session.readline()
        if line is None:
            return
        if line is TOO_LONG:
            if rate_ok(session):
                session.reply_error(None, "line_too_long", limit=max_line)
            continue
        assert isinstance(line, str)
        if not line.strip():
            continue
        obj = decode(line)
        if obj is None:
            if rate_ok(session):
                session.reply_error(None, "bad_json")
            continue
        req_id = obj.get("id")
        if not plain_id(req_id):
            req_id = None
        cmd = obj.get("cmd")
        if not isinstance(cmd, str) or not cmd or len(cmd) > 40:
            if rate_ok(session):
                session.reply_error(req_id, "bad_json")
            continue
        args = {k: v for k, v in obj.items() if k not in ("cmd", "id")}
        await dispatch(session, cmd, args, req_id)
