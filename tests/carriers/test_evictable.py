"""Evictable: every clause of CONTRACT section 4 and the spec's Evictable clauses.

The shared contract suite already runs on Evictable (promoted and evicted, through
the Kind table); this module covers what is particular to the two-tier carrier:
claiming, alias refusals, residency moves, transparent promotion, version
authority, release of both tiers, factories, faults and memory really going back.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

import stridewave.carriers._file_backed as file_backed_module
from stridewave import CPU, Carrier, DType, Evictable, FileBacked, Generic, Layout, Metal, Tensor

from .conftest import HAVE_MLX, NO_MLX_REASON

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool


def cpu_over_file(values: list[float], dtype: DType = F32) -> Evictable:
    primary = CPU(0, dtype=dtype).new_like(values)
    return Evictable(primary, FileBacked(dtype=dtype))


def whole(carrier: Carrier) -> Tensor:
    return Tensor(carrier, Layout((carrier.size(),)))


@pytest.fixture
def e() -> Iterator[Evictable]:
    carrier = cpu_over_file([1.0, 2.0, 3.0])
    yield carrier
    carrier.release()


# -- construction and claiming ---------------------------------------------------------


def test_starts_promoted_and_claims_both_tiers() -> None:
    primary, secondary = CPU(0).new_like([1.0, 2.0]), FileBacked(dtype=F32)
    e = Evictable(primary, secondary)
    assert not e.is_evicted()
    assert (e.size(), e.dtype(), e.version, list(e)) == (2, F32, 0, [1.0, 2.0])
    assert e.primary is primary and e.secondary is secondary
    for tier in (primary, secondary):
        assert tier.is_owned() and not tier.is_mutable()
    assert e.is_mutable() and not e.is_owned()
    assert "promoted" in repr(e) and "CPU over FileBacked" in repr(e)
    e.release()


def _unclaimed(*carriers: Carrier) -> bool:
    return all(not c.is_owned() for c in carriers)


def test_tiers_of_different_dtypes_claim_nothing() -> None:
    primary, secondary = CPU(2, dtype=F32), FileBacked(dtype=I32)
    with pytest.raises(ValueError, match="one dtype"):
        Evictable(primary, secondary)
    assert _unclaimed(primary, secondary) and primary.is_mutable()


def test_owned_tier_claims_nothing() -> None:
    first = Evictable(CPU(1), FileBacked(dtype=F32))
    owned_primary = first.primary
    fresh = FileBacked(dtype=F32)
    with pytest.raises(RuntimeError, match="already belongs to Evictable"):
        Evictable(owned_primary, fresh)
    assert _unclaimed(fresh)
    first.release()


def test_released_tier_claims_nothing() -> None:
    primary, secondary = CPU(1), FileBacked(dtype=F32)
    primary.release()
    with pytest.raises(RuntimeError, match="released"):
        Evictable(primary, secondary)
    assert _unclaimed(primary, secondary)


def test_same_carrier_twice_claims_nothing() -> None:
    tier = CPU(0)
    with pytest.raises(RuntimeError, match="listed twice"):
        Evictable(tier, tier)
    assert _unclaimed(tier)


@pytest.mark.parametrize(
    ("secondary", "match"),
    [
        (lambda: CPU(0, mutable=False), "intrinsically mutable"),
        (lambda: CPU(3), "empty secondary"),
    ],
)
def test_unsuitable_secondary_is_a_value_error(secondary, match) -> None:  # type: ignore[no-untyped-def]
    primary, second = CPU(3), secondary()
    with pytest.raises(ValueError, match=match):
        Evictable(primary, second)
    assert _unclaimed(primary, second)


def test_non_carrier_tier_is_a_type_error() -> None:
    primary = CPU(1)
    with pytest.raises(TypeError, match="Carrier"):
        Evictable(primary, np.zeros(0, np.float32))  # type: ignore[arg-type]
    assert _unclaimed(primary)


def test_kind_declared_no_secondary_cannot_be_secondary() -> None:
    class NoLoad(Generic):
        _raw_load = Carrier._raw_load
        capabilities = dataclasses.replace(Generic.capabilities, secondary=False)

    primary, second = CPU(1), NoLoad([], dtype=F32)
    with pytest.raises(ValueError, match="may not be one"):
        Evictable(primary, second)
    assert _unclaimed(primary, second)


@pytest.mark.skipif(not HAVE_MLX, reason=NO_MLX_REASON)
def test_metal_is_refused_as_a_secondary_at_construction() -> None:
    """``Evictable(CPU(4), Metal(0))`` is a ValueError, not a later evict() failure."""
    primary, second = CPU(4), Metal(0)
    assert Metal.capabilities.secondary is False
    with pytest.raises(ValueError, match="Metal as its secondary"):
        Evictable(primary, second)
    assert _unclaimed(primary, second)


# -- the retained aliases --------------------------------------------------------------


def test_aliases_refuse_writes_scatter_versions_moves_and_release() -> None:
    primary, secondary = CPU(0).new_like([1.0, 2.0]), FileBacked(dtype=F32)
    e = Evictable(primary, secondary)
    source = CPU(0).new_like([9.0, 9.0])
    for alias in (primary, secondary):
        actions: tuple[Callable[[], object], ...] = (
            partial(alias.set_value, 0, 5.0),
            partial(alias.__setitem__, 0, 5.0),
            partial(alias._advance_version, "step"),
            alias.release,
        )
        for action in actions:
            with pytest.raises(RuntimeError, match="Evictable"):
                action()
    with pytest.raises(RuntimeError, match="Evictable"):
        primary.scatter(whole(source), whole(primary), Layout((2,)))
    with pytest.raises(RuntimeError, match="Evictable"):
        secondary.resize(4)
    assert list(e) == [1.0, 2.0] and e.version == 0
    e.evict()
    assert primary.is_released() and primary.is_owned()  # the alias stays released for good
    e.promote()
    assert e.primary is not primary and e.primary.is_owned() and primary.is_released()
    e.release()


# -- residency ---------------------------------------------------------------------------


def test_scenario_preserve_version_across_eviction_and_promotion(e: Evictable) -> None:
    """Spec Scenario "Preserve version across eviction and promotion"."""
    e[0] = 10.0
    assert e.version == 1
    for step in (e.evict, e.evict, e.promote, e.promote, e.evict, e.promote):
        step()
        assert e.version == 1
    assert list(e) == [10.0, 2.0, 3.0] and e.version == 1


def test_evict_moves_values_into_the_secondary_file(e: Evictable) -> None:
    original = e.primary
    e.evict()
    assert e.is_evicted() and original.is_released()
    assert (e.size(), len(e), e.dtype()) == (3, 3, F32)  # logical in both states
    assert isinstance(e.secondary, FileBacked)
    assert np.fromfile(e.secondary.path, dtype="<f4").tolist() == [1.0, 2.0, 3.0]
    assert "evicted" in repr(e)
    e.promote()
    assert not e.is_evicted() and e.secondary.size() == 0
    assert os.path.getsize(e.secondary.path) == 0
    assert isinstance(e.primary, CPU) and e.primary is not original


def test_generic_over_cpu_and_bool() -> None:
    e = Evictable(Generic([True, False], dtype=BOOL), CPU(0, dtype=BOOL))
    e.evict()
    assert e.secondary.size() == 2 and e.primary.is_released()
    assert e[0] is True and not e.is_evicted()
    assert isinstance(e.primary, Generic) and e.secondary.size() == 0
    e.release()


def test_evicted_reads_writes_and_scatter_promote_first(e: Evictable) -> None:
    e.evict()
    assert e.get_value(1) == 2.0 and not e.is_evicted() and e.version == 0
    e.evict()
    assert e[2] == 3.0 and not e.is_evicted()
    e.evict()
    e[0] = 7.0
    assert not e.is_evicted() and e.version == 1
    e.evict()
    e.set_value(1, 8.0)
    assert not e.is_evicted() and e.version == 2
    e.evict()
    source = CPU(0).new_like([4.0, 5.0, 6.0])
    e.scatter(whole(source), whole(e), Layout((3,), (-1,)), 2)
    assert not e.is_evicted() and e.version == 3
    assert list(e) == [6.0, 5.0, 4.0]


def test_scatter_from_itself_while_evicted(e: Evictable) -> None:
    e.evict()
    e.scatter(whole(e), whole(e), Layout((3,), (-1,)), 2)
    assert list(e) == [3.0, 2.0, 1.0] and e.version == 1


def test_failed_write_on_evicted_changes_nothing_but_residency(e: Evictable) -> None:
    e.evict()
    with pytest.raises(IndexError):
        e[3] = 1.0
    with pytest.raises(TypeError):
        e[0] = "x"
    assert e.version == 0 and list(e) == [1.0, 2.0, 3.0]


def test_numpy_export_and_iteration_in_both_states(e: Evictable) -> None:
    e.evict()
    view = np.asarray(e)
    assert not e.is_evicted() and view.tolist() == [1.0, 2.0, 3.0]
    e[0] = 5.0
    assert view[0] == 5.0  # the view is of the primary
    e.evict()
    assert list(e) == [5.0, 2.0, 3.0] and not e.is_evicted()
    e.evict()
    assert np.array(e, copy=True).tolist() == [5.0, 2.0, 3.0]


def test_immutable_evictable_moves_but_refuses_writes() -> None:
    e = Evictable(CPU(0).new_like([1.0], mutable=False), FileBacked(dtype=F32))
    assert not e.is_mutable()
    e.evict()
    with pytest.raises(RuntimeError, match="mutable=False"):
        e[0] = 2.0
    assert e.is_evicted()  # refused before paging in
    assert e[0] == 1.0 and not e.primary.is_mutable() and e.primary.is_owned()
    e.release()


def test_owned_evictable_refuses_outside_moves_but_reads(e: Evictable) -> None:
    e.evict()
    owner = type("Owner", (), {})()  # a composite stand-in (weakly referenced)
    Carrier._claim_all(owner, (e,))
    for action in (e.evict, e.promote):
        with pytest.raises(RuntimeError, match="belongs to"):
            action()
    assert e.is_evicted()
    assert e[0] == 1.0 and not e.is_evicted()  # a read pages in
    with e._access(owner):
        e.evict()
    assert e.is_evicted()
    e._unclaim(owner)


# -- release -----------------------------------------------------------------------------


@pytest.mark.parametrize("evicted", [False, True])
def test_release_releases_both_tiers_and_stops_moves(evicted: bool) -> None:
    e = cpu_over_file([1.0, 2.0])
    if evicted:
        e.evict()
    primary, secondary = e.primary, e.secondary
    assert isinstance(secondary, FileBacked)
    path = secondary.path
    e.release()
    e.release()  # releasing twice is a no-op, not an error
    assert e.is_released() and primary.is_released() and secondary.is_released()
    assert not os.path.exists(path)
    assert e.size() == 0 and e.dtype() is F32
    for action in (e.evict, e.promote):
        with pytest.raises(RuntimeError, match="released"):
            action()
    with pytest.raises(RuntimeError):
        e[0]
    with pytest.raises(RuntimeError):
        np.asarray(e)
    fresh = e.new_like([3.0])  # a released prototype still builds
    assert list(fresh) == [3.0] and not fresh.is_evicted()
    fresh.release()


# -- dtype support and factories -----------------------------------------------------------


def test_supported_dtypes_are_the_identity_intersection(e: Evictable) -> None:
    assert e.supports_storage_dtype(F32) and e.supports_storage_dtype(I32)
    assert not e.supports_storage_dtype(BOOL)  # FileBacked cannot
    assert not e.supports_storage_dtype(DType.Floating)  # CPU does not list it
    assert not e.supports_storage_dtype(DType.Any)
    g = Evictable(Generic([1.0], dtype=F32), Generic([], dtype=F32))
    assert g.supports_storage_dtype(DType.Any) and g.supports_storage_dtype(DType.Floating)


@pytest.mark.parametrize("evicted", [False, True])
def test_factories_return_promoted_hierarchies(e: Evictable, evicted: bool) -> None:
    if evicted:
        e.evict()
    made = [
        e.new_like([4.0, 5.0]),
        e.new_like(np.arange(3, dtype=np.int32), dtype=I32),
        e.allocate_like(4),
        e.allocate_like(2, dtype=I32, mutable=False),
    ]
    for fresh in made:
        assert isinstance(fresh, Evictable)
        assert not fresh.is_evicted()
        assert type(fresh.primary) is CPU and type(fresh.secondary) is FileBacked
        assert fresh.secondary.size() == 0 and fresh.secondary is not e.secondary
        assert fresh.secondary._intrinsic_mutable and fresh.version == 0
    assert list(made[0]) == [4.0, 5.0] and made[1].dtype() is I32
    assert list(made[2]) == [0.0] * 4 and not made[3].is_mutable()
    assert e.is_evicted() is evicted  # factories read nothing from the receiver
    with pytest.raises(ValueError):
        e.new_like([True], dtype=BOOL)
    with pytest.raises(ValueError):
        e.allocate_like(1, dtype=DType.Floating)
    for fresh in made:
        fresh.evict()
        fresh.release()


# -- faults ---------------------------------------------------------------------------------


def _assert_intact(e: Evictable, values: list[float], version: int) -> None:
    assert not e.is_evicted() and not e.primary.is_released()
    assert e.secondary.size() == 0
    assert list(e) == values and e.version == version


def test_full_disk_during_evict_keeps_everything(e: Evictable, tmp_path: Path) -> None:
    """A real ENOSPC: the staging file's descriptor is /dev/full."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    e[0] = 9.0

    def full(*args: object) -> tuple[str, int]:
        return "staging-on-dev-full", os.open("/dev/full", os.O_RDWR)

    with (
        mock.patch.object(file_backed_module, "_create_file", side_effect=full),
        pytest.raises(OSError) as info,
    ):
        e.evict()
    assert info.value.errno == errno.ENOSPC or "space" in str(info.value).lower()
    _assert_intact(e, [9.0, 2.0, 3.0], 1)
    assert os.path.exists("/dev/full")
    e.evict()  # and it works once space is back
    assert e.is_evicted() and list(e) == [9.0, 2.0, 3.0]


