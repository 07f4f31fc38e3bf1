"""Machine mode (PROTOCOL.md): one UTF-8 JSON object per line, both ways.

Every request gets exactly one reply echoing its ``id``; lines that are not a
JSON object get ``bad_json`` (with ``id`` null), a line over ``max_line``
characters gets ``line_too_long``. Over telnet nothing but JSON lines is sent
once this mode starts (the transport stops negotiating).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server import ui
from server.dispatch import dispatch, rate_ok
from server.protocol import decode, plain_id
from server.transports.lines import TOO_LONG

if TYPE_CHECKING:
    from server.session import Session


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
