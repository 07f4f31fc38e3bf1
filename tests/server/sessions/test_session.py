"""server/sessions/session.py: the outbound queue, slow clients, closing — with a fake transport."""

import asyncio
import json
from types import SimpleNamespace
from typing import ClassVar

import pytest

from server.config import load_config
from server.sessions.session import Session, term_caps


class FakeConn:
    kind = "telnet"
    peer = "127.0.0.1"
    term = "xterm"
    width = 80
    height = 24
    env: ClassVar[dict[str, str]] = {}
    crlf = True

    def __init__(self, stuck: bool = False) -> None:
        self.on_resize = None
        self.written: list[str] = []
        self.stuck = stuck
        self.unblock = asyncio.Event()
        self.closed = False
        self.lines: asyncio.Queue[object] = asyncio.Queue()

    async def readline(self):
        return await self.lines.get()

    def write(self, text: str) -> None:
        self.written.append(text)

    def backlog(self) -> int:
        return 1 if self.stuck else 0

    async def drain(self) -> None:
        if self.stuck:
            await self.unblock.wait()

    def set_secret(self, secret: bool) -> None:
        pass

    def close(self) -> None:
        self.closed = True


class FakeLobby:
    def __init__(self) -> None:
        self.detached: list[Session] = []

    async def detach(self, session: Session) -> None:
        self.detached.append(session)


def make_app(**overrides):
    config = load_config(**overrides)
    return SimpleNamespace(config=config, sessions=set(), lobby=FakeLobby())


async def test_messages_go_out_in_order_with_crlf_in_text_mode():
    app = make_app()
    conn = FakeConn()
    session = Session(app, conn)
    session.start()
    session.send_text("one\ntwo")
    session.mode = "json"
    session.send_json({"type": "ok", "id": 1})
    session.close("bye")
    await asyncio.wait_for(session.done.wait(), 5)
    assert "".join(conn.written) == 'one\r\ntwo\r\n{"type":"ok","id":1}\n'
    assert conn.closed and app.lobby.detached == [session] and session not in app.sessions


async def test_slow_client_is_dropped_when_its_queue_is_full_and_never_blocks_the_sender():
    app = make_app(outbound_queue=5, drain_timeout=30)
    conn = FakeConn(stuck=True)
    session = Session(app, conn)
    session.mode = "json"
    session.start()
    for i in range(50):  # a room pushing to a client that reads nothing: never awaits
        session.send_json({"type": "event", "event": "played", "n": i})
    assert session.closed.is_set() and session.close_reason == "slow"
    await asyncio.wait_for(session.done.wait(), 5)
    assert conn.closed
    assert len(conn.written) <= 6


async def test_a_client_slow_for_a_while_gets_everything_in_order_one_write_a_turn():
    """While the transport holds unsent bytes nothing more is written; what was queued meanwhile
    goes out in one write once the client has read, and the client stays."""
    app = make_app(drain_timeout=30)
    conn = FakeConn(stuck=True)
    session = Session(app, conn)
    session.mode = "json"
    session.start()
    session.send_raw("a\n")
    session.send_raw("b\n")
    await asyncio.sleep(0)
    assert conn.written == ["a\nb\n"]  # one turn: one write
    for line in ("c\n", "d\n", "e\n"):
        session.send_raw(line)
        await asyncio.sleep(0)
    assert conn.written == ["a\nb\n"]  # the client reads nothing: the rest waits
    conn.stuck = False
    conn.unblock.set()
    for _ in range(3):
        await asyncio.sleep(0)
    assert conn.written == ["a\nb\n", "c\nd\ne\n"] and not session.closed.is_set()
    session.send_raw("f\n")
    await asyncio.sleep(0)
    assert conn.written[-1] == "f\n"
    session.close("bye")
    await asyncio.wait_for(session.done.wait(), 5)


