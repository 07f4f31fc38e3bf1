"""``donne serve``: start the SSH and telnet servers around one lobby and one store.

``start(config)`` recovers the store and rebuilds every unfinished table
from its log (``docs/restart.md``), then returns a :class:`Running` server
(its real ports, the lobby, the store) whose ``stop()`` shuts down cleanly:
stop accepting, tell everyone, stop every room (a durable table where it is,
to resume at the next start; others end, refunding the chips of unfinished
rounds), close the sessions, the listeners and the store. ``stop()`` is
idempotent; ``schedule_shutdown(delay, reason)`` warns everyone first and
``cancel_shutdown()`` calls it off.

``donne serve --ready-file PATH`` writes ``{"telnet_port", "ssh_port",
"pid"}`` as JSON to PATH once both servers listen (whole, by a rename, so a
reader never sees half of it) and removes it when the server stops: a
script that started it on ports ``0`` learns the ports there
(``clients/serverproc.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from server.config import Config, ConfigError, load_config
from server.lobby.lobby import Lobby
from server.operations import logsafe
from server.operations.limits import ConnectionCounter, clean_text
from server.protocol import Push
from server.storage.api import Store

if TYPE_CHECKING:
    import asyncssh

    from server.operations.gcpolicy import GcPolicy
    from server.operations.metrics import LoopWatch
    from server.sessions.session import Session
    from server.transports.telnet import TelnetListener
    from server.web.app import WebServer
    from server.web.security import Network

log = logging.getLogger("donne")

SHUTDOWN_WARNINGS = (60.0, 30.0, 10.0)
"""Seconds before a scheduled shutdown when everyone is warned (and when it is scheduled)."""


class Sessions(set["Session"]):
    """The open sessions; :attr:`ended` counts those that have gone (the collector's cue for a full
    collection: an ended connection leaves garbage cycles, ``server/operations/gcpolicy.py``)."""

    ended = 0

    def discard(self, session: object) -> None:
        if session in self:
            self.ended += 1
        super().discard(session)


@dataclass(eq=False)
class Running:
    config: Config
    store: Store = field(init=False)  # opened by start(), after the lobby
    telnet_port: int = 0
    ssh_port: int = 0
    lobby: Lobby = field(init=False)
    connections: ConnectionCounter = field(init=False)
    stopping: bool = False
    sessions: Sessions = field(default_factory=Sessions)  # every open Session, logged in or not
    _telnet: TelnetListener | None = None
    _ssh: asyncssh.SSHAcceptor | None = None
    _metrics: asyncio.Server | None = None  # the metrics endpoint ([metrics] port), None when off
    _lag: LoopWatch | None = None
    _gc: GcPolicy | None = None
    metrics_port: int = 0
    _web: WebServer | None = None  # [web] port, None when off
    web_port: int = 0
    web_proxies: tuple[Network, ...] = ()  # [web] trusted_proxies
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)
    _stop_task: asyncio.Task[None] | None = None
    _countdown: asyncio.Task[None] | None = None
    shutdown_at: float | None = None  # a shutdown is scheduled for then (time.monotonic())
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep  # the countdown's (tests: a fake clock)

    def __post_init__(self) -> None:
        lobby_class = Lobby
        if self.config.redis_url:  # one node of a cluster (docs/cluster.md)
            from server.cluster.lobby import ClusterLobby

            lobby_class = ClusterLobby
        self.lobby = lobby_class(self.config, None, self.sessions)  # its store comes with start()
        self.connections = ConnectionCounter(self.config.max_connections_per_address)

    def schedule_shutdown(self, delay: float, reason: str = "") -> None:
        """A clean shutdown in ``delay`` seconds: everyone is warned now and at 60, 30 and 10 s
        before (``shutdown_warning`` events), then :meth:`stop` (tables resume at the next start).
        A new call replaces the one scheduled; ``delay <= 0``: at once."""
        self.cancel_shutdown(quiet=True)
        if self.stopping:
            return
        reason = clean_text(str(reason))[:200]  # an operator's words, shown to everyone
        delay = max(0.0, float(delay))
        self.shutdown_at = time.monotonic() + delay
        self._countdown = asyncio.get_running_loop().create_task(self._count_down(delay, reason),
                                                                 name="shutdown-countdown")
        log.warning("shutdown in %.0f s%s", delay, f" ({reason})" if reason else "")

    def cancel_shutdown(self, *, quiet: bool = False) -> bool:
        """Call off the scheduled shutdown (everyone is told). False when none was scheduled."""
        task, self._countdown = self._countdown, None
        self.shutdown_at = None
        if task is None or task.done():
            return False
        task.cancel()
        if not quiet:
            log.warning("the scheduled shutdown is called off")
            self._tell_everyone({"event": "shutdown_cancelled"})
        return True

    def _tell_everyone(self, event: Push) -> None:
        for player in list(self.lobby.players.values()):
            if player.session is not None and player.connected:
                player.session.push_event(event)

    async def _count_down(self, delay: float, reason: str) -> None:
        marks = [delay] + [m for m in SHUTDOWN_WARNINGS if m < delay]
        resume = self.config.durable_tables
        for i, left in enumerate(marks):
            if left > 0:
                self._tell_everyone({"event": "shutdown_warning", "seconds": round(left), "reason": reason,
                                     "resume": resume})
            after = marks[i + 1] if i + 1 < len(marks) else 0.0
            await self.sleep(left - after)
        self._countdown = None
        self.shutdown_at = None
        await self.stop()

    async def stop(self) -> None:
        """Shut down (idempotent; concurrent callers all wait for the same shutdown)."""
        if self._stop_task is None:
            self._stop_task = asyncio.get_running_loop().create_task(self._shutdown())
        await asyncio.shield(self._stop_task)

    async def _shutdown(self) -> None:
        self.stopping = True
        countdown, self._countdown = self._countdown, None
        if countdown is not None and countdown is not asyncio.current_task():
            countdown.cancel()
        log.info("shutting down")
        from server.transports.telnet import stop_listening

        if self._telnet is not None:
            stop_listening(self._telnet)
        if self._ssh is not None:
            self._ssh.close()
        if self._metrics is not None:
            self._metrics.close()
        if self._lag is not None:
            self._lag.stop()
        if self._gc is not None:
            self._gc.stop()
        try:
            await self.lobby.shutdown()
        except Exception:
            log.exception("lobby shutdown failed")
        if self._telnet is not None:
            self._telnet.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._telnet.wait_closed(), 5)
        if self._web is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._web.close(), 5)
        if self._ssh is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._ssh.wait_closed(), 5)
        store: Store | None = getattr(self, "store", None)  # (none when start() failed before it)
        if store is not None:
            try:
                await store.close()
            except Exception:
                log.exception("closing the store failed")
        from server.operations import metrics

        metrics.forget_server(self)
        self._stopped.set()
        log.info("stopped")

    async def wait_stopped(self) -> None:
        await self._stopped.wait()


async def open_store(config: Config) -> Store:
    """The store, not recovered yet (:func:`resume_tables` does it, knowing which tables resume)."""
    from server.storage import open_store as _open

    cluster = bool(config.redis_url)  # the nodes share the database: no node recovers it alone
    return await _open(config.url or config.db_path, {"starting_chips": config.starting_chips,
                                                      "guest_chips": config.guest_chips,
                                                      "allow_guests": config.allow_guests,
                                                      "allow_registration": config.allow_registration,
                                                      "registrations_per_hour": config.registrations_per_hour,
                                                      "write_ahead": config.write_ahead},
                       recover=False, exclusive=not cluster)


async def resume_tables(running: Running) -> None:
    """The start-up recovery, then every unfinished table rebuilt from its log (``docs/restart.md``).

    With ``durable_tables``, what belongs to an unfinished table stays as it is (its round's
    escrow, its offers' holds, its bots' chips, its guests); the rest is recovered as after any
    crash (unsettled rounds voided, holds released, guests retired, bots' chips home). Without,
    every table of an earlier run is set aside and its round voided."""
    from server.storage.api import TableClosed
    from server.table.durable import accounts_of

    store, config = running.store, running.config
    started = time.monotonic()
    stored = await store.tables.unfinished()
    if not config.durable_tables:
        await store.recover()
        for t in stored:
            await store.apply([TableClosed(t.table_id, "aside", "not resumed: durable_tables is off")])
        return
    keep = {account for t in stored for account in accounts_of(t.entries)}
    await store.recover(keep_tables=True, keep_accounts=keep)
    if not stored:
        return
    aside = await running.lobby.restore(stored)
    log.info("%d of %d unfinished table(s) resumed in %.3f s (%d set aside)", len(stored) - len(aside),
             len(stored), time.monotonic() - started, len(aside))


async def start(config: Config) -> Running:
    """Create the data folder, open the store, bring the unfinished tables back (in a cluster: join
    the other nodes), start both listeners and the metrics."""
    from server.commands import load
    from server.sessions.frontdoor import serve_ssh, serve_telnet
    from server.transports.ssh import start_ssh
    from server.transports.telnet import start_telnet

    load()
    from server.messages import load_translations

    load_translations()  # compile the fr/es/en catalogs now (~50 ms), not on a player's first line
    from server.storage import ensure_private_dir

    ensure_private_dir(config.data_dir)  # 0700: the host key and the database
    running = Running(config)
    running.store = running.lobby.store = await open_store(config)
    try:
        if config.redis_url:
            from server.cluster.lobby import ClusterLobby

            assert isinstance(running.lobby, ClusterLobby)
            # the other nodes' tables are theirs: no node recovers the shared database alone; the
            # unfinished tables nobody owns are taken over by the nodes (server/cluster/takeover.py)
            await running.lobby.open()
        else:
            await resume_tables(running)
            # after the tables: each open event rebuilt from its record, reconciled with its tables
            aside = await running.lobby.hall.restore()
            if aside:
                log.error("tournament(s) set aside at start: %s", ", ".join(aside))
        running._telnet = await start_telnet(running, serve_telnet)
        running.telnet_port = running._telnet.sockets[0].getsockname()[1]
        running._ssh = await start_ssh(running, serve_ssh)
        running.ssh_port = running._ssh.sockets[0].getsockname()[1]
        await _start_metrics(running)
        if config.web_port:
            from server.web import start_web

            running._web = await start_web(running)
            running.web_port = running._web.port
        from server.operations.gcpolicy import GcPolicy

        running._gc = GcPolicy(config.gc_freeze_seconds, config.gc_full_seconds, config.gc_young,
                               full_closed=config.gc_full_closed, ended=lambda: running.sessions.ended)
        running._gc.start()
    except BaseException:
        await running.stop()
        raise
    web = f", web http://{_url_host(config.web_host)}:{running.web_port}/" if running.web_port else ""
    log.info("listening: telnet %s:%d, ssh %s:%d%s, data in %s, event loop %s", config.host, running.telnet_port,
             config.host, running.ssh_port, web, config.data_dir, loop_name(asyncio.get_running_loop()))
    return running


async def _start_metrics(running: Running) -> None:
    """Event-loop lag always; the live counts and the HTTP endpoint when ``[metrics] port`` is set."""
    from server.operations import metrics

    running._lag = metrics.LoopWatch()
    metrics.watch_gc()
    metrics.watch_server(running)
    cfg = running.config
    if cfg.metrics_port:
        running._metrics = await metrics.serve(cfg.metrics_host, cfg.metrics_port)
        running.metrics_port = running._metrics.sockets[0].getsockname()[1]
        log.info("metrics on http://%s:%d/metrics", cfg.metrics_host, running.metrics_port)


def _url_host(host: str) -> str:
    """``host`` as it stands in a URL (an IPv6 address in brackets; the wildcard as the loopback)."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default from the configuration)")
    parser.add_argument("--ssh-port", type=int, help="SSH port (0: any free port)")
    parser.add_argument("--telnet-port", type=int, help="telnet port (0: any free port)")
    parser.add_argument("--web-port", type=int, help="web port, for browsers (0: off)")
    parser.add_argument("--data-dir", help="folder for the SQLite file and the SSH host key")
    parser.add_argument("--config", help="TOML file overriding config/default.toml")
    parser.add_argument("--log-level", help="DEBUG, INFO, WARNING...")
    parser.add_argument("--shutdown-in", type=float, metavar="SECONDS",
                        help="on SIGTERM, warn everyone and stop this many seconds later (at 60/30/10 s); "
                             "tables resume at the next start")
    parser.add_argument("--ready-file", metavar="PATH",
                        help='once listening, write {"telnet_port", "ssh_port", "pid"} (and "web_port" when on) as '
                             "JSON to PATH (removed at stop)")


