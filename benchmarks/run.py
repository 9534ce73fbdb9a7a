"""Run every ``benchmarks/bench_*.py`` script in turn (``nox -s bench``).

Each script measures StrideWeave against the equivalent NumPy operation in the same
run and prints a table of times and ratios. Pass script names (``scatter``,
``evict``...) to run only those.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).resolve().parent
    scripts = sorted(here.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in argv]
    if not scripts:
        print("no benchmark scripts matched", argv, file=sys.stderr)
        return 1
    for script in scripts:
        print(f"== {script.name}", flush=True)
        saved, sys.argv = sys.argv, [str(script)]  # each script parses its own defaults
        try:
            runpy.run_path(str(script), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (None, 0):
                raise
        finally:
            sys.argv = saved
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
