"""CPU of GMCP beside the text: a table's pushes to telnet players in text mode, with and without
their GMCP feed (``Session.push_states`` / ``shared_line``'s presenter part, docs/gmcp.md).

    python bench/bench_gmcp.py [--reps N] [--rules classic|tdc|speculation] [--langs fr,es,en] [--quick]

Plays one random match (``tests/server/messages/shared_games.py``: a real
:class:`server.table.Table` at four seats, four people, a spectator) and keeps everything the
table sent to many readers, in order: its shared events and its states. Then, alternating in
blocks of ``--reps``, each item is given anew to each recipient's text presenter (``off``), or to
its text presenter and its :class:`~server.presenters.gmcp.GmcpFeed` over a real
:class:`~server.transports.mud.GmcpLink` that frames the packages (``on``); the text and the
frames are encoded to bytes as the telnet writer would. Prints one JSON object: CPU microseconds
(``time.process_time``) per table step for ``off`` and ``on``, their ratio (the median of the
alternated blocks), and the bytes sent per step.

What it bounds: the server's CPU per action is this presenter part plus what GMCP does not change
(the engine, the table, reading commands, the event loop, the kernel's writes); so the server's
ratio on/off is at most this ratio (the bytes GMCP adds are written in the same writes as the
text). It is not the load tool's end-to-end figure (``donne load`` bots are JSON clients).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.messages.terminal import TermStyle
from server.presenters.gmcp import GmcpFeed
from server.presenters.text import TextPresenter
from server.protocol import Shared
from server.table import Send
from server.table.states import StateSet
from server.transports.mud import GMCP, GmcpLink
from tests.server.messages.shared_games import play


class Options:
    def enabled(self, option: bytes) -> bool:
        return option == GMCP


class Writer:
    """telnetlib3's writer as :class:`GmcpLink` uses it: GMCP on; the frames counted."""

    def __init__(self) -> None:
        self.local_option = Options()
        self.sent = 0

    def send_iac(self, data: bytes) -> None:
        self.sent += len(data)


class Viewer:
    """What a presenter and a feed read of their session (a stand-in for the Session)."""

    def __init__(self, lang: str, name: str) -> None:
        self.lang = lang
        self.name = name
        self.guest = False
        self.logged_in = True
        self.style = TermStyle(80, True, True)
        self.welcomed = True

    def send_raw(self, text: str) -> None:
        pass

    def where(self) -> tuple[Any, str]:
        return None, "room"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20, help="repetitions of the match per block")
    ap.add_argument("--blocks", type=int, default=6, help="alternated off/on blocks")
    ap.add_argument("--rules", default="classic", choices=("classic", "tdc", "speculation"))
    ap.add_argument("--langs", default="fr,es,en", help="comma-separated, dealt round the readers")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="2 repetitions, 2 blocks (a smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.reps, args.blocks = 2, 2

    h, _ = play(args.rules, args.seed, people=4, bots=0, spectator=True)
    sent = [item for item in h.items if isinstance(item, Send) and isinstance(item.msg, (Shared, StateSet))]
    keys = sorted({key for item in sent for key, _ in item.recipients})
    langs = args.langs.split(",")
    viewers = {key: Viewer(langs[i % len(langs)], key) for i, key in enumerate(keys)}
    writers = {key: Writer() for key in keys}

    def run(gmcp: bool) -> tuple[float, int]:
        """One pass over the match with fresh presenters (empty caches); CPU seconds, bytes."""
        text = {key: TextPresenter(viewers[key]) for key in keys}
        feeds = {key: GmcpFeed(viewers[key], GmcpLink(writers[key])) for key in keys} if gmcp else {}
        for w in writers.values():
            w.sent = 0
        out = 0
        t0 = time.process_time()
        for item in sent:
            msg = item.msg
            if isinstance(msg, Shared):
                shared = Shared(msg.event, msg.names, msg.source)
                for key, seat in item.recipients:
                    if gmcp:
                        feeds[key].shared(shared, seat)
                    out += len(text[key].shared(shared, seat).encode("utf-8"))
            else:
                for key, seat in item.recipients:
                    state = msg.state(seat)
                    out += len(text[key].state(state).encode("utf-8"))
                    if gmcp:
                        feeds[key].state(state)
        cpu = time.process_time() - t0
        return cpu, out + sum(w.sent for w in writers.values())

    ratios: list[float] = []
    off_cpu: list[float] = []
    on_cpu: list[float] = []

    async def measure() -> tuple[int, int]:
        """In an event loop, as in the server (the text presenter arms its countdowns)."""
        run(False), run(True)  # warm the caches of words that live across matches
        for _ in range(args.blocks):
            off = sum(run(False)[0] for _ in range(args.reps))
            on = sum(run(True)[0] for _ in range(args.reps))
            ratios.append(on / off)
            off_cpu.append(off)
            on_cpu.append(on)
        return run(False)[1], run(True)[1]

    bytes_off, bytes_on = asyncio.run(measure())
    per_step = 1e6 / (args.reps * h.calls)
    print(json.dumps({
        "rules": args.rules, "langs": langs, "readers": len(keys), "steps": h.calls, "items": len(sent),
        "reps": args.reps, "blocks": args.blocks,
        "us_per_step_off": round(statistics.median(off_cpu) * per_step, 2),
        "us_per_step_on": round(statistics.median(on_cpu) * per_step, 2),
        "ratio_on_off": round(statistics.median(ratios), 3),
        "ratios": [round(r, 3) for r in ratios],
        "bytes_per_step_off": round(bytes_off / h.calls, 1), "bytes_per_step_on": round(bytes_on / h.calls, 1),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
