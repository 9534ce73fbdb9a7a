"""The demo streams: its peak memory is one copy of the input plus a constant.

Each run is a fresh interpreter (``python -c``) with a private ``TMPDIR``, which runs
``python -m stridewave demo FILE`` and reports its own peak resident set (``VmHWM``
of ``/proc/self/status``, file-backed pages included; not ``ru_maxrss``, which Linux
carries over from the parent across ``exec``). The constant is
measured, not guessed: the same demo on a one-band file of the same dtype and columns
gives the interpreter's baseline (NumPy, MLX when the Metal step runs, the CLI, the
buffers OpenBLAS keeps after its first call of that size), and a budget for
chunk-sized temporaries scales with the demo's chunk. Input memory is the
file's data size. The child runs without ``STRIDEWAVE_METAL_DEVICE``, as a newcomer
does: where MLX has a GPU the Metal step runs (its device memory is not resident
memory of this process); on MLX's CPU device, a testing aid, ``Metal.new_like`` holds
a transient extra copy, so that setting is not measured here.

The default suite runs a small variant (10**7 float32 values, 40 MB, as a table of 100
columns) with every chunk of the demo shrunk to 2**16 values, so that a second copy of
the data, or the input file's pages left mapped beside the carrier (40 MB), would exceed
the 16 MiB budget, with and without ``--plot``. It passes ``--no-metal``: where MLX has
a GPU, its runtime's resident host memory (about 900 MiB on an NVIDIA H200 host) does
not repeat from the one-band run to the full one, by as much as the 40 MB the variant
measures (there the peak over the baseline was 0.54 x the input without ``--plot`` and
1.55 x with it; 0.98 x and 1.03 x with ``--no-metal``). ``nox -s big`` (``STRIDEWAVE_BIG=1``)
runs the demo as shipped on 2.5e8 float32 values (1 GB), with and without ``--plot``,
and prints the wall time, the peak, and the peak over the input.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads VmHWM from Linux's /proc"
)

CHILD = """
import sys
import stridewave.cli._demo as demo
demo.CHUNK = int(sys.argv[1])
demo.PCA_CHUNK = min(demo.PCA_CHUNK, demo.CHUNK)
demo.MX_CHUNK = min(demo.MX_CHUNK, demo.CHUNK)
demo.CHECK_CHUNK = min(demo.CHECK_CHUNK, demo.CHUNK)
from stridewave.cli._main import main
status = main(sys.argv[2:])
with open("/proc/self/status") as f:
    peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
