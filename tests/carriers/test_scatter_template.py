"""The one scatter template: no kind overrides it; it checks once, pages in once, and
lets a backend take the source values on its own device."""

from __future__ import annotations

from collections.abc import Callable
from unittest import mock

import numpy as np
import pytest

from stridewave import CPU, Carrier, DType, Evictable, FileBacked, Layout, Metal, Tensor
from stridewave.carriers._scatter import ScatterSource, check_scatter_arguments

from .conftest import ALL_KINDS, HAVE_MLX, NO_MLX_REASON

F32 = DType.Float32


def whole(carrier: Carrier) -> Tensor:
    return Tensor(carrier, Layout((carrier.size(),)))


def test_no_kind_overrides_the_scatter_template() -> None:
    for kind in {k.cls for k in ALL_KINDS}:
        assert kind.scatter is Carrier.scatter, f"{kind.__name__} overrides scatter"


def test_an_evicted_evictable_checks_once_and_pages_in_once() -> None:
    receiver = Evictable(CPU(0).new_like([0.0] * 4), FileBacked(dtype=F32))
    receiver.evict()
    source = CPU(0).new_like([1.0, 2.0, 3.0, 4.0])
    checks = mock.Mock(wraps=check_scatter_arguments)
    promotions = mock.Mock(wraps=receiver._promote_locked)
    with (
        mock.patch("stridewave.carriers._base.check_scatter_arguments", checks),
        mock.patch.object(receiver, "_promote_locked", promotions),
    ):
        receiver.scatter(whole(source), whole(receiver), Layout((4,), (-1,)), 3)
    assert checks.call_count == 1
    assert promotions.call_count == 1
    assert list(receiver) == [4.0, 3.0, 2.0, 1.0]
    assert receiver.version == 1 and not receiver.is_evicted()


def test_a_refused_scatter_does_not_page_in() -> None:
    receiver = Evictable(CPU(0).new_like([0.0, 0.0], mutable=False), FileBacked(dtype=F32))
    receiver.evict()
    with pytest.raises(RuntimeError, match="mutable=False"):
        receiver.scatter(whole(CPU(2)), whole(receiver), Layout((2,)))
    assert receiver.is_evicted() and receiver.version == 0


def test_file_backed_primary_refuses_through_the_capability() -> None:
    receiver = Evictable(FileBacked(dtype=F32).new_like([0.0]), CPU(0))
    with pytest.raises(NotImplementedError, match="does not implement scatter"):
        receiver.scatter(whole(CPU(1)), whole(receiver), Layout((1,)))
    assert receiver.version == 0


def _no_host(self: ScatterSource) -> np.ndarray:
    raise AssertionError("the device path read the source on the host")


@pytest.mark.skipif(not HAVE_MLX, reason=NO_MLX_REASON)
@pytest.mark.parametrize("mapping", [Layout((4,)), Layout((2, 2), (1, 2)), Layout((4,), (0,))])
def test_metal_device_path_serves_evictables_on_both_sides(mapping: Layout) -> None:
    """A Metal source reaches a Metal receiver on the device, also through Evictables."""
    values = [1.0, 2.0, 3.0, 4.0]
    expected = np.zeros(4, np.float32)
    offsets = mapping.indices()
    for i, slot in enumerate(offsets.tolist()):
        expected[slot] = values[i]
    receivers: list[Callable[[], Carrier]] = [
        lambda: Metal(4),
        lambda: Evictable(Metal(4), CPU(0)),
    ]
    sources: list[Callable[[], Carrier]] = [
        lambda: Metal(0).new_like(values),
        lambda: Evictable(Metal(0).new_like(values), CPU(0)),
    ]
    for make_receiver in receivers:
        for make_source in sources:
            receiver, source = make_receiver(), make_source()
            with mock.patch.object(ScatterSource, "host", _no_host):
                receiver.scatter(Tensor(source, Layout(mapping.shape)), whole(receiver), mapping)
            assert np.asarray(receiver).tolist() == expected.tolist()
            assert receiver.version == 1


@pytest.mark.skipif(not HAVE_MLX, reason=NO_MLX_REASON)
def test_metal_receiver_takes_host_sources_of_other_kinds_and_dtypes() -> None:
    receiver = Evictable(Metal(3), CPU(0))
    receiver.evict()
    source = CPU(0, dtype=DType.Int32).new_like([5, 6, 7])
    receiver.scatter(whole(source), whole(receiver), Layout((3,), (-1,)), 2)
    assert list(receiver) == [7.0, 6.0, 5.0]
