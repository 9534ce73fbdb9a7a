"""The client matrix is deselected unless asked for: ``pytest -m clients tests/clients``.

It installs nothing and needs the client packages (``pip install -e ".[clients]"`` or
``nox -s clients``); it takes minutes, one fresh interpreter per client and target.
"""

from __future__ import annotations

from typing import Any


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    if "clients" in (config.getoption("markexpr") or ""):
        return
    chosen = [item for item in items if "clients" not in item.keywords]
    if len(chosen) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if "clients" in i.keywords])
        items[:] = chosen
