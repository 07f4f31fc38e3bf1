"""``donne load``: its command line (:func:`clients.load.add_arguments`) and its run, with the
JSON wire bots (:mod:`clients.load`) or the text players over telnet, with GMCP or without
(``--gmcp``, ``--text``: :mod:`clients.gmcpload`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from clients.gmcpload import run_gmcp_load
from clients.load import WorkerFailed, add_arguments, options, run_load
from clients.serverproc import ServerFailed

__all__ = ["add_arguments", "run"]


def run(args: argparse.Namespace) -> int:
    opts = options(args)
    if getattr(args, "gmcp", False) or getattr(args, "text", False):
        print(json.dumps(asyncio.run(run_gmcp_load(opts, gmcp=bool(args.gmcp)))))
        return 0
    try:
        result = asyncio.run(run_load(opts))
    except (WorkerFailed, ServerFailed) as exc:
        print(f"donne load: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0
