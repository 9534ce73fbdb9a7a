"""The notebooks are stored run, with their outputs and figures, and run again here.

``tools/run_notebooks.py`` runs them and stores the outputs. This test checks the stored
copies were run top to bottom without errors and hold their figures, then runs each
notebook again on a copy with the outputs cleared, comparing with nothing stored: the
measured figures in the stored outputs (memory) can differ from run to run without
making the test flaky, and cannot hide a notebook that no longer runs. Dates, timings
and machine paths are kept out of them altogether
(``test_stored_notebooks_hold_no_dates_timings_or_machine_paths.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    names = {p.name for p in NOTEBOOKS}
    assert {"quickstart.ipynb", "eviction.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_run_with_its_outputs_and_figures(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), (
        f"{path.name} is not stored as run top to bottom: run tools/run_notebooks.py"
    )
    outputs = [out for cell in code for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"], path.name
    figures = [out for out in outputs if "image/png" in out.get("data", {})]
    assert figures, f"{path.name} stores no figure"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_on_a_jupyter_kernel(path: Path, tmp_path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # run from a clean slate: nothing stored can hide a failure
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    env_backup = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "Agg"
    try:
        client = nbclient.NotebookClient(
            nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
        )
        client.execute()
    finally:
        if env_backup is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = env_backup
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert errors == []