def test_unwritable_directory_during_evict_keeps_everything(e: Evictable) -> None:
    denied = PermissionError(errno.EACCES, "Permission denied", "/unwritable")
    with (
        mock.patch.object(file_backed_module, "_create_file", side_effect=denied),
        pytest.raises(PermissionError),
    ):
        e.evict()
    _assert_intact(e, [1.0, 2.0, 3.0], 0)


def test_write_error_after_partial_file_keeps_everything(e: Evictable) -> None:
    def half_written(values: np.ndarray) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with (
        mock.patch.object(FileBacked, "_raw_load", side_effect=half_written),
        pytest.raises(OSError, match="No space"),
    ):
        e.evict()
    _assert_intact(e, [1.0, 2.0, 3.0], 0)


def test_secondary_that_reads_back_wrong_values_is_refused(e: Evictable) -> None:
    secondary = e.secondary
    original = FileBacked._raw_load

    def corrupting(self: FileBacked, values: np.ndarray) -> None:
        original(self, values[::-1].copy() if values.shape[0] else values)

    with (
        mock.patch.object(FileBacked, "_raw_load", corrupting),
        pytest.raises(RuntimeError, match="did not read back"),
    ):
        e.evict()
    _assert_intact(e, [1.0, 2.0, 3.0], 0)
    assert secondary.size() == 0


