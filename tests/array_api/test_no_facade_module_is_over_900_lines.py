"""No module of the array API façade is over 900 lines (docs/architecture.md).

A module past that length holds more than one concern: split it by the concern, as
indexing and the dispatch step are split from the array object.
"""

from __future__ import annotations

from pathlib import Path

import stridewave.array_api

LIMIT = 900


def test_no_facade_module_is_over_900_lines() -> None:
    package = Path(stridewave.array_api.__file__).parent
    modules = sorted(package.rglob("*.py"))
    assert len(modules) > 10  # (the façade found, not an empty folder)
    lengths = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in modules}
    over = {name: n for name, n in lengths.items() if n > LIMIT}
    assert not over, f"façade modules over {LIMIT} lines: {over}; split them by concern"