def write_ready_file(path: Path, running: Running) -> None:
    """Write the listening ports and this process's id to ``path``, whole (a temporary file renamed)."""
    info = {"telnet_port": running.telnet_port, "ssh_port": running.ssh_port, "pid": os.getpid()}
    if running.web_port:
        info["web_port"] = running.web_port
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(info))
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise ConfigError(f"cannot write the ready file {path}: {exc.strerror}") from None


async def serve(config: Config, ready_file: str | Path | None = None) -> None:
    """Run until SIGINT or SIGTERM (with ``shutdown_in``: SIGTERM warns everyone first and stops
    that many seconds later; a second signal stops at once) or a scheduled shutdown."""
    running = await start(config)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def on_term() -> None:
        if config.shutdown_in > 0 and running.shutdown_at is None and not running.stopping:
            running.schedule_shutdown(config.shutdown_in, "")
        else:
            stop.set()

    for sig, handler in ((signal.SIGINT, stop.set), (signal.SIGTERM, on_term)):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, handler)
    ready: Path | None = None
    try:
        if ready_file is not None:
            write_ready_file(Path(ready_file), running)
            ready = Path(ready_file)
        stopped = loop.create_task(running.wait_stopped())
        signalled = loop.create_task(stop.wait())
        try:
            await asyncio.wait({stopped, signalled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            signalled.cancel()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
        await running.stop()
        if ready is not None:
            with contextlib.suppress(OSError):
                ready.unlink()


def loop_factory(config: Config) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """``[server] event_loop``: ``uvloop`` (refused at start when not installed), ``asyncio`` (the
    standard loop), ``auto`` (uvloop when installed, else the standard loop)."""
    if config.event_loop == "asyncio":
        return None
    try:
        import uvloop  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        if config.event_loop == "uvloop":
            raise ConfigError("event_loop = \"uvloop\" but uvloop is not installed (pip install uvloop)") from None
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """What the start-up line says the server runs on: ``uvloop`` or ``asyncio``."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(
            args.config,
            host=args.host,
            ssh_port=args.ssh_port,
            telnet_port=args.telnet_port,
            web_port=getattr(args, "web_port", None),
            data_dir=args.data_dir,
            log_level=args.log_level,
            shutdown_in=getattr(args, "shutdown_in", None),
        )
    except ConfigError as exc:
        print(f"donne serve: {exc}")
        return 2
    logging.basicConfig(level=config.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logsafe.install(config.log_per_connection)  # client data escaped, records per connection capped
    try:
        with contextlib.suppress(KeyboardInterrupt), asyncio.Runner(loop_factory=loop_factory(config)) as runner:
            runner.run(serve(config, getattr(args, "ready_file", None)))
    except ConfigError as exc:
        print(f"donne serve: {exc}")
        return 2
    return 0
