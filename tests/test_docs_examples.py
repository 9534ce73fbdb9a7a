"""The ``>>>`` examples in ``docs/*.md`` and ``README.md`` run as doctests.

Each page's fenced ``python`` blocks run in order in one namespace, so a page reads
top to bottom like a session.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(?:python|pycon)\s*\n(.*?)^```", re.MULTILINE | re.DOTALL)
PAGES = [
    p
    for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    if any(">>>" in block for block in FENCE.findall(p.read_text()))
]


#: Pages whose examples need an optional dependency (an extra), by the module it gives.
NEEDS: dict[str, str] = {"dask.md": "dask"}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_doc_examples_run(page: Path) -> None:
    if page.name in NEEDS:
        pytest.importorskip(NEEDS[page.name], reason=f"{page.name} needs {NEEDS[page.name]}")
    blocks = [b for b in FENCE.findall(page.read_text()) if ">>>" in b]
    text = "\n".join(blocks)
    test = doctest.DocTestParser().get_doctest(text, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    out: list[str] = []
    runner.run(test, out=out.append)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, "".join(out)
