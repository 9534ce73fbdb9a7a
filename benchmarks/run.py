"""Run every benchmark script in this folder (``nox -s bench``); arguments are forwarded."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_scatter

if __name__ == "__main__":
    bench_scatter.main(sys.argv[1:])
