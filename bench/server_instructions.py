"""Instructions per action of a checkout's whole server, counted by cachegrind: the machine's noise does not count.

    .venv/bin/python bench/server_instructions.py                       # this checkout
    .venv/bin/python bench/server_instructions.py --root ../before      # another checkout (same Python)

The checkout's ``donne serve`` runs under ``valgrind --tool=cachegrind --cache-sim=no`` (durable
tables, the load settings of ``donne load``) and this checkout's ``donne load`` plays it: wire bots
at classic tables, thinking ``--think`` seconds, so many that the server (about 40 times slower
under valgrind) is always busy. Two runs, ``--short`` and ``--long`` seconds of play; the server's
instructions (every thread) differ by the second run's extra actions: their quotient is the
instructions per action, start-up and seating cancelled out. It moves by a few percent from run to
run with the mix of deals, plays and new matches; compare checkouts by a difference of more.
Needs valgrind; takes a few minutes. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from clients.load import LoadOptions, run_load

THIS = Path(__file__).resolve().parent.parent

# Runs in the checkout measured (its own ServerProcess, under valgrind): prints its telnet port and
# pid, waits for its standard input to close, stops the server (valgrind then writes its counts).
STARTER = """
import asyncio, json, os, sys
sys.path.insert(0, os.getcwd())
from clients.serverproc import ServerProcess
out = sys.argv[1]
class Counted(ServerProcess):
    def command(self, config, ready):
        return ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + out,
                *super().command(config, ready)]
async def main():
    srv = Counted(startup_timeout=600)
    await srv.start()
    try:
        print(json.dumps({"port": srv.telnet_port, "pid": srv.pid}), flush=True)
        await asyncio.to_thread(sys.stdin.read)
    finally:
        await srv.stop(timeout=600)
asyncio.run(main())
"""


def instructions(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise SystemExit(f"{path}: no summary line")


async def one_run(root: Path, seconds: float, args: argparse.Namespace, out: Path) -> tuple[int, int]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", STARTER, str(out), cwd=root, env=env,
                                                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        line = await asyncio.wait_for(proc.stdout.readline(), 600)
        if not line:
            raise SystemExit(f"{root}: its server did not start")
        info = json.loads(line)
        result = await run_load(LoadOptions(clients=args.clients, tables=args.clients // 4, duration=seconds,
                                            think=args.think, port=int(info["port"]), server_pid=int(info["pid"])))
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 900)
    if result.get("errors"):
        raise SystemExit(f"errors during the run: {result.get('codes')}")
    return instructions(out), int(result["actions"])


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", type=Path, default=THIS, help="the checkout whose server is measured")
    p.add_argument("--clients", type=int, default=40, help="wire bots (4 a table)")
    p.add_argument("--think", type=float, default=0.05)
    p.add_argument("--short", type=float, default=10.0, help="seconds of play of the first run")
    p.add_argument("--long", type=float, default=70.0, help="seconds of play of the second run")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    root = args.root.resolve()
    with tempfile.TemporaryDirectory(prefix="donne-instr-") as tmp:
        short = await one_run(root, args.short, args, Path(tmp) / "short.out")
        long = await one_run(root, args.long, args, Path(tmp) / "long.out")
    if long[1] <= short[1]:
        raise SystemExit("the long run made no more actions than the short one")
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    return {"bench": "server_instructions", "root": root.name, "commit": commit,
            "runs": {"short": {"instructions": short[0], "actions": short[1]},
                     "long": {"instructions": long[0], "actions": long[1]}},
            "instructions_per_action": round((long[0] - short[0]) / (long[1] - short[1]))}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
