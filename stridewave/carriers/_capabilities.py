"""What a carrier kind can do, declared once per kind (not implied by its bases).

Modelled on xarray's ``IndexingSupport``: an ordered enum says how much of the scatter
mutation a backend implements, and a small frozen record holds that level with the
other yes/no capabilities. Each kind sets ``capabilities`` as a class attribute;
everything that used to infer a capability from which base a kind inherits or which
method it overrides reads the record instead: the scatter template, Evictable's tier
checks, the ``python -m stridewave info`` kind list, and the test suite's kind table.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Capabilities", "ScatterSupport"]


class ScatterSupport(enum.IntEnum):
    """How much of the carrier scatter mutation a kind implements (ordered).

    ``NONE``
        ``scatter`` raises ``NotImplementedError`` before any other check
        (FileBacked, per the spec).
    ``HOST``
        Host values: ``_raw_scatter`` writes normalized NumPy values (Generic, CPU).
    ``DEVICE``
        ``HOST``, and ``_raw_scatter`` also takes the source's backend values
        directly when they live on the same backend (Metal: an MLX device slice, no
        host round trip).

    Parameters
    ----------
    args, kwds : object
        As for :class:`enum.IntEnum`: ``ScatterSupport(1)`` is ``ScatterSupport.HOST``.
    """

    NONE = 0
    HOST = 1
    DEVICE = 2


@dataclass(frozen=True)
class Capabilities:
    """The capability record of one carrier kind.

    Parameters
    ----------
    scatter : ScatterSupport
        How much of ``scatter`` the kind implements.
    secondary : bool
        The kind may be an Evictable secondary tier: it replaces its whole storage in
        one move (``_raw_load``) and reads it back on the host.
    exports_views : bool
        ``numpy.asarray(carrier)`` is a zero-copy read-only view that sees later
        writes (``False``: a snapshot, as Metal exports).
    host_addressable : bool
        The storage is host memory that NumPy addresses directly, always (``False``
        for device memory, even where a device shares it with the host).
    """

    scatter: ScatterSupport
    secondary: bool
    exports_views: bool
    host_addressable: bool

    def __repr__(self) -> str:
        """Return e.g. ``Capabilities(scatter=HOST, secondary=True, ...)``."""
        return (
            f"Capabilities(scatter={self.scatter.name}, secondary={self.secondary}, "
            f"exports_views={self.exports_views}, host_addressable={self.host_addressable})"
        )