async def test_the_sessions_reached_in_one_turn_are_written_by_one_callback_and_a_failing_one_alone(monkeypatch):
    """Output queued for many sessions in one turn goes out at the next turn from one loop callback;
    a session whose write blows up is closed alone, the others get their lines."""
    app = make_app()
    conns = [FakeConn() for _ in range(4)]
    sessions = [Session(app, c) for c in conns]
    for s in sessions:
        s.mode = "json"
        s.start()
    await asyncio.sleep(0)

    def broken(text: str) -> None:
        raise RuntimeError("transport bug")

    conns[1].write = broken  # type: ignore[method-assign]
    loop = asyncio.get_running_loop()
    scheduled = []
    real = loop.call_soon
    monkeypatch.setattr(loop, "call_soon", lambda cb, *a, **k: (scheduled.append(cb), real(cb, *a, **k))[1])
    for i, s in enumerate(sessions):
        s.send_raw(f"to {i}\n")
        s.send_raw("again\n")
    monkeypatch.undo()
    assert len(scheduled) == 1
    await asyncio.sleep(0)
    assert [c.written for i, c in enumerate(conns) if i != 1] == [["to 0\nagain\n"], ["to 2\nagain\n"],
                                                                  ["to 3\nagain\n"]]
    assert sessions[1].close_reason == "error" and not sessions[0].closed.is_set()
    sessions[0].send_raw("later\n")  # a later turn: a new callback
    await asyncio.sleep(0)
    assert conns[0].written[-1] == "later\n"
    for s in sessions:
        s.close("bye")
    await asyncio.gather(*(asyncio.wait_for(s.done.wait(), 5) for s in sessions))


@pytest.mark.parametrize(("reason", "written"), [("shutdown", ["last words\n"]), ("slow", [])])
async def test_what_is_queued_before_a_close_still_goes_out_but_not_to_a_slow_client(reason, written):
    app = make_app()
    conn = FakeConn()
    session = Session(app, conn)
    session.mode = "json"
    session.start()
    session.send_raw("last words\n")
    session.close(reason)
    await asyncio.wait_for(session.done.wait(), 5)
    assert conn.written == written and conn.closed


async def test_client_that_stops_reading_is_dropped_after_drain_timeout():
    app = make_app(drain_timeout=0.05)
    conn = FakeConn(stuck=True)
    session = Session(app, conn)
    session.start()
    session.send_text("hello")
    await asyncio.wait_for(session.done.wait(), 5)
    assert session.close_reason == "slow"


async def test_close_is_idempotent_and_later_sends_are_ignored():
    app = make_app()
    conn = FakeConn()
    session = Session(app, conn)
    session.start()
    session.close("first")
    session.close("second")
    await asyncio.wait_for(session.done.wait(), 5)
    session.send_text("too late")
    assert session.close_reason == "first"
    assert app.lobby.detached == [session]
    assert "too late" not in "".join(conn.written)


async def test_readline_returns_none_when_closed_while_waiting():
    app = make_app()
    session = Session(app, FakeConn())
    session.start()
    reader = asyncio.ensure_future(session.readline())
    await asyncio.sleep(0)
    session.close("x")
    assert await asyncio.wait_for(reader, 5) is None


async def test_login_timeout_closes_a_session_that_never_logs_in():
    app = make_app(login_timeout=0.05)
    conn = FakeConn()
    session = Session(app, conn)
    session.mode = "json"
    session.start()
    await asyncio.wait_for(session.done.wait(), 5)
    assert session.close_reason == "login timeout"
    notice = json.loads(conn.written[-1])
    assert notice["event"] == "notice" and notice["code"] == "login_timeout" and notice["text"]


async def test_idle_timeout_outside_a_seat():
    app = make_app(idle_timeout=0.05)
    session = Session(app, FakeConn())
    session.start()
    session.logged("alice", True)
    await asyncio.wait_for(session.done.wait(), 5)
    assert session.close_reason == "idle"


def test_terminal_capabilities():
    assert term_caps(None) == (False, False)
    assert term_caps("dumb") == (False, False)
    assert term_caps("unknown") == (False, False)
    assert term_caps("xterm-256color") == (True, True)
    assert term_caps("screen") == (True, True)


async def test_cancelling_the_reader_propagates_cancellation():
    app = make_app()
    session = Session(app, FakeConn())
    session.start()
    reader = asyncio.ensure_future(session.readline())
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    session.close()
    await asyncio.wait_for(session.done.wait(), 5)


