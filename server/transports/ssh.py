"""The SSH front door (asyncssh).

* An interactive shell with a PTY is a person: asyncssh's line editor does
  echo, editing and history; window changes arrive as
  ``TerminalSizeChanged`` out of ``readline()`` (TECH.md §2), caught here.
* An exec request ``json`` is a program (PROTOCOL.md). A shell without a
  PTY (``ssh -T``, scripts) is read in chunks through our own line assembler,
  since asyncssh caps line length only with a PTY.
* Who the user is: :class:`SSHAuth`. A name with an account must prove it
  (password or public key); any other name logs in as a guest without
  authentication. The server subclass only delegates to the auth object, so
  another policy is a small subclass of :class:`SSHAuth`.

``errors="replace"`` keeps a latin-1 terminal from tearing the connection
down; keepalive notices dead peers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncssh

from server.limits import TokenBucket
from server.transports.lines import TOO_LONG, LineAssembler

if TYPE_CHECKING:
    from server.app import Running

log = logging.getLogger(__name__)

VERIFIED = "donne_verified"
"""Connection extra-info key: True when the user proved an account (password or key)."""

GUEST_START = "donne_guest_start"
"""Connection extra-info key: the guest account opened during authentication, if any."""

_background: set[asyncio.Future[None]] = set()  # clean-ups running on their own


class SSHAuth:
    """Authentication policy, backed by the store's accounts.

    ``begin_auth`` is True (authentication required) exactly for registered
    names; guests get in with no authentication at all.
    """

    def __init__(self, app: Running) -> None:
        self.app = app

    @property
    def accounts(self) -> Any:
        store = self.app.store
        return getattr(store, "accounts", None)

    async def begin_auth(self, username: str) -> bool:
        accounts = self.accounts
        if not self.app.config.allow_guests:
            return True  # accounts only: everyone proves who they are
        if accounts is None:
            return False
        try:
            return bool(await accounts.exists(username))
        except Exception:
            log.exception("ssh: account lookup failed")
            return True  # when in doubt, do not let anyone in as someone else

    async def validate_password(self, username: str, password: str, address: str = "") -> bool:
        accounts = self.accounts
        if accounts is None:
            return False
        try:
            return await accounts.verify_password(username, password, address) is not None
        except TypeError:  # a backend without the address parameter
            return await accounts.verify_password(username, password) is not None

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        accounts = self.accounts
        if accounts is None:
            return False
        offered = key.export_public_key("openssh").decode().split()[:2]
        return any(stored.split()[:2] == offered for stored in await accounts.keys(username))


class DonneSSHServer(asyncssh.SSHServer):
    """Connection-level callbacks: limits per address, and authentication via :class:`SSHAuth`."""

    def __init__(self, app: Running, auth: SSHAuth) -> None:
        self.app = app
        self.auth = auth
        self.conn: asyncssh.SSHServerConnection | None = None
        self.peer = "?"
        self.counted = False
        self.guest_start: Any = None  # server.lobby.GuestStart

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"
        conn.set_extra_info(**{VERIFIED: False})
        if self.app.stopping or not self.app.connections.acquire(self.peer):
            log.info("ssh: refusing %s (limit or shutdown)", self.peer)
            conn.close()
            return
        self.counted = True

    def connection_lost(self, exc: Exception | None) -> None:
        if self.counted:
            self.counted = False
            self.app.connections.release(self.peer)
        self._drop_guest_start()

    def _drop_guest_start(self) -> None:
        start, self.guest_start = self.guest_start, None
        if start is not None and not start.claimed:
            task = asyncio.ensure_future(self.app.lobby.drop_guest_start(start))
            _background.add(task)
            task.add_done_callback(_background.discard)

    async def begin_auth(self, username: str) -> bool:
        needed = await self.auth.begin_auth(username)
        self._drop_guest_start()  # another user name than a previous attempt's
        if not needed and self.conn is not None and self.counted:
            # A guest: its account (a durable write) is opened while authentication and the
            # channel go on, instead of after them; the login claims it (see server.lobby.GuestStart).
            self.guest_start = self.app.lobby.start_guest(username)
            self.conn.set_extra_info(**{GUEST_START: self.guest_start})
        return needed

    def password_auth_supported(self) -> bool:
        return True

    async def validate_password(self, username: str, password: str) -> bool:
        ok = await self.auth.validate_password(username, password, self.peer)
        if ok and self.conn is not None:
            self.conn.set_extra_info(**{VERIFIED: True})
        return ok

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        ok = await self.auth.validate_public_key(username, key)
        if ok and self.conn is not None:
            self.conn.set_extra_info(**{VERIFIED: True})
        return ok


class SSHConn:
    """A :class:`server.session.Conn` over an asyncssh server process."""

    kind = "ssh"
    crlf = False  # the PTY maps \n to \r\n itself; scripts without a PTY get \n

    def __init__(self, process: asyncssh.SSHServerProcess[str], peer: str, max_line: int,
                 budget: TokenBucket | None = None) -> None:
        self.process = process
        self.budget = budget
        self.peer = peer
        self.max_line = max_line
        self.pty = process.term_type is not None
        self.term: str | None = process.term_type or None
        size = process.term_size
        self.width = int(size[0]) if size and size[0] else 80
        self.height = int(size[1]) if size and size[1] else 24
        env = process.env or {}
        self.env: Mapping[str, str] = {str(k): str(v) for k, v in env.items()}
        self.on_resize: Callable[[int, int], None] | None = None
        self._lines = LineAssembler(max_line)
        self._ready: list[Any] = []

    def _resized(self, width: int, height: int) -> None:
        if width > 0 and height > 0:
            self.width, self.height = width, height
            if self.on_resize is not None:
                self.on_resize(width, height)

    async def readline(self) -> Any:
        stdin = self.process.stdin
        if self.pty:
            while True:
                try:
                    line = await stdin.readline()
                except asyncssh.TerminalSizeChanged as exc:
                    self._resized(exc.width, exc.height)
                    continue
                except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                    continue
                except asyncssh.DisconnectError:
                    return None
                if not line or not self._within_budget(len(line)):
                    return None
                text = line.rstrip("\r\n")
                return TOO_LONG if len(text) >= self.max_line else text
        while not self._ready:
            try:
                data = await stdin.read(4096)
            except (asyncssh.BreakReceived, asyncssh.SignalReceived, asyncssh.TerminalSizeChanged):
                continue
            except asyncssh.DisconnectError:
                return None
            if not data or not self._within_budget(len(data)):
                return None
            self._ready.extend(self._lines.feed(data).lines)
        return self._ready.pop(0)

    def _within_budget(self, size: int) -> bool:
        if self.budget is None or self.budget.take(time.monotonic(), size):
            return True
        log.info("ssh: %s sent too much input; closing", self.peer)
        return False

    def write(self, text: str) -> None:
        self.process.stdout.write(text)

    async def drain(self) -> None:
        await self.process.stdout.drain()

    def set_machine(self) -> None:
        """JSON mode over a PTY (``ssh -t HOST json``): the line editor must not echo requests back."""
        self.set_secret(True)

    def set_secret(self, secret: bool) -> None:
        if self.pty:
            with contextlib.suppress(Exception):
                self.process.channel.set_echo(not secret)  # type: ignore[attr-defined]  # line-editor channel

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.process.exit(0)


def host_key(path: Path) -> asyncssh.SSHKey:
    """The server's ed25519 host key, generated once (mode 0600) and reused."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        key = asyncssh.generate_private_key("ssh-ed25519")
        data = key.export_private_key()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        log.info("generated SSH host key %s", path)
    return asyncssh.read_private_key(str(path))


