"""What the telnet door uses of telnetlib3 beyond its public API, in one list.

telnetlib3 (``pyproject.toml`` pins the versions this list was checked with) does the protocol
work; :mod:`server.transports.telnet` reaches past its public API where the public API has no
door. Every such name is listed here, with why, and ``tests/server/transports/test_telnetlib3_adapter.py``
fails loudly when the installed telnetlib3 lacks one, before anything subtler breaks.

The server protocol (``telnetlib3.TelnetServer``), overridden or read by ``DonneTelnetServer``:

- ``_transport``: the connection's transport: the negotiation steps do nothing once it is gone;
  a cut connection is closed without a reset (``linger_close``); the listener closes its clients.
- ``_waiter_connected``: the negotiation's future; its timer does nothing once it is settled.
- ``_check_negotiation_timer``: overridden for that guard.
- ``_mccp2_enabled``: MCCP2 only (not MCCP3) is offered; no compression starts in JSON mode.
- ``_mccp2_start``, ``_mccp2_end``: overridden: the writer's transport is wrapped to compress
  (telnetlib3 assigns the transport's ``write``, which uvloop's transports refuse); they set
  ``_mccp2_pending`` and ``_mccp2_compressor`` as telnetlib3's own do.
- ``_last_received``: overridden (a property): the time of the last input, kept as a monotonic
  time by the JSON mode's plain input.
- ``_rx_bytes``, ``_tx_bytes``: the byte counts, kept by the JSON mode's own input and output.
- ``_tls_checked``, ``_mccp3_decompressor``: the JSON mode's plain input waits for both to be
  settled (TLS sniffed, no client-to-server compression).

Its reader (``telnetlib3.TelnetReaderUnicode``), read by the JSON mode's plain input
(``TelnetConn.take_plain``, ``readline``):

- ``_buffer``, ``_eof``: whether telnetlib3 still holds input (then it keeps its order).
- ``_decoder``: the incoming decoder telnetlib3 chose, reused for the plain chunks.
- ``_wait_for_data``, ``_wakeup_waiter``: wait for input, and wake the reading session.

Its writer (``telnetlib3.TelnetWriterUnicode``):

- ``_transport``: wrapped for MCCP2; written to directly in JSON mode.
- ``_protocol``: the protocol whose ``_tx_bytes`` the direct writes count.

A writer wrapped by telnetlib3's blocking API (``telnetlib3.sync.TelnetConnection``): ``_writer``,
the writer inside, whose telnet commands JSON mode silences too (:func:`inner_writer`).

telnetlib3's listener (``telnetlib3.server.Server``, where ours is not used): ``_server``, the
listening socket's server, closed alone when the shutdown stops listening (:func:`inner_server`).

The server protocol's overrides are :class:`Telnetlib3Server`'s (``DonneTelnetServer`` derives
from it); the reader's and writer's names are read through the functions below.

Names of our own that start with an underscore (``_cut``, ``_direct``, ``_lines``,
``_mssp_sent``, ``_send_mssp``, ``_plain_at``, ``_received``...) are not in this list.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import inspect
import re
import time
import zlib
from typing import TYPE_CHECKING, Any, Protocol, cast

import telnetlib3
import telnetlib3.server
import telnetlib3.sync
from telnetlib3.stream_reader import TelnetReader, TelnetReaderUnicode
from telnetlib3.stream_writer import TelnetWriter, TelnetWriterUnicode
from telnetlib3.telopt import IAC, MCCP2_COMPRESS, SB, SE

if TYPE_CHECKING:
    import codecs

PRIVATE_API: dict[type, tuple[str, ...]] = {
    telnetlib3.TelnetServer: (
        "_transport",
        "_waiter_connected",
        "_check_negotiation_timer",
        "_mccp2_enabled",
        "_mccp2_start",
        "_mccp2_end",
        "_mccp2_pending",
        "_mccp2_compressor",
        "_last_received",
        "_rx_bytes",
        "_tx_bytes",
        "_tls_checked",
        "_mccp3_decompressor",
    ),
    TelnetReaderUnicode: ("_buffer", "_eof", "_decoder", "_wait_for_data", "_wakeup_waiter"),
    TelnetWriterUnicode: ("_transport", "_protocol"),
    telnetlib3.server.Server: ("_server",),
    telnetlib3.sync.TelnetConnection: ("_writer",),
}
"""telnetlib3's class → the private names of it (methods, or attributes its code sets) we use."""


def _defines(cls: type, name: str) -> bool:
    """Whether ``cls`` (its own code or a base's) has ``name``: a class attribute, or an attribute
    its methods set on ``self``."""
    if hasattr(cls, name):
        return True
    assigned = re.compile(rf"\bself\.{re.escape(name)}\s*(?::[^=\n]*)?=[^=]")
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] != "telnetlib3":
            continue
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        if assigned.search(source):
            return True
    return False


def missing() -> list[str]:
    """The names of :data:`PRIVATE_API` the installed telnetlib3 lacks (``Class.name``)."""
    return [f"{cls.__name__}.{name}" for cls, names in PRIVATE_API.items() for name in names
            if not _defines(cls, name)]


