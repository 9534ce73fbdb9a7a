"""Bulk reads of a memory-mapped file that keep its pages out of the resident set.

A process that reads a whole mapped file (to copy it, or to compare it) has every page
of it mapped, and those pages count in its resident memory until it unmaps the file:
promoting a 1 GB FileBacked tier would hold the new 1 GB tier *and* the file's 1 GB.
For a shared mapping (``numpy.memmap`` modes ``"r"``, ``"r+"``, ``"w+"``) the pages
can be unmapped from this process after each chunk with ``madvise(MADV_DONTNEED)``:
they stay in the page cache (dirty ones are still written back), and the next access
maps them again, so no value changes. A private mapping (mode ``"c"``) would lose its
copy-on-write changes that way, so it is read as it is.
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["CHUNK_BYTES", "copy_streamed", "drop_mapped_pages", "shared_mapping", "spans"]

#: Bytes read per chunk of a streamed copy or comparison (4 MiB; the most of the file
#: they add to the resident set at once).
CHUNK_BYTES = 1 << 22

#: ``numpy.memmap`` modes that map the file shared (``MAP_SHARED``).
_SHARED_MODES = frozenset({"r", "r+", "w+"})


def shared_mapping(array: npt.NDArray[Any]) -> mmap.mmap | None:
    """Return the shared file mapping under ``array``, or None.

    Parameters
    ----------
    array : numpy.ndarray
        Any array; a ``numpy.memmap``, or a view of one, has a mapping under it.

    Returns
    -------
    mmap.mmap or None
        The mapping, when some ``numpy.memmap`` in ``array``'s base chain says it maps
        the file shared and none says copy-on-write; None otherwise (memory, a private
        mapping, a bare ``mmap`` of unknown kind, or a platform without
        ``MADV_DONTNEED``).
    """
    if not hasattr(mmap, "MADV_DONTNEED"):
        return None
    shared = False
    base: object = array
    while isinstance(base, np.ndarray):
        if isinstance(base, np.memmap):
            mode = getattr(base, "mode", None)
            if mode not in _SHARED_MODES:
                return None
            shared = True
        base = base.base
    return base if shared and isinstance(base, mmap.mmap) else None


def drop_mapped_pages(mapping: mmap.mmap | None) -> None:
    """Unmap every page of a shared file mapping from this process (not from the cache).

    Parameters
    ----------
    mapping : mmap.mmap or None
        From :func:`shared_mapping`; None, a closed map or a refusal by the system
        makes this a no-op (the pages then just stay resident).
    """
    if mapping is not None:
        with contextlib.suppress(OSError, ValueError):
            mapping.madvise(mmap.MADV_DONTNEED)


def spans(array: npt.NDArray[Any]) -> Iterator[slice]:
    """Yield slices of about :data:`CHUNK_BYTES` that cover a 1-D array in order.

    Parameters
    ----------
    array : numpy.ndarray
        Shape ``(n,)``.

    Yields
    ------
    slice
        ``slice(start, stop)`` in elements.
    """
    step = max(1, CHUNK_BYTES // max(array.dtype.itemsize, 1))
    for start in range(0, array.shape[0], step):
        yield slice(start, min(array.shape[0], start + step))


def copy_streamed(array: npt.NDArray[Any], dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """Return a C-contiguous copy of a 1-D array, reading a mapped file a chunk at a time.

    Parameters
    ----------
    array : numpy.ndarray
        Shape ``(n,)``, already holding values of ``dtype``'s kind.
    dtype : numpy.dtype
        The copy's dtype.

    Returns
    -------
    numpy.ndarray
        A fresh array, shape ``(n,)``. When ``array`` sits on a shared file mapping,
        each chunk's pages are unmapped after it is copied, so the copy adds about
        :data:`CHUNK_BYTES` of the file, not the whole file, to the resident set.
    """
    mapping = shared_mapping(array)
    if mapping is None:
        return np.array(array, dtype=dtype, copy=True, order="C")
    out = np.empty(array.shape, dtype=dtype)
    for span in spans(array):
        out[span] = array[span]
        drop_mapped_pages(mapping)
    return out
