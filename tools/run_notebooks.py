"""Run the notebooks top to bottom and store them with their outputs (figures included).

Run after changing a notebook, then commit the result::

    .venv/bin/python tools/run_notebooks.py            # every notebooks/*.ipynb
    .venv/bin/python tools/run_notebooks.py eviction    # or some of them

Each notebook runs on a fresh ``python3`` Jupyter kernel with ``notebooks/`` as its
working directory, with matplotlib's inline backend, so figures are stored as PNG
outputs. ``tests/test_notebooks.py`` runs them again on every test run (on a copy,
compared with nothing stored, so volatile outputs such as memory figures cannot make
it flaky). Stored outputs hold no dates, timings or machine paths (the notebooks print
stable text, and no execution timestamps are recorded), which
``tests/test_stored_notebooks_hold_no_dates_timings_or_machine_paths.py`` checks.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]


def main(names: list[str]) -> int:
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if names:
        paths = [p for p in paths if p.stem in names]
    env_backend = os.environ.pop("MPLBACKEND", None)  # inline figures, not Agg
    try:
        for path in paths:
            nb = nbformat.read(path, as_version=4)
            for cell in nb.cells:  # timings an older run stored
                cell.metadata.pop("execution", None)
            client = nbclient.NotebookClient(
                nb, timeout=600, kernel_name="python3", record_timing=False,
                resources={"metadata": {"path": str(path.parent)}},
            )  # fmt: skip
            client.execute()
            nbformat.write(nb, path)
            print(f"ran and stored {path.relative_to(ROOT)}")
    finally:
        if env_backend is not None:
            os.environ["MPLBACKEND"] = env_backend
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
