"""Pickle support: the module-level reconstructor of descriptors.

A descriptor pickles as ``reconstruct_dtype(kind, name, structure)``.  The import path
``stridewave.dtypes._pickle.reconstruct_dtype`` is part of the pickle format and never
moves.  Unpickling instantiates no class: it returns the receiving process's registered
identity, or refuses.

Spec: "Pickle reconstruction preserves receiving-process identity".
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

from stridewave.dtypes import _messages, _registry
from stridewave.dtypes._structure import mentions, same_structure

if TYPE_CHECKING:
    from types import FrameType

    from stridewave.dtypes._model import DType

__all__ = [
    "UNKNOWN_NAME_FIXES",
    "UnresolvedDType",
    "pickled_by_distributed",
    "reconstruct_dtype",
    "reconstruct_on_worker",
]

_DISTRIBUTED_PICKLE = "distributed.protocol.pickle"

#: How to register a name this module knows of but the process has not registered
#: (filled by :mod:`stridewave.dtypes._standard` for the standard's extensions): the
#: fix that the ``LookupError`` of :func:`reconstruct_dtype` names.
UNKNOWN_NAME_FIXES: dict[str, str] = {}


def reconstruct_dtype(kind: object, name: object, structure: object) -> DType:
    """Return the registered descriptor matching a pickled ``(kind, name, structure)``.

    Parameters
    ----------
    kind : str
        ``"category"``, ``"simple"`` or ``"compound"``, as recorded by the sender.
    name : str
        The registered name in the sending process.
    structure : tuple
        The complete structure recorded by the sender.

    Returns
    -------
    DType
        This process's descriptor registered under ``name``; nothing is constructed.

    Raises
    ------
    LookupError
        If no descriptor is registered under ``name`` here.
    ValueError
        If the descriptor registered here has a different kind or structure (compared
        type-strictly), e.g. another width, hierarchy, plane, rule, scale or extension,
        or a legacy category structure carrying the removed opaque-storage disposition.
    """
    found = _registry.lookup(name) if type(name) is str else None
    if found is None:
        fix = UNKNOWN_NAME_FIXES.get(name) if type(name) is str else None
        raise LookupError(_messages.unpickle_unknown(kind, name, fix))
    if found._sw_kind != kind or not same_structure(found.structure(), structure):
        legacy = mentions(structure, "opaque_storage")
        raise ValueError(_messages.unpickle_mismatch(name, found, legacy))
    descriptor: DType = found  # the registry holds only the model's descriptors
    return descriptor


# -- descriptors pickled by Dask's distributed (see stridewave/dask.py) -----------------


def pickled_by_distributed() -> bool:
    """Return whether the current pickling runs inside ``distributed``'s serializer.

    Returns
    -------
    bool
        True when a frame of ``distributed``'s pickle module is among the callers (up
        to 40 frames up), so the descriptor travels to a Dask worker.
    """
    if "distributed" not in sys.modules:
        return False
    frame: FrameType | None = sys._getframe(1)
    for _ in range(40):
        if frame is None:
            return False
        if frame.f_globals.get("__name__") == _DISTRIBUTED_PICKLE:
            return True
        frame = frame.f_back
    return False


class UnresolvedDType:
    """A descriptor a Dask worker could not resolve; every use raises the resolution error.

    Stands in for a descriptor unpickled inside ``distributed``'s network layer, so
    the task that uses it fails (and the client's future raises) instead of the
    worker's connection breaking.

    Parameters
    ----------
    error : LookupError or ValueError
        What resolving the descriptor raised; every use of the stand-in raises an
        exception of the same type and message.
    """

    __slots__ = ("_error",)

    def __init__(self, error: Exception) -> None:
        object.__setattr__(self, "_error", error)

    def _raise(self) -> NoReturn:
        error: Exception = object.__getattribute__(self, "_error")
        raise type(error)(str(error)) from None

    def __getattr__(self, attr: str) -> NoReturn:
        self._raise()

    def __repr__(self) -> str:
        return f"<unresolved descriptor: {object.__getattribute__(self, '_error')}>"

    def __reduce__(self) -> NoReturn:
        """Refuse to pickle the stand-in again.

        Raises
        ------
        LookupError or ValueError
            Always: the resolution error the stand-in carries.
        """
        self._raise()


def reconstruct_on_worker(kind: object, name: object, structure: object) -> DType | UnresolvedDType:
    """Unpickle a descriptor sent by ``distributed``: the registered one, or a stand-in.

    Parameters
    ----------
    kind : str
        The descriptor kind recorded by ``__reduce__``, as for :func:`reconstruct_dtype`.
    name : str
        The registered name.
    structure : tuple
        The canonical structure recorded on the client.

    Returns
    -------
    DType or UnresolvedDType
        The registered identity; otherwise a stand-in whose every use raises the
        ``LookupError``/``ValueError`` that :func:`reconstruct_dtype` raised, with a
        hint to call ``stridewave.dask.register_dtypes(client)``.
    """
    try:
        return reconstruct_dtype(kind, name, structure)
    except (LookupError, ValueError) as exc:
        hint = (
            " On Dask workers, register the client's descriptors with "
            "stridewave.dask.register_dtypes(client) before submitting work."
        )
        return UnresolvedDType(type(exc)(f"{exc}{hint}"))
