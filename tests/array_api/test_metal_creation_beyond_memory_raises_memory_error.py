"""Metal results no process here can hold raise ``MemoryError`` before MLX allocates.

CONTRACT section 7 ("Resource errors": never a crash inside a backend). MLX does not
fail an allocation it cannot make: it crashes the process (SIGSEGV). ``Metal(n)`` and
the CPU device refuse such a size with ``MemoryError``; the array API's Metal results
(creation functions and operations alike) are checked the same way before they are
scheduled. The scenario runs in a fresh interpreter under ``RLIMIT_AS`` of 1 GiB, with
results of 2 GiB and more.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ..metal_scripts import requires_mlx, run_script  # noqa: TID252

pytestmark = [
    requires_mlx,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS on Linux"),
]

_SCRIPT = """
import resource
import stridewave as sw
import stridewave.array_api as xp

METAL = xp.Device("Metal")
one = xp.asarray([1.0], device=METAL)
assert float(xp.sum(one + 1)) == 2.0  # MLX has started before the limit is set
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) << 10 for line in status if line.startswith("VmSize:"))
if size > 1 << 29:
    # (a GPU runtime, even unused, maps far more address space than the limit: under
    # it every later mapping fails, and the scenario cannot be staged)
    print("unstaged: the process already maps", size >> 20, "MiB")
    raise SystemExit(0)
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))
n = 1 << 29  # float32: 2 GiB
cases = {
    "Metal(n)": lambda: sw.Metal(n),
    "zeros on CPU": lambda: xp.zeros(n, device="cpu"),
    "zeros": lambda: xp.zeros(n, device=METAL),
    "ones": lambda: xp.ones((2, n), device=METAL),
    "empty": lambda: xp.empty(n, device=METAL),
    "full": lambda: xp.full(n, 2.5, device=METAL),
    "full of int32": lambda: xp.full(n, 7, dtype=xp.int32, device=METAL),
    "arange": lambda: xp.arange(float(n), device=METAL),
    "linspace": lambda: xp.linspace(0.0, 1.0, n, device=METAL),
    "eye": lambda: xp.eye(1 << 15, device=METAL),
    "an operation": lambda: xp.broadcast_to(one, (n,)) * 2.0,
}
for name, make in cases.items():
    try:
        make()
    except MemoryError as exc:
        # (NumPy words its own MemoryError; the Metal ones are the carrier's check's)
        assert "on CPU" in name or "more than this process can ever hold" in str(exc), exc
        print(name, "refused", flush=True)
    else:
        raise AssertionError(name + " was not refused")
small = xp.zeros(1000, device=METAL) + 1.0  # sizes that fit still work
assert float(xp.sum(small)) == 1000.0
print("ok")
"""


def test_metal_results_beyond_the_process_memory_raise_memory_error(tmp_path: Path) -> None:
    done = run_script(_SCRIPT, tmp_path=tmp_path, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr[-3000:])
    last = done.stdout.splitlines()[-1]
    if last.startswith("unstaged:"):
        pytest.skip(f"RLIMIT_AS of 1 GiB cannot be staged here ({last})")
    assert last == "ok"
