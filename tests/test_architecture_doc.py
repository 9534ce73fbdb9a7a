"""docs/architecture.md draws the layer contracts of pyproject.toml, no more, no less."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

# tomllib is in the standard library from Python 3.11 (tomli before it, if installed)
tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")

ROOT = Path(__file__).resolve().parents[1]


def _layer_contracts() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    return {
        c["id"]: [layer.replace("(", "").replace(")", "") for layer in c["layers"]]
        for c in contracts
        if c["type"] == "layers"
    }


def _diagram_layers() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "architecture.md").read_text()
    blocks = re.findall(r"^```mermaid\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, "architecture.md has one diagram"
    drawn: dict[str, list[str]] = {}
    for title, body in re.findall(
        r'subgraph \w+\["[^"]*\(contract: ([\w-]+)\)"\]\n(.*?)\n\s*end', blocks[0], re.DOTALL
    ):
        drawn[title] = re.findall(r'\w+\["([^"]+)"\]', body)
    return drawn


def test_every_layer_contract_is_drawn_as_it_is_written() -> None:
    assert _diagram_layers() == _layer_contracts()


def test_every_contract_is_named_on_the_page() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    text = (ROOT / "docs" / "architecture.md").read_text()
    for contract in config["tool"]["importlinter"]["contracts"]:
        assert f"`{contract['id']}`" in text or f"contract: {contract['id']})" in text