class WriteTransport(Protocol):
    """What is written to: the connection's transport, or :class:`CompressedTransport` around it."""

    def write(self, data: bytes) -> None: ...

    def is_closing(self) -> bool: ...

    def get_write_buffer_size(self) -> int: ...


class Compressor(Protocol):
    """A zlib compression stream (:func:`zlib.compressobj`)."""

    def compress(self, data: bytes, /) -> bytes: ...

    def flush(self, mode: int = ..., /) -> bytes: ...


MCCP_LEVEL = 1
"""zlib's level for MCCP2: the fastest (telnetlib3 uses 9: twice the CPU a write for a few bytes less)."""


class Telnetlib3Server(telnetlib3.TelnetServer):
    """telnetlib3's server protocol with its private parts behind public names: its transport, the
    negotiation's guards, MCCP2 (the writer's transport wrapped), the idle time and byte counts of
    the JSON mode's own input and output."""

    def connection_transport(self) -> asyncio.Transport | None:
        """The connection's transport, ``None`` once it is gone."""
        transport: asyncio.Transport | None = self._transport  # (telnetlib3 leaves it unannotated)
        return transport

    @property
    def mccp2_enabled(self) -> bool:
        """Whether MCCP2 may start (a client's DO starts it)."""
        return bool(self._mccp2_enabled)

    @mccp2_enabled.setter
    def mccp2_enabled(self, value: bool) -> None:
        self._mccp2_enabled = value

    def offer_options(self, mccp2: bool) -> None:
        """What to offer after telnetlib3's own offers (``mccp2``: whether MCCP2 may be offered)."""

    # telnetlib3 schedules its negotiation steps (call_soon, call_later) without checking, when
    # they run, that the connection still stands: one lost before its first step ran (a client
    # gone at once, many at a time after a restart) had its cancelled negotiation "completed"
    # (InvalidStateError in the loop's log). Those steps do nothing once the connection is gone.
    # The timer's guard is needed too: connection_lost cancels the timer it tracks, yet under
    # uvloop, with many clients reconnecting at once, the kill -9 restart test saw the timer run
    # with the negotiation already settled (without the guard: InvalidStateError again).

    def begin_negotiation(self) -> None:
        if self._transport is not None:
            super().begin_negotiation()

    def begin_advanced_negotiation(self) -> None:
        if self._transport is not None:
            # MCCP2 only: telnetlib3 would offer MCCP3 with it, whose client-to-server stream its own
            # client and server did not agree on (a decompression error, then no input at all)
            mccp, self._mccp2_enabled = self._mccp2_enabled, False
            super().begin_advanced_negotiation()
            self._mccp2_enabled = mccp
            self.offer_options(mccp)

    def _check_negotiation_timer(self) -> None:
        if not self._waiter_connected.done():
            super()._check_negotiation_timer()

    # The JSON mode's plain input (``TelnetConn.take_plain``) bypasses telnetlib3's parsing: its
    # idle time and byte count are kept here as telnetlib3's data_received keeps them.

    _plain_at: float | None = None  # when (time.monotonic()) plain input last came, if since _received
    _received: datetime.datetime | None = None

    @property
    def _last_received(self) -> datetime.datetime | None:
        """telnetlib3's time of the last input (its ``idle``). Plain input is noted at the monotonic
        time its input budget read, made a datetime only when asked (``datetime.now()`` per chunk
        was a local time conversion each)."""
        at = self._plain_at
        if at is None:
            return self._received
        return datetime.datetime.now() - datetime.timedelta(seconds=time.monotonic() - at)

    @_last_received.setter
    def _last_received(self, value: datetime.datetime | None) -> None:
        self._received = value
        self._plain_at = None

    def parsing_idle(self, writer: TelnetWriter, reader: TelnetReader) -> bool:
        """Whether telnetlib3 is in no telnet command, holds no input, has checked for TLS and
        decompresses nothing: input may then skip its parsing."""
        return not (writer.iac_received or writer.cmd_received or reader._buffer  # (writer.is_oob, without its call)
                    or reader._eof or not self._tls_checked or self._mccp3_decompressor is not None
                    or writer.mccp3_active)

    def note_plain_input(self, now: float, size: int) -> None:
        """``size`` bytes came at ``now`` (:func:`time.monotonic`) past telnetlib3's parsing."""
        self._plain_at = now
        self._rx_bytes += size

    # MCCP2 (telnetlib3 starts it once the client said DO): telnetlib3 compresses by assigning its own
    # function to the transport's ``write``, which uvloop's transports refuse (AttributeError: the
    # connection died at its first compressed byte). The writer's transport is wrapped instead.

    def _mccp2_start(self) -> None:
        writer = self.writer
        assert writer is not None  # (telnetlib3 starts MCCP2 on a client's DO: the connection is made)
        self._mccp2_pending = True
        writer.send_iac(IAC + SB + MCCP2_COMPRESS + IAC + SE)  # (every byte after this SE is compressed)
        compressor = zlib.compressobj(MCCP_LEVEL, zlib.DEFLATED, 12, 5)  # a 4 KiB window: ~32 KiB a client
        self._mccp2_compressor = compressor
        # telnetlib3's writer writes to whatever stands there: the wrapper is no asyncio.Transport, but
        # writes (and answers the rest) as one
        writer._transport = cast(asyncio.Transport, CompressedTransport(writer._transport, compressor))
        writer.mccp2_active = True

    def _mccp2_end(self) -> None:
        writer = self.writer
        assert writer is not None  # (as at its start)
        transport = getattr(writer, "_transport", None)
        if isinstance(transport, CompressedTransport):
            transport.finish()
            writer._transport = transport.transport
        self._mccp2_compressor = None
        self._mccp2_pending = False
        writer.mccp2_active = False


