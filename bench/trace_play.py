"""The path of one ``play``: which project files a command crosses, typed over telnet and sent as JSON.

    .venv/bin/python bench/trace_play.py                 # this checkout
    .venv/bin/python bench/trace_play.py --root ../other  # another checkout of donne (before/after)

It starts that checkout's ``donne serve`` in a subprocess (free loopback ports, a temporary data
folder) under a small wrapper that turns :func:`sys.setprofile` on at SIGUSR1 and off at SIGUSR2.
Three guests sit at a 3-seat classic table with no bot: two in JSON mode, one typing English words
over a plain telnet socket. The holder of ``3c`` leads the first round (RULES P4); the tool makes
tables until the telnet guest holds it, then traces his ``play 3c`` line, and on a second table
the JSON holder's ``{"cmd": "play", "cards": ["3c"]}``. Each trace runs from the moment the line
is sent until every player has received the state that follows and the server has been quiet for
a moment: the way in, the engine, and the way back out to every seat.

It prints, per trace, the project files in the order the command first entered them, how many
function calls each took, and the number of calls that crossed from one project file to another
(the hops). Nothing in the server is changed or imported: only its command line and its ports.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WRAPPER = r"""
import json, os, signal, sys
ROOT = os.path.realpath(sys.argv.pop(1))
OUT = sys.argv.pop(1)
sys.path.insert(0, ROOT)
MINE = (os.path.join(ROOT, "server") + os.sep, os.path.join(ROOT, "engine") + os.sep)
calls = []

def profile(frame, event, arg):
    if event != "call":
        return
    name = frame.f_code.co_filename
    if not name.startswith(MINE):
        return
    caller = frame.f_back
    while caller is not None and not caller.f_code.co_filename.startswith(MINE):
        caller = caller.f_back
    calls.append((os.path.relpath(name, ROOT), None if caller is None
                  else os.path.relpath(caller.f_code.co_filename, ROOT)))

def start(signum, frame):
    calls.clear()
    sys.setprofile(profile)

def stop(signum, frame):
    sys.setprofile(None)
    with open(OUT, "w") as f:
        json.dump(calls, f)

signal.signal(signal.SIGUSR1, start)
signal.signal(signal.SIGUSR2, stop)
try:
    from server.start.cli import main
except ImportError:  # a checkout from before server/ was grouped by concept
    from server.cli import main
sys.exit(main())
"""

CONFIG = """\
[server]
host = "127.0.0.1"
ssh_port = {ssh}
telnet_port = {telnet}
web_port = 0
data_dir = {data}
log_level = "WARNING"

[limits]
max_connections_per_address = 1000
max_rooms = 1000
idle_timeout = 3600

