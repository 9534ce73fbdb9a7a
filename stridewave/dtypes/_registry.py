"""The process-wide descriptor registry: one lock, atomic check-and-insert, snapshots.

Nothing is ever removed.  Reads take a snapshot (a tuple) under the lock, so a caller
never sees a half-inserted entry.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from stridewave.dtypes._model import DType

__all__: list[str] = []

_LOCK: Final = threading.RLock()
if hasattr(os, "register_at_fork"):  # a lock inherited held by a vanished thread: reset
    os.register_at_fork(after_in_child=getattr(_LOCK, "_at_fork_reinit"))  # noqa: B009
_BY_NAME: Final[dict[str, DType]] = {}


def insert(descriptor: DType, name: str, on_duplicate: Callable[[DType], str]) -> None:
    """Register ``descriptor`` under ``name`` unless the name is taken.

    Parameters
    ----------
    descriptor : DType
        A fully validated descriptor whose structure is recorded.
    name : str
        Its registered name.
    on_duplicate : callable
        Builds the error text from the descriptor already registered under ``name``.

    Raises
    ------
    ValueError
        If ``name`` is already registered; nothing changes then.
    """
    from stridewave.dtypes import _model

    with _LOCK:
        existing = _BY_NAME.get(name)
        if existing is not None:
            raise ValueError(on_duplicate(existing))
        _model._mark_canonical(descriptor)
        _BY_NAME[name] = descriptor


def lookup(name: str) -> DType | None:
    """Return the descriptor registered under ``name``, or ``None``."""
    with _LOCK:
        return _BY_NAME.get(name)


def snapshot() -> tuple[DType, ...]:
    """Return every registered descriptor, in registration order, as a tuple."""
    with _LOCK:
        return tuple(_BY_NAME.values())
