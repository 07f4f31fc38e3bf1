"""Run every bench script (``bench/bench_*.py``) one after the other; print their JSON lines.

    python bench/run_all.py [--quick] [--only load,idle] [--out FILE]

Each script runs in its own process (the machine's two cores are shared, so
never two at once) and prints one JSON object; this collects them, one per
line, on stdout and in ``--out`` when given. ``--quick`` is passed to the
scripts that know it (a smoke run of a few seconds each).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", help="comma-separated names (bench_NAME.py)")
    p.add_argument("--out")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds per script")
    args = p.parse_args(argv)
    scripts = sorted(BENCH.glob("bench_*.py"))
    if args.only:
        wanted = {f"bench_{n.strip()}.py" for n in args.only.split(",")}
        scripts = [s for s in scripts if s.name in wanted]
    failed = 0
    lines = []
    for script in scripts:
        help_text = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True,
                                   cwd=BENCH.parent, timeout=120).stdout
        cmd = [sys.executable, str(script)]
        if args.quick and "--quick" in help_text:
            cmd.append("--quick")
        t0 = time.perf_counter()
        print(f"# {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=BENCH.parent, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            failed += 1
            lines.append(json.dumps({"bench": script.stem, "error": "timeout"}))
            continue
        out = proc.stdout.strip().splitlines()
        if proc.returncode != 0 or not out:
            failed += 1
            lines.append(json.dumps({"bench": script.stem, "error": proc.stderr.strip()[-2000:],
                                     "returncode": proc.returncode}))
        else:
            lines.append(out[-1])
        print(f"# {script.name}: {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)
        print(lines[-1], flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
