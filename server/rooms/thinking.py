"""Slow bots think in other processes: the search bots' decisions, off the event loop and its GIL.

A table asks for a search bot's decision with the :class:`~server.table.io.Think`
effect; the room hands it to the server's :class:`Thinkers`, which runs
``bot.decide(view, legal)`` in a :class:`concurrent.futures.ProcessPoolExecutor`.
Threads would not do: a search is pure Python, and while a thread searches it
holds the GIL, so every session's reply and every other table waits behind it
(``bench/bench_abuse.py --only bots`` measures a person's ping latency while 20
hard-bot tables play).

* **Lazily started, sized from the configuration.** No process is started
  before the first decision; ``bot_processes`` workers at most (``0``: one
  less than the machine's cores, at least one), started with ``spawn`` (a
  fresh interpreter: nothing of the server's sockets, loop or threads is
  inherited), at a lower CPU priority (``nice`` +5) than the server itself.
* **A bot's memory comes back.** The bot travels to the worker with the
  view and the legal actions (all of them pickle: the bot's clock option
  is ``time.monotonic``, pickled by reference) and comes back with the
  action: a bot that keeps state between decisions (a search bot counts its
  decisions, which seeds the next one; the Président one tracks the round;
  the Speculation one caches its estimates) has the state its decision
  left, exactly as if it had decided in the server. The table awaits the
  effect, so nothing else touches that bot meanwhile.
* **Fair and bounded.** Decisions queue in arrival order, and a search bot's
  budget is a wall-clock bound counted from the moment its decision starts:
  many hard-bot tables slow one another down, never the people.
* **A worker that dies** (killed, out of memory) breaks the pool: the pool is
  replaced and the decision tried once more; a second failure is the bot's
  (the table lets the clock play its seat). A bot that cannot travel (it
  does not pickle) decides in a thread, as before, with a warning.
* **Shut down with the server** (:meth:`Thinkers.shutdown`, from the lobby's
  shutdown, after the rooms have stopped), and **dying with it** when it is
  killed (``kill -9``): each worker asks the kernel for SIGKILL when its parent
  dies and watches its parent process id (:func:`die_with_parent`); once the
  workers are gone, multiprocessing's resource tracker ends too.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import importlib
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine.api import Action, View
from engine.bots import Bot

log = logging.getLogger(__name__)

WORKER_NICE = 5
"""How much lower the workers' CPU priority is than the server's (``os.nice``)."""


def worker_count(configured: int) -> int:
    """The pool's size: ``configured``, or (0) one less than the machine's cores, at least one."""
    if configured > 0:
        return configured
    return max(1, (os.cpu_count() or 2) - 1)


PARENT_WATCH_SECONDS = 0.5
"""How often a worker checks that the server that started it still lives (where the kernel cannot
tell it: :func:`die_with_parent`)."""

_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """End this process when ``parent`` (the server) ends, even by ``kill -9``.

    Linux: the kernel sends SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``); everywhere,
    a daemon thread checks every :data:`PARENT_WATCH_SECONDS` that the process was not handed to
    another parent, and exits if it was (this also covers a parent that died before the ``prctl``).
    Without it a worker blocked on its call queue (of which it holds both ends) outlived a killed
    server, and with it multiprocessing's resource tracker (which ends once nobody holds its pipe).
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _init_worker(parent: int) -> None:
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which shuts the pool down
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)
    for module in ("engine.bots.search_president", "engine.bots.search_speculation"):
        importlib.import_module(module)  # the first decision does not pay for the imports


def think(bot: Bot, view: View, legal: Sequence[Action]) -> tuple[Action | None, Bot]:
    """In a worker: the bot's decision, and the bot as the decision left it."""
    return bot.decide(view, legal), bot


