"""In-place operators on host storage compute into the carrier, as NumPy's do.

``x += y`` on a CPU, FileBacked or Generic Array writes its result straight into the
carrier's storage (one write, one version step), where it used to compute a new array
and scatter it back. These tests hold it to NumPy's in-place values and to the
promises a scatter keeps: one version step, views of the carrier see the new values,
refusals change nothing, and whatever it does not take (another dtype, a widening
scalar, a caller's error state) gives the general path's answer and errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave import CPU, Layout, Tensor

from .conftest import HOST_DEVICE_PARAMS

OPERATORS = {
    "add": lambda a, b: a.__iadd__(b),
    "subtract": lambda a, b: a.__isub__(b),
    "multiply": lambda a, b: a.__imul__(b),
    "divide": lambda a, b: a.__itruediv__(b),
    "pow": lambda a, b: a.__ipow__(b),
}


def _values(dtype: str) -> np.ndarray:
    return np.random.default_rng(7).uniform(1, 5, size=(3, 4)).astype(dtype)


@pytest.fixture(params=HOST_DEVICE_PARAMS)
def host_device(request: pytest.FixtureRequest) -> xp.Device:
    """Return each host device in turn."""
    return xp.Device(request.param)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "complex64"])
@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_an_in_place_operator_gives_numpys_values_in_one_version_step(
    host_device: xp.Device, name: str, dtype: str
) -> None:
    if name == "divide" and not dtype.startswith(("float", "complex")):
        pytest.skip("an integer array divided is float: refused, as in NumPy")
    a, b = _values(dtype), _values(dtype)[0]  # (b broadcasts along the rows)
    for other in (xp.asarray(b, device=host_device), 2):
        x = xp.asarray(a, device=host_device)
        view = x[1]  # (a view of the same carrier)
        before = x.carrier.version
        out = OPERATORS[name](x, other)
        assert out is x
        assert x.carrier.version == before + 1
        expected = a.copy()
        OPERATORS[name](expected, b if not isinstance(other, int) else 2)
        np.testing.assert_allclose(np.asarray(x.to_device("cpu")), expected, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(view.to_device("cpu")), expected[1], rtol=1e-6)


def test_an_operand_overlapping_the_target_is_read_before_it_is_written() -> None:
    a = np.arange(8, dtype=np.float64)
    x = xp.asarray(a)
    x += x[::-1]
    np.testing.assert_array_equal(np.asarray(x.to_device("cpu")), a + a[::-1])


def test_a_read_only_array_refuses_and_keeps_its_values_and_version() -> None:
    carrier = CPU.from_numpy(np.ones(4, dtype=np.float32), mutable=False)
    x = xp.asarray(Tensor(carrier, Layout((4,))))
    before = carrier.version
    with pytest.raises(RuntimeError):
        x += 1
    assert carrier.version == before
    np.testing.assert_array_equal(np.asarray(x), np.ones(4, dtype=np.float32))


def test_what_it_does_not_take_gives_the_general_paths_answers() -> None:
    small = xp.asarray(np.ones(3, dtype=np.float32))
    small += xp.asarray(np.full(3, 0.5, dtype=np.float64))  # (same-kind cast back)
    assert small.dtype == xp.float32
    np.testing.assert_array_equal(np.asarray(small), np.full(3, 1.5, dtype=np.float32))
    ints = xp.asarray(np.ones(3, dtype=np.int8))
    with pytest.raises(OverflowError):
        ints += 300
    with pytest.raises(TypeError):
        ints += 1.5  # (a float into an integer array: NumPy refuses the cast too)
    with pytest.raises(ValueError):
        small += xp.asarray(np.ones((2, 3), dtype=np.float32))  # (would change the shape)
    big = xp.asarray(np.full(2, 3e38, dtype=np.float32))
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        big *= 10
    np.testing.assert_array_equal(np.asarray(big), np.full(2, 3e38, dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big *= 10  # (no error state set: IEEE, silently)
    assert np.isinf(np.asarray(big)).all()


def test_an_in_place_operator_writes_into_the_storage_without_a_scatter(
    host_device: xp.Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    x = xp.asarray(np.arange(6, dtype=np.float32), device=host_device)
    storage = np.asarray(x.carrier)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("computed as a result and scattered back")

    monkeypatch.setattr(type(x.carrier), "_bulk_write", refuse)
    x *= 3
    x += xp.asarray(np.ones(6, dtype=np.float32), device=host_device)
    np.testing.assert_array_equal(np.asarray(x.carrier), np.arange(6, dtype=np.float32) * 3 + 1)
    assert np.shares_memory(np.asarray(x.carrier), storage) or host_device.name == "FileBacked"


def test_a_failed_integer_power_with_an_array_exponent_writes_nothing() -> None:
    x = xp.asarray(np.array([3, 4, 5]))
    before = x.carrier.version
    with pytest.raises(ValueError):
        x **= xp.asarray(np.array([2, -1, 2]))
    assert x.carrier.version == before
    np.testing.assert_array_equal(np.asarray(x), [3, 4, 5])


def test_in_place_operators_on_other_threads_each_write_once_under_the_carriers_lock() -> None:
    # Each x += 1 is one write under the carrier's lock (docs/threads-and-processes.md):
    # under forced switches no update is lost and each steps the version once.
    import sys
    import threading

    x = xp.asarray(np.zeros(64, dtype=np.float64))
    before, rounds, workers = x.carrier.version, 200, 4
    errors: list[Exception] = []

    def work() -> None:
        try:
            for _ in range(rounds):
                x.__iadd__(1)
        except Exception as exc:  # noqa: BLE001 (reported by the main thread)
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[0]
    assert x.carrier.version == before + rounds * workers
    expected = np.full(64, rounds * workers, dtype=np.float64)
    np.testing.assert_array_equal(np.asarray(x.to_device("cpu")), expected)