async def start_ssh(app: Running, auth: SSHAuth | None = None) -> asyncssh.SSHAcceptor:
    cfg = app.config
    auth = auth or SSHAuth(app)

    async def handle(process: asyncssh.SSHServerProcess[str]) -> None:
        from server.session import serve_ssh

        peer = process.get_extra_info("peername")
        conn = SSHConn(process, str(peer[0]) if peer else "?", cfg.max_line,
                       TokenBucket(cfg.input_bytes_per_second, cfg.input_burst))
        command = (process.command or "").strip() or None
        try:
            await serve_ssh(app, conn, name=str(process.get_extra_info("username") or ""),
                            verified=bool(process.get_extra_info(VERIFIED)), command=command,
                            guest_start=process.get_extra_info(GUEST_START))
        except Exception:
            log.exception("ssh session failed")
        finally:
            conn.close()

    return await asyncssh.create_server(
        lambda: DonneSSHServer(app, auth),
        cfg.host,
        cfg.ssh_port,
        server_host_keys=[host_key(cfg.host_key_path)],
        process_factory=handle,
        encoding="utf-8",
        errors="replace",
        keepalive_interval=cfg.ssh_keepalive,
        keepalive_count_max=3,
        login_timeout=cfg.login_timeout,
        line_editor=True,
        max_line_length=cfg.max_line,
        allow_scp=False,
        agent_forwarding=False,
        x11_forwarding=False,
    )