[timers]
turn_seconds = 600
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Line:
    """A plain TCP socket read line by line (telnet negotiation bytes are dropped, never answered)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def send(self, text: str) -> None:
        self.sock.sendall(text.encode() + b"\r\n")

    def read_until(self, want: str, timeout: float = 10.0) -> str:
        end = time.monotonic() + timeout
        while want.encode() not in self.buf:
            self.sock.settimeout(max(0.01, end - time.monotonic()))
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                raise TimeoutError(f"no {want!r} in {self.buf[-300:]!r}") from None
            if not data:
                raise ConnectionError("closed")
            self.buf += bytes(b for b in data if b < 0xF0 or b == 0)  # crude: drop IAC-range bytes
        text, _, self.buf = self.buf.partition(want.encode())
        return text.decode(errors="replace")

    def drain(self, quiet: float = 0.3) -> bytes:
        got = b""
        self.sock.settimeout(quiet)
        while True:
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                return got
            if not data:
                return got
            got += data

    def close(self) -> None:
        self.sock.close()


class Json(Line):
    """A JSON-mode guest: every message one JSON line."""

    def __init__(self, port: int, name: str) -> None:
        super().__init__(port)
        self.send("json")
        self.pending: list[dict[str, Any]] = []
        self.request({"cmd": "login", "name": name})
        self.request({"cmd": "lang", "lang": "en"})

    def message(self, timeout: float = 10.0) -> dict[str, Any]:
        if self.pending:
            return self.pending.pop(0)
        return self.read(timeout)

    def read(self, timeout: float = 10.0) -> dict[str, Any]:
        while True:
            line = self.read_until("\n", timeout).strip()
            if line.startswith("{"):
                return dict(json.loads(line))

    def request(self, req: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps(req))
        while True:
            msg = self.read()
            if msg.get("type") in ("ok", "error"):
                return msg
            self.pending.append(msg)

    def state(self, timeout: float = 10.0) -> dict[str, Any]:
        while True:
            msg = self.message(timeout)
            if msg.get("type") == "state" and msg.get("hand"):
                return msg


def table(port: int, n: int) -> tuple[Line, Json, Json, dict[str, Any], dict[str, Any]]:
    """A 3-seat classic table with a telnet guest and two JSON guests, dealt: (text, a, b, sa, sb)."""
    a = Json(port, f"jA{n}")
    reply = a.request({"cmd": "create", "game": "president", "rules": "classic", "seats": 3, "bots": 0})
    room = reply.get("room")
    if room is None:
        raise RuntimeError(f"create refused: {reply}")
    text = Line(port)
    for line in ("1", f"tT{n}", "lang en", f"join {room}"):  # language menu, name, then English words
        text.drain(0.5)
        text.send(line)
    text.drain(0.5)
    b = Json(port, f"jB{n}")
    b.request({"cmd": "join", "room": room})
    return text, a, b, a.state(), b.state()


def trace(pid: int, out: Path, mover: Line, line: str, readers: list[Json], text: Line) -> list[tuple[str, str | None]]:
    """The calls the server makes from ``line`` sent by ``mover`` until every reader has his next state."""
    os.kill(pid, signal.SIGUSR1)
    time.sleep(0.2)
    mover.send(line)
    for reader in readers:
        reader.state()
    text.drain()
    time.sleep(0.3)
    os.kill(pid, signal.SIGUSR2)
    for _ in range(100):
        if out.exists() and out.stat().st_size:
            break
        time.sleep(0.05)
    calls = [tuple(c) for c in json.loads(out.read_text())]
    out.unlink()
    return calls  # type: ignore[return-value]


def report(title: str, calls: list[tuple[str, str | None]]) -> dict[str, Any]:
    order: list[str] = []
    counts: dict[str, int] = {}
    for name, _ in calls:
        if name not in counts:
            order.append(name)
            counts[name] = 0
        counts[name] += 1
    hops = sum(1 for name, caller in calls if caller is not None and caller != name)
    print(f"\n{title}: {len(order)} files, {len(calls)} calls, {hops} hops between files")
    for name in order:
        print(f"  {counts[name]:6d}  {name}")
    return {"files": order, "calls": len(calls), "hops": hops}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="a checkout of donne")
    ap.add_argument("--python", default=None, help="its interpreter (default: ROOT/.venv/bin/python)")
    ap.add_argument("--out", default=None, help="also write the figures as JSON to this file")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    python = args.python or str(root / ".venv" / "bin" / "python")
    with tempfile.TemporaryDirectory() as tmp:
        telnet, ssh = free_port(), free_port()
        conf = Path(tmp) / "donne.toml"
        conf.write_text(CONFIG.format(ssh=ssh, telnet=telnet, data=json.dumps(str(Path(tmp) / "data"))))
        out = Path(tmp) / "calls.json"
        wrapper = Path(tmp) / "wrapper.py"
        wrapper.write_text(WRAPPER)
        proc = subprocess.Popen([python, str(wrapper), str(root), str(out), "serve", "--config", str(conf)],
                                cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            for _ in range(200):
                try:
                    socket.create_connection(("127.0.0.1", telnet), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            figures: dict[str, Any] = {}
            n = 0
            opened: list[Line] = []
            while "telnet" not in figures or "json" not in figures:
                n += 1
                text, a, b, sa, sb = table(telnet, n)
                holder = a if "3c" in sa["hand"] else b if "3c" in sb["hand"] else None
                if holder is None and "telnet" not in figures:
                    calls = trace(proc.pid, out, text, "play 3c", [a, b], text)
                    figures["telnet"] = report("telnet `play 3c` (text)", calls)
                elif holder is not None and "json" not in figures:
                    other = b if holder is a else a
                    play = json.dumps({"cmd": "play", "cards": ["3c"]})
                    calls = trace(proc.pid, out, holder, play, [holder, other], text)
                    figures["json"] = report('JSON {"cmd": "play", "cards": ["3c"]}', calls)
                opened += (text, a, b)  # kept open: a table left behind would wake up during the next trace
            if args.out:
                Path(args.out).write_text(json.dumps(figures, indent=1))
            for c in opened:
                c.close()
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
