"""The notebooks' stored outputs are stable text: no dates, timings or machine paths.

``tools/run_notebooks.py`` stores the notebooks run; what they print must not depend on
when or on which machine they ran (a session directory under ``/tmp``, a home
directory, nbclient's execution timestamps), so a re-run changes only what it measures.
Figures (base64 PNG) are left out: their bytes can spell anything.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: Paths that belong to one machine: temporary and home directories, on any system.
MACHINE_PATHS = re.compile(
    r"(?<![\w.])(/tmp|/var/tmp|/var/folders|/private/var|/home|/root|/Users)(/|\b)"
    r"|[A-Za-z]:\\\\?(Users|Temp)\b"
)
#: An ISO date, a clock time, or a duration with a time unit.
DATES_AND_TIMINGS = re.compile(
    r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)|(?<!\d)\d{1,2}:\d{2}:\d{2}(?!\d)"
    r"|(?<![\w.])\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|seconds|minutes?)\b"
)


def _stored_texts(path: Path) -> Iterator[tuple[str, str]]:
    """(where, text) for every stored output and every code cell's metadata."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for number, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        yield f"cell {number} metadata", json.dumps(cell.get("metadata", {}))
        for output in cell.get("outputs", []):
            if "text" in output:
                yield f"cell {number} {output.get('name', 'stream')}", "".join(output["text"])
            for mime, data in output.get("data", {}).items():
                if mime.startswith("text/") or mime.endswith("json"):
                    text = data if isinstance(data, str) else "".join(data)
                    yield f"cell {number} {mime}", text


def _this_machines_paths() -> list[str]:
    places = {os.path.expanduser("~"), tempfile.gettempdir(), str(ROOT)}
    return sorted(p for p in places if len(p) > 1)


def test_there_are_stored_outputs_to_check() -> None:
    assert NOTEBOOKS
    assert all(any("stdout" in where for where, _text in _stored_texts(path)) for path in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_outputs_hold_no_machine_paths(path: Path) -> None:
    found = [
        (where, match.group(0))
        for where, text in _stored_texts(path)
        for match in MACHINE_PATHS.finditer(text)
    ] + [
        (where, place)
        for where, text in _stored_texts(path)
        for place in _this_machines_paths()
        if place in text
    ]
    assert not found, f"{path.name} stores machine paths {found}: print stable text instead"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_outputs_hold_no_dates_or_timings(path: Path) -> None:
    found = [
        (where, match.group(0))
        for where, text in _stored_texts(path)
        for match in DATES_AND_TIMINGS.finditer(text)
    ]
    assert not found, (
        f"{path.name} stores dates or timings {found}: print stable text, and store it "
        f"with tools/run_notebooks.py (which records no execution timestamps)"
    )