def test_failed_promotion_keeps_the_secondary(e: Evictable) -> None:
    e[1] = 4.0
    e.evict()
    for action in (e.promote, lambda: e[0], lambda: e.__setitem__(0, 1.0), lambda: np.asarray(e)):
        with (
            mock.patch.object(CPU, "_raw_new_like", side_effect=MemoryError("no memory")),
            pytest.raises(MemoryError),
        ):
            action()
        assert e.is_evicted() and e.version == 1
        assert isinstance(e.secondary, FileBacked)
        assert np.fromfile(e.secondary.path, dtype="<f4").tolist() == [1.0, 4.0, 3.0]
    e.promote()
    assert list(e) == [1.0, 4.0, 3.0] and e.version == 1


def test_failed_secondary_shrink_warns_and_stays_promoted(e: Evictable) -> None:
    e.evict()
    with (
        mock.patch.object(FileBacked, "_raw_load", side_effect=OSError(errno.EIO, "I/O")),
        pytest.warns(ResourceWarning, match="size 0"),
    ):
        e.promote()
    assert not e.is_evicted() and list(e) == [1.0, 2.0, 3.0]
    e.evict()  # the stale copy is simply replaced
    assert isinstance(e.secondary, FileBacked)
    assert np.fromfile(e.secondary.path, dtype="<f4").tolist() == [1.0, 2.0, 3.0]


