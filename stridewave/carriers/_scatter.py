"""Scatter planning and the NumPy scatter executor, shared by every carrier backend.

A scatter writes the logical source values ``values[i]`` (row-major, ``i`` in
``[0, mapping.size)``) to physical slots ``base + mapping.index(i)``.  This module
decides *how* once, independently of the backend:

1. :func:`plan_scatter` simplifies the mapping.  Axes of extent 1 are dropped.
   An axis with stride 0 sends all of its elements to the same slots, and the
   later logical index wins, so only its last slice is kept.  What remains is a
   pair of layouts over the destination and over the flat source.
2. When the strides of the simplified destination layout prove it injective (the
   cheap test of :meth:`Layout.is_injective`, no enumeration), the write is one strided copy of a
   strided view of the source into a strided view of the destination, with no
   index array (:func:`scatter_numpy`).  Large copies are cut into cache-sized
   tiles (when the inner axes of source and destination differ, e.g. a
   transpose) and spread over a few threads; NumPy releases the GIL in the copy.
3. Otherwise (overlapping non-zero strides) :func:`scatter_indices` enumerates
   the destination indices and keeps, for each slot, the **last** logical source
   position (:func:`unique_last`).  The result is unique indices plus source
   positions, usable by any backend, since no backend promises an order for
   repeated fancy-index assignment.

Backends other than NumPy (MLX) call :func:`scatter_indices` and perform one
fancy-index assignment with the unique indices it returns.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from stridewave.layout import Layout

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "ScatterPlan",
    "plan_scatter",
    "scatter_indices",
    "scatter_numpy",
    "strided_view",
    "unique_last",
]

#: Copies with fewer elements than this run on the calling thread, untiled.
_PARALLEL_MIN_ELEMENTS: Final = 1 << 20
#: Edge of a square tile, in elements, for copies whose inner axes differ.
_TILE: Final = 256
#: ``np.maximum.at`` needs a scratch array as long as the index span; above this
#: span-to-count ratio a stable sort is used instead.
_DENSE_SPAN_FACTOR: Final = 8


@dataclass(frozen=True)
class ScatterPlan:
    """A simplified scatter: which source elements go where, in elements.

    Parameters
    ----------
    dest_base : int
        Physical index (slot) where offset 0 of ``dest`` lands.
    dest : Layout
        Destination mapping after simplification; offsets in elements relative to
        ``dest_base``.
    source_base : int
        Position in the flat (row-major) source of the first selected element.
    source : Layout
        Which flat source positions are written, relative to ``source_base``;
        same shape as ``dest``.
    injective : bool
        ``True`` when the strides alone prove that ``dest`` maps no two elements
        to one slot (then a plain strided copy is exact); ``False`` when repeats
        exist or cannot be ruled out cheaply (they are resolved, last wins).
    """

    dest_base: int
    dest: Layout
    source_base: int
    source: Layout
    injective: bool


def plan_scatter(base: int, mapping: Layout) -> ScatterPlan:
    """Simplify a scatter of ``mapping.size`` row-major source values.

    Parameters
    ----------
    base : int
        Physical index (slot) of mapping offset 0, i.e. ``scatter_onto.offset +
        mapping_offset``.
    mapping : Layout
        Destination offsets, in elements, of the source's logical elements.

    Returns
    -------
    ScatterPlan
        Axes of extent 1 removed; each zero-stride axis of extent > 1 reduced to
        its last index (the later logical index wins on a repeated slot).  The
        plan writes the same final values as the full mapping would with
        last-wins semantics.
    """
    if mapping.size == 0:
        empty = Layout((0,))
        return ScatterPlan(base, empty, 0, empty, True)
    source_strides = Layout(mapping.shape).strides
    source_base = 0
    shape: list[int] = []
    dest_strides: list[int] = []
    kept_source_strides: list[int] = []
    for extent, stride, source_stride in zip(
        mapping.shape, mapping.strides, source_strides, strict=True
    ):
        if extent == 1:
            continue
        if stride == 0:
            source_base += (extent - 1) * source_stride
            continue
        shape.append(extent)
        dest_strides.append(stride)
        kept_source_strides.append(source_stride)
    dest = Layout(tuple(shape), tuple(dest_strides))
    source = Layout(tuple(shape), tuple(kept_source_strides))
    # Only the cheap stride test: when it is inconclusive the index path resolves
    # repeats anyway, and an exact check would cost a full sort of the offsets.
    return ScatterPlan(base, dest, source_base, source, dest._compute_injective_cheap() is True)


def unique_last(
    indices: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Resolve repeated indices: keep the last position at which each one occurs.

    Parameters
    ----------
    indices : numpy.ndarray of numpy.int64, shape ``(n,)``
        Destination slots, possibly repeated.

    Returns
    -------
    unique : numpy.ndarray of numpy.int64, shape ``(m,)``
        The distinct values of ``indices``, ascending.
    positions : numpy.ndarray of numpy.int64, shape ``(m,)``
        ``positions[j]`` is the largest ``p`` with ``indices[p] == unique[j]``.

    Notes
    -----
    Deterministic on every backend.  Uses ``numpy.maximum.at`` over a scratch
    array spanning ``[min, max]`` when that span is small compared with ``n``,
    and a stable argsort otherwise; both are vectorized.
    """
    n = indices.size
    if n == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    low = int(indices.min())
    span = int(indices.max()) - low + 1
    if span <= _DENSE_SPAN_FACTOR * n + 1024:
        last = np.full(span, -1, dtype=np.int64)
        np.maximum.at(last, indices - low, np.arange(n, dtype=np.int64))
        hit = np.flatnonzero(last >= 0)
        return hit + low, last[hit]
    order = np.argsort(indices, kind="stable")
    ordered = indices[order]
    is_last = np.empty(n, dtype=bool)
    is_last[-1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=is_last[:-1])
    return ordered[is_last], order[is_last]


