"""The ``donne`` command: ``serve``, ``simulate``, ``bot``, ``load``, ``audit``, ``migrate``, ``export``,
``admin``, ``backup``.

Each sub-command lives in its own module, imported only when used, so that
``donne simulate`` never loads the network stack.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# sub-command -> (module with add_arguments(parser) and run(args) -> int, help)
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("server.start.app", "Start the SSH and telnet servers."),
    "simulate": ("server.start.simulate", "Play matches between engine bots in-process; print JSON figures."),
    "bot": ("clients.wirebot", "Play over the wire with engine strategies."),
    "load": ("clients.loadcli", "Load generator: many wire bots against a server; print JSON figures."),
    "audit": ("server.storage.cli", "Check the chip ledger of a data folder (balances + escrow = granted - retired)."),
    "migrate": ("server.storage.migrate", "Copy a community to another store (SQLite, PostgreSQL); prove no chip was lost."),
    "export": ("server.start.export", "Write rounds as self-contained JSON records the engine replays byte for byte."),
    "admin": ("server.start.admin", "The operator's account actions (roles, bans, locks, chips...), server running or not."),
    "backup": ("server.storage.backup", "A consistent copy of the SQLite database, even while the server runs."),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="donne", description="donne card-table server")
    sub = parser.add_subparsers(dest="command", required=True)
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = [argv[0]] if argv and argv[0] in COMMANDS else list(COMMANDS)
    modules = {}
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name in chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(p)
            modules[name] = module
    args = parser.parse_args(argv)
    try:
        result = modules[args.command].run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (``donne audit | head``): no traceback, and no second error when
        # Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return int(result or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
