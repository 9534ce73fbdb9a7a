"""The client matrix is deselected unless asked for: ``pytest -m clients tests/clients``.

It installs nothing and needs the client packages (``pip install -e ".[clients]"`` or
``nox -s clients``); it takes minutes, one fresh interpreter per client and target.
Only the tests marked ``clients`` are deselected (by the marker, not by this folder's
name, which every test here has among its keywords): the sample of the consumers' own
suites runs by default.
"""

from __future__ import annotations

from typing import Any


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    if "clients" in (config.getoption("markexpr") or ""):
        return
    marked = [item for item in items if item.get_closest_marker("clients") is not None]
    chosen = [item for item in items if item.get_closest_marker("clients") is None]
    if marked:
        config.hook.pytest_deselected(items=marked)
        items[:] = chosen
