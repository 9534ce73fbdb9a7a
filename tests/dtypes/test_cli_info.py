"""``python -m stridewave info`` prints the registered dtypes as a table."""

from __future__ import annotations

import subprocess
import sys

from .conftest import BUILTINS


def test_info_prints_the_dtype_table() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "stridewave", "info"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    header = next(
        i for i, line in enumerate(lines) if line.split() == ["name", "kind", "bits", "supertypes"]
    )
    rows = {line.split()[0]: line for line in lines[header + 1 : header + 1 + len(BUILTINS)]}
    assert set(rows) == set(BUILTINS)
    assert rows["Float32"].split(None, 3) == ["Float32", "simple", "32", "Floating > Any"]
    assert rows["E2M1"].split(None, 3) == ["E2M1", "simple", "4", "Floating > Any"]
    assert rows["Int8"].split(None, 3) == ["Int8", "simple", "8", "Integer > Any"]
    assert rows["Floating"].split() == ["Floating", "category", "-", "Any"]
    assert rows["Any"].split() == ["Any", "category", "-", "-"]
    # Aligned: every row's kind column starts at the same offset.
    starts = {line.index(line.split()[1], len(line.split()[0])) for line in rows.values()}
    assert len(starts) == 1
