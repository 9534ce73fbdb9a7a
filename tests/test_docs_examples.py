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
NEEDS: dict[str, str] = {"dask.md": "dask", "microscaling.md": "mlx.core"}


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


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_pages_pass_python_m_doctest_as_they_stand(page: Path) -> None:
    """The whole page, read as ``python -m doctest page.md`` reads it (no option flags).

    The closing fence of a block is prose to doctest: an output line directly above it
    would take the fence as part of the expected output, so each block's last output
    needs a blank line after it.
    """
    if page.name in NEEDS:
        pytest.importorskip(NEEDS[page.name], reason=f"{page.name} needs {NEEDS[page.name]}")
    failed, attempted = doctest.testfile(
        str(page), module_relative=False, report=False, verbose=False, optionflags=0
    )
    assert attempted > 0
    assert failed == 0, f"python -m doctest {page.name} fails; run it to see the examples"


def test_getting_started_gives_every_set_up_command_of_the_readme() -> None:
    bash = re.compile(r"^```bash\s*\n(.*?)^```", re.MULTILINE | re.DOTALL)
    readme = bash.findall((ROOT / "README.md").read_text())[:3]  # venv, install, tests
    guide = bash.findall((ROOT / "docs" / "getting-started.md").read_text())
    assert len(readme) == 3 and readme[0].startswith("python3 -m venv")
    for block in readme:
        assert block in guide, f"docs/getting-started.md lacks the README's {block.strip()!r}"