async def test_a_read_runs_in_the_readers_own_task_and_a_close_leaves_it_clean():
    """No task per line: the reader's task waits on the transport itself; close() stops that wait,
    and the task carries on as if never cancelled (it may await again, e.g. the lobby's detach)."""
    app = make_app()
    conn = FakeConn()
    session = Session(app, conn)
    session.start()
    before = asyncio.all_tasks()

    async def reader() -> tuple[object, object, int, object]:
        first = await session.readline()
        second = await session.readline()  # waits: the close stops it
        task = asyncio.current_task()
        assert task is not None
        await asyncio.sleep(0)  # not cancelled any more
        return first, second, task.cancelling(), await session.readline()  # closed: no wait at all

    task = asyncio.ensure_future(reader())
    await asyncio.sleep(0)
    assert asyncio.all_tasks() - before == {task}  # nobody else reads for it
    conn.lines.put_nowait("look")
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert asyncio.all_tasks() - before == {task}
    session.close("x")
    assert await asyncio.wait_for(task, 5) == ("look", None, 0, None)
    await asyncio.wait_for(session.done.wait(), 5)


async def test_lines_read_one_after_another_in_order():
    app = make_app()
    conn = FakeConn()
    session = Session(app, conn)
    session.start()
    for line in ("a", "b", None):
        conn.lines.put_nowait(line)
    assert [await session.readline() for _ in range(3)] == ["a", "b", None]
    session.close()
    await asyncio.wait_for(session.done.wait(), 5)


async def test_a_close_and_an_outside_cancel_together_still_cancel_the_reader():
    app = make_app()
    session = Session(app, FakeConn())
    session.start()
    reader = asyncio.ensure_future(session.readline())
    await asyncio.sleep(0)
    session.close("x")
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    await asyncio.wait_for(session.done.wait(), 5)


async def test_a_reader_closing_its_own_session_is_not_cancelled_later():
    app = make_app()
    conn = FakeConn()
    session = Session(app, conn)
    session.start()

    async def reader() -> object:
        conn.lines.put_nowait("quit")
        line = await session.readline()
        session.close("quit")  # from the reading task itself, not waiting on a read
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return line, await session.readline()

    assert await asyncio.wait_for(reader(), 5) == ("quit", None)
    await asyncio.wait_for(session.done.wait(), 5)


async def test_a_text_line_holding_a_lone_surrogate_is_refused_and_reads_as_nothing():
    """A telnet charset whose decoder makes lone surrogates (UTF-7 does) never gets one past the
    session: the person is told, and the line reads as an empty one (no command, no password)."""
    app = make_app(default_lang="en")
    conn = FakeConn()
    session = Session(app, conn)
    session.start()
    conn.lines.put_nowait("finger a\ud800")
    line = await asyncio.wait_for(session.readline(), 5)
    assert line == ""
    conn.lines.put_nowait("finger \U0001f0a1")  # a whole character outside the BMP is text
    assert await asyncio.wait_for(session.readline(), 5) == "finger \U0001f0a1"
    session.close("bye")
    await asyncio.wait_for(session.done.wait(), 5)
    out = "".join(conn.written)
    assert "cannot be read" in out and "\ud800" not in out


async def test_a_person_is_greeted_at_login_before_a_table_drawn_again_and_only_once():
    """After a restart the room draws the table (and the turn prompt) as soon as the login returns,
    before the session starts reading: the greeting must already be out, first."""
    app = make_app()
    conn = FakeConn()
    session = Session(app, conn)
    session.lang = "fr"
    session.start()
    session.logged("zoe", True)
    session.send_text("▶ À vous : jouez.")  # the table's prompt, drawn by the room
    session.send_raw(session.presenter.start())  # what run() sends first: nothing more now
    session.close("bye")
    await asyncio.wait_for(session.done.wait(), 5)
    out = "".join(conn.written)
    assert out.index("Bonjour zoe") < out.index("À vous") and out.count("Bonjour zoe") == 1


async def test_a_machine_session_is_not_greeted_in_words_at_login():
    app = make_app()
    conn = FakeConn()
    session = Session(app, conn, mode="json")
    session.start()
    session.logged("zoe", True)
    session.close("bye")
    await asyncio.wait_for(session.done.wait(), 5)
    assert "Bonjour" not in "".join(conn.written) and "Hello" not in "".join(conn.written)
