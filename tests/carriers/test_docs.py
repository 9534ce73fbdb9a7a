"""Execute the ``pycon`` examples of docs/carriers.md."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "carriers.md"


def test_carrier_docs_examples_run() -> None:
    text = DOC.read_text()
    blocks = re.findall(r"```pycon\n(.*?)```", text, flags=re.DOTALL)
    assert blocks
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    test = parser.get_doctest("\n".join(blocks), {}, "carriers.md", str(DOC), 0)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doc examples failed"
    assert result.attempted > 10
