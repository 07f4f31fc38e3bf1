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

The edge, against clients that do not play by the rules:

* only modern algorithms are offered (:func:`algorithms`, ``[ssh]`` in the
  configuration): ML-KEM/sntrup761 hybrids and curve25519 key exchange, AEAD
  ciphers, encrypt-then-MAC MACs, no compression, no SHA-1 signatures;
* at most ``ssh_max_sessions`` session channels at once per connection, each
  with a small receive window (``ssh_window``): a channel the server does not
  read holds that much, not asyncssh's default 2 MB;
* a channel (and a connection) that has not started a shell or a command
  within ``login_timeout`` is closed;
* the raw input of every channel is metered against the connection's byte
  budget (``input_bytes_per_second``, ``input_burst``) *before* asyncssh's
  line editor sees it (:class:`MeteredChannel`); over budget, the input is
  dropped and the session is told why (:attr:`SSHConn.on_cut`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import asyncssh
from asyncssh.auth import KbdIntChallenge
from asyncssh.compression import get_compression_algs
from asyncssh.encryption import get_encryption_algs
from asyncssh.kex import get_kex_algs
from asyncssh.mac import get_mac_algs
from asyncssh.public_key import get_public_key_algs

from server.config import Config, ConfigError
from server.messages.door import password_prompt, wrong_password
from server.messages.moderation import door_notice, moderation_text, refusal_params
from server.messages.translations import translation
from server.operations import logsafe
from server.operations.limits import TokenBucket
from server.people.players import GuestStart
from server.storage.api import Accounts
from server.storage.names import name_key
from server.transports.lines import CUT_GRACE, INPUT_FLOOD, TOO_LONG, LineAssembler, TooLong, cut_notice

if TYPE_CHECKING:
    from server.transports import TransportHost

log = logging.getLogger(__name__)

VERIFIED = "donne_verified"
"""Connection extra-info key: True when the user proved an account (password or key)."""

GUEST_START = "donne_guest_start"
"""Connection extra-info key: the guest account opened during authentication, if any."""

PROVED_KEY = "donne_key"
"""Connection extra-info key: the public key ("type base64") the user proved, if any (a key ban
disconnects the sessions that used it)."""

KBDINT_TRIES = 3
"""Passwords one keyboard-interactive authentication may try before it fails."""

_background: set[asyncio.Future[None]] = set()  # clean-ups running on their own

# Offered when the configuration leaves a list empty, in this order, keeping those asyncssh supports
# here (the sntrup761 hybrids need liboqs). No NIST curves or finite-field groups for key exchange,
# no CBC/CTR ciphers (AEAD only), no encrypt-and-MAC or 64-bit-tag MACs, nothing with SHA-1.
DEFAULT_KEX = ("mlkem768x25519-sha256", "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
               "curve25519-sha256", "curve25519-sha256@libssh.org")
DEFAULT_CIPHERS = ("chacha20-poly1305@openssh.com", "aes256-gcm@openssh.com", "aes128-gcm@openssh.com")
DEFAULT_MACS = ("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com", "umac-128-etm@openssh.com")
DEFAULT_SIGNATURES = ("ssh-ed25519", "sk-ssh-ed25519@openssh.com", "ecdsa-sha2-nistp256",
                      "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "sk-ecdsa-sha2-nistp256@openssh.com",
                      "rsa-sha2-512", "rsa-sha2-256")
DEFAULT_COMPRESSION = ("none",)

_ALGORITHMS: tuple[tuple[str, str, tuple[str, ...], Callable[[], Sequence[bytes]]], ...] = (
    ("kex", "kex_algs", DEFAULT_KEX, get_kex_algs),
    ("ciphers", "encryption_algs", DEFAULT_CIPHERS, get_encryption_algs),
    ("macs", "mac_algs", DEFAULT_MACS, get_mac_algs),
    ("signature_algs", "signature_algs", DEFAULT_SIGNATURES, get_public_key_algs),
    ("compression", "compression_algs", DEFAULT_COMPRESSION, get_compression_algs),
)


def algorithms(cfg: Config) -> dict[str, list[str]]:
    """asyncssh's algorithm options from ``[ssh]``: each configured list, or our defaults.

    A configured name asyncssh does not know (or cannot use here) is a
    :class:`ConfigError`, so a typo never silently weakens or breaks the offer.
    """
    options: dict[str, list[str]] = {}
    for key, option, defaults, supported_fn in _ALGORITHMS:
        supported = {alg.decode() for alg in supported_fn()}
        configured: tuple[str, ...] = getattr(cfg, key)
        if configured:
            unknown = [alg for alg in configured if alg not in supported]
            if unknown:
                raise ConfigError(f"ssh {key}: not supported here: {', '.join(unknown)}")
            options[option] = list(configured)
        else:
            options[option] = [alg for alg in defaults if alg in supported]
    return options


class MeteredChannel(asyncssh.SSHServerChannel):  # type: ignore[type-arg]
    """A session channel whose raw input is metered before asyncssh's line editor sees it.

    Made by :meth:`DonneSSHServer.session_requested` from the channel
    asyncssh creates (``create_server_channel``), by giving it this class:
    asyncssh offers no public hook below its line editor. ``_accept_data`` is
    where every data packet of the channel arrives (asyncssh 2.14 to 2.24).
    Over the connection's byte budget the data is dropped (so the client's
    window is never opened again: it cannot send more) and :meth:`cut` is called.
    """

    budget: TokenBucket | None
    cut_reason: str | None
    on_cut: Callable[[str], None] | None
    started: bool
    peer: str

    def _setup(self, budget: TokenBucket | None, peer: str) -> None:
        self.budget = budget
        self.cut_reason = None
        self.on_cut = None
        self.started = False
        self.peer = peer

    def _accept_data(self, data: bytes, datatype: int | None = None) -> None:
        if self.cut_reason is None and data and self.budget is not None \
                and not self.budget.take(time.monotonic(), len(data)):
            self.cut(INPUT_FLOOD)
        if self.cut_reason is not None:
            return
        super()._accept_data(data, datatype)

    def cut(self, reason: str) -> None:
        """Stop taking input; whoever reads the channel is told (``on_cut``), or it is closed."""
        if self.cut_reason is not None:
            return
        self.cut_reason = reason
        log.info("ssh: %s sent too much input; cutting", self.peer)
        hook = self.on_cut
        if hook is not None:
            hook(reason)
        else:
            self.close()  # nobody reads it yet: nobody to tell


class SSHAuth:
    """Authentication policy, backed by the store's accounts.

    ``begin_auth`` is True (authentication required) exactly for registered
    names; guests get in with no authentication at all.
    """

    def __init__(self, app: TransportHost) -> None:
        self.app = app

    @property
    def accounts(self) -> Accounts | None:
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
    """Connection-level callbacks: limits per address, session channels, and authentication via :class:`SSHAuth`."""

    def __init__(self, app: TransportHost, auth: SSHAuth,
                 handle: Callable[[asyncssh.SSHServerProcess[str], MeteredChannel], Awaitable[None]]
                 | None = None) -> None:
        self.app = app
        self.auth = auth
        self.handle = handle
        self.conn: asyncssh.SSHServerConnection | None = None
        self.peer = "?"
        self.counted = False
        self.guest_start: GuestStart | None = None
        self.log_key = logsafe.new_key("ssh")
        cfg = app.config
        self.input_budget = TokenBucket(cfg.input_bytes_per_second, cfg.input_burst)
        self.channels: set[MeteredChannel] = set()  # open session channels
        self.started = False  # a channel started a shell or a command
        self.refused = False  # banned or locked: every authentication fails, the connection ends
        self._timers: list[asyncio.TimerHandle] = []
        self.kbdint_lang: str | None = None  # the language the client named for keyboard-interactive
        self.kbdint_tries = 0

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"
        conn.set_extra_info(**{VERIFIED: False})
        if self.app.stopping or not self.app.connections.acquire(self.peer):
            log.info("ssh: refusing %s (limit or shutdown)", self.peer, extra=self.log_key.extra)
            conn.close()
            return
        self.counted = True
        self._later(self.app.config.login_timeout, self._check_started)

    def _later(self, delay: float, fn: Callable[[], None]) -> None:
        self._timers.append(asyncio.get_running_loop().call_later(delay, fn))

    def _check_started(self) -> None:
        if not self.started and self.conn is not None:
            log.info("ssh: %s started no session in time; closing", self.peer, extra=self.log_key.extra)
            self.conn.close()

    def session_requested(self) -> tuple[asyncssh.SSHServerChannel[str], asyncssh.SSHServerProcess[str]] | bool:
        """A session channel: refused beyond ``ssh_max_sessions``; small window; closed if it never starts."""
        cfg = self.app.config
        conn = self.conn
        if conn is None or self.handle is None:
            return False
        if len(self.channels) >= cfg.ssh_max_sessions:
            log.info("ssh: %s asked for more than %d sessions; refused", self.peer, cfg.ssh_max_sessions,
                     extra=self.log_key.extra)
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, "Too many sessions")
        chan = conn.create_server_channel(window=cfg.ssh_window, max_pktsize=min(cfg.ssh_window, 32768))
        chan.__class__ = MeteredChannel
        assert isinstance(chan, MeteredChannel)
        chan._setup(self.input_budget, self.peer)
        self.channels.add(chan)
        waiter = asyncio.ensure_future(chan.wait_closed())
        _background.add(waiter)

        def closed(task: asyncio.Future[None]) -> None:
            _background.discard(task)
            self.channels.discard(chan)

        waiter.add_done_callback(closed)

        def check() -> None:
            if not chan.started:
                log.info("ssh: %s left a session unstarted; closing it", self.peer, extra=self.log_key.extra)
                chan.close()

        self._later(cfg.login_timeout, check)
        handle = self.handle

        async def start(process: asyncssh.SSHServerProcess[str]) -> None:
            chan.started = self.started = True
            with logsafe.scope(self.log_key):
                await handle(process, chan)

        return chan, asyncssh.SSHServerProcess(start, None, 0, False)

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        if self.counted:
            self.counted = False
            self.app.connections.release(self.peer)
        self._drop_guest_start()
        logsafe.forget(self.log_key)

    def _drop_guest_start(self) -> None:
        start, self.guest_start = self.guest_start, None
        if start is not None and not start.claimed:
            task = asyncio.ensure_future(self.app.lobby.drop_guest_start(start))
            _background.add(task)
            task.add_done_callback(_background.discard)

    async def _refused(self, **who: str | None) -> bool:
        """Refuse a banned address, key or account, or a locked account, before any shell opens: the
        reason as an authentication banner (in the three languages: the client has not said its
        language yet), then the connection ends."""
        if self.refused:
            return True
        refusal = await self.app.lobby.door(**who)
        if refusal is None or self.conn is None:
            return False
        self.refused = True
        conn = self.conn
        params = refusal_params(refusal)
        log.info("ssh: refusing %s: %s (%s)", self.peer, refusal.code, refusal.kind, extra=self.log_key.extra)
        with contextlib.suppress(OSError):
            conn.send_auth_banner(door_notice(refusal.code, params))
        reason = moderation_text(translation("en"), refusal.code, None, params) or refusal.code
        asyncio.get_running_loop().call_soon(conn.disconnect, asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, reason)
        return True

    async def begin_auth(self, username: str) -> bool:
        if await self._refused(address=self.peer):
            return True  # authentication required, and nothing will succeed
        needed = await self.auth.begin_auth(username)
        self._drop_guest_start()  # another user name than a previous attempt's
        if not needed and self.conn is not None and self.counted:
            # A guest: its account (a durable write) is opened while authentication and the
            # channel go on, instead of after them; the login claims it (see server.lobby.lobby.GuestStart).
            self.guest_start = self.app.lobby.start_guest(username)
            self.conn.set_extra_info(**{GUEST_START: self.guest_start})
        return needed

    def password_auth_supported(self) -> bool:
        return True

    async def validate_password(self, username: str, password: str) -> bool:
        if self.refused:
            return False
        if not self.app.lobby.pace.may_login(name_key(username), time.monotonic()):
            return False  # the account's budget of password logins is spent (each costs a hash of CPU)
        ok = await self.auth.validate_password(username, password, self.peer)
        if ok and await self._refused(name=username):  # proved who they are: now they hear why not
            return False
        if ok and self.conn is not None:
            self.conn.set_extra_info(**{VERIFIED: True})
        return ok

    # Keyboard-interactive authentication asks for the password with our own prompt, in the
    # person's language when the client names one, else in the three (OpenSSH prefers it to
    # the password method, whose prompt the client writes itself); a wrong password asks again,
    # saying why, up to KBDINT_TRIES times.

    def kbdint_auth_supported(self) -> bool:
        return True

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> KbdIntChallenge:
        self.kbdint_lang = lang or None
        return "", "", lang or "", ((password_prompt(self.kbdint_lang), False),)

    async def validate_kbdint_response(self, username: str, responses: Sequence[str]) -> KbdIntChallenge:
        if len(responses) != 1:
            return False
        if await self.validate_password(username, responses[0]):
            return True
        self.kbdint_tries += 1
        if self.refused or self.kbdint_tries >= KBDINT_TRIES:
            return False
        return "", wrong_password(self.kbdint_lang), self.kbdint_lang or "", \
            ((password_prompt(self.kbdint_lang), False),)

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if self.refused:
            return False
        offered = " ".join(key.export_public_key("openssh").decode().split()[:2])
        if await self._refused(key=offered):
            return False
        ok = await self.auth.validate_public_key(username, key)
        if ok and await self._refused(name=username):
            return False
        if ok and self.conn is not None:
            self.conn.set_extra_info(**{VERIFIED: True, PROVED_KEY: offered})
        return ok


