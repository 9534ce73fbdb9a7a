"""The searching, sorting, set and indexing functions of :mod:`stridewave.array_api`.

The standard's four sections of those names (``take``, ``take_along_axis``: indexing functions).
"""

from __future__ import annotations

from typing import Any

from stridewave.array_api import _messages
from stridewave.array_api._array import Array
from stridewave.array_api._common import apply, document, document_all, one
from stridewave.tensor import Tensor

# -- searching, sorting, sets -------------------------------------------------------------


def argmax(x: Any, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return one("argmax", (x,), {"axis": axis, "keepdims": keepdims})


def argmin(x: Any, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return one("argmin", (x,), {"axis": axis, "keepdims": keepdims})


def count_nonzero(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Array:
    return one("count_nonzero", (x,), {"axis": axis, "keepdims": keepdims})


def nonzero(x: Any, /) -> tuple[Array, ...]:
    if isinstance(x, Tensor) and len(x.shape) == 0:
        raise ValueError(_messages.nonzero_0d())
    return tuple(apply("nonzero", (x,)))


def searchsorted(x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None) -> Array:
    return one("searchsorted", (x1, x2), {"side": side, "sorter": sorter})


def where(condition: Any, x1: Any, x2: Any, /) -> Array:
    return one("where", (condition, x1, x2))


def argsort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    return one("argsort", (x,), {"axis": axis, "descending": descending, "stable": stable})


def sort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    return one("sort", (x,), {"axis": axis, "descending": descending, "stable": stable})


def unique_all(x: Any, /) -> Any:
    return apply("unique_all", (x,))


def unique_counts(x: Any, /) -> Any:
    return apply("unique_counts", (x,))


def unique_inverse(x: Any, /) -> Any:
    return apply("unique_inverse", (x,))


def unique_values(x: Any, /) -> Array:
    return one("unique_values", (x,))


def take(x: Any, indices: Any, /, *, axis: int | None = None) -> Array:
    return one("take", (x, indices), {"axis": axis})


def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> Array:
    return one("take_along_axis", (x, indices), {"axis": axis})


document_all(
    (
        (argmax, "Index of the largest element (first occurrence)."),
        (argmin, "Index of the smallest element (first occurrence)."),
        (count_nonzero, "Number of non-zero elements."),
        (searchsorted, "Insertion indices of ``x2`` into the sorted ``x1``."),
        (where, "``x1`` where ``condition`` holds, else ``x2``."),
        (argsort, "Indices that sort ``x`` along ``axis``."),
        (sort, "Sorted copy of ``x`` along ``axis``."),
        (unique_values, "Unique elements."),
        (take, "Elements at ``indices`` along ``axis``."),
        (take_along_axis, "Elements at ``indices`` matched along ``axis``."),
    )
)
document(nonzero, "Indices of the non-zero elements, one array per axis.", returns="tuple of Array")
document(
    unique_all, "Unique elements, first indices, inverse indices and counts.", returns="namedtuple"
)
document(unique_counts, "Unique elements and their counts.", returns="namedtuple")
document(unique_inverse, "Unique elements and inverse indices.", returns="namedtuple")
