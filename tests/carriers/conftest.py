"""The carrier-kind table for the project's own carrier tests.

The table itself ships in :mod:`stridewave.testing` (``BUILTIN_KINDS``), with the
contract suite that reads it; this module re-exports it under the names the carrier
tests use, and adds the ``kind`` fixture and the ``(kind, dtype)`` parameter list.
"""

from __future__ import annotations

import pytest

from stridewave import DType, DTypeCategory, ScaledDType
from stridewave.testing import (
    BUILTIN_KINDS,
    SAMPLE,
    ZERO,
    Kind,
    available_kinds,
    builtin_dtypes,
    fresh_name,
    raw_values,
)

__all__ = [
    "ALL_KINDS",
    "HAVE_MLX",
    "KINDS",
    "KIND_DTYPES",
    "NO_MLX_REASON",
    "SAMPLE",
    "ZERO",
    "Kind",
    "builtin_dtypes",
    "fresh_name",
    "needs_mlx",
]


#: Metal runs wherever mlx imports: on the GPU when MLX has one, else on MLX's CPU
#: device (tests/conftest.py sets STRIDEWAVE_METAL_DEVICE=cpu on GPU-less machines).
def _have_mlx() -> bool:
    try:
        import mlx.core  # noqa: F401
    except ImportError:
        return False
    return True


HAVE_MLX = _have_mlx()
NO_MLX_REASON = 'mlx is not importable here: install "stridewave[mlx]" to test Metal'
needs_mlx = [
    pytest.mark.needs_mlx,
    pytest.mark.skipif(not HAVE_MLX, reason=NO_MLX_REASON),
]

#: every kind, Metal included even where it cannot run (its tests then skip, with the
#: reason)
ALL_KINDS: tuple[Kind, ...] = BUILTIN_KINDS

#: the kinds that can run here: tests which iterate or sample KINDS (scatter
#: properties, cross-kind loops) run these
KINDS: tuple[Kind, ...] = available_kinds()


def _marks(kind: Kind) -> tuple[pytest.MarkDecorator, ...]:
    """Return the kind's marks, plus a skip with the reason where it cannot run."""
    ok, why = kind.available()
    return kind.marks if ok else (*kind.marks, pytest.mark.skip(reason=f"{kind.name}: {why}"))


#: (kind, dtype) pairs every kind can hold
KIND_DTYPES = [
    pytest.param(k, d, id=f"{k.name}-{d.name}", marks=_marks(k))
    for k in ALL_KINDS
    for d in k.dtypes
]

#: read the stored values of any built-in kind around the carrier API
_raw_evictable = raw_values


@pytest.fixture(params=[pytest.param(k, id=k.name, marks=_marks(k)) for k in ALL_KINDS])
def kind(request: pytest.FixtureRequest) -> Kind:
    k: Kind = request.param
    return k


@pytest.fixture(scope="session")
def compound() -> DType:
    """One registered compound dtype (MXFP8-like) for the whole run."""
    return ScaledDType(fresh_name("MX"), element=DType.E4M3, scale=DType.E8M0, block=32)


@pytest.fixture(scope="session")
def extension_category() -> DType:
    """One registered extension category under Floating."""
    return DTypeCategory(fresh_name("Cat"), supertype=DType.Floating)