class SSHConn:
    """A :class:`server.sessions.session.Conn` over an asyncssh server process.

    ``on_cut``: set by the session to be told, once, that the client sent more
    input than the byte budget allows (reason :data:`INPUT_FLOOD`). The input
    is dropped from then on and :meth:`readline` returns ``None``; the session
    should tell the person why (in their language, or as a JSON error line),
    then close. Without a hook, a notice in the three languages (or a JSON
    error line in machine mode) is written here.
    """

    kind = "ssh"
    crlf = False  # the PTY maps \n to \r\n itself; scripts without a PTY get \n

    def __init__(self, process: asyncssh.SSHServerProcess[str], peer: str, max_line: int,
                 channel: MeteredChannel | None = None) -> None:
        self.process = process
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
        self.on_cut: Callable[[str], None] | None = None
        self.cut_reason: str | None = None
        self.machine = (process.command or "").strip() == "json"
        self._lines = LineAssembler(max_line)
        self._ready: list[str | TooLong] = []
        self.channel = channel  # the channel itself (process.channel may be the line editor's wrapper)
        self.key: str | None = process.get_extra_info(PROVED_KEY)  # the public key the user proved
        if channel is not None:
            channel.on_cut = self._cut
            if channel.cut_reason is not None:  # flooded before the shell or command started
                self._cut(channel.cut_reason)

    def _cut(self, reason: str) -> None:
        if self.cut_reason is not None:
            return
        self.cut_reason = reason
        hook = self.on_cut
        if hook is not None:
            hook(reason)
        else:
            self.write(cut_notice(reason, machine=self.machine))
        with contextlib.suppress(Exception):
            self.process.eof_received()  # wake a read waiting for input that will not come
        asyncio.get_running_loop().call_later(CUT_GRACE, self.process.channel.close)

    def _resized(self, width: int, height: int) -> None:
        if width > 0 and height > 0:
            self.width, self.height = width, height
            if self.on_resize is not None:
                self.on_resize(width, height)

    async def readline(self) -> str | TooLong | None:
        if self.cut_reason is not None:
            return None
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
                if not line or self.cut_reason is not None:
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
            if not data or self.cut_reason is not None:
                return None
            self._ready.extend(self._lines.feed(data).lines)
        return self._ready.pop(0)

    def write(self, text: str) -> None:
        self.process.stdout.write(text)

    def write_lines(self, lines: list[str]) -> int:
        """What ``write("".join(lines))`` writes; then :meth:`backlog` (the session's write needs no
        call of its own for it)."""
        self.process.stdout.write(lines[0] if len(lines) == 1 else "".join(lines))
        return self.backlog()

    def backlog(self) -> int:
        try:
            return int(self.process.channel.get_write_buffer_size())
        except Exception:  # a closing channel: let drain tell
            return 1

    async def drain(self) -> None:
        await self.process.stdout.drain()

    def set_machine(self) -> None:
        """JSON mode over a PTY (``ssh -t HOST json``): the line editor must not echo requests back."""
        self.machine = True
        self.set_secret(True)

    def set_secret(self, secret: bool) -> None:
        if self.pty:
            with contextlib.suppress(Exception):
                self.process.channel.set_echo(not secret)  # type: ignore[attr-defined]  # line-editor channel

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.process.exit(0)


