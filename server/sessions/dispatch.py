"""The one command dispatcher, shared by JSON and text mode.

Both modes turn a line into ``(cmd, args)`` — JSON mode by decoding the
object, text mode with the text presenter's parser (``server.presenters.text.parse``) — and call
:func:`dispatch`, which applies the session's rate limit, finds the handler
in the registry (``server.commands``), checks the login, runs it and sends
exactly one reply. Nothing a client sends may escape from here: a handler's
unexpected exception is logged and answered with ``internal_error``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any

from server.commands import Caller, Context, load
from server.operations import metrics
from server.protocol import PLAY_COMMANDS, CommandError

log = logging.getLogger(__name__)


def rate_ok(session: Caller) -> bool:
    """Take one command from the session's budget; a flood ends the session."""
    if session.limiter.allow(time.monotonic()):
        return True
    return _refused(session)


def _refused(session: Caller) -> bool:
    """A command over the session's budget (False); a flood ends the session."""
    metrics.rate_limited()
    if session.limiter.flooding:
        log.info("%r: flooding, disconnecting", session)
        session.notice("flood")
        session.close("flood")
    return False


async def dispatch(session: Caller, cmd: str, args: Mapping[str, Any], req_id: Any = None,
                   read_at: float | None = None) -> None:
    """Run one command for ``session`` and send its one reply (``ok`` or ``error``).

    ``read_at`` (:func:`time.perf_counter`): when its line was read, for the server-side latency
    (:func:`server.operations.metrics.command`: until the last line it caused is written)."""
    with metrics.command(cmd in PLAY_COMMANDS, read_at):
        spec = load().get(cmd)
        if (spec is None or spec.rate) and not (session.limiter.allow(time.monotonic()) or _refused(session)):
            if not session.closed.is_set():
                session.reply_error(req_id, "rate_limited")
            return
        if spec is None:
            session.reply_error(req_id, "unknown_command", cmd=cmd[:40])
            return
        if spec.login and not session.logged_in:
            session.reply_error(req_id, "not_logged_in")
            return
        ctx = Context(session, session.app, req_id, cmd)
        try:
            result = await spec.handler(ctx, args)
        except CommandError as exc:
            session.reply_error(req_id, exc.code, **exc.params)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%r: command %s failed", session, cmd)
            session.reply_error(req_id, "internal_error")
        else:
            if not ctx.answered:
                session.reply_ok(req_id, cmd, result)