def scatter_indices(
    base: int, mapping: Layout
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Return unique destination slots and the source position written to each.

    This is the backend-neutral scatter plan as index arrays: a backend performs
    ``dest[unique] = flat_source[positions]`` (one fancy-index assignment with no
    repeated index, so the result does not depend on the backend's write order).

    Parameters
    ----------
    base : int
        Physical index (slot) of mapping offset 0 (``scatter_onto.offset +
        mapping_offset``).
    mapping : Layout
        Destination offsets, in elements, of the source's row-major elements.

    Returns
    -------
    unique : numpy.ndarray of numpy.int64, shape ``(m,)``
        Distinct physical destination slots, ``m <= mapping.size``.
    positions : numpy.ndarray of numpy.int64, shape ``(m,)``
        Row-major source position whose value lands in ``unique[j]``: the
        largest logical index mapped to that slot (later logical index wins).
    """
    plan = plan_scatter(base, mapping)
    dest = plan.dest.indices() + np.int64(plan.dest_base)
    source = plan.source.indices() + np.int64(plan.source_base)
    if plan.dest.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    if plan.injective:
        return dest, source
    unique, last = unique_last(dest)
    return unique, source[last]


def strided_view(array: npt.NDArray[Any], base: int, layout: Layout) -> npt.NDArray[Any]:
    """Return a view of the 1-D ``array`` with element ``i`` at ``base + layout.index(i)``.

    Parameters
    ----------
    array : numpy.ndarray, shape ``(n,)``, C-contiguous
        The storage to view.
    base : int
        Element index in ``array`` of layout offset 0.
    layout : Layout
        Shape and strides of the view, in elements.

    Returns
    -------
    numpy.ndarray, shape ``layout.shape``
        A view sharing memory with ``array`` (writable when ``array`` is), with byte
        strides ``layout.strides * itemsize``.

    Raises
    ------
    IndexError
        If an addressed element lies outside ``array``, e.g. a Tensor built before
        its carrier shrank (checked here, in O(1): NumPy does not check the extent of
        a view on an empty buffer, and such a view would read foreign memory).
    """
    itemsize = array.dtype.itemsize
    if layout.size == 0:
        return np.empty(layout.shape, dtype=array.dtype)
    low, high = base + layout.min_index, base + layout.max_index
    if low < 0 or high >= array.shape[0] or not array.flags.c_contiguous:
        raise IndexError(
            f"the view {layout!r} at offset {base} addresses elements [{low}, {high}] but "
            f"the storage now holds {array.shape[0]} (C-contiguous: "
            f"{bool(array.flags.c_contiguous)}); the carrier shrank (resize) or was "
            f"replaced since the Tensor was made. Build a new Tensor on it."
        )
    view: npt.NDArray[Any] = np.ndarray(
        layout.shape,
        dtype=array.dtype,
        buffer=array,
        offset=base * itemsize,
        strides=tuple(s * itemsize for s in layout.strides),
    )
    return view


_pool_lock = threading.Lock()
if hasattr(os, "register_at_fork"):  # inherited held by a vanished thread: reset
    os.register_at_fork(after_in_child=getattr(_pool_lock, "_at_fork_reinit"))  # noqa: B009
_pool: ThreadPoolExecutor | None = None
_pool_pid = 0
_pool_workers = 0


def _threads() -> int:
    """Return how many threads a large copy may use (``STRIDEWAVE_SCATTER_THREADS``)."""
    configured = os.environ.get("STRIDEWAVE_SCATTER_THREADS")
    if configured is not None:
        try:
            return max(1, int(configured))
        except ValueError:
            return 1
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        available = os.cpu_count() or 1
    return max(1, min(available, 8))


def _executor(workers: int) -> ThreadPoolExecutor:
    """Return the process's copy pool, rebuilt after a fork or a size change."""
    global _pool, _pool_pid, _pool_workers
    with _pool_lock:
        pid = os.getpid()
        if _pool is None or _pool_pid != pid or _pool_workers != workers:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="stridewave-copy")
            _pool_pid = pid
            _pool_workers = workers
        return _pool


def _inner_axis(strides: tuple[int, ...], shape: tuple[int, ...]) -> int:
    """Return the axis with the smallest ``|stride|`` among axes of extent > 1."""
    candidates = [
        (abs(s), -k) for k, (s, n) in enumerate(zip(strides, shape, strict=True)) if n > 1
    ]
    return -min(candidates)[1] if candidates else len(shape) - 1


def _copy_blocks(dst: npt.NDArray[Any], src: npt.NDArray[Any]) -> list[tuple[slice, ...]]:
    """Cut a large copy into pieces: square tiles when inner axes differ, else slabs."""
    shape = dst.shape
    ndim = len(shape)
    dst_axis = _inner_axis(dst.strides, shape)
    src_axis = _inner_axis(src.strides, shape)
    full = [slice(None)] * ndim
    blocks: list[tuple[slice, ...]] = []
    if dst_axis != src_axis and shape[dst_axis] > _TILE and shape[src_axis] > _TILE:
        for i in range(0, shape[src_axis], _TILE):
            for j in range(0, shape[dst_axis], _TILE):
                key = list(full)
                key[src_axis] = slice(i, i + _TILE)
                key[dst_axis] = slice(j, j + _TILE)
                blocks.append(tuple(key))
        return blocks
    # Same inner axis: slabs along the axis with the largest destination stride.
    outer = max(range(ndim), key=lambda k: (shape[k] > 1, abs(dst.strides[k]), -k))
    pieces = min(shape[outer], 4 * _threads())
    edges = np.linspace(0, shape[outer], pieces + 1).astype(int)
    for lo, hi in itertools.pairwise(edges.tolist()):
        key = list(full)
        key[outer] = slice(int(lo), int(hi))
        blocks.append(tuple(key))
    return blocks


def _copy(dst: npt.NDArray[Any], src: npt.NDArray[Any]) -> None:
    """``numpy.copyto(dst, src)`` for same-shape views, tiled and threaded when large."""
    if dst.size < _PARALLEL_MIN_ELEMENTS or dst.ndim == 0:
        np.copyto(dst, src, casting="same_kind")
        return
    blocks = _copy_blocks(dst, src)
    workers = min(_threads(), len(blocks))

    def run(part: list[tuple[slice, ...]]) -> None:
        for key in part:
            np.copyto(dst[key], src[key], casting="same_kind")

    if workers <= 1:
        run(blocks)
        return
    parts = [blocks[k::workers] for k in range(workers)]
    futures = []
    for k, part in enumerate(parts[1:], start=1):
        try:
            futures.append(_executor(workers).submit(run, part))
        except RuntimeError:  # interpreter shutdown (an atexit hook): no new threads
            for rest in parts[k:]:
                run(rest)
            break
    run(parts[0])
    for future in futures:
        future.result()


def scatter_numpy(
    dest: npt.NDArray[Any], base: int, mapping: Layout, values: npt.NDArray[Any]
) -> None:
    """Write ``values[i]`` to ``dest[base + mapping.index(i)]`` for every logical ``i``.

    The NumPy backend of ``Carrier.scatter`` (the carrier validates everything
    first; this function assumes valid input and performs the write).

    Parameters
    ----------
    dest : numpy.ndarray, shape ``(size,)``, C-contiguous, writable
        Destination storage, one element per slot.
    base : int
        Physical index of mapping offset 0 (``scatter_onto.offset + mapping_offset``).
    mapping : Layout
        Destination offsets, in elements, of the source's logical elements; every
        ``base + mapping.index(i)`` must lie in ``[0, size)``.
    values : numpy.ndarray, shape ``(mapping.size,)``
        Source values in row-major logical order, already normalized to
        ``dest.dtype``.

    Notes
    -----
    An injective simplified mapping is one strided copy (no index array).  A
    repeated slot receives the value of the later logical index.  When
    ``values`` may share memory with ``dest``, it is copied first, so the result
    is as if the whole source were read before the first write.
    """
    plan = plan_scatter(base, mapping)
    if plan.dest.size == 0:
        return
    if values.ndim == 1 and values.size and values.strides[0] == 0:
        # A broadcast source (zero-stride axes): one value, never materialized.
        one = np.array(values[:1])
        if plan.injective:
            _copy(
                strided_view(dest, plan.dest_base, plan.dest),
                np.broadcast_to(one[0], plan.dest.shape),
            )
            return
        unique, _positions = unique_last(plan.dest.indices() + np.int64(plan.dest_base))
        dest[unique] = one[0]
        return
    if np.may_share_memory(values, dest):
        values = values.copy()
    values = np.ascontiguousarray(values)
    if plan.injective:
        _copy(
            strided_view(dest, plan.dest_base, plan.dest),
            strided_view(values, plan.source_base, plan.source),
        )
        return
    unique, positions = unique_last(plan.dest.indices() + np.int64(plan.dest_base))
    if plan.source_base != 0 or plan.source != Layout(plan.source.shape):
        # zero-stride axes were dropped: map positions back into the full source
        positions = (plan.source.indices() + np.int64(plan.source_base))[positions]
    dest[unique] = values[positions]


def _extreme_element(mapping: Layout, *, highest: bool) -> int:
    """Return a logical index whose offset is ``max_index`` (or ``min_index``)."""
    coords = [
        (n - 1) if ((s > 0) == highest and s != 0) else 0
        for n, s in zip(mapping.shape, mapping.strides, strict=True)
    ]
    position = 0
    for n, c in zip(mapping.shape, coords, strict=True):
        position = position * n + c
    return position


def check_scatter_arguments(
    receiver: object,
    to_scatter: object,
    scatter_onto: object,
    mapping: object,
    mapping_offset: object,
) -> int:
    """Validate the arguments of ``Carrier.scatter``; return the destination base slot.

    Checks, in this order, with nothing written: argument types, single-subtensor
    Tensors, the destination carrier, the mapping shape, the offset sign, and that
    every destination slot lies in the receiver (from ``min_index``/``max_index``,
    without enumerating).  Mutability and normalization are the caller's next steps.

    Parameters
    ----------
    receiver : Carrier
        The carrier whose ``scatter`` was called.
    to_scatter, scatter_onto : Tensor
        Source values and destination view.
    mapping : Layout
        Destination offsets, in elements, with ``to_scatter``'s shape.
    mapping_offset : int
        Extra offset in elements, ``>= 0``.

    Returns
    -------
    int
        ``scatter_onto.offset + mapping_offset``: the physical slot of mapping
        offset 0.

    Raises
    ------
    TypeError
        ``to_scatter``/``scatter_onto`` not a Tensor, ``mapping`` not a Layout, or
        ``mapping_offset`` not an integer (``bool`` refused).
    ValueError
        A multi-subtensor argument, ``scatter_onto.carrier is not receiver``,
        ``mapping.shape != to_scatter.shape``, or a negative ``mapping_offset``.
    RuntimeError
        The receiver is released (checked before the bounds, which it no longer has).
    IndexError
        A destination slot outside ``[0, receiver.size())``.
    """
    from stridewave.layout import _as_index
    from stridewave.tensor import Tensor

    for name, value in (("to_scatter", to_scatter), ("scatter_onto", scatter_onto)):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"scatter {name} must be a stridewave Tensor, got {type(value).__name__} "
                f"{value!r}; wrap storage first: Tensor(carrier, Layout(shape))."
            )
    if not isinstance(mapping, Layout):
        raise TypeError(
            f"scatter mapping must be a stridewave Layout, got {type(mapping).__name__} "
            f"{mapping!r}; pass Layout(shape, strides) with strides in elements."
        )
    offset = _as_index(mapping_offset, "scatter mapping_offset")
    assert isinstance(to_scatter, Tensor)
    assert isinstance(scatter_onto, Tensor)
    for name, tensor in (("to_scatter", to_scatter), ("scatter_onto", scatter_onto)):
        if len(tensor.subtensors) != 1:
            raise ValueError(
                f"scatter {name} is a compound Tensor of {tensor.dtype!r} with "
                f"{len(tensor.subtensors)} subtensors; carrier scatter moves one plane at "
                f"a time: pass {name}.subtensors[k]."
            )
    if scatter_onto.carrier is not receiver:
        raise ValueError(
            f"scatter_onto views {scatter_onto.carrier!r}, not the receiver {receiver!r}; "
            "call scatter on the destination's carrier: "
            "scatter_onto.carrier.scatter(to_scatter, scatter_onto, mapping)."
        )
    if mapping.shape != to_scatter.shape:
        raise ValueError(
            f"scatter mapping has shape {mapping.shape} but to_scatter has shape "
            f"{to_scatter.shape}; the mapping needs one destination offset per source "
            "element, so pass a Layout with the source's shape."
        )
    if offset < 0:
        raise ValueError(
            f"scatter mapping_offset must be >= 0 (elements), got {offset}; move the "
            "destination with scatter_onto's offset or the mapping strides instead."
        )
    base = scatter_onto.offset + offset
    # A released receiver has no slots: say so rather than report every index out of range.
    receiver._require_live("scatter")
    if mapping.size:
        size = receiver.size()
        low = base + mapping.min_index
        high = base + mapping.max_index
        if low < 0 or high >= size:
            receiver._require_live("scatter")  # released by another thread meanwhile
            bad, element = (
                (low, _extreme_element(mapping, highest=False))
                if low < 0
                else (high, _extreme_element(mapping, highest=True))
            )
            raise IndexError(
                f"scatter targets physical index {bad} (source element {element}) but the "
                f"receiver has {size} slots; check scatter_onto.offset="
                f"{scatter_onto.offset}, mapping_offset={offset} and the mapping strides "
                f"{mapping.strides} (destinations span [{low}, {high}])."
            )
    return base