def host_key(path: Path) -> asyncssh.SSHKey:
    """The server's ed25519 host key, generated once (mode 0600) and reused.

    A key file others may read is made private again (0600) before use, with
    a warning; one that cannot be is refused, as OpenSSH does.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        key = asyncssh.generate_private_key("ssh-ed25519")
        data = key.export_private_key()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        log.info("generated SSH host key %s", path)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("SSH host key %s was readable by others (mode %o); making it 0600", path, mode)
        try:
            os.chmod(path, 0o600)
        except OSError as exc:
            raise ConfigError(f"SSH host key {path} is readable by others and cannot be made private: "
                              f"{exc.strerror}") from None
    return asyncssh.read_private_key(str(path))


async def start_ssh(app: TransportHost, serve_ssh: Callable[..., Awaitable[None]],
                    auth: SSHAuth | None = None) -> asyncssh.SSHAcceptor:
    """Start listening, handing each session channel to ``serve_ssh`` (see :func:`server.sessions.frontdoor.serve_ssh`)."""
    cfg = app.config
    auth = auth or SSHAuth(app)
    algs = algorithms(cfg)

    async def handle(process: asyncssh.SSHServerProcess[str], channel: MeteredChannel) -> None:
        peer = process.get_extra_info("peername")
        conn = SSHConn(process, str(peer[0]) if peer else "?", cfg.max_line, channel)
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
        lambda: DonneSSHServer(app, auth, handle),
        cfg.host,
        cfg.ssh_port,
        server_host_keys=[host_key(cfg.host_key_path)],
        encoding="utf-8",
        errors="replace",
        keepalive_interval=cfg.ssh_keepalive,
        keepalive_count_max=3,
        login_timeout=cfg.login_timeout,
        line_editor=True,
        max_line_length=cfg.max_line,
        window=cfg.ssh_window,
        max_pktsize=min(cfg.ssh_window, 32768),
        allow_scp=False,
        agent_forwarding=False,
        x11_forwarding=False,
        **algs,
    )
