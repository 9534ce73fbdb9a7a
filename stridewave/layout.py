"""Strided layouts: how the logical elements of a view map onto physical slots.

A :class:`Layout` is a shape plus one stride per axis, both counted in
**elements** (carrier slots), never in bytes.  Logical element ``i`` (row-major
order over ``shape``) sits ``index(i) = sum(coord[k] * strides[k])`` slots from
the origin of the view.  Zero strides (a broadcast) and negative strides (a
reversed axis) are allowed; the view that uses the layout checks that every
slot it addresses lies inside its carrier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NoReturn

import numpy as np

from stridewave._integers import as_integer

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import SupportsIndex

    import numpy.typing as npt

__all__ = ["Layout"]

_INT64_MAX: Final = 2**63 - 1


def _as_index(value: object, what: str) -> int:
    """Return ``value`` as a Python ``int`` through ``__index__``; ``bool`` is refused."""
    return as_integer(value, lambda given: _not_an_integer(given, what))


def _not_an_integer(value: object, what: str) -> str:
    if isinstance(value, (bool, np.bool_)):
        return (
            f"{what} must be an integer, got the boolean {value!r}; pass an int such as "
            f"{int(value)} instead."
        )
    return (
        f"{what} must be an integer (an object with __index__), got "
        f"{type(value).__name__} {value!r}; pass an int instead."
    )


def _as_int_tuple(values: object, what: str) -> tuple[int, ...]:
    """Return ``values`` (a tuple or list of index-like objects) as a tuple of ints."""
    if not isinstance(values, (tuple, list)):
        raise TypeError(
            f"{what} must be a tuple of integers, got {type(values).__name__} {values!r}; "
            f"pass for example {what}=(2, 3)."
        )
    return tuple(_as_index(v, f"{what}[{k}]") for k, v in enumerate(values))


def _row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Return C-order strides in elements for ``shape``."""
    strides = [0] * len(shape)
    step = 1
    for axis in range(len(shape) - 1, -1, -1):
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