def adopt(bot: Bot, thought: Bot) -> None:
    """Give ``bot`` the state of ``thought`` (the same bot, back from a worker): attributes and slots."""
    if type(bot) is not type(thought):
        raise TypeError(f"a {type(thought).__name__} came back for a {type(bot).__name__}")
    if hasattr(bot, "__dict__"):
        own = vars(bot)
        own.clear()
        own.update(vars(thought))
    for name in _slot_names(type(bot)):
        if hasattr(thought, name):
            setattr(bot, name, getattr(thought, name))
        elif hasattr(bot, name):
            delattr(bot, name)


def _slot_names(cls: type) -> list[str]:
    names: list[str] = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return names


class Thinkers:
    """The server's pool of thinking processes (see the module's documentation)."""

    def __init__(self, processes: int = 0) -> None:
        self.processes = worker_count(processes)
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False
        self.decisions = 0  # decided in a worker
        self.fallbacks = 0  # decided in a thread (the bot did not pickle)
        self.restarts = 0  # pools replaced after a worker died

    @property
    def started(self) -> bool:
        return self._pool is not None

    def _executor(self) -> ProcessPoolExecutor:
        if self._closed:
            raise RuntimeError("the server is shutting down: no more thinking")
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.processes, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_init_worker, initargs=(os.getpid(),))
            log.info("bots think in %d process%s", self.processes, "" if self.processes == 1 else "es")
        return self._pool

    async def decide(self, bot: Bot, view: View, legal: Sequence[Action]) -> Action | None:
        """``bot.decide(view, legal)`` in a worker; ``bot`` then has the state the decision left."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self._executor()
            try:
                if _dead(pool):  # a worker killed while idle: the pool is broken, whether it knows yet or not
                    raise BrokenProcessPool("a thinking process died")
                action, thought = await _answer(pool, loop.run_in_executor(pool, think, bot, view, list(legal)))
            except BrokenProcessPool:
                self._drop(pool)
                if attempt == 2:
                    raise
                continue
            except (pickle.PicklingError, TypeError, AttributeError) as exc:
                if not _unpicklable(exc):
                    raise
                log.warning("a %s does not pickle (%s): it thinks in a thread", type(bot).__name__, exc)
                self.fallbacks += 1
                return await asyncio.to_thread(bot.decide, view, legal)
            adopt(bot, thought)
            self.decisions += 1
            return action
        raise AssertionError("unreachable")

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        if self._pool is pool:
            self._pool = None
            self.restarts += 1
            log.warning("a thinking process died; the pool is started again")
        pool.shutdown(wait=False, cancel_futures=True)

    async def shutdown(self) -> None:
        """Stop the workers (idempotent); a decision asked afterwards is refused."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)


POOL_CHECK_SECONDS = 1.0
"""How often a decision waiting on the pool checks that its workers still live."""


def _dead(pool: ProcessPoolExecutor) -> bool:
    """Has the pool broken, or lost a worker it has not noticed yet? (A ProcessPoolExecutor never
    replaces a worker: one dead means the pool is broken.)"""
    processes = getattr(pool, "_processes", None) or {}
    return bool(getattr(pool, "_broken", False)) or any(not p.is_alive() for p in list(processes.values()))


async def _answer(pool: ProcessPoolExecutor, decision: asyncio.Future[tuple[Action | None, Bot]]) -> tuple[Action | None, Bot]:
    """The decision's answer; :class:`BrokenProcessPool` when a worker dies meanwhile, even if the pool
    misses it (Python 3.11's pool can leave a work item pending for ever when a worker is killed just
    as it is submitted)."""
    while True:
        done, _ = await asyncio.wait({decision}, timeout=POOL_CHECK_SECONDS)
        if done:
            return decision.result()
        if _dead(pool):
            decision.cancel()
            raise BrokenProcessPool("a thinking process died")


def _unpicklable(exc: BaseException) -> bool:
    """Did sending the bot, the view or the legal actions to a worker fail (rather than the decision)?"""
    text = str(exc)
    return isinstance(exc, pickle.PicklingError) or "pickle" in text or "serializ" in text
