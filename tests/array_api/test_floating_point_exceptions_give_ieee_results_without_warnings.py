"""Floating-point exceptions give IEEE 754 results without a warning, on every device.

The standard defines no floating-point warnings, and its consumers cannot silence a
namespace's portably: scikit-learn wraps its own divisions in ``numpy.errstate`` for
NumPy arrays only, so a NumPy user of ``StandardScaler`` on a constant column sees
nothing, while NumPy's ``RuntimeWarning`` used to reach a user of the CPU device from
inside stridewave. Every device now answers as Metal (MLX) always did: ``nan``,
``inf`` and ``-inf``, silently. A ``numpy.errstate`` (or ``numpy.seterr``) the caller
sets is NumPy's own choice and is honoured on the host devices, warnings included;
NumPy's state outside the namespace's calls is left as it was.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp

from .conftest import HOST_DEVICE_PARAMS

CASES: dict[str, Callable[[Any], Any]] = {
    "0/0": lambda x: x / x,
    "1/0": lambda x: (x + 1.0) / x,
    "log(0)": lambda x: xp.log(x),
    "sqrt(-1)": lambda x: xp.sqrt(x - 1.0),
    "exp overflow": lambda x: xp.exp(x + 1000.0),
    "mean of nan": lambda x: xp.mean(x / x),
    "in place": lambda x: x.__itruediv__(x),
    "cast overflow": lambda x: xp.astype(
        xp.asarray([1e300, -1e300], dtype=xp.float64, device=x.device), xp.float32
    ),
    # (complex128 is held in host memory on Metal, and float64 on a GPU: NumPy casts them)
    "held cast overflow": lambda x: xp.real(
        xp.astype(xp.asarray([1e300 + 0j], dtype=xp.complex128, device=x.device), xp.complex64)
    ),
    # (NumPy on a host copy for Metal: its fallbacks are quiet too)
    "matrix_norm overflow": lambda x: xp.linalg.matrix_norm(xp.reshape(x[:2] + 1e30, (1, 2))),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_device_answers_in_ieee_values_without_a_warning(device: xp.Device, case: str) -> None:
    x = xp.zeros(3, dtype=xp.float32, device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = CASES[case](x)
        values = [float(v) for v in np.asarray(out.to_device(xp.Device("CPU"))).reshape(-1)]
    assert not caught, [str(w.message) for w in caught]
    assert all(math.isnan(v) or math.isinf(v) for v in values), values


@pytest.mark.parametrize("kind", HOST_DEVICE_PARAMS)
def test_a_numpy_errstate_the_caller_sets_is_honoured_on_the_host(kind: str) -> None:
    x = xp.zeros(2, dtype=xp.float32, device=xp.Device(kind))
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        x / x
    with np.errstate(divide="warn"), pytest.warns(RuntimeWarning, match="divide by zero"):
        xp.log(x)
    with np.errstate(all="ignore"):
        assert math.isnan(float(xp.sum(x / x)))


def test_numpys_own_warnings_stay_as_they_were() -> None:
    x = xp.zeros(2)
    assert math.isnan(float(xp.sum(x / x)))
    with pytest.warns(RuntimeWarning, match="invalid value"):
        np.zeros(2) / np.zeros(2)
    assert np.geterr()["invalid"] == "warn"


_SCALER = """
import warnings
warnings.simplefilter("error")
import numpy as np
import sklearn
from sklearn.preprocessing import StandardScaler
import stridewave.array_api as xp

sklearn.set_config(array_api_dispatch=True)
X = np.random.default_rng(0).standard_normal((20, 3))
X[:, 1] = 5.0  # a constant column
expected = StandardScaler().fit(X)
for device in ("CPU", "Metal"):
    try:
        data = xp.asarray(X.astype(np.float32), device=device)
    except RuntimeError:  # Metal without MLX
        continue
    fitted = StandardScaler().fit(data)
    scale = np.asarray(xp.asarray(fitted.scale_).to_device(xp.Device("CPU")))
    np.testing.assert_allclose(scale, expected.scale_, rtol=1e-5)
    out = np.asarray(fitted.transform(data).to_device(xp.Device("CPU")))
    np.testing.assert_allclose(out, expected.transform(X), rtol=1e-4, atol=1e-5)
print("ok")
"""


def test_scikit_learns_standard_scaler_on_a_constant_column_warns_no_more_than_on_numpy(
    tmp_path: Path,
) -> None:
    pytest.importorskip("sklearn")
    env = dict(os.environ, SCIPY_ARRAY_API="1", TMPDIR=str(tmp_path))
    env.setdefault("STRIDEWAVE_METAL_DEVICE", "cpu")
    done = subprocess.run(
        [sys.executable, "-c", _SCALER],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "ok"


def test_a_numpy_without_the_error_state_variable_gets_the_same_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from stridewave.array_api import _backend

    monkeypatch.setattr(_backend, "_ERRSTATE", None)  # (NumPy's private name, looked up)
    divide = _backend.quiet(np.divide)
    zeros = np.zeros(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert np.isnan(divide(zeros, zeros)).all()
    assert not caught, [str(w.message) for w in caught]
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        divide(zeros, zeros)
