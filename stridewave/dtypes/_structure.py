"""Canonical structure records and the ``Whole`` sentinel.

A descriptor's *structure* is a nested tuple of exact ``str``, ``int``, ``float``,
``None`` and :data:`Whole` values, recorded once when the descriptor is finalized.
It is hashable, comparable and picklable without the descriptor classes, which is
what pickle compatibility is decided on.

Structures are compared *type-strictly* by :func:`same_structure`: ``1``, ``1.0``
and ``True`` are different values here, as are ``0.0`` and ``-0.0``.

The import path ``stridewave.dtypes._structure.Whole`` is part of the pickle format:
it never moves.
"""

from __future__ import annotations

import math
import os
import threading
from typing import Final, TypeAlias, Union

from typing_extensions import Self

from stridewave.dtypes import _messages

__all__ = ["Structure", "StructureItem", "Whole", "WholeType", "same_structure"]


class WholeType:
    """Type of the :data:`Whole` singleton: "one scale for the whole tensor".

    ``Whole`` is the ``block`` of a :class:`~stridewave.ScaledDType` whose single scale
    applies to every element.  It is a permitted value inside structures.  There is
    exactly one instance: constructing the type again, copying or unpickling returns it.
    """

    __slots__ = ()
    _instance: WholeType | None = None
    _lock: Final = threading.Lock()
    if hasattr(os, "register_at_fork"):  # inherited held by a vanished thread: reset
        os.register_at_fork(after_in_child=getattr(_lock, "_at_fork_reinit"))  # noqa: B009

    def __new__(cls) -> Self:
        with cls._lock:
            if cls._instance is None:
                cls._instance = object.__new__(cls)
        return cls._instance  # type: ignore[return-value]

    def __init_subclass__(cls, **kwargs: object) -> None:
        raise TypeError("Whole is a singleton sentinel; its type cannot be subclassed")

    def __repr__(self) -> str:
        return "Whole"

    def __reduce__(self) -> str:
        """Pickle by name, so that unpickling gives back the one ``Whole``.

        Returns
        -------
        str
            ``"Whole"``: pickle reads a string as the module global of that name,
            ``stridewave.dtypes._structure.Whole``.
        """
        return "Whole"

    def __copy__(self) -> Self:
        """Return ``Whole`` itself: the sentinel is a singleton.

        Returns
        -------
        WholeType
            The one ``Whole``.
        """
        return self

    def __deepcopy__(self, memo: object) -> Self:
        """Return ``Whole`` itself: the sentinel is a singleton.

        Parameters
        ----------
        memo : dict
            :func:`copy.deepcopy`'s memo (unused).

        Returns
        -------
        WholeType
            The one ``Whole``.
        """
        return self


Whole: Final = WholeType()
"""The singleton sentinel meaning "one scale for the whole tensor" (``repr`` ``Whole``)."""

StructureItem: TypeAlias = Union[str, int, float, WholeType, "Structure", None]
"""One value inside a structure: an exact scalar, ``Whole`` or a nested structure."""

Structure: TypeAlias = tuple[StructureItem, ...]
"""A canonical structure record: a tuple of :data:`StructureItem` values."""


def _check_item(value: object, path: str, owner: str) -> StructureItem:
    kind = type(value)
    if value is None or value is Whole or kind is str or kind is int:
        return value  # type: ignore[return-value]
    if kind is float:
        if math.isnan(value):  # type: ignore[arg-type]
            raise TypeError(_messages.nan_in_extension(owner, path))
        return value  # type: ignore[return-value]
    if kind is tuple:
        items: tuple[object, ...] = value  # type: ignore[assignment]
        return tuple(_check_item(item, f"{path}[{i}]", owner) for i, item in enumerate(items))
    raise TypeError(_messages.bad_extension_value(owner, path, value))


def check_extension(value: object, owner: str) -> Structure:
    """Validate the result of ``structure_extension()``.

    Parameters
    ----------
    value : object
        What ``structure_extension()`` returned.
    owner : str
        How to name the descriptor being built in error messages.

    Returns
    -------
    Structure
        ``value`` itself, known to be a canonical structure.

    Raises
    ------
    TypeError
        If ``value`` is not an exact ``tuple``, or holds anything other than exact
        ``str``, ``int``, ``float`` (not NaN), ``None``, ``Whole`` or nested exact
        tuples of those (a ``bool`` is not a number here).
    """
    if type(value) is not tuple:
        raise TypeError(_messages.extension_not_tuple(owner, value))
    result = _check_item(value, "structure_extension()", owner)
    assert type(result) is tuple
    return result


def _key(value: object) -> object:
    kind = type(value)
    if kind is tuple:
        return ("t", tuple(_key(item) for item in value))  # type: ignore[attr-defined]
    if kind is float:
        return ("f", float.hex(value))  # type: ignore[arg-type]
    if kind is int:
        return ("i", value)
    if kind is str:
        return ("s", value)
    if value is None:
        return ("n",)
    if value is Whole:
        return ("w",)
    return ("?", id(value))  # never equal to a canonical key


def same_structure(left: object, right: object) -> bool:
    """Compare two structures type-strictly.

    Parameters
    ----------
    left, right : object
        Structures (or anything, e.g. from a foreign pickle payload).

    Returns
    -------
    bool
        ``True`` when both hold the same values of the same exact types in the same
        nesting; ``1``, ``1.0`` and ``True`` differ, and so do ``0.0`` and ``-0.0``.
    """
    return _key(left) == _key(right)


def mentions(structure: object, word: str) -> bool:
    """Tell whether the string ``word`` occurs anywhere in a (possibly foreign) structure.

    Parameters
    ----------
    structure : object
        A structure, possibly from an old pickle payload.
    word : str
        The string to look for.

    Returns
    -------
    bool
        ``True`` if ``word`` is ``structure`` or occurs in its nested tuples.
    """
    if type(structure) is tuple:
        return any(mentions(item, word) for item in structure)
    return type(structure) is str and structure == word
