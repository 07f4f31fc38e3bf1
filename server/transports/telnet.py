"""The telnet front door (telnetlib3), also serving raw TCP clients.

telnetlib3 does the protocol work: option negotiation (ECHO, SGA, BINARY,
NAWS, TTYPE, NEW_ENVIRON, CHARSET) and removing telnet commands from the
input. We read chunks and assemble lines ourselves (:mod:`.lines`), echo in
character mode, and never let telnetlib3's own idle timer disconnect people
(``timeout=0``: the session's idle time-out applies instead).

Settings from TECH.md §1: ``force_binary=True`` and ``encoding_errors=
"replace"`` (a raw client never negotiates BINARY; strict decoding crashed
the shell), ``connect_maxwait`` below half a second (a silent raw client
would otherwise wait 4 s for its first prompt).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import encodings.utf_8
import functools
import importlib.metadata
import logging
import re
import socket
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import telnetlib3
from telnetlib3.stream_reader import TelnetReaderUnicode
from telnetlib3.stream_writer import TelnetWriter, TelnetWriterUnicode
from telnetlib3.telopt import (
    CHARSET,
    ECHO,
    GMCP,
    IAC,
    MCCP2_COMPRESS,
    MCCP3_COMPRESS,
    MSSP,
    REJECTED,
    SB,
    SE,
    WILL,
    WONT,
    theNULL,
)

from server.operations import logsafe
from server.operations.limits import TokenBucket
from server.transports.lines import CUT_GRACE, INPUT_FLOOD, LineAssembler, TooLong, cut_notice
from server.transports.mud import GmcpLink, mssp_variables
from server.transports.telnetlib3_adapter import (
    Telnetlib3Server,
    WriteTransport,
    count_sent,
    counting_protocol,
    decoder_of,
    holds_input,
    inner_server,
    inner_writer,
    plain_input_possible,
    wait_for_input,
    wake_reader,
    writer_transport,
)

if TYPE_CHECKING:
    from server.transports import TransportHost

log = logging.getLogger(__name__)


_UTF8_DECODER = encodings.utf_8.IncrementalDecoder

Host = TypeVar("Host", bound="TransportHost")
"""The running server as the transport and what it hands connections to read it."""

DirectOutput: TypeAlias = tuple[WriteTransport, str, str, telnetlib3.TelnetServer | None]
"""JSON mode's output past telnetlib3's writer: transport, encoding, errors, the protocol counting the bytes."""

PLAIN_BACKLOG = 64
"""JSON mode: lines taken past telnetlib3 and not read yet by the session beyond which input goes
telnetlib3's way again (its reader's flow control: the socket is not read past its limit)."""


class DonneTelnetServer(Telnetlib3Server):
    """Tells the session about window changes (NAWS); cuts clients that send too much.

    telnetlib3 parses input byte by byte in Python (about 10 µs a byte here),
    so a client streaming megabytes would cost seconds of CPU: the raw input
    is metered *before* telnetlib3 sees it (``input_bytes_per_second``,
    ``input_burst``). Over budget, input is dropped unparsed and the connection is cut:
    ``cut_hook`` (the :class:`TelnetConn`) is told first so that the client
    hears why; without one, a notice in the three languages is written here.

    Every callback runs in the connection's log scope (:mod:`server.operations.logsafe`),
    so telnetlib3's own records about it share its log budget.
    """

    resize_hook: Callable[[int, int], None] | None = None
    cut_hook: Callable[[str], None] | None = None
    input_rate: float = 16384.0
    input_burst: float = 131072.0
    mssp_table: Callable[[], dict[str, str | list[str]]] | None = None
    """MSSP on: the table to send a crawler that answers our ``WILL MSSP`` (:mod:`.mud`)."""
    offer_gmcp: bool = False
    gmcp: GmcpLink | None = None  # GMCP on: this connection's (set when it is made)
    _mssp_sent = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.input_budget = TokenBucket(self.input_rate, self.input_burst)
        self.over_budget = False
        self.log_key = logsafe.new_key("telnet")

    listener: TelnetListener | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if self.listener is not None:
            self.listener.protocols.add(self)
        with logsafe.scope(self.log_key):
            super().connection_made(transport)
        writer = self.writer
        assert writer is not None  # (telnetlib3's connection_made made it)
        if self.offer_gmcp:
            self.gmcp = GmcpLink(writer)
            writer.set_ext_callback(GMCP, self.gmcp.received)
        else:
            writer.always_wont.add(GMCP)
        if self.mssp_table is None:
            writer.always_wont.add(MSSP)
        writer.always_wont.add(MCCP3_COMPRESS)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.listener is not None:
            self.listener.protocols.discard(self)
        with logsafe.scope(self.log_key):
            super().connection_lost(exc)
        logsafe.forget(self.log_key)

    def offer_options(self, mccp2: bool) -> None:
        """Our offers after telnetlib3's own (:meth:`Telnetlib3Server.begin_advanced_negotiation`)."""
        writer = self.writer
        assert writer is not None  # (telnetlib3 negotiates once connected)
        if mccp2 and writer.get_extra_info("ssl_object") is None:  # (never under TLS)
            writer.iac(WILL, MCCP2_COMPRESS)
        if self.mssp_table is not None:
            writer.iac(WILL, MSSP)
        if self.gmcp is not None:
            writer.iac(WILL, GMCP)

    plain_in: TelnetConn | None = None
    """JSON mode: the connection that takes plain input from here, bypassing telnetlib3 (see
    :meth:`TelnetConn.take_plain`)."""

    def data_received(self, data: bytes) -> None:
        if self.over_budget:
            return
        now = time.monotonic()
        if not self.input_budget.take(now, len(data)):
            with logsafe.scope(self.log_key):
                self._cut(INPUT_FLOOD)
            return
        conn = self.plain_in
        if conn is not None and conn.take_plain(self, data, now):
            return
        with logsafe.scope(self.log_key):
            super().data_received(data)
            writer = self.writer
            if not self._mssp_sent and self.mssp_table is not None and writer is not None \
                    and writer.local_option.enabled(MSSP):
                self._send_mssp(self.mssp_table)
        if conn is not None:
            conn.parsed()

    def _send_mssp(self, table: Callable[[], dict[str, str | list[str]]]) -> None:
        """The crawler said DO MSSP: the table, once per connection."""
        self._mssp_sent = True
        writer = self.writer
        try:
            assert writer is not None  # (asked from data_received: connected)
            writer.send_mssp(table())
        except Exception:  # a fact that cannot be read costs the table, never the connection
            log.exception("telnet: MSSP table failed")

    def _cut(self, reason: str) -> None:
        self.over_budget = True
        log.info("telnet: %s sent too much input; cutting", self.get_extra_info("peername"))
        transport = self.connection_transport()
        if transport is None:
            return
        # Input is still read, and dropped unparsed (data_received): left unread, it would turn
        # the close into a reset that loses the notice on its way to the client.
        hook = self.cut_hook
        if hook is not None:
            hook(reason)
            asyncio.get_running_loop().call_later(CUT_GRACE, transport.close)
        else:  # still negotiating: nobody else to say it
            transport.write(cut_notice(reason, machine=False, crlf=True).encode())
            self.linger_close()

    def linger_close(self) -> None:
        """Close a cut connection without a reset: send our end (FIN), drop what still comes in.

        Closing a socket with unread input makes the kernel answer with a reset,
        which can destroy the notice before the client reads it; so the write
        side is shut first and the transport closed when the client closes, or
        after :data:`CUT_GRACE` seconds.
        """
        transport = self.connection_transport()
        if transport is None or transport.is_closing():
            return
        try:
            if transport.can_write_eof():
                transport.write_eof()
                asyncio.get_running_loop().call_later(CUT_GRACE, transport.close)
                return
        except (OSError, RuntimeError):
            pass
        transport.close()

    def on_charset(self, charset: str) -> None:
        """A CHARSET the client accepted: only a text encoding that reads ASCII as ASCII is taken
        (:func:`text_charset`; telnetlib3 takes any name).

        telnetlib3 decodes NEW_ENVIRON and all later input with it, and we write with it: an
        unknown name (``utf-8\nCRITICAL...``) raised ``LookupError`` in the reader, and rot13,
        base64, hex (Python codecs that are no text encodings) or UTF-16 failed the writer and
        ended the connection with a traceback. Such a charset is answered ``CHARSET REJECTED``
        and the connection goes on in ours.
        """
        if not text_charset(charset):
            log.info("telnet: %s accepted a charset we do not speak, %r; rejected", self.get_extra_info("peername"),
                     charset)
            writer = getattr(self, "writer", None)
            if writer is not None:
                writer.environ_encoding = "ascii"  # telnetlib3's own default, set before this callback
                writer.send_iac(IAC + SB + CHARSET + REJECTED + IAC + SE)
            return
        super().on_charset(charset)

    def on_request_charset(self) -> list[str]:
        """The charsets offered to a client that will speak CHARSET: telnetlib3's list without those
        :func:`text_charset` refuses (it offers UTF-16, which would then be rejected)."""
        return [name for name in super().on_request_charset() if text_charset(name)]

    def encoding(self, outgoing: bool | None = None, incoming: bool | None = None) -> str:
        """telnetlib3's choice (LANG, then CHARSET, then ours), never one :func:`text_charset` refuses."""
        chosen = str(super().encoding(outgoing=outgoing, incoming=incoming))
        return chosen if text_charset(chosen) else str(self.default_encoding)

    def on_naws(self, rows: int, cols: int) -> None:  # telnetlib3 order: rows, cols
        super().on_naws(rows, cols)
        if self.resize_hook is not None:
            self.resize_hook(cols, rows)