# -- memory really goes back ---------------------------------------------------------------

_RSS_SCRIPT = textwrap.dedent(
    """
    import os, sys
    import numpy as np
    from stridewave import CPU, DType, Evictable, FileBacked

    page = os.sysconf("SC_PAGE_SIZE")

    def anon_bytes():
        with open("/proc/self/statm") as f:
            fields = f.read().split()
        return (int(fields[1]) - int(fields[2])) * page  # resident minus shared (file)

    n = 50_000_000  # 200 MB of Float32
    e = Evictable(CPU(n), FileBacked(dtype=DType.Float32))
    data = np.arange(n, dtype=np.float32)
    e2 = e.new_like(data)
    del data
    e.release()
    before = anon_bytes()
    e2.evict()
    after = anon_bytes()
    check = np.fromfile(e2.secondary.path, dtype="<f4", count=10, offset=4 * (n - 10))
    print(before, after, int(e2.primary.is_released()), bool((check == np.arange(n, dtype=np.float32)[-10:]).all()))
    """
)


def test_evict_returns_the_primary_memory() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT], capture_output=True, text=True, check=True
    ).stdout.split()
    before, after = int(out[0]), int(out[1])
    assert out[2:] == ["1", "True"]
    assert before - after > 150 * 2**20, (before, after)


