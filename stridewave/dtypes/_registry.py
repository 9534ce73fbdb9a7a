"""The process-wide descriptor registry: one lock, atomic check-and-insert, snapshots.

Nothing is ever removed.  Reads take a snapshot (a tuple) under the lock, so a caller
never sees a half-inserted entry.

The registry sits below the descriptor model: it imports nothing of it (the model
passes in what it needs, e.g. the step that marks a descriptor canonical), so the
model, the registry and the pickle reconstructor form no import cycle. Entries are
typed ``Any`` for that reason; they are always ``stridewave.dtypes._model.DType``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, Final

__all__: list[str] = []

_LOCK: Final = threading.RLock()
if hasattr(os, "register_at_fork"):  # a lock inherited held by a vanished thread: reset
    os.register_at_fork(after_in_child=getattr(_LOCK, "_at_fork_reinit"))  # noqa: B009
_BY_NAME: Final[dict[str, Any]] = {}


def insert(
    descriptor: Any,
    name: str,
    on_duplicate: Callable[[Any], str],
    *,
    on_insert: Callable[[Any], None],
) -> None:
    """Register ``descriptor`` under ``name`` unless the name is taken.

    Parameters
    ----------
    descriptor : DType
        A fully validated descriptor whose structure is recorded.
    name : str
        Its registered name.
    on_duplicate : callable
        Builds the error text from the descriptor already registered under ``name``.
    on_insert : callable
        Called with ``descriptor`` under the lock, just before it is inserted (the
        model marks it canonical there, atomically with the insertion).

    Raises
    ------
    ValueError
        If ``name`` is already registered; nothing changes then.
    """
    with _LOCK:
        existing = _BY_NAME.get(name)
        if existing is not None:
            raise ValueError(on_duplicate(existing))
        on_insert(descriptor)
        _BY_NAME[name] = descriptor


def lookup(name: str) -> Any | None:
    """Return the descriptor registered under ``name``, or ``None``."""
    with _LOCK:
        return _BY_NAME.get(name)


def snapshot() -> tuple[Any, ...]:
    """Return every registered descriptor, in registration order, as a tuple."""
    with _LOCK:
        return tuple(_BY_NAME.values())