class CompressedTransport:
    """A transport whose writes go out compressed (MCCP2), around the real one."""

    def __init__(self, transport: asyncio.Transport, compressor: Compressor) -> None:
        self.transport = transport
        self.compressor: Compressor | None = compressor

    def write(self, data: bytes) -> None:
        compressor = self.compressor
        if compressor is None:
            self.transport.write(data)
            return
        self.transport.write(compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH))

    def finish(self) -> None:
        """The end of the compressed stream (the client said DONT): plain bytes after it."""
        compressor, self.compressor = self.compressor, None
        if compressor is not None and not self.transport.is_closing():
            with contextlib.suppress(zlib.error):
                self.transport.write(compressor.flush(zlib.Z_FINISH))

    def is_closing(self) -> bool:  # (asked at every write: without the __getattr__ detour)
        return bool(self.transport.is_closing())

    def get_write_buffer_size(self) -> int:
        return int(self.transport.get_write_buffer_size())

    def __getattr__(self, name: str) -> Any:  # whatever else the transport has (truly anything)
        return getattr(self.transport, name)


# ---------------------------------------------------------------- the reader and the writer


def holds_input(reader: TelnetReader) -> bool:
    """Whether telnetlib3's reader holds input not read yet, or its end."""
    return bool(reader._buffer or reader._eof)


async def wait_for_input(reader: TelnetReader) -> None:
    """Wait until telnetlib3's reader holds input (or its end)."""
    await reader._wait_for_data("read")


def decoder_of(reader: TelnetReaderUnicode) -> codecs.IncrementalDecoder | None:
    """The incoming decoder telnetlib3's reader chose (``None`` before its first input)."""
    return reader._decoder


def wake_reader(reader: TelnetReader) -> None:
    """Wake whoever waits on telnetlib3's reader (lines were put where it reads them)."""
    reader._wakeup_waiter()


def writer_transport(writer: object) -> WriteTransport | None:
    """The transport telnetlib3's writer writes to (``None`` for another writer)."""
    transport: WriteTransport | None = getattr(writer, "_transport", None)
    return transport


def counting_protocol(writer: object) -> telnetlib3.TelnetServer | None:
    """The protocol telnetlib3's writer belongs to, which counts the bytes sent (``None`` for
    another writer): :func:`count_sent` counts there what is written past the writer."""
    protocol: telnetlib3.TelnetServer | None = getattr(writer, "_protocol", None)
    return protocol if protocol is not None and hasattr(protocol, "_tx_bytes") else None


def count_sent(protocol: telnetlib3.TelnetServer, size: int) -> None:
    """``size`` bytes were written past telnetlib3's writer of ``protocol`` (:func:`counting_protocol`)."""
    protocol._tx_bytes += size


def plain_input_possible(protocol: Telnetlib3Server, reader: TelnetReaderUnicode) -> bool:
    """telnetlib3's usual server, reader and writer, in the state the JSON mode's plain input knows:
    no idle timer, no compression, the reader the connection reads."""
    server = protocol
    writer = server.writer
    if writer is None:
        return False
    try:
        # (MCCP2 may be on only if it started before JSON mode: set_machine stops it starting later)
        return bool(server.reader is reader and (not server._mccp2_enabled or writer.mccp2_active)
                    and not server.get_extra_info("timeout")
                    and isinstance(reader._buffer, bytearray) and callable(reader._wait_for_data)
                    and callable(reader._wakeup_waiter) and callable(reader.decode) and hasattr(reader, "_decoder")
                    and hasattr(server, "_mccp3_decompressor") and hasattr(server, "_last_received")
                    and isinstance(server._rx_bytes, int) and hasattr(server, "_tls_checked")
                    and hasattr(writer, "iac_received") and hasattr(writer, "cmd_received")
                    and hasattr(writer, "mccp3_active") and hasattr(writer, "slctab"))
    except AttributeError:
        return False


def inner_writer(writer: object) -> TelnetWriter | None:
    """The writer inside a wrapper of telnetlib3's blocking API, else ``None``."""
    inner: TelnetWriter | None = getattr(writer, "_writer", None)
    return inner


def inner_server(listener: object) -> asyncio.Server | None:
    """The listening socket's :class:`asyncio.Server` inside telnetlib3's listener, else ``None``."""
    server: asyncio.Server | None = getattr(listener, "_server", None)
    return server