_PEAK_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    from stridewave import CPU, DType, Evictable, FileBacked

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith(key + ":"))

    def peak_of(step):
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current resident set
        before = status("VmRSS")
        step()
        return status("VmHWM") - before

    n = 25_000_000  # 100 MB of Float32
    e = Evictable(CPU.from_numpy(np.arange(n, dtype=np.float32)), FileBacked(dtype=DType.Float32))
    evict = peak_of(e.evict)
    promote = peak_of(e.promote)
    last = np.asarray(e)[-1]
    print(evict, promote, int(last == n - 1))
    """
)


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux's VmHWM reset")
def test_evict_and_promote_hold_one_tier_and_a_chunk_of_the_file() -> None:
    # the read-back of evict() and the copy of promote() read the file a chunk at a
    # time and unmap each chunk's pages: the file never sits resident beside a tier
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK_SCRIPT], capture_output=True, text=True, check=False
    )
    if proc.returncode and "clear_refs" in proc.stderr:
        pytest.skip("this kernel does not let a process reset its VmHWM")
    assert proc.returncode == 0, proc.stderr
    evict, promote, ok = (int(word) for word in proc.stdout.split())
    tier = 100_000_000
    assert ok == 1
    assert evict < tier // 4, evict  # the memory tier is already resident
    assert promote < tier + tier // 4, promote  # the new tier, not the file beside it


def test_eviction_docs_examples_run() -> None:
    import doctest
    import re

    doc = Path(__file__).resolve().parents[2] / "docs" / "eviction.md"
    blocks = re.findall(r"```pycon\n(.*?)```", doc.read_text(), flags=re.DOTALL)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(parser.get_doctest("\n".join(blocks), {}, "eviction.md", str(doc), 0))
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted > 10
