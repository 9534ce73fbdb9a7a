"""StrideWeave's pytest plugin (entry point ``stridewave`` in group ``pytest11``).

It declares the ``needs_mlx`` marker (which the Metal kinds of
:data:`stridewave.testing.BUILTIN_KINDS` carry, so that ``--strict-markers`` accepts
them) and adds one line on the Metal runtime to the session header. It imports
nothing of StrideWeave until pytest calls it, and defines no fixture: the contract
suite's fixtures live in its base classes. Where plugin autoloading is off, load it
with ``pytest_plugins = ["stridewave.testing.plugin"]`` in a ``conftest.py``.
"""

from __future__ import annotations

import pytest

__all__ = ["pytest_configure", "pytest_report_header"]


def pytest_configure(config: pytest.Config) -> None:
    """Declare the ``needs_mlx`` marker.

    Parameters
    ----------
    config : pytest.Config
        The session's configuration.
    """
    config.addinivalue_line(
        "markers",
        "needs_mlx: needs the mlx package (runs the Metal carrier on MLX's CPU device in CI)",
    )


def pytest_report_header(config: pytest.Config) -> str:
    """Name the StrideWeave version and where ``Metal`` runs, for the session header.

    Parameters
    ----------
    config : pytest.Config
        The session's configuration.

    Returns
    -------
    str
        One line, e.g. ``stridewave 0.1.0; Metal: MLX CPU device, MLX 0.29.0``.
    """
    from stridewave._version import __version__
    from stridewave.carriers._mlx_runtime import runtime

    ok, why = runtime()
    return f"stridewave {__version__}; Metal: {why if ok else 'unavailable (' + why + ')'}"
