"""Resource limits checked before allocating (CONTRACT section 7, "Resource errors").

A size the machine cannot hold must fail with ``MemoryError`` before any allocation,
never as a crash inside a backend (MLX aborts the process when an allocation fails,
and an overcommitting kernel lets NumPy "succeed" and kills the process later). The
bound is the smallest of the physical memory, the address-space and data-segment
limits (``RLIMIT_AS``, ``RLIMIT_DATA``) and the cgroup's ``memory.max``: no process
can hold more than that at once, whatever else runs.
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["check_host_allocation", "host_memory_limit"]


def _cgroup_limit() -> int | None:
    try:
        with open("/sys/fs/cgroup/memory.max") as handle:
            text = handle.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def host_memory_limit() -> int | None:
    """Return the most bytes this process could ever hold at once, or None if unknown.

    Returns
    -------
    int or None
        The smallest of physical memory, ``RLIMIT_AS``, ``RLIMIT_DATA`` and the cgroup
        v2 ``memory.max``; ``None`` where none of them can be read.
    """
    bounds: list[int] = []
    with contextlib.suppress(AttributeError, OSError, ValueError):
        bounds.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    try:
        import resource

        for which in (resource.RLIMIT_AS, getattr(resource, "RLIMIT_DATA", None)):
            if which is None:
                continue
            soft, _hard = resource.getrlimit(which)
            if soft != resource.RLIM_INFINITY and soft > 0:
                bounds.append(soft)
    except (ImportError, OSError, ValueError):
        pass
    cgroup = _cgroup_limit()
    if cgroup is not None:
        bounds.append(cgroup)
    return min(bounds) if bounds else None


def check_host_allocation(nbytes: int, *, what: str) -> None:
    """Raise ``MemoryError`` before allocating ``nbytes`` that no process here can hold.

    Parameters
    ----------
    nbytes : int
        The size of the allocation about to be made, in bytes.
    what : str
        What is being allocated, for the message (e.g. ``"CPU(2**40)"``).

    Raises
    ------
    MemoryError
        If ``nbytes`` exceeds :func:`host_memory_limit`; the message says what was
        asked, the limit and how to fix it.
    """
    limit = host_memory_limit()
    if limit is not None and nbytes > limit:
        raise MemoryError(
            f"{what} needs {nbytes} bytes, more than this process can ever hold ({limit} "
            f"bytes: the smallest of physical memory, ulimit -v / RLIMIT_AS, RLIMIT_DATA "
            f"and the cgroup's memory.max). Nothing was allocated. Use a smaller size, "
            f"or FileBacked storage for data larger than memory."
        )
