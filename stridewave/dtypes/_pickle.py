"""Pickle support: the module-level reconstructor of descriptors.

A descriptor pickles as ``reconstruct_dtype(kind, name, structure)``.  The import path
``stridewave.dtypes._pickle.reconstruct_dtype`` is part of the pickle format and never
moves.  Unpickling instantiates no class: it returns the receiving process's registered
identity, or refuses.

Spec: "Pickle reconstruction preserves receiving-process identity".
"""

from __future__ import annotations

from typing import Any

from stridewave.dtypes import _messages, _registry
from stridewave.dtypes._structure import mentions, same_structure

__all__ = ["reconstruct_dtype"]


def reconstruct_dtype(kind: object, name: object, structure: object) -> Any:
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
        (Annotated ``Any``: this module sits below the model and does not import it.)

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
        raise LookupError(_messages.unpickle_unknown(kind, name))
    if found._sw_kind != kind or not same_structure(found.structure(), structure):
        legacy = mentions(structure, "opaque_storage")
        raise ValueError(_messages.unpickle_mismatch(name, found, legacy))
    return found