print("PEAK_RSS_BYTES", peak * 1024)
sys.exit(status)
"""


def _write_npy(path: Path, n: int, columns: int = 1) -> int:
    """Write ``n`` float32 values (normal, a few -0.0 and NaN) a chunk at a time.

    With ``columns > 1`` the file holds a ``(n // columns, columns)`` table.
    """
    shape = (n,) if columns == 1 else (n // columns, columns)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=shape)
    flat = out.reshape(-1)
    rng = np.random.default_rng(16)
    step = 1 << 22
    for start in range(0, n, step):
        stop = min(n, start + step)
        flat[start:stop] = rng.standard_normal(stop - start, dtype=np.float32)
    flat[::1_000_003] = -0.0
    flat[7::10_000_019] = np.nan
    out.flush()
    del out, flat
    return n * 4


def _peak(path: Path, chunk: int, tmp: Path, *flags: str) -> tuple[int, float, str]:
    # as a newcomer runs it: without STRIDEWAVE_METAL_DEVICE (which the suite's
    # conftest sets), so on a machine without a GPU the Metal step is skipped
    env = {**os.environ, "TMPDIR": str(tmp)}
    env.pop("STRIDEWAVE_METAL_DEVICE", None)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(chunk), "demo", str(path), *flags],
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "every value survived" in proc.stdout and "matches numpy .T: yes" in proc.stdout
    peak = int(proc.stdout.rsplit("PEAK_RSS_BYTES", 1)[1].split()[0])
    return peak, wall, proc.stdout


def _check(
    tmp_path: Path,
    n: int,
    chunk: int,
    budget: int,
    plot: bool,
    columns: int = 1,
    options: tuple[str, ...] = (),
) -> tuple[int, int, int, float, str]:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # one band of the same shape: the interpreter, its imports and what the libraries
    # keep after a first call of that size (OpenBLAS's per-thread buffers)
    tiny = tmp_path / "tiny.npy"
    _write_npy(tiny, max(1, chunk // columns) * columns, columns=columns)
    data = tmp_path / "data.npy"
    size = _write_npy(data, n, columns=columns)
    flags = (*options, "--plot", str(tmp_path / "demo.png")) if plot else options
    baseline, _, _ = _peak(tiny, chunk, tmp, *flags)
    peak, wall, out = _peak(data, chunk, tmp, *flags)
    assert peak <= size + baseline + budget, (
        f"peak {peak / 2**20:.0f} MiB > {size / 2**20:.0f} MiB input + "
        f"{baseline / 2**20:.0f} MiB baseline + {budget / 2**20:.0f} MiB budget"
    )
    return size, baseline, peak, wall, out


@pytest.mark.parametrize("plot", [False, True], ids=["no-plot", "plot"])
def test_the_demo_peaks_at_one_copy_of_the_input_plus_a_constant(
    tmp_path: Path, plot: bool
) -> None:
    """The peak is bounded above by one copy of the input plus the one-band baseline.

    The upper bound is what the demo promises, and what can fail: a second copy of the
    data, or the input's mapped pages left resident beside the carrier (40 MB each),
    exceed the 16 MiB budget for chunk temporaries. The lower bound is only that the
    peak holds the input once (``peak >= size``): the carrier's storage is resident
    all at once, whatever the allocator does. How far the peak rises *above the
    baseline* is not asserted: the baseline run's own transient peak (imports,
    OpenBLAS's per-thread buffers, the allocator's arenas, a GPU runtime) need not
    coincide with the carrier in the large run, so that difference depends on the
    machine: 0.96 to 1.03 x the input on a 2-core Python 3.11 machine and on a
    16-core Python 3.12 / NumPy 2.5 host, about 0.5 x on that host with MLX's GPU
    runtime loaded (which ``--no-metal`` leaves out here).
    """
    if plot:
        pytest.importorskip("matplotlib")
    chunk = 1 << 16
    # a table of 100 columns: every step must bound what it reads per column too
    size, _, peak, _, out = _check(
        tmp_path, 10**7, chunk, budget=16 << 20, plot=plot, columns=100, options=("--no-metal",)
    )
    data = np.load(tmp_path / "data.npy", mmap_mode="r")
    negative_zeros = int(np.count_nonzero((data == 0) & np.signbit(data)))
    assert negative_zeros >= 10
    assert f"sign of zero: {negative_zeros} values -0.0, kept" in out
    assert "streamed in chunks of 65,536 values" in out
    # the peak counts the input once (allocator-independent); see the docstring
    assert peak >= size, f"peak {peak} B below the {size} B the carrier holds at once"
    assert ("  plot " in out) is plot


@pytest.mark.big
@pytest.mark.skipif(os.environ.get("STRIDEWAVE_BIG") != "1", reason="1 GB demo run: nox -s big")
@pytest.mark.parametrize("plot", [False, True], ids=["no-plot", "plot"])
def test_the_demo_on_1_gb_peaks_at_one_copy_of_the_input_plus_the_interpreter(
    tmp_path: Path, plot: bool
) -> None:
    from stridewave.cli._demo import CHUNK

    if plot:
        pytest.importorskip("matplotlib")
    n = 250_000_000
    # chunk temporaries: about 16 bytes per chunk value at the peak steps
    size, baseline, peak, wall, out = _check(tmp_path, n, CHUNK, budget=16 * CHUNK, plot=plot)
    print(
        f"\nbig demo{' --plot' if plot else ''}: {n:,} float32 values ({size / 1e9:.2f} GB), "
        f"wall {wall:.1f} s, peak RSS {peak / 2**20:,.0f} MiB = {peak / size:.2f} x input "
        f"(baseline {baseline / 2**20:,.0f} MiB; above baseline {(peak - baseline) / size:.2f} x)"
    )
    print(out)
