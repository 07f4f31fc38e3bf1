"""How a session shows things and reads what its client sends: one presenter per session.

A person's terminal gets the :class:`~server.presenters.text.TextPresenter` (words in
their language, tables drawn for their terminal); a program gets the
:class:`~server.presenters.json.JsonPresenter` (PROTOCOL.md). The session chooses
one when the mode is known and then only calls it:

* :meth:`Presenter.read` turns one input line into a :class:`Request` for the
  dispatcher, a :class:`Local` answer (help, a line that is not a command), a
  :class:`Quit`, or nothing;
* the other methods turn replies, refusals, events, states and notices into the
  text to queue for the client.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from server.messages.terminal import TermStyle
from server.protocol import Args, JSONValue, Push, Result, Shared


@dataclass(frozen=True, slots=True)
class Request:
    """A command for the dispatcher: exactly one reply will follow."""

    cmd: str
    args: Args = field(default_factory=dict)
    req_id: JSONValue = None


@dataclass(frozen=True, slots=True)
class Local:
    """What to answer without any command running (help, a line that is not a command)."""

    text: str


@dataclass(frozen=True, slots=True)
class Quit:
    """The client asked to leave; ``text`` is said first."""

    text: str


Action = Request | Local | Quit | None


class Viewer(Protocol):
    """What a presenter reads of its session."""

    @property
    def lang(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def guest(self) -> bool: ...
    @property
    def logged_in(self) -> bool: ...
    @property
    def style(self) -> TermStyle: ...
    @property
    def welcomed(self) -> bool:
        """Greeted at the door already (an account coming back)."""
        ...

    def send_raw(self, text: str) -> None: ...

    def where(self) -> tuple[Push | None, str]:
        """The last state received at the table the reader is at (or None), and ``room``/``lobby``."""
        ...


class Presenter(Protocol):
    mode: str  # "text" | "json"

    def start(self) -> str:
        """What to send when the mode starts (after logging in)."""
        ...

    def read(self, line: str) -> Action: ...

    def render_key(self) -> tuple[Hashable, ...]:
        """Sessions with the same key are shown the same words for the same event and reader."""
        ...

    def ok(self, req_id: JSONValue, cmd: str, result: Result | None) -> str: ...

    def error(self, req_id: JSONValue, code: str, params: Mapping[str, object]) -> str: ...

    def event(self, event: Push, names: tuple[str, ...] | None, you: int | None) -> str: ...

    def shared(self, shared: Shared, you: int | None) -> str:
        """An event many readers receive: made once per (:meth:`render_key`, ``you``)."""
        ...

    def state(self, state: Push) -> str:
        """A new state for the reader."""
        ...

    def text(self, text: str) -> str:
        """A sentence for a person ("" for a program)."""
        ...

    def close(self) -> None:
        """The session ends: drop any pending output of the presenter's own (countdowns)."""
        ...
