"""CPU of a table event's words and line for its readers (``Session.push_shared``'s presenter part).

    python bench/bench_words.py [--reps N] [--rules classic] [--mode json|text] [--langs en] [--quick]

Plays one random match (``tests/server/messages/shared_games.py``: a real
:class:`server.table.Table` at four seats, the people of the load: four, no bot,
no spectator unless asked) and keeps every event the table pushed to many readers
with its recipients. Then, ``--reps`` times, each of those events is made anew
(an empty cache) and given to each recipient's presenter the way
``Session.shared_line`` does (``presenter.shared(shared, seat)``), one presenter
per recipient (``--langs``: the languages dealt round the readers). Prints one
JSON object: CPU microseconds (``time.process_time``) per table step (one call
of the table: a command or a tick), per event, per reader's line, and how many
sentences were worded per event.

Deterministic enough to compare two commits: same match, same readers; run it
with ``PYTHONHASHSEED=0`` under ``valgrind --tool=cachegrind --cache-sim=no`` at
``--reps N`` and ``--reps 2N`` and take the difference for instructions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.messages import events as events_mod
from server.messages.terminal import PLAIN, TermStyle
from server.presenters.json import JsonPresenter
from server.presenters.text import TextPresenter
from server.protocol import Shared
from tests.server.messages.shared_games import play


class Viewer:
    """What a presenter reads of its session (a stand-in for :class:`server.sessions.session.Session`)."""

    def __init__(self, lang: str, style: TermStyle = PLAIN) -> None:
        self.lang = lang
        self.name = "bench"
        self.guest = False
        self.logged_in = True
        self.style = style
        self.welcomed = True

    def send_raw(self, text: str) -> None:
        pass

    def where(self) -> tuple[Any, str]:
        return None, "room"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--rules", default="classic", choices=("classic", "tdc", "speculation"))
    ap.add_argument("--mode", default="json", choices=("json", "text"))
    ap.add_argument("--langs", default="en", help="comma-separated, dealt round the readers")
    ap.add_argument("--people", type=int, default=4)
    ap.add_argument("--spectator", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="20 repetitions (a smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.reps = 20

    h, pushed = play(args.rules, args.seed, people=args.people, bots=4 - args.people, spectator=args.spectator)
    langs = args.langs.split(",")
    keys = sorted({key for _, readers in pushed for key, _ in readers})
    make = JsonPresenter if args.mode == "json" else TextPresenter
    presenters = {key: make(Viewer(langs[i % len(langs)])) for i, key in enumerate(keys)}  # type: ignore[abstract]
    work = [(shared.event, shared.names, shared.source, [(presenters[k], seat) for k, seat in readers])
            for shared, readers in pushed]
    lines = sum(len(r) for *_, r in work)

    worded = 0
    real = events_mod.event_text

    def counting(*a: Any, **k: Any) -> str:
        nonlocal worded
        worded += 1
        return real(*a, **k)

    import server.presenters.json as json_mod
    import server.presenters.text as text_mod
    import server.presenters.text.news as news_mod
    for mod in (json_mod, text_mod, news_mod):
        mod.event_text = counting  # type: ignore[attr-defined]
    for event, names, source, readers in work:
        shared = Shared(event, names, source)
        for presenter, seat in readers:
            presenter.shared(shared, seat)
    for mod in (json_mod, text_mod, news_mod):
        mod.event_text = real  # type: ignore[attr-defined]

    t0 = time.process_time()
    for _ in range(args.reps):
        for event, names, source, readers in work:
            shared = Shared(event, names, source)
            for presenter, seat in readers:
                presenter.shared(shared, seat)
    cpu = time.process_time() - t0
    total = cpu / args.reps * 1e6
    print(json.dumps({
        "rules": args.rules, "mode": args.mode, "langs": langs, "reps": args.reps, "steps": h.calls,
        "events": len(work), "lines": lines, "worded_per_event": round(worded / len(work), 3),
        "us_per_step": round(total / h.calls, 3), "us_per_event": round(total / len(work), 3),
        "us_per_line": round(total / lines, 3), "cpu_s": round(cpu, 3),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
