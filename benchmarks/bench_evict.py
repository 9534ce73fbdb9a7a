"""Eviction benchmark: ``Evictable`` CPU over FileBacked, 10**7 Float32, against NumPy.

Run ``python benchmarks/bench_evict.py [--repeat N] [--n N]`` (or ``nox -s bench``).
Each figure is the best of N runs (``time.perf_counter``); both sides are measured
in the same process, and the ratio divides the stridewave time by the NumPy one.

Cases (targets in the last column):

* ``evict()``: values from the CPU primary into the FileBacked secondary (file write,
  mapping, bit-for-bit read-back check, primary release) vs a raw ``numpy.memmap``
  write of the same data into a fresh file in the same directory
  (``np.memmap(path, "<f4", "w+", shape=(n,))[:] = data``); target <= 1.2x.
* ``promote()``: a new CPU primary from the secondary's file, then the secondary
  back to size 0, vs ``numpy.fromfile(path, "<f4")`` of the same data; target <=
  1.2x. ``memmap + copy`` is shown as a second NumPy reference.

Neither side calls ``flush``/``fsync``: both leave the data in the page cache.
"""

from __future__ import annotations

import argparse
import os
import platform

import numpy as np
from _timing import best_of, print_ratio_table

from stridewave import CPU, DType, Evictable, FileBacked
from stridewave.carriers._file_backed import session_directory


def main(argv: list[str] | None = None) -> list[tuple[str, float, str, float, float, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per figure (best is kept)")
    parser.add_argument("--n", type=int, default=10**7, help="Float32 values")
    args = parser.parse_args(argv)
    n, repeat = args.n, args.repeat

    data = np.random.default_rng(0).random(n, dtype=np.float32)
    e = Evictable(CPU(0).new_like(data), FileBacked(dtype=DType.Float32))
    directory = session_directory()
    raw_path = os.path.join(directory, "bench-raw.f32")
    read_path = os.path.join(directory, "bench-read.f32")
    data.tofile(read_path)

    def fresh_raw() -> None:
        if os.path.exists(raw_path):
            os.unlink(raw_path)

    def memmap_write() -> None:
        target = np.memmap(raw_path, dtype="<f4", mode="w+", shape=(n,))
        target[:] = data
        del target

    def memmap_copy() -> None:
        np.array(np.memmap(read_path, dtype="<f4", mode="r", shape=(n,)))

    results = []
    t_evict = best_of(e.evict, repeat, setup=e.promote)
    t_raw = best_of(memmap_write, repeat, setup=fresh_raw)
    results.append(("evict()", t_evict, "numpy.memmap write", t_raw, t_evict / t_raw, "<= 1.2"))
    t_promote = best_of(e.promote, repeat, setup=e.evict)
    t_fromfile = best_of(lambda: np.fromfile(read_path, dtype="<f4"), repeat)
    t_mcopy = best_of(memmap_copy, repeat)
    results.append(
        ("promote()", t_promote, "numpy.fromfile", t_fromfile, t_promote / t_fromfile, "<= 1.2")
    )
    results.append(("promote()", t_promote, "memmap + copy", t_mcopy, t_promote / t_mcopy, ""))
    assert np.array_equal(np.asarray(e), data)
    e.release()
    fresh_raw()
    os.unlink(read_path)

    print(
        f"Evictable(CPU over FileBacked) of {n} Float32 values, best of {repeat}; "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"numpy {np.__version__}"
    )
    print_ratio_table(results, case_width=10, ref_width=20)
    return results


if __name__ == "__main__":
    main()
