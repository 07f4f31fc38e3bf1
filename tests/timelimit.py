"""Every test has a time limit; a test past it fails with what everything was doing.

pytest-timeout arms the limit (``timeout`` in pyproject.toml, a ``@pytest.mark.timeout(N)``
for a test that needs more). This plugin takes over how it fires:

1. At the limit, SIGALRM in the main thread writes the stack of every thread and of every
   asyncio task of the running loop (what an ``await`` is waiting on), then fails the test;
   the run goes on with the next one.
2. A test that is not ended by that (the failure swallowed by a callback, a C call that
   does not return) is ended with the whole run :data:`GRACE` seconds later, after the
   same report, so one hang can never spend CI's whole budget.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import traceback
from typing import Any

import pytest

GRACE = 30.0
"""Seconds between the failure and ending the run when the failure did not end the test."""


def _write(item: pytest.Item, text: str) -> None:
    terminal = item.config.get_terminal_writer()
    terminal.write(text)
    terminal.flush()


def report(item: pytest.Item, limit: float) -> str:
    """Every thread's stack and every asyncio task's stack, as text."""
    lines = [f"\n{'+' * 20} {item.nodeid}: over its {limit:g} s time limit {'+' * 20}\n"]
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        lines.append(f"--- thread {names.get(ident, '?')} ({ident})\n")
        lines.extend(traceback.format_stack(frame))
    loop = asyncio._get_running_loop()
    if loop is not None:
        for task in asyncio.all_tasks(loop):
            lines.append(f"--- asyncio task {task.get_name()}: {task!r:.300}\n")
            for frame in task.get_stack():
                lines.extend(traceback.format_stack(frame, limit=1))
    lines.append(f"{'+' * 60}\n")
    return "".join(lines)


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    if settings.method != "signal" or threading.current_thread() is not threading.main_thread():
        return None
    limit = float(settings.timeout)
    backstop = threading.Timer(limit + GRACE, _end_run, (item, limit))
    backstop.daemon = True

    def fire(signum: int, frame: Any) -> None:
        __tracebackhide__ = True
        _write(item, report(item, limit))
        backstop.start()
        pytest.fail(f"Timeout: over the {limit:g} s time limit (stacks above)", pytrace=False)

    def cancel() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        backstop.cancel()

    item.cancel_timeout = cancel  # type: ignore[attr-defined]
    signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, limit)
    return True


def _end_run(item: pytest.Item, limit: float) -> None:
    import os

    capture = item.config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        capture.suspend_global_capture(item)
    item.config.get_terminal_writer().flush()
    sys.stdout.flush()
    text = report(item, limit) + f"the test did not end {GRACE:g} s after failing: ending the run\n"
    os.write(2, text.encode("utf-8", "replace"))
    os._exit(1)
