"""``donne serve``: start the SSH and telnet servers around one lobby and one store.

``start(config)`` returns a :class:`Running` server (its real ports, the
lobby, the store) whose ``stop()`` shuts down cleanly: stop accepting, tell
everyone, end every room (refunding the chips of unfinished rounds), close
the sessions, the listeners and the store. ``stop()`` is idempotent.

``donne serve --ready-file PATH`` writes ``{"telnet_port", "ssh_port",
"pid"}`` as JSON to PATH once both servers listen (whole, by a rename, so a
reader never sees half of it) and removes it when the server stops: a
script that started it on ports ``0`` learns the ports there
(``server/clients/serverproc.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server import logsafe
from server.config import Config, ConfigError, load_config
from server.limits import ConnectionCounter
from server.lobby import Lobby

log = logging.getLogger("donne")


@dataclass(eq=False)
class Running:
    config: Config
    store: Any = None
    telnet_port: int = 0
    ssh_port: int = 0
    lobby: Lobby = field(init=False)
    connections: ConnectionCounter = field(init=False)
    stopping: bool = False
    sessions: set[Any] = field(default_factory=set)  # every open Session, logged in or not
    _telnet: Any = None
    _ssh: Any = None
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)
    _stop_task: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        lobby_class = Lobby
        if self.config.redis_url:  # one node of a cluster (docs/cluster.md)
            from server.cluster.lobby import ClusterLobby

            lobby_class = ClusterLobby
        self.lobby = lobby_class(self.config, self.store, self.sessions)
        self.connections = ConnectionCounter(self.config.max_connections_per_address)

    async def stop(self) -> None:
        """Shut down (idempotent; concurrent callers all wait for the same shutdown)."""
        if self._stop_task is None:
            self._stop_task = asyncio.get_running_loop().create_task(self._shutdown())
        await asyncio.shield(self._stop_task)

    async def _shutdown(self) -> None:
        self.stopping = True
        log.info("shutting down")
        from server.transports.telnet import stop_listening

        if self._telnet is not None:
            stop_listening(self._telnet)
        if self._ssh is not None:
            self._ssh.close()
        try:
            await self.lobby.shutdown()
        except Exception:
            log.exception("lobby shutdown failed")
        if self._telnet is not None:
            self._telnet.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._telnet.wait_closed(), 5)
        if self._ssh is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._ssh.wait_closed(), 5)
        if self.store is not None:
            try:
                await self.store.close()
            except Exception:
                log.exception("closing the store failed")
        self._stopped.set()
        log.info("stopped")

    async def wait_stopped(self) -> None:
        await self._stopped.wait()


async def open_store(config: Config) -> Any:
    from server.storage import open_store as _open

    cluster = bool(config.redis_url)  # the nodes share the database: no node recovers it alone
    return await _open(config.url or config.db_path, {"starting_chips": config.starting_chips,
                                                      "guest_chips": config.guest_chips,
                                                      "allow_guests": config.allow_guests,
                                                      "registrations_per_hour": config.registrations_per_hour},
                       recover=not cluster, exclusive=not cluster)


async def start(config: Config) -> Running:
    """Create the data folder, open the store, refund unsettled rounds, start both listeners."""
    from server.commands import load
    from server.frontdoor import serve_ssh, serve_telnet
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
            await running.lobby.open()  # the other nodes' tables are theirs: nothing is refunded here
        else:
            refunded = await running.store.ledger.refund_unsettled()
            if refunded:
                log.info("refunded %d unsettled rounds from the last run", len(refunded))
        running._telnet = await start_telnet(running, serve_telnet)
        running.telnet_port = running._telnet.sockets[0].getsockname()[1]
        running._ssh = await start_ssh(running, serve_ssh)
        running.ssh_port = running._ssh.sockets[0].getsockname()[1]
    except BaseException:
        await running.stop()
        raise
    log.info("listening: telnet %s:%d, ssh %s:%d, data in %s", config.host, running.telnet_port,
             config.host, running.ssh_port, config.data_dir)
    return running


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default from the configuration)")
    parser.add_argument("--ssh-port", type=int, help="SSH port (0: any free port)")
    parser.add_argument("--telnet-port", type=int, help="telnet port (0: any free port)")
    parser.add_argument("--data-dir", help="folder for the SQLite file and the SSH host key")
    parser.add_argument("--config", help="TOML file overriding config/default.toml")
    parser.add_argument("--log-level", help="DEBUG, INFO, WARNING...")
    parser.add_argument("--ready-file", metavar="PATH",
                        help='once listening, write {"telnet_port", "ssh_port", "pid"} as JSON to PATH '
                             "(removed at stop)")


def write_ready_file(path: Path, running: Running) -> None:
    """Write the listening ports and this process's id to ``path``, whole (a temporary file renamed)."""
    info = {"telnet_port": running.telnet_port, "ssh_port": running.ssh_port, "pid": os.getpid()}
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(info))
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise ConfigError(f"cannot write the ready file {path}: {exc.strerror}") from None


async def serve(config: Config, ready_file: str | Path | None = None) -> None:
    running = await start(config)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    ready: Path | None = None
    try:
        if ready_file is not None:
            write_ready_file(Path(ready_file), running)
            ready = Path(ready_file)
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
        await running.stop()
        if ready is not None:
            with contextlib.suppress(OSError):
                ready.unlink()


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(
            args.config,
            host=args.host,
            ssh_port=args.ssh_port,
            telnet_port=args.telnet_port,
            data_dir=args.data_dir,
            log_level=args.log_level,
        )
    except ConfigError as exc:
        print(f"donne serve: {exc}")
        return 2
    logging.basicConfig(level=config.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logsafe.install(config.log_per_connection)  # client data escaped, records per connection capped
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve(config, getattr(args, "ready_file", None)))
    except ConfigError as exc:
        print(f"donne serve: {exc}")
        return 2
    return 0