class Layout:
    """An immutable shape plus strides in elements, mapping logical to physical offsets.

    Logical element ``i`` (row-major position, ``0 <= i < size``) has coordinates
    ``numpy.unravel_index(i, shape)`` and lies ``index(i) = sum(coord[k] *
    strides[k])`` **elements** (slots) away from the origin of the view that uses
    the layout.  This is the mapping argument of ``Carrier.scatter`` and the
    logical-to-physical map of a ``Tensor`` (CONTRACT section 5).

    Parameters
    ----------
    shape : tuple of int
        Extent of each axis, each ``>= 0``.  ``()`` is a 0-d layout with one
        element.  Each entry may be any object with ``__index__`` except ``bool``.
    strides : tuple of int, optional
        Step between neighbouring elements of each axis, in elements; may be
        zero (broadcast) or negative (reversed axis).  One entry per axis.
        Default: row-major (C order) strides of ``shape``.

    Raises
    ------
    TypeError
        If ``shape`` or ``strides`` is not a tuple/list, or an entry is not an
        integer (``bool`` is refused).
    ValueError
        If an extent is negative, ``strides`` has a different length from
        ``shape``, or an addressed offset would not fit a signed 64-bit integer.

    Notes
    -----
    Instances are immutable (attribute assignment raises ``AttributeError``),
    hashable, compare equal when shapes and strides are equal, and pickle.

    Examples
    --------
    >>> Layout((2, 3)).strides
    (3, 1)
    >>> Layout((2, 3), (1, 2)).indices().tolist()   # a transpose
    [0, 2, 4, 1, 3, 5]
    """

    __slots__ = ("_hash", "_injective", "_max_index", "_min_index", "_shape", "_size", "_strides")

    _shape: tuple[int, ...]
    _strides: tuple[int, ...]
    _size: int
    _min_index: int
    _max_index: int
    _hash: int
    _injective: bool | None

    def __init__(
        self, shape: Iterable[SupportsIndex], strides: Iterable[SupportsIndex] | None = None
    ):
        shape_t = _as_int_tuple(shape, "shape")
        for axis, extent in enumerate(shape_t):
            if extent < 0:
                raise ValueError(
                    f"shape[{axis}] must be >= 0, got {extent} (shape={shape_t}); "
                    "extents count elements and cannot be negative."
                )
        if strides is None:
            strides_t = _row_major_strides(shape_t)
        else:
            strides_t = _as_int_tuple(strides, "strides")
            if len(strides_t) != len(shape_t):
                raise ValueError(
                    f"strides must have one entry per axis: shape={shape_t} has "
                    f"{len(shape_t)} axes but strides={strides_t} has {len(strides_t)}."
                )
        size = 1
        for extent in shape_t:
            size *= extent
        if size == 0:
            low, high = 0, -1
        else:
            low = sum(min(0, (n - 1) * s) for n, s in zip(shape_t, strides_t, strict=True))
            high = sum(max(0, (n - 1) * s) for n, s in zip(shape_t, strides_t, strict=True))
        # A stride must itself be a byte-addressable int64 quantity (NumPy multiplies
        # it by the item size; ``indices()`` is int64), even on an axis of extent 1.
        big_stride = any(abs(s) > _INT64_MAX // 8 for s in strides_t)
        if big_stride or size > _INT64_MAX or -low > _INT64_MAX or high > _INT64_MAX:
            raise ValueError(
                f"Layout(shape={shape_t}, strides={strides_t}) addresses offsets in "
                f"[{low}, {high}] (size {size}) with strides up to 2**63 / 8 elements at "
                "most, beyond what a signed 64-bit byte offset holds; use smaller extents "
                "or strides."
            )
        object.__setattr__(self, "_shape", shape_t)
        object.__setattr__(self, "_strides", strides_t)
        object.__setattr__(self, "_size", size)
        object.__setattr__(self, "_min_index", low)
        object.__setattr__(self, "_max_index", high)
        object.__setattr__(self, "_hash", hash((Layout, shape_t, strides_t)))
        object.__setattr__(self, "_injective", None)

    # -- immutability, identity -------------------------------------------------

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(
            f"Layout is immutable: cannot set {name!r}; build a new Layout(shape, strides)."
        )

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"Layout is immutable: cannot delete {name!r}.")

    def __reduce__(self) -> tuple[type[Layout], tuple[tuple[int, ...], tuple[int, ...]]]:
        """Pickle as ``Layout(shape, strides)``, so unpickling validates again.

        Returns
        -------
        tuple
            ``(Layout, (shape, strides))``.
        """
        return (Layout, (self._shape, self._strides))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return self._shape == other._shape and self._strides == other._strides

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Layout(shape={self._shape}, strides={self._strides})"

    # -- geometry -----------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """Extent of each axis, in elements."""
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        """Step of each axis, in elements (may be zero or negative)."""
        return self._strides

    @property
    def ndim(self) -> int:
        """Number of axes, ``len(shape)`` (an int)."""
        return len(self._shape)

    @property
    def size(self) -> int:
        """Number of logical elements (an int): the product of ``shape``, 1 for ``()``."""
        return self._size

    @property
    def min_index(self) -> int:
        """Smallest offset, in elements, that ``index`` returns (an int).

        Computed from shape and strides without enumerating elements.  ``0`` for an
        empty layout (``size == 0``), which addresses nothing.
        """
        return self._min_index

    @property
    def max_index(self) -> int:
        """Largest offset, in elements, that ``index`` returns (an int).

        Computed from shape and strides without enumerating elements.  ``-1`` for
        an empty layout (``size == 0``), so ``[min_index, max_index]`` is empty.
        """
        return self._max_index

    def index(self, i: SupportsIndex) -> int:
        """Map logical index ``i`` (row-major) to an offset in elements.

        Parameters
        ----------
        i : int-like
            Logical position, ``0 <= i < self.size``; any object with
            ``__index__`` except ``bool``.

        Returns
        -------
        int
            ``sum(coord[k] * self.strides[k])`` where ``coord`` are the row-major
            coordinates of ``i``, counted in elements from the origin of the view.

        Raises
        ------
        TypeError
            If ``i`` has no ``__index__`` or is a ``bool``.
        IndexError
            If ``i`` is outside ``[0, self.size)``; the message gives both numbers.
        """
        pos = _as_index(i, "logical index")
        if not 0 <= pos < self._size:
            raise IndexError(
                f"logical index {pos} is out of range for {self!r}, which has {self._size} "
                f"elements; pass an index in [0, {self._size})."
            )
        offset = 0
        for extent, stride in zip(reversed(self._shape), reversed(self._strides), strict=True):
            pos, coord = divmod(pos, extent)
            offset += coord * stride
        return offset

    def indices(self) -> npt.NDArray[np.int64]:
        """Return the offset of every logical element, in row-major order.

        One vectorized computation (an outer sum per axis), no Python loop over
        elements.

        Returns
        -------
        numpy.ndarray of numpy.int64, shape ``(self.size,)``
            ``out[i] == self.index(i)``, offsets in elements.
        """
        out = np.zeros(1, dtype=np.int64)
        for extent, stride in zip(self._shape, self._strides, strict=True):
            axis = np.arange(extent, dtype=np.int64) * np.int64(stride)
            out = np.add.outer(out, axis).reshape(-1)
        return out

    def is_injective(self) -> bool:
        """Return whether no two logical indices map to the same offset.

        A cheap sufficient test runs first: drop axes of extent 1, sort the rest
        by ``|stride|`` and require each ``|stride|`` to exceed the span
        ``sum((n - 1) * |stride|)`` of all smaller axes (a zero stride on an axis
        of extent > 1 is an immediate overlap).  Only when that test is
        inconclusive are the offsets enumerated and compared exactly.  The answer
        is cached.

        Returns
        -------
        bool
            ``True`` when ``index`` is one-to-one on ``[0, size)``; ``False`` when
            two logical elements share a slot (scatter then keeps the later one).
        """
        if self._injective is None:
            object.__setattr__(self, "_injective", self._compute_injective())
        assert self._injective is not None
        return self._injective

    def _compute_injective_cheap(self) -> bool | None:
        """Decide injectivity from the strides alone; ``None`` when inconclusive."""
        if self._size <= 1:
            return True
        axes = sorted((abs(s), n) for n, s in zip(self._shape, self._strides, strict=True) if n > 1)
        span = 0
        for stride, extent in axes:
            if stride == 0:
                return False
            if stride <= span:
                return None
            span += (extent - 1) * stride
        return True

    def _compute_injective(self) -> bool:
        cheap = self._compute_injective_cheap()
        if cheap is not None:
            return cheap
        offsets = self.indices()
        return bool(np.unique(offsets).size == offsets.size)