_ASCII = "".join(map(chr, range(128)))
_PROBES = (_ASCII.encode("ascii"), b"\\u00e9", b"+AGE-", b"\x1b$B!!\x1b(B", b"~{!!~}")
"""ASCII that must read as itself (escapes of raw_unicode_escape, UTF-7, ISO-2022, HZ would not)."""


@functools.lru_cache(maxsize=64)
def text_charset(name: str) -> bool:
    """A charset a telnet client may choose: a text encoding Python knows in which the 128 ASCII
    characters are their own bytes (telnet commands, line ends and our words stay as they are).
    Not rot13, base64, hex (codecs between str and str or bytes and bytes), nor UTF-16/32, nor
    UTF-7 (which also decodes lone surrogates, text no client may send)."""
    try:
        info = codecs.lookup(name)
        if not getattr(info, "_is_text_encoding", True):
            return False
        return _ASCII.encode(info.name) == _ASCII.encode("ascii") and all(
            probe.decode(info.name) == probe.decode("ascii") for probe in _PROBES)
    except (LookupError, ValueError, TypeError, UnicodeError):
        return False


class TelnetConn:
    """A :class:`server.sessions.session.Conn` over a telnetlib3 reader/writer pair."""

    kind = "telnet"
    crlf = True

    def __init__(self, reader: TelnetReaderUnicode, writer: TelnetWriterUnicode, peer: str, max_line: int) -> None:
        """``on_cut``: set by the session to be told, once, that the client sent more input
        than the byte budget allows (reason :data:`~server.transports.lines.INPUT_FLOOD`).
        The input stops and :meth:`readline` returns ``None``; the session should tell the
        person why (in their language, or a JSON error line), then close. Without a hook,
        a notice in the three languages (or a JSON error line in machine mode) is written here.
        """
        self.reader = reader
        self.writer = writer
        self.peer = peer
        self.term: str | None = _term(writer.get_extra_info("TERM"))
        self.ansi = self.term is not None and self.term.lower() not in ("dumb", "network")
        self.width = int(writer.get_extra_info("cols") or 80)
        self.height = int(writer.get_extra_info("rows") or 24)
        lang = writer.get_extra_info("LANG")
        self.env: Mapping[str, str] = {"LANG": lang} if isinstance(lang, str) and lang else {}
        self.on_resize: Callable[[int, int], None] | None = None
        self.on_cut: Callable[[str], None] | None = None
        self.cut_reason: str | None = None
        self.machine = False  # JSON mode: no echo, no negotiation
        self._direct: DirectOutput | None = None  # JSON mode: see _direct_output
        self._lines = LineAssembler(max_line)
        self._ready: list[str | TooLong] = []
        self._iac_secret = False
        self._special: re.Pattern[bytes] | None = None  # JSON mode: bytes telnetlib3 must see (take_plain)
        self._plain_writer: TelnetWriter  # JSON mode: ``protocol.writer``, set with ``_special`` (take_plain)
        self._plain_decoder: codecs.IncrementalDecoder | None = None  # JSON mode: the reader's decoder, once take_plain has seen it chosen
        protocol = getattr(writer, "protocol", None)
        self.reader_mode: bool | None = None  # the session's screen-reader mode, once chosen (else MTTS's)
        self.gmcp: GmcpLink | None = None  # GMCP offered on this connection (on once the client said DO)
        if isinstance(protocol, DonneTelnetServer):
            protocol.resize_hook = self._resized
            protocol.cut_hook = self._cut
            self.gmcp = protocol.gmcp

    @property
    def mtts(self) -> int | None:
        """The client's MTTS bits (its third terminal type, ``MTTS 2825``), None when it sent none."""
        return mtts_bits(self.writer.get_extra_info("ttype3"))

    @property
    def screen_reader(self) -> bool:
        """MTTS says a screen reader is in use (bit 64): the session starts in screen-reader mode."""
        bits = self.mtts
        return bits is not None and bool(bits & MTTS_SCREEN_READER)

    def _cut(self, reason: str) -> None:
        if self.cut_reason is not None:
            return
        self.cut_reason = reason
        hook = self.on_cut
        if hook is not None:
            hook(reason)
        else:
            self.write(cut_notice(reason, machine=self.machine, crlf=True))
        with contextlib.suppress(Exception):
            self.reader.feed_eof()  # wake a read waiting for input that will not come

    def _resized(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        if self.on_resize is not None:
            self.on_resize(width, height)

    async def readline(self) -> str | TooLong | None:
        while not self._ready:
            if self.cut_reason is not None:
                return None
            reader = self.reader
            if self._special is not None and not holds_input(reader):
                # JSON mode: lines come from take_plain, or bytes from telnetlib3 (then read them)
                await wait_for_input(reader)
                continue
            data = await reader.read(4096)
            if not data or self.cut_reason is not None:
                return None
            fed = self._lines.feed(data)
            if fed.echo and not self.machine and getattr(self.writer, "will_echo", False):
                self.writer.write(fed.echo)
            self._ready.extend(fed.lines)
        return self._ready.pop(0)

    def set_machine(self) -> None:
        """JSON mode: nothing but JSON lines from now on (PROTOCOL.md).

        No echo, and telnetlib3 stops answering the client's negotiation: every
        IAC sequence it would send is dropped (what the client sends is still
        parsed out of the input).
        """
        self.machine = True
        protocol = getattr(self.writer, "protocol", None)
        if isinstance(protocol, DonneTelnetServer) and not getattr(self.writer, "mccp2_active", False):
            # no compression may start from now on: its start is a telnet command, dropped below
            protocol.mccp2_enabled = False
            self.writer.compression = False
        self.gmcp = None
        writers = [self.writer, inner_writer(self.writer),
                   getattr(getattr(self.writer, "protocol", None), "writer", None)]
        for w in writers:
            if w is not None and hasattr(w, "send_iac"):
                vars(w)["send_iac"] = _drop_iac  # (the writer's own, in front of its class's method)
        self._direct = self._direct_output()
        writer = protocol.writer if isinstance(protocol, DonneTelnetServer) else None
        if isinstance(protocol, DonneTelnetServer) and writer is not None \
                and _plain_input_possible(protocol, self.reader):
            self._special = _special_bytes(writer)
            self._plain_writer = writer
            protocol.plain_in = self

    def take_plain(self, protocol: DonneTelnetServer, data: bytes, now: float) -> bool:
        """JSON mode: ``data`` (received at ``now``, :func:`time.monotonic`) as telnetlib3 would pass
        it on, without its parsing; False when telnetlib3 must see it.

        telnetlib3 scans the input a byte at a time in Python for IAC and its SLC characters
        (``^C``, ``DEL``...): a JSON line is tens of bytes, so that scan was most of the telnet
        input's cost. A chunk with none of those bytes, arriving when telnetlib3 is in no telnet
        command and holds no input, goes straight to its reader's decoder and the line assembler,
        as its parsing would hand it on: the same lines, in the same order. Anything else (a
        telnet command, an SLC character, input while telnetlib3 still holds some) takes
        telnetlib3's way, and so does input while the session is :data:`PLAIN_BACKLOG` lines
        behind: telnetlib3's reader then stops reading the socket past its limit, as before.
        """
        special = self._special
        reader = self.reader
        if (special is None or len(self._ready) >= PLAIN_BACKLOG or special.search(data) is not None
                or not protocol.parsing_idle(self._plain_writer, reader)):
            return False
        protocol.note_plain_input(now, len(data))
        decoder = self._plain_decoder
        if decoder is None or decoder is not decoder_of(reader):
            text = reader.decode(data)  # telnetlib3 chooses (or keeps) the decoder for the encoding
            self._plain_decoder = decoder_of(reader)
        elif decoder.__class__ is _UTF8_DECODER and not decoder.buffer and data.isascii():
            text = data.decode("ascii")  # what the UTF-8 decoder makes of ASCII bytes, keeping none back
        else:
            text = decoder.decode(data)  # the same, without asking for the encoding every time
        lines = self._lines.lines(text)  # (no echo in JSON mode)
        if lines:
            self._ready.extend(lines)
            wake_reader(reader)
        return True

    def parsed(self) -> None:
        """telnetlib3 parsed input (a telnet command may have changed its SLC characters or the
        encoding): both are looked up again."""
        protocol = getattr(self.writer, "protocol", None)
        if self._special is not None and protocol is not None:
            self._special = _special_bytes(protocol.writer)
        self._plain_decoder = None

    def _direct_output(self) -> DirectOutput | None:
        """JSON mode: (transport, encoding, errors, protocol counting the bytes sent or None) to write
        lines with directly.

        telnetlib3's unicode writer asks the protocol for the outgoing
        encoding (several ``get_extra_info`` look-ups) on every write; in JSON
        mode nothing is negotiated any more, so the encoding is read once here
        and the bytes written as telnetlib3 would (IAC doubled, counted).
        None when the writer is not telnetlib3's usual one: it is used as is.
        """
        w = self.writer
        fn = getattr(w, "fn_encoding", None)
        transport = writer_transport(w)
        if fn is None or transport is None or not hasattr(w, "connection_closed"):
            return None
        try:
            encoding = codecs.lookup(fn(outgoing=True)).name
        except Exception:
            return None
        protocol = counting_protocol(w)
        return transport, encoding, getattr(w, "encoding_errors", None) or "strict", protocol

    def write(self, text: str) -> None:
        direct = self._direct
        if direct is not None:
            transport, encoding, errors, protocol = direct
            if transport.is_closing():  # (so is it once the writer closed: its close() closes this transport)
                return
            data = text.encode(encoding, errors)
            if encoding != "utf-8":
                data = data.replace(b"\xff", b"\xff\xff")  # IAC (never a byte of UTF-8)
            transport.write(data)
            if protocol is not None:
                count_sent(protocol, len(data))
            return
        typing = "" if self.machine or self._lines.secret else self._lines.pending
        if typing and getattr(self.writer, "will_echo", False) and text.endswith("\n"):
            # character mode: news arrived while the person was typing; move their partial
            # line below the news so it stays visible and editable
            # (a screen reader: nothing redrawn in place, the partial line comes again below)
            in_place = self.ansi and not (self.screen_reader if self.reader_mode is None else self.reader_mode)
            self.writer.write(("\r\x1b[K" if in_place else "\r\n") + text + typing)
            return
        self.writer.write(text)

    def write_lines(self, lines: list[str]) -> int | None:
        """What ``write("".join(lines))`` writes, in one write; then :meth:`backlog` when it is known
        without asking (None: ask it).

        In JSON mode over UTF-8 each line is encoded apart and the bytes joined: UTF-8 encodes
        a character alone (a lone surrogate too), so the bytes are the same, and an ASCII line
        (a state) is copied as it is, where the joined text, widened by the one event whose
        words hold a "♠", was encoded character by character.
        """
        direct = self._direct
        if direct is None or direct[1] != "utf-8":
            self.write(lines[0] if len(lines) == 1 else "".join(lines))
            return None
        transport, _, errors, protocol = direct
        if transport.is_closing():  # (the writer closed too: see write)
            return None
        try:  # (UTF-8; what errors= changes is a lone surrogate)
            data = lines[0].encode() if len(lines) == 1 else b"".join(map(str.encode, lines))
        except UnicodeEncodeError:
            data = b"".join([line.encode("utf-8", errors) for line in lines])
        transport.write(data)
        if protocol is not None:
            count_sent(protocol, len(data))
        left: int = transport.get_write_buffer_size()  # (backlog(): the writer's transport is this one)
        return left

    def backlog(self) -> int:
        transport = getattr(self.writer, "transport", None)
        return 1 if transport is None else int(transport.get_write_buffer_size())

    async def drain(self) -> None:
        await self.writer.drain()

    def set_secret(self, secret: bool) -> None:
        self._lines.secret = secret
        if getattr(self.writer, "will_echo", False):
            return  # character mode: we simply do not echo
        # local mode: ask the client to stop (then resume) its own echo
        if secret and not self._iac_secret:
            self.writer.iac(WILL, ECHO)
            self._iac_secret = True
        elif not secret and self._iac_secret:
            self.writer.iac(WONT, ECHO)
            self._iac_secret = False

    def close(self) -> None:
        protocol = getattr(self.writer, "protocol", None)
        if self.cut_reason is not None and isinstance(protocol, DonneTelnetServer):
            protocol.linger_close()
            return
        with contextlib.suppress(Exception):
            self.writer.close()


MTTS_SCREEN_READER = 64


def mtts_bits(ttype: object) -> int | None:
    """``MTTS 2825`` -> 2825 (the Mud Terminal Type Standard's third answer); None otherwise."""
    if not isinstance(ttype, str):
        return None
    words = ttype.split()
    if len(words) != 2 or words[0].upper() != "MTTS" or not words[1].isdigit() or len(words[1]) > 9:
        return None
    return int(words[1])


def _plain_input_possible(protocol: object, reader: TelnetReaderUnicode) -> bool:
    """Our telnet server, with telnetlib3's usual reader and writer in the state
    :meth:`TelnetConn.take_plain` knows (:func:`~.telnetlib3_adapter.plain_input_possible`)."""
    return isinstance(protocol, DonneTelnetServer) and plain_input_possible(protocol, reader)


def _special_bytes(writer: TelnetWriter) -> re.Pattern[bytes]:
    """The bytes telnetlib3 parses one by one: IAC, and its SLC characters while it simulates them
    (as its ``data_received`` chooses them)."""
    special = {255}
    if writer.slc_simulated:
        special |= {defn.val[0] for defn in writer.slctab.values() if defn.val != theNULL}
    return re.compile(b"[" + b"".join(re.escape(bytes([b])) for b in sorted(special)) + b"]")


def _drop_iac(buf: bytes) -> None:
    """Replaces telnetlib3's ``send_iac`` in JSON mode."""


def _term(value: object) -> str | None:
    if not isinstance(value, str) or not value or value.lower() == "unknown":
        return None
    return value


class TelnetListener:
    """The listening socket and the open connections: what ``telnetlib3.create_server`` returns, in O(1).

    ``telnetlib3.Server`` keeps its protocols in a list that it filters whole
    on every new connection (``_register_protocol``), so accepting N
    connections costs O(N²): 5,000 clients were 12.9 million ``getattr``
    calls, most of the server's CPU while they connected. Its bounded
    ``wait_for_client`` queue also kept the last 1,000 protocols alive. Here a
    protocol adds itself to a set when it connects and leaves it when it is
    lost. Same face as telnetlib3's server: ``sockets``, ``close()`` (the
    listener and every client), ``wait_closed()``, ``is_serving()``.
    """

    def __init__(self) -> None:
        self.server: asyncio.Server | None = None
        self.protocols: set[DonneTelnetServer] = set()

    @property
    def sockets(self) -> tuple[socket.socket, ...]:
        return self.server.sockets if self.server is not None else ()

    def is_serving(self) -> bool:
        return self.server is not None and self.server.is_serving()

    def stop_listening(self) -> None:
        if self.server is not None:
            self.server.close()

    def close(self) -> None:
        self.stop_listening()
        for protocol in list(self.protocols):
            transport = protocol.connection_transport()
            if transport is not None:
                transport.close()

    async def wait_closed(self) -> None:
        if self.server is not None:
            await self.server.wait_closed()
        await asyncio.sleep(0)


async def start_telnet(app: Host, serve_telnet: Callable[[Host, TelnetConn], Awaitable[None]]) -> TelnetListener:
    """Start listening, handing each connection to ``serve_telnet``; returns the :class:`TelnetListener`
    (``.sockets``, ``.close()``)."""
    cfg = app.config

    async def shell(reader: TelnetReaderUnicode, writer: TelnetWriterUnicode) -> None:
        protocol = getattr(writer, "protocol", None)
        key = protocol.log_key if isinstance(protocol, DonneTelnetServer) else logsafe.new_key("telnet")
        with logsafe.scope(key):
            await serve(reader, writer)

    async def serve(reader: TelnetReaderUnicode, writer: TelnetWriterUnicode) -> None:
        peername = writer.get_extra_info("peername")
        peer = str(peername[0]) if peername else "?"
        log.info("telnet: %s connected (term %s, %sx%s, charset %s)", peer, writer.get_extra_info("TERM"),
                 writer.get_extra_info("cols"), writer.get_extra_info("rows"), writer.get_extra_info("charset"))
        if app.stopping or not app.connections.acquire(peer):
            writer.write("Too many connections / Trop de connexions / Demasiadas conexiones.\r\n")
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.drain(), 2)
            writer.close()
            return
        conn: TelnetConn | None = None
        try:
            conn = TelnetConn(reader, writer, peer, cfg.max_line)
            await serve_telnet(app, conn)
        except Exception:
            log.exception("telnet connection from %s failed", peer)
        finally:
            app.connections.release(peer)
            with contextlib.suppress(Exception):
                if conn is not None:
                    conn.close()
                else:
                    writer.close()

    listener = TelnetListener()
    started = time.time()

    def mssp() -> dict[str, str | list[str]]:
        lobby = app.lobby
        players = sum(1 for p in lobby.players.values() if p.connected) if lobby is not None else 0
        port = int(getattr(app, "telnet_port", 0) or cfg.telnet_port)
        return mssp_variables(cfg, players=players, started=started, telnet_port=port,
                              ssh_port=int(getattr(app, "ssh_port", 0) or cfg.ssh_port) or None,
                              version=_version())

    protocol: type[DonneTelnetServer] = type("BoundTelnetServer", (DonneTelnetServer,),
                    {"input_rate": float(cfg.input_bytes_per_second), "input_burst": float(cfg.input_burst),
                     "listener": listener, "mssp_table": staticmethod(mssp) if cfg.telnet_mssp else None,
                     "offer_gmcp": cfg.telnet_gmcp})

    def factory() -> DonneTelnetServer:
        # the settings telnetlib3.create_server would pass (its other defaults are the class's);
        # compression: MCCP2/MCCP3 offered (never under TLS: telnetlib3 checks) or refused
        return protocol(shell=shell, encoding="utf8", encoding_errors="replace", force_binary=True,
                        connect_maxwait=cfg.telnet_connect_maxwait, timeout=0, compression=cfg.telnet_mccp)

    listener.server = await asyncio.get_running_loop().create_server(factory, cfg.host, cfg.telnet_port)
    return listener


def _version() -> str:
    try:
        return importlib.metadata.version("donne")
    except importlib.metadata.PackageNotFoundError:
        return ""


def stop_listening(server: object) -> None:
    """Stop accepting telnet connections while the open ones carry on.

    ``close()`` would also cut every client at once; the shutdown first tells
    everyone, so only the listening socket closes here.
    """
    if isinstance(server, TelnetListener):
        server.stop_listening()
        return
    inner = inner_server(server)
    if inner is not None:
        inner.close()
