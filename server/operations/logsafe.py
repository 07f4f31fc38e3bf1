"""Log hygiene: what clients choose never reaches the log as they sent it.

Terminal types, user names, charsets, environment values and command words
are the client's to choose, and they reach log records: ours, and those of
asyncssh and telnetlib3. :class:`LogHygiene`, a filter installed on the root
handlers by :func:`install`, rewrites every record before it is written:

* the final message (arguments applied) has its control characters, line and
  paragraph separators and invisible format characters escaped (``\\n``,
  ``\\x1b``, ``\\u2028``...): one record is one line, and no escape sequence
  reaches whoever tails the log;
* exception text is escaped the same way where it comes from data (the
  exception's message and notes); tracebacks are kept for our own bugs (a
  record of our loggers, or an exception raised in our code), while an
  exception raised inside a library and logged by it (a bogus charset, a
  malformed packet) is one line: its type and escaped message (telnetlib3
  logs such tracebacks one line per record: its frame lines are dropped);
* each connection may cause ``per_connection`` records; the next one says
  "further log messages suppressed" and the rest are dropped until the
  connection ends.

A record belongs to a connection by its ``donne_conn`` attribute (``extra=``),
by the context variable :data:`CONN` (set with :func:`scope` around a
connection's callbacks and inherited by the tasks they start), or, for
asyncssh, by the ``[conn=N`` prefix of its messages.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import logging
import re
import traceback
import unicodedata
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

CONN: contextvars.ContextVar[str | None] = contextvars.ContextVar("donne_log_conn", default=None)
"""The connection the running code serves (a :attr:`LogKey.name`), for records without ``donne_conn``."""

OUR_LOGGERS = ("donne", "server", "engine")
OUR_CODE = tuple(str(Path(__file__).resolve().parents[2] / part) for part in ("server", "engine"))

_ids = itertools.count(1)
_filters: weakref.WeakSet[LogHygiene] = weakref.WeakSet()
_ASYNCSSH_CONN = re.compile(r"\[conn=(\d+)")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclass(frozen=True, slots=True)
class LogKey:
    """One connection, as log records name it (``telnet#12``)."""

    name: str

    @property
    def extra(self) -> dict[str, str]:
        """``extra=`` for a log call about this connection made outside its :func:`scope`."""
        return {"donne_conn": self.name}


def new_key(kind: str) -> LogKey:
    return LogKey(f"{kind}#{next(_ids)}")


@contextlib.contextmanager
def scope(key: LogKey) -> Iterator[None]:
    """Records logged inside (and by tasks started inside) belong to ``key``'s connection."""
    token = CONN.set(key.name)
    try:
        yield
    finally:
        CONN.reset(token)


def forget(key: LogKey) -> None:
    """The connection ended: its budget goes (and a last line says how much was suppressed)."""
    for f in list(_filters):
        f.forget(key.name)


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs")


def escape(text: str) -> str:
    """``text`` with control, separator and format characters written as escapes (idempotent)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if not _unsafe(ch):
            out.append(ch)
        elif ch in _NAMED:
            out.append(_NAMED[ch])
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
    return "".join(out)


def _ours_raised(tb: TracebackType | None) -> bool:
    """The exception was raised in our code (its innermost frame is in server/ or engine/)."""
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return last is not None and last.tb_frame.f_code.co_filename.startswith(OUR_CODE)


def _is_ours(name: str) -> bool:
    return any(name == root or name.startswith(root + ".") for root in OUR_LOGGERS)


def format_exception(exc: BaseException) -> str:
    """A traceback whose exception messages and notes (data, maybe the client's) are escaped."""
    te = traceback.TracebackException.from_exception(exc)
    seen: set[int] = set()
    todo = [te]
    while todo:
        one = todo.pop()
        if id(one) in seen:
            continue
        seen.add(id(one))
        message = getattr(one, "_str", None)
        if isinstance(message, str):
            setattr(one, "_str", escape(message))  # noqa: B010  # private to traceback: see below
        notes = getattr(one, "__notes__", None)
        if isinstance(notes, list):
            one.__notes__ = [escape(str(n)) for n in notes]
        todo.extend(t for t in (one.__cause__, one.__context__) if t is not None)
        todo.extend(getattr(one, "exceptions", None) or ())
    text = "".join(te.format()).rstrip("\n")
    if not hasattr(te, "_str"):  # a Python that stores it elsewhere: never let a newline through
        lines = text.split("\n")
        text = "\n".join(lines[:1] + ["  | " + escape(line) for line in lines[1:]])
    return text


class LogHygiene(logging.Filter):
    """Escapes client data in every record and caps records per connection (see the module)."""

    def __init__(self, per_connection: int = 100, max_connections: int = 10_000) -> None:
        super().__init__()
        self.per_connection = per_connection
        self.max_connections = max_connections
        self._counts: OrderedDict[str, int] = OrderedDict()
        _filters.add(self)

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "donne_clean", None) is self:
            return True  # this filter already saw it (installed on several handlers)
        if record.name.startswith("telnetlib3") and isinstance(record.msg, str) \
                and record.msg.startswith("  ") and record.levelno == logging.WARNING:
            return False  # a traceback frame telnetlib3 logs line by line; its last line stays
        key = self._key(record)
        if key is not None and not getattr(record, "donne_exempt", False):
            count = self._counts.pop(key, 0) + 1
            self._counts[key] = count
            while len(self._counts) > self.max_connections:
                self._counts.popitem(last=False)
            if count > self.per_connection + 1:
                return False
            if count == self.per_connection + 1:
                record.msg = f"{key}: further log messages from this connection suppressed"
                record.args = None
                record.exc_info = None
                record.exc_text = None
                record.levelno, record.levelname = logging.WARNING, "WARNING"
        self._clean(record)
        record.donne_clean = self
        return True

    def forget(self, key: str) -> None:
        count = self._counts.pop(key, 0)
        if count > self.per_connection + 1:
            logging.getLogger("donne.log").info(
                "%s: %d log messages suppressed", key, count - self.per_connection - 1,
                extra={"donne_exempt": True},
            )

    @staticmethod
    def _key(record: logging.LogRecord) -> str | None:
        key = getattr(record, "donne_conn", None) or CONN.get()
        if key is None and record.name.startswith("asyncssh") and isinstance(record.msg, str):
            m = _ASYNCSSH_CONN.match(record.msg)
            if m:
                key = f"asyncssh#{m.group(1)}"
        return key

    @staticmethod
    def _clean(record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # arguments that do not fit the format: keep both, as text
            message = f"{record.msg!s} {record.args!r}"
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and not _is_ours(record.name) and not _ours_raised(exc.__traceback__):
            # a library logging what a client's bytes did to it: one line, no traceback
            message += f" ({type(exc).__name__}: {exc})"
            record.exc_info = None
            record.exc_text = None
        elif exc is not None:
            record.exc_text = format_exception(exc)
        record.msg = escape(message)
        record.args = None


def install(per_connection: int = 100, handlers: list[logging.Handler] | None = None) -> LogHygiene:
    """Put one :class:`LogHygiene` on ``handlers`` (default: the root logger's handlers)."""
    hygiene = LogHygiene(per_connection)
    for handler in handlers if handlers is not None else logging.getLogger().handlers:
        if not any(isinstance(f, LogHygiene) for f in handler.filters):
            handler.addFilter(hygiene)
    return hygiene
