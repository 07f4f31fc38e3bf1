"""Bare echo servers, the baselines donne is measured against (run in a subprocess by the benches).

    python bench/echo_servers.py asyncio|telnet|ssh [--port 0] [--ready-file F] [--data-dir D]

Each echoes every line it receives, as it is, to the same connection:

* ``asyncio``: ``asyncio.start_server`` + ``readline`` — the floor of Python line I/O;
* ``telnet``: ``telnetlib3.create_server`` with the settings donne's telnet
  transport uses (``force_binary``, ``encoding_errors="replace"``, ``timeout=0``,
  short ``connect_maxwait``), reading with ``reader.read`` and cutting lines itself;
* ``ssh``: ``asyncssh.create_server`` without authentication (``begin_auth``
  returns False), an exec/shell channel that echoes stdin lines; ed25519 host key.

When listening it writes ``{"port": N, "pid": P}`` to the ready file (or stdout)
and runs until SIGTERM/SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any


async def serve_asyncio(port: int) -> Any:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                writer.write(line)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)


async def serve_telnet(port: int) -> Any:
    import telnetlib3

    async def shell(reader: Any, writer: Any) -> None:
        buf = ""
        try:
            while True:
                data = await reader.read(4096)
                if not data:
                    break
                buf += data
                if "\n" in buf:
                    *lines, buf = buf.split("\n")
                    writer.write("".join(line.rstrip("\r") + "\r\n" for line in lines))
                    await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    return await telnetlib3.create_server(
        host="127.0.0.1", port=port, shell=shell, encoding="utf8", encoding_errors="replace",
        force_binary=True, connect_maxwait=0.4, timeout=0,
    )


async def serve_ssh(port: int, data_dir: Path) -> Any:
    import asyncssh

    key_path = data_dir / "echo_host_ed25519_key"
    if not key_path.exists():
        asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(key_path))
        os.chmod(key_path, 0o600)

    class NoAuth(asyncssh.SSHServer):
        def begin_auth(self, username: str) -> bool:
            return False

    async def handle(process: Any) -> None:
        try:
            while True:
                line = await process.stdin.readline()
                if not line:
                    break
                process.stdout.write(line)
                await process.stdout.drain()
        except (asyncssh.Error, ConnectionError, asyncssh.TerminalSizeChanged):
            pass
        finally:
            process.exit(0)

    return await asyncssh.create_server(
        NoAuth, "127.0.0.1", port, server_host_keys=[str(key_path)], process_factory=handle,
        encoding="utf-8", errors="replace", keepalive_interval=30, keepalive_count_max=3,
        line_editor=False,
    )


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["asyncio", "telnet", "ssh"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ready-file")
    parser.add_argument("--data-dir", default=".")
    args = parser.parse_args(argv)
    if args.kind == "asyncio":
        server = await serve_asyncio(args.port)
    elif args.kind == "telnet":
        server = await serve_telnet(args.port)
    else:
        server = await serve_ssh(args.port, Path(args.data_dir))
    port = server.sockets[0].getsockname()[1]
    ready = json.dumps({"port": port, "pid": os.getpid()})
    if args.ready_file:
        tmp = Path(args.ready_file + ".tmp")
        tmp.write_text(ready)
        tmp.replace(args.ready_file)
    else:
        print(ready, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(server.wait_closed(), 3)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
