"""A fork while another thread holds one of the package's locks never deadlocks the child.

CONTRACT section 7 ("a fork during any operation never deadlocks the child"): the
thread holding a lock does not exist in the child, so every lock of the package needs
an at-fork reset (``os.register_at_fork``). Two scenarios run in a fresh interpreter
whose forked children die of ``SIGALRM`` instead of hanging:

* a thread makes its first array-API call on a device (building the device's backend,
  under the device lock) while the main thread forks; the child sets its default device
  and computes;
* a thread holds every lock found in the modules of ``stridewave.array_api``,
  ``stridewave.carriers`` and ``stridewave.dtypes`` (module globals and class
  attributes) while the main thread forks; the child takes each of them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .metal_scripts import in_child_source, requires_mlx, run_script

pytestmark = [requires_mlx, pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")]

_FIRST_CALL = (
    in_child_source(timeout=20)
    + """
import threading
import stridewave.array_api as xp
import stridewave.array_api._host as host

# The first call on the Generic device builds its backend under the device lock:
# make that build wait until the fork has happened, so the lock is held at the fork.
real_backend = host.backend
building, go_on = threading.Event(), threading.Event()

def slow_backend(kind):
    if kind == "Generic":
        building.set()
        go_on.wait()
    return real_backend(kind)

host.backend = slow_backend
first = threading.Thread(target=lambda: xp.asarray([1.0], device="Generic"))
first.start()
assert building.wait(20)

def child():
    xp.set_default_device("cpu")
    assert float(xp.sum(xp.asarray([1.0, 2.0]))) == 3.0

status = in_child(child)
go_on.set()
first.join()
print(status)
"""
)

_EVERY_LOCK = (
    in_child_source(timeout=20)
    + """
import importlib, pkgutil, threading
import stridewave

PACKAGES = ("stridewave.array_api", "stridewave.carriers", "stridewave.dtypes")
for package in PACKAGES:
    module = importlib.import_module(package)
    for info in pkgutil.walk_packages(module.__path__, package + "."):
        importlib.import_module(info.name)

LOCK_TYPES = (type(threading.Lock()), type(threading.RLock()))

def locks():
    # (module, attribute path) -> lock, read afresh (a reset may rebind the name)
    found = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(PACKAGES):
            continue
        for attr, value in vars(module).items():
            if isinstance(value, LOCK_TYPES):
                found[(name, attr)] = value
            elif isinstance(value, type) and value.__module__ == name:
                for key, member in vars(value).items():
                    if isinstance(member, LOCK_TYPES):
                        found[(name, value.__name__ + "." + key)] = member
    return found

held = locks()
assert ("stridewave.array_api._device", "_lock") in held, sorted(held)
taken, go_on = threading.Event(), threading.Event()

def hold_all():
    for lock in held.values():
        lock.acquire()
    taken.set()
    go_on.wait()
    for lock in held.values():
        lock.release()

holder = threading.Thread(target=hold_all)
holder.start()
assert taken.wait(20)

def child():
    stuck = [key for key, lock in locks().items() if not lock.acquire(timeout=1)]
    assert not stuck, "held in the child: " + ", ".join(".".join(k) for k in stuck)

status = in_child(child)
go_on.set()
holder.join()
print(len(held), status)
"""
)


def test_a_fork_during_another_threads_first_array_api_call_leaves_the_child_usable(
    tmp_path: Path,
) -> None:
    done = run_script(_FIRST_CALL, tmp_path=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[-1] == "0", done.stdout + done.stderr[-3000:]


def test_every_lock_of_the_package_is_free_in_a_child_forked_while_a_thread_holds_it(
    tmp_path: Path,
) -> None:
    done = run_script(_EVERY_LOCK, tmp_path=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    count, status = done.stdout.split()[-2:]
    assert int(count) >= 4
    assert status == "0", done.stdout + done.stderr[-3000:]
