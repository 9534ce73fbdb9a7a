"""The notebooks run top to bottom on a real Jupyter kernel, and are stored without outputs."""

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
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_on_a_jupyter_kernel(path: Path, tmp_path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
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
