"""Every client case that passes on ``array_api_strict`` passes on ``stridewave.array_api``,
on the CPU device and on Metal (MLX's CPU device where no GPU is present).

Run with ``pytest -m clients tests/clients`` (deselected otherwise) or ``nox -s clients``;
``STRIDEWAVE_CLIENT_CASES`` adds case files (the cases kept back from the repository).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def _load_runner() -> Any:
    spec = importlib.util.spec_from_file_location(
        "run_clients", Path(__file__).resolve().parent / "run_clients.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_clients"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


run_clients = _load_runner()

pytestmark = pytest.mark.clients

CLIENTS = list(run_clients.CLIENT_MODULES)


@pytest.fixture(scope="module")
def strict_results() -> Callable[[str], dict[str, tuple[str, str]]]:
    """The reference: a client's cases on ``array_api_strict``, run once per client."""
    pytest.importorskip("array_api_strict")
    cache: dict[str, dict[str, tuple[str, str]]] = {}

    def results(client: str) -> dict[str, tuple[str, str]]:
        if client not in cache:
            files = run_clients.case_files([])
            matrix = run_clients.run_matrix([client], ["strict"], files)[client]
            cache[client] = {n: r["strict"] for n, r in matrix.items()}
        return cache[client]

    return results


@pytest.mark.parametrize("target", ["sw-cpu", "sw-metal"])
@pytest.mark.parametrize("client", CLIENTS)
def test_client_passes_what_strict_passes(
    client: str, target: str, strict_results: Callable[[str], dict[str, tuple[str, str]]]
) -> None:
    missing = run_clients.missing_modules(client)
    if missing:
        pytest.skip(f"{client} needs {missing}: pip install -e '.[clients]'")
    if target == "sw-metal" and importlib.util.find_spec("mlx") is None:
        pytest.skip("Metal needs mlx: pip install -e '.[mlx]'")
    files = run_clients.case_files([])
    ours = run_clients.run_matrix([client], [target], files)[client]
    reference = strict_results(client)
    passing = [n for n, r in reference.items() if r[0] == run_clients.PASS]
    assert passing, f"no {client} case passes on array_api_strict: the harness is broken"
    lost = {n: ours[n][target][1] for n in passing if ours[n][target][0] != run_clients.PASS}
    listing = "\n".join(f"  {n}: {why}" for n, why in lost.items())
    assert not lost, (
        f"{len(lost)} of the {len(passing)} {client} cases that pass on array_api_strict "
        f"fail on stridewave.array_api ({target}):\n{listing}"
    )
