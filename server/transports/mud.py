"""What MUD clients and listings speak on the telnet door: MSSP and GMCP (MCCP is telnetlib3's).

The wire is telnetlib3's (its public API: ``send_mssp``, ``set_ext_callback``, ``send_iac``,
``local_option``); this module says what goes on it:

* :func:`mssp_variables`: the MSSP table a listing crawler reads before anyone logs in, made of
  the server's own facts (players online, uptime, ports...) and the operator's ``[mssp]``
  section (docs/operators.md).
* :class:`GmcpLink`: one connection's GMCP: what the client said it supports
  (``Core.Hello``, ``Core.Supports.Set/Add/Remove``) and the sending of packages, which the
  session's :class:`server.presenters.gmcp.GmcpFeed` fills (docs/gmcp.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import orjson
from telnetlib3.telopt import GMCP, IAC, SB, SE

from server.config import Config
from server.protocol import JSONValue

if TYPE_CHECKING:
    from telnetlib3.stream_writer import TelnetWriter

log = logging.getLogger(__name__)

CODEBASE = "donne"
LANGUAGES = {"fr": "French", "es": "Spanish", "en": "English"}


def mssp_variables(cfg: Config, *, players: int, started: float, telnet_port: int,
                   ssh_port: int | None = None, tls_port: int | None = None,
                   web_port: int | None = None, version: str = "") -> dict[str, str | list[str]]:
    """The MSSP table: the server's facts, then the operator's ``[mssp]`` keys over them.

    ``started`` is the server's start as a Unix time (UPTIME); ports are the listening ones
    (SSL and the web port only when they are on). Keys the operator left empty are not sent.
    """
    langs = [cfg.default_lang] + [code for code in LANGUAGES if code != cfg.default_lang]
    table: dict[str, str | list[str]] = {
        "NAME": "donne",
        "PLAYERS": str(players),
        "UPTIME": str(int(started)),
        "CODEBASE": f"{CODEBASE} {version}".strip(),
        "PORT": str(telnet_port),
        "LANGUAGE": [LANGUAGES.get(code, code) for code in langs],
        "GAMEPLAY": ["Player versus Player", "Strategy", "Social"],
        "GENRE": "None",
        "SUBGENRE": "Card games",
        "FAMILY": "Custom",
        "STATUS": "Live",
        "CRAWL DELAY": "-1",
        "ANSI": "1",
        "UTF-8": "1",
        "VT100": "1",
        "XTERM 256 COLORS": "0",
        "GMCP": "1" if cfg.telnet_gmcp else "0",
        "MSDP": "0",
        "MCCP": "1" if cfg.telnet_mccp else "0",
        "MSP": "0",
        "MXP": "0",
        "PUEBLO": "0",
        "MTTS": "1",
        "SSL": str(tls_port) if tls_port else "0",
        "PAY TO PLAY": "0",
        "PAY FOR PERKS": "0",
        "MULTIPLAYING": "Restricted",
        "PLAYERKILLING": "Restricted",
        "CLASSES": "0",
        "LEVELS": "0",
        "RACES": "0",
        "SKILLS": "0",
        "ROLEPLAYING": "None",
        "TRAINING": "0",
        "WORLD ORIGINALITY": "All Original",
    }
    if ssh_port:
        table["SSH"] = str(ssh_port)
    if web_port:
        table["WEB PORT"] = str(web_port)
    for name, values in cfg.mssp:
        if not values or values == ("",):
            continue
        table[name] = values[0] if len(values) == 1 else list(values)
    return table


class GmcpLink:
    """One telnet connection's GMCP: the client's supported packages and the sending.

    ``writer`` is telnetlib3's writer of the connection. Packages are sent only while GMCP is on
    (the client answered our ``WILL GMCP`` with ``DO``). Before the client sends any
    ``Core.Supports`` message every package goes (a client such as TinTin++ never sends one);
    after, only the modules it listed (``Donne 1`` covers ``Donne.Table``...), and ``Core``.
    """

    def __init__(self, writer: TelnetWriter) -> None:
        self.writer = writer
        self.client: str | None = None  # Core.Hello's client and version
        self.version: str | None = None
        self.supports: dict[str, int] | None = None  # None: never said
        self.on_message: Callable[[str, JSONValue], None] | None = None  # other client messages (the session's)
        self._frames: list[bytes] = []  # framed packages of this turn of the event loop, not yet written

    @property
    def active(self) -> bool:
        return bool(self.writer.local_option.enabled(GMCP))

    def wants(self, package: str) -> bool:
        """Whether ``package`` (``Module.Sub.Message``) may be sent now."""
        if not self.active:
            return False
        supports = self.supports
        if supports is None:
            return True
        parts = package.split(".")
        if parts[0] == "Core":
            return True
        return any(".".join(parts[:n]) in supports for n in range(1, len(parts) + 1))

    def send(self, package: str, data: object) -> bool:
        """``package`` with ``data`` (anything :func:`json.dumps` takes) as compact UTF-8 JSON (orjson:
        a table's state goes to every GMCP reader at each move); False when not sent."""
        if not self.wants(package):
            return False
        try:
            body = orjson.dumps(data, default=str, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:  # orjson.JSONEncodeError: an int beyond 64 bits, a lone surrogate
            body = json.dumps(data, separators=(",", ":"), default=str).encode("ascii")
        return self._frame(package, body)

    def send_json(self, package: str, text: str) -> bool:
        """``package`` with ``text``, JSON already encoded (its UTF-8 bytes never hold IAC)."""
        if not self.wants(package):
            return False
        return self._frame(package, text.encode("utf-8"))

    def _frame(self, package: str, body: bytes) -> bool:
        """Framed and written with the others of this turn of the event loop, in one write: a
        move's Donne.Event, Donne.Table and Donne.Hand cost one system call, not three."""
        frames = self._frames
        frames.append(IAC + SB + GMCP + package.encode("ascii") + b" " + body + IAC + SE)
        if len(frames) == 1:
            try:
                asyncio.get_running_loop().call_soon(self.flush)
            except RuntimeError:  # no loop running (a test's direct call): at once
                self.flush()
        return True

    def flush(self) -> None:
        """Write the packages framed so far."""
        frames, self._frames = self._frames, []
        if not frames:
            return
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            self.writer.send_iac(frames[0] if len(frames) == 1 else b"".join(frames))

    def received(self, package: str, data: JSONValue) -> None:
        """A GMCP message from the client (telnetlib3's ext callback)."""
        name = package.strip()
        key = name.lower()
        if key == "core.hello" and isinstance(data, dict):
            client, version = data.get("client"), data.get("version")
            self.client = str(client)[:60] if client is not None else None
            self.version = str(version)[:60] if version is not None else None
        elif key == "core.supports.set":
            self.supports = dict(_modules(data))
        elif key == "core.supports.add":
            self.supports = {**(self.supports or {}), **dict(_modules(data))}
        elif key == "core.supports.remove":
            left = dict(self.supports or {})
            for module, _ in _modules(data, removing=True):
                left.pop(module, None)
            self.supports = left
        elif key == "core.ping":
            self.send_json("Core.Ping", "null")
        elif self.on_message is not None:
            self.on_message(name, data)
        else:
            log.debug("gmcp: %s ignored", name[:60])


def _modules(data: JSONValue, *, removing: bool = False) -> Iterable[tuple[str, int]]:
    """``["Char 1", "Donne 1"]`` as (module, version) pairs; malformed items are skipped."""
    if not isinstance(data, list):
        return
    for item in data[:100]:
        if not isinstance(item, str):
            continue
        words = item.split()
        if not words or len(words[0]) > 60:
            continue
        version = 1
        if len(words) > 1:
            try:
                version = int(words[1])
            except ValueError:
                if not removing:
                    continue
        yield words[0], version