def normalize_source(
    values: npt.NDArray[Any], normalize: Callable[[npt.NDArray[Any]], npt.NDArray[Any]]
) -> npt.NDArray[Any]:
    """Normalize scatter source values, reading a broadcast source's one value only.

    Parameters
    ----------
    values : numpy.ndarray, shape ``(n,)``
        The logical source values (:func:`source_values`); a broadcast source (every
        axis of stride 0) arrives as a zero-stride view.
    normalize : callable
        The receiver's vectorized normalizer (``Carrier._normalize_many``).

    Returns
    -------
    numpy.ndarray, shape ``(n,)``
        Normalized values; for a broadcast source a zero-stride view of one
        normalized value (no ``n``-element array is ever built: CONTRACT section 7).
    """
    if values.ndim == 1 and values.size > 1 and values.strides[0] == 0:
        one = normalize(np.array(values[:1]))
        return np.broadcast_to(one, values.shape)
    return normalize(values)


def source_values(to_scatter: object) -> npt.NDArray[Any]:
    """Return the logical values of a single-subtensor Tensor as a 1-D row-major array.

    Parameters
    ----------
    to_scatter : Tensor
        The source view (validated by :func:`check_scatter_arguments`).

    Returns
    -------
    numpy.ndarray, shape ``(to_scatter.layout.size,)``
        A view of the source storage when the layout allows (the caller copies
        when it may share memory with the destination), else a copy.

    Raises
    ------
    RuntimeError
        If the source's carrier is released.

    Notes
    -----
    Reads the carrier's internal backing array (``_raw_array``), not its NumPy
    export: a Metal carrier exports copies, and a scatter from one must not pay a
    full host copy for values it may read on the device.
    """
    carrier = to_scatter.carrier  # type: ignore[attr-defined]
    with carrier._locked():  # atomic with the source's release and moves
        carrier._require_live("read the scatter source")
        storage = np.ascontiguousarray(carrier._raw_array())
    layout = to_scatter.layout  # type: ignore[attr-defined]
    values: npt.NDArray[Any] = strided_view(
        storage,
        to_scatter.offset,  # type: ignore[attr-defined]
        layout,
    )
    if layout.size and all(
        s == 0 or n == 1 for n, s in zip(layout.shape, layout.strides, strict=True)
    ):
        # A broadcast source: one value seen everywhere; keep it a zero-stride view
        # (never an array of layout.size copies).
        return np.broadcast_to(values.reshape(-1)[:1], (layout.size,))
    return values.reshape(-1)
