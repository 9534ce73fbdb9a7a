"""``xp.float16`` and ``xp.bfloat16``: beyond the standard, on every device (CONTRACT 9, v3).

They are descriptors registered with the thirteen and never listed among them
(``dtypes()``); every device stores and computes them in the dtype (NumPy float16 and
ml_dtypes bfloat16 on the host, MLX's own on Metal); promotion is NumPy's with
ml_dtypes, as JAX, PyTorch and MLX have it (``float16`` with ``bfloat16`` is
``float32``), and across kinds each device's library's, as for the standard's dtypes.
"""

from __future__ import annotations

import importlib.util
import pickle
import subprocess
import sys
import textwrap
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import stridewave as sw
import stridewave.array_api as xp
from stridewave import CPU, DType, FileBacked, Generic, Metal
from stridewave.carriers._extension import (
    CPUExtension,
    FileBackedExtension,
    GenericExtension,
    MetalExtension,
)

HAVE_MLX = importlib.util.find_spec("mlx") is not None
needs_mlx = pytest.mark.skipif(not HAVE_MLX, reason="mlx is not importable")

HALF = (xp.float16, xp.bfloat16)
HALF_IDS = ("float16", "bfloat16")
BF16 = np.dtype(ml_dtypes.bfloat16)
#: Each half dtype's NumPy form.
NP = {xp.float16: np.dtype(np.float16), xp.bfloat16: BF16}

STANDARD = dict(xp.__array_namespace_info__().dtypes(device="cpu"))
#: The standard's thirteen and the two, by name (their NumPy forms name them).
EVERY = {**STANDARD, "float16": xp.float16, "bfloat16": xp.bfloat16}


def numpy_of(dtype: DType) -> np.dtype[Any]:
    """Return NumPy's form of a namespace dtype."""
    return NP.get(dtype) or np.dtype(str(dtype))


def host(x: Any) -> np.ndarray[Any, Any]:
    """Return a NumPy copy of an Array's values."""
    return np.array(np.asarray(x), copy=True)


# -- the dtypes themselves ----------------------------------------------------------------------


def test_they_are_16_bit_floating_descriptors_registered_beside_the_thirteen() -> None:
    assert xp.float16 is DType.from_name("Float16") and xp.bfloat16 is DType.from_name("BFloat16")
    for dtype in HALF:
        assert dtype.is_simple() and getattr(dtype, "bits", None) == 16
        assert dtype.supertype is DType.Floating
    assert not hasattr(DType, "Float16")  # (the class namespace holds built-ins only)
    assert sw.to_numpy_dtype(xp.float16) == np.float16 and sw.to_numpy_dtype(xp.bfloat16) == BF16
    assert sw.from_numpy_dtype(np.float16) is xp.float16
    assert sw.from_numpy_dtype(BF16) is xp.bfloat16


def test_dtypes_lists_the_standard_thirteen_only_on_every_device_and_kind(
    device: xp.Device,
) -> None:
    info = xp.__array_namespace_info__()
    for kind in (None, "real floating", "numeric", ("real floating", "complex floating")):
        listed = info.dtypes(device=device, kind=kind)
        assert xp.float16 not in listed.values() and xp.bfloat16 not in listed.values()
    assert len(info.dtypes(device=device)) == 13
    assert info.default_dtypes(device=device)["real floating"] in (xp.float32, xp.float64)


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_they_are_real_floating_and_numeric_and_finfo_is_numpys(dtype: DType) -> None:
    assert xp.isdtype(dtype, "real floating") and xp.isdtype(dtype, "numeric")
    assert not xp.isdtype(dtype, ("integral", "complex floating", "bool"))
    info, ref = xp.finfo(dtype), ml_dtypes.finfo(numpy_of(dtype))  # type: ignore[no-untyped-call]
    assert info.dtype is dtype and info.bits == 16
    assert (info.eps, info.max, info.min, info.smallest_normal) == (
        float(ref.eps),
        float(ref.max),
        float(ref.min),
        float(ref.smallest_normal),
    )
    assert xp.finfo(xp.ones(1, dtype=dtype)).dtype is dtype


# -- promotion ------------------------------------------------------------------------------------

PAIRS = [(h, name) for h in HALF_IDS for name in EVERY]


@pytest.mark.parametrize(("half", "other"), PAIRS)
def test_result_type_is_numpys_with_ml_dtypes(half: str, other: str) -> None:
    a, b = EVERY[half], EVERY[other]
    expected = np.promote_types(numpy_of(a), numpy_of(b))
    assert numpy_of(xp.result_type(a, b)) == expected
    assert xp.result_type(b, a) is xp.result_type(a, b)


def test_the_promotions_the_brief_names() -> None:
    f16, bf16 = xp.float16, xp.bfloat16
    assert xp.result_type(f16, bf16) is xp.float32  # (neither holds the other)
    assert xp.result_type(f16, xp.float32) is xp.float32
    assert xp.result_type(bf16, xp.float32) is xp.float32
    assert xp.result_type(f16, xp.float64) is xp.float64
    assert xp.result_type(f16, xp.complex64) is xp.complex64
    assert xp.result_type(f16, xp.int8) is f16 and xp.result_type(bf16, xp.uint8) is bf16
    assert xp.result_type(f16, xp.int16) is xp.float32
    assert xp.result_type(bf16, xp.int32) is xp.float64
    assert xp.result_type(f16, 1.5) is f16 and xp.result_type(bf16, 1) is bf16
    assert xp.result_type(f16, 1j) is xp.complex64 and xp.result_type(bf16, 1j) is xp.complex64
    assert xp.can_cast(f16, xp.float32) and xp.can_cast(bf16, xp.float64)
    assert not xp.can_cast(f16, bf16) and not xp.can_cast(bf16, f16)
    assert not xp.can_cast(xp.float32, f16) and not xp.can_cast(xp.int8, f16)


FLOATING = ("float16", "bfloat16", "float32", "float64")
FLOAT_PAIRS = [(h, name) for h in HALF_IDS for name in FLOATING]


def _mlx_promotion(a: DType, b: DType) -> DType:
    """Return the namespace dtype MLX's own promotion gives for ``a + b``."""
    import mlx.core as mx

    names = {"bool": "bool_"}
    with mx.stream(mx.cpu):
        x = mx.array([1], dtype=getattr(mx, names.get(str(a), str(a))))
        y = mx.array([1], dtype=getattr(mx, names.get(str(b), str(b))))
        found = str((x + y).dtype).rsplit(".", 1)[-1]
    result: DType = EVERY[found if found != "bool_" else "bool"]
    return result


@pytest.mark.parametrize(("half", "other"), FLOAT_PAIRS)
def test_operators_promote_floating_pairs_as_result_type_on_every_device(
    device: xp.Device, half: str, other: str
) -> None:
    if (
        device.name == "Metal"
        and EVERY[other] not in xp.__array_namespace_info__().dtypes(device=device).values()
        and other not in HALF_IDS
    ):
        pytest.skip(f"Metal here has no {other}")
    a = xp.asarray([1.5, 2.0], dtype=EVERY[half], device=device)
    b = xp.asarray([0.5, 4.0], dtype=EVERY[other], device=device)
    expected = xp.result_type(a, b)
    assert (a + b).dtype is expected and (b * a).dtype is expected
    assert xp.maximum(a, b).dtype is expected
    reference = np.asarray(host(a), dtype=np.float64) + np.asarray(host(b), dtype=np.float64)
    np.testing.assert_array_equal(host(a + b).astype(np.float64), reference)  # (exact here)
    if device.name == "Metal":
        assert _mlx_promotion(EVERY[half], EVERY[other]) is expected


MIXED = ("bool", "int8", "uint8", "int16", "uint16", "int32", "int64")
MIXED_PAIRS = [(h, name) for h in HALF_IDS for name in MIXED]


@pytest.mark.parametrize(("half", "other"), MIXED_PAIRS)
def test_across_kinds_each_device_gives_its_librarys_promotion(
    device: xp.Device, half: str, other: str
) -> None:
    a = xp.asarray([1.5, 2.0], dtype=EVERY[half], device=device)
    b = xp.asarray([1, 0] if other == "bool" else [1, 2], dtype=EVERY[other], device=device)
    if device.name == "Metal":
        if not HAVE_MLX:
            pytest.skip("mlx is not importable")
        expected = _mlx_promotion(EVERY[half], EVERY[other])  # (MLX: the float wins)
    else:
        expected = xp.result_type(a, b)  # (NumPy's, which result_type gives)
    assert (a + b).dtype is expected


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_python_scalars_keep_the_arrays_dtype(device: xp.Device, dtype: DType) -> None:
    x = xp.asarray([1.0, 2.0, 3.0], dtype=dtype, device=device)
    for result in (x + 1.5, 2 * x, x / 3, x - True, x**2, xp.pow(x, 0.5), 1.0 - x):
        assert result.dtype is dtype and result.device == device
    x += 0.25
    assert x.dtype is dtype and host(x).tolist() == [1.25, 2.25, 3.25]


def test_numpy_and_ml_dtypes_scalars_are_taken_as_their_python_values(device: xp.Device) -> None:
    b = xp.asarray([1.0, 2.0], dtype=xp.bfloat16, device=device)
    h = xp.asarray([1.0, 2.0], dtype=xp.float16, device=device)
    scalar = ml_dtypes.bfloat16(1.5)
    for result in (b + scalar, scalar * b, h + np.float16(0.5), h + scalar):
        assert result.dtype in HALF and result.device == device
    assert (b + scalar).dtype is xp.bfloat16 and (h + scalar).dtype is xp.float16
    assert host(b + scalar).tolist() == [2.5, 3.5]
    b[0] = scalar
    assert host(b).tolist() == [1.5, 2.0]


# -- creation, casts and reads --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_creation_functions_make_the_dtype_on_every_device(device: xp.Device, dtype: DType) -> None:
    np_dtype = numpy_of(dtype)
    made = {
        "asarray": (xp.asarray([0.1, 2.5, -3.0], dtype=dtype, device=device), [0.1, 2.5, -3.0]),
        "asarray of numpy": (
            xp.asarray(np.array([0.1, 7.0], dtype=np_dtype), device=device),
            np.array([0.1, 7.0], dtype=np_dtype),
        ),
        "zeros": (xp.zeros((2, 2), dtype=dtype, device=device), np.zeros((2, 2))),
        "ones": (xp.ones(3, dtype=dtype, device=device), np.ones(3)),
        "full": (xp.full((2,), 0.3, dtype=dtype, device=device), np.full(2, 0.3)),
        "arange": (xp.arange(0, 2, 0.5, dtype=dtype, device=device), np.arange(0, 2, 0.5)),
        "linspace": (xp.linspace(0, 1, 5, dtype=dtype, device=device), np.linspace(0, 1, 5)),
        "eye": (xp.eye(2, dtype=dtype, device=device), np.eye(2)),
        "full_like": (xp.full_like(xp.ones(2, dtype=dtype, device=device), 9.0), np.full(2, 9.0)),
    }
    for name, (x, values) in made.items():
        assert x.dtype is dtype and x.device == device, name
        got = host(x)
        assert got.dtype == np_dtype, name
        np.testing.assert_array_equal(got, np.asarray(values).astype(np_dtype), err_msg=name)
    empty = xp.empty((2, 3), dtype=dtype, device=device)
    assert empty.dtype is dtype and empty.shape == (2, 3)


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_astype_rounds_once_and_widening_back_is_exact(device: xp.Device, dtype: DType) -> None:
    values = np.array([0.1, 1 / 3, 1e-3, -2.5e4, 1 + 2**-8 + 2**-30])
    wide = xp.asarray(values, dtype=xp.float64 if device.name != "Metal" else xp.float32)
    wide = xp.asarray(wide, device=device)
    narrow = xp.astype(wide, dtype)
    assert narrow.dtype is dtype
    np.testing.assert_array_equal(host(narrow), host(wide).astype(numpy_of(dtype)))
    back = xp.astype(narrow, xp.float32)
    assert back.dtype is xp.float32
    np.testing.assert_array_equal(host(back), host(narrow).astype(np.float32))


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_a_finite_value_beyond_the_range_is_refused_as_float32s(
    device: xp.Device, dtype: DType
) -> None:
    big = 1e5 if dtype is xp.float16 else 1e39
    with pytest.raises(OverflowError, match=f"no finite {dtype}"):
        xp.asarray([1.0, big], dtype=dtype, device=device)
    with pytest.raises(OverflowError, match=f"no finite {dtype}"):
        xp.full(2, big, dtype=dtype, device=device)
    x = xp.zeros(2, dtype=dtype, device=device)
    with pytest.raises(OverflowError, match="use float32"):
        x[0] = big
    assert host(x).tolist() == [0.0, 0.0]  # (a failed write changes nothing)
    x[1] = float("inf")
    assert host(x).tolist() == [0.0, float("inf")]


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_moves_between_devices_keep_the_dtype_and_values(device: xp.Device, dtype: DType) -> None:
    x = xp.asarray([1.5, -2.25, 65504.0 if dtype is xp.float16 else 2.0**100], dtype=dtype)
    moved = x.to_device(device)
    back = moved.to_device("CPU")
    assert moved.dtype is dtype and moved.device == device and back.dtype is dtype
    assert host(back).tolist() == host(x).tolist()


def test_numpy_reads_float16_as_float16_and_bfloat16_as_ml_dtypes(device: xp.Device) -> None:
    h = xp.asarray([1.5, -2.0], dtype=xp.float16, device=device)
    b = xp.asarray([1.5, -2.0], dtype=xp.bfloat16, device=device)
    assert np.asarray(h).dtype == np.float16 and np.asarray(b).dtype == BF16
    assert host(b).tolist() == [1.5, -2.0] and float(b[0]) == 1.5
    view = np.asarray(b)  # (a writable Array exports a writable view, as every dtype)
    if view.flags.writeable:
        view[1] = 0.5
        assert host(b).tolist() == [1.5, 0.5]


def test_dlpack_exports_float16_and_names_the_fix_for_bfloat16(device: xp.Device) -> None:
    h = xp.asarray([1.5, -2.0], dtype=xp.float16, device=device)
    exported = np.from_dlpack(h)
    assert exported.dtype == np.float16 and exported.tolist() == [1.5, -2.0]
    b = xp.asarray([1.5, -2.0], dtype=xp.bfloat16, device=device)
    with pytest.raises(BufferError, match=r"xp\.astype\(x, xp\.float32\).*numpy\.asarray"):
        b.__dlpack__()
    assert np.from_dlpack(xp.astype(b, xp.float32)).tolist() == [1.5, -2.0]


# -- compute in the dtype -------------------------------------------------------------------------

UNARY = ("abs", "exp", "log", "sqrt", "sin", "tanh", "floor", "negative", "square", "expm1")
BINARY = ("add", "subtract", "multiply", "divide", "maximum", "atan2", "pow", "hypot")
REDUCTIONS = ("sum", "prod", "mean", "max", "min", "std", "var")


def _tolerance(dtype: DType, device: xp.Device) -> float:
    # host devices compute as NumPy (with ml_dtypes) does: the same values; Metal computes
    # in MLX, which may round an intermediate differently: a few units of the dtype's eps
    return 0.0 if device.name != "Metal" else 4 * xp.finfo(dtype).eps


def _numpy_reference(name: str, dtype: DType, *operands: np.ndarray[Any, Any]) -> Any:
    np_name = {"pow": "power"}.get(name, name)
    with np.errstate(all="ignore"):
        return getattr(np, np_name)(*operands).astype(numpy_of(dtype))


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_elementwise_functions_compute_in_the_dtype(device: xp.Device, dtype: DType) -> None:
    np_dtype = numpy_of(dtype)
    a = np.array([0.25, 0.5, 1.5, 3.0, 7.75], dtype=np_dtype)
    b = np.array([2.0, 0.75, 1.25, 0.5, 3.0], dtype=np_dtype)
    x, y = xp.asarray(a, device=device), xp.asarray(b, device=device)
    tolerance = _tolerance(dtype, device)
    for name in UNARY:
        got = getattr(xp, name)(x)
        assert got.dtype is dtype, name
        expected = _numpy_reference(name, dtype, a)
        np.testing.assert_allclose(
            host(got).astype(np.float64), expected.astype(np.float64), rtol=tolerance, err_msg=name
        )
    for name in BINARY:
        got = getattr(xp, name)(x, y)
        assert got.dtype is dtype, name
        expected = _numpy_reference(name, dtype, a, b)
        np.testing.assert_allclose(
            host(got).astype(np.float64), expected.astype(np.float64), rtol=tolerance, err_msg=name
        )
    assert xp.less(x, y).dtype is xp.bool
    assert host(xp.less(x, y)).tolist() == (a < b).tolist()


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_reductions_keep_the_dtype(device: xp.Device, dtype: DType) -> None:
    np_dtype = numpy_of(dtype)
    a = np.array([[0.5, 1.5, 2.0], [4.0, 0.25, 1.0]], dtype=np_dtype)
    x = xp.asarray(a, device=device)
    for name in REDUCTIONS:
        for axis in (None, 0, 1):
            got = getattr(xp, name)(x, axis=axis)
            assert got.dtype is dtype, (name, axis)
            expected = getattr(np, name)(a.astype(np.float64), axis=axis)
            np.testing.assert_allclose(
                host(got).astype(np.float64),
                expected,
                rtol=2 * xp.finfo(dtype).eps,
                err_msg=f"{name} axis={axis}",
            )
    assert xp.argmax(x, axis=1).dtype is xp.int64
    assert xp.cumulative_sum(x, axis=1).dtype is dtype
    assert host(xp.sort(x, axis=1)).tolist() == np.sort(a, axis=1).tolist()


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_products_and_linalg_keep_the_dtype_through_float32(
    device: xp.Device, dtype: DType
) -> None:
    # (NumPy has no LAPACK loop for either, and ml_dtypes' bfloat16 matmul answers in
    # float32: those compute in float32 and round back once)
    np_dtype = numpy_of(dtype)
    a = np.array([[2.0, 1.0], [0.5, 3.0]], dtype=np_dtype)
    x = xp.asarray(a, device=device)
    wide = a.astype(np.float32)
    cases = {
        "matmul": (x @ x, wide @ wide),
        "vecdot": (xp.vecdot(x, x), np.sum(wide * wide, axis=-1)),
        "tensordot": (xp.tensordot(x, x, axes=1), np.tensordot(wide, wide, axes=1)),
        "inv": (xp.linalg.inv(x), np.linalg.inv(wide)),
        "det": (xp.linalg.det(x), np.linalg.det(wide)),
        "solve": (xp.linalg.solve(x, x[:, 0]), np.linalg.solve(wide, wide[:, 0])),
        "vector_norm": (xp.linalg.vector_norm(x), np.linalg.norm(wide)),
        "svdvals": (xp.linalg.svdvals(x), np.linalg.svd(wide, compute_uv=False)),
    }
    for name, (got, expected) in cases.items():
        assert got.dtype is dtype, name
        np.testing.assert_allclose(
            host(got).astype(np.float64),
            np.asarray(expected).astype(np_dtype).astype(np.float64),
            rtol=2 * xp.finfo(dtype).eps,
            err_msg=name,
        )
    clipped = xp.clip(x, 0.75, 2.5)
    assert clipped.dtype is dtype
    assert host(clipped).tolist() == np.clip(a.astype(np.float32), 0.75, 2.5).tolist()


# -- storage --------------------------------------------------------------------------------------

SPEC_KINDS: tuple[type[sw.Carrier], ...] = (CPU, FileBacked, Generic, Metal)
EXTENSIONS: dict[str, type[sw.Carrier]] = {
    "CPU": CPUExtension,
    "FileBacked": FileBackedExtension,
    "Generic": GenericExtension,
    "Metal": MetalExtension,
}


def test_spec_carriers_keep_their_storage_sets_and_extension_carriers_store_both() -> None:
    for kind in SPEC_KINDS:
        for dtype in HALF:
            assert dtype not in kind._CONSTRUCTIBLE_STORAGE  # type: ignore[operator]
    for kind in EXTENSIONS.values():
        for dtype in HALF:
            assert dtype in kind._CONSTRUCTIBLE_STORAGE  # type: ignore[operator]


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_arrays_live_in_the_devices_extension_carrier(device: xp.Device, dtype: DType) -> None:
    x = xp.asarray([1.0, 2.0], dtype=dtype, device=device)
    assert isinstance(x.carrier, EXTENSIONS[device.name])
    carrier: Any = x.carrier
    assert carrier.dtype() is dtype
    if device.name == "Metal":  # (MLX holds and computes both itself)
        assert str(carrier.mlx_array.dtype).endswith(str(dtype))


def test_carrier_writes_round_once_to_the_nearest() -> None:
    bf16, f16 = xp.bfloat16, xp.float16
    # 1 + 2**-8 + 2**-30 is above the midpoint of bfloat16's 1 and 1 + 2**-7; rounding
    # through float32 first would make it the midpoint, then 1 (half to even)
    generic = GenericExtension([1 + 2**-8 + 2**-30, 2**60 + 2**52 + 1], dtype=bf16)
    assert list(generic) == [1 + 2**-7, 2**60 + 2**53]
    cpu = CPUExtension(2, dtype=f16)
    cpu[0] = 65504.0
    with pytest.raises(OverflowError, match="65520"):
        cpu[1] = 65520
    assert list(cpu) == [65504.0, 0.0]


# -- pickles and registration ---------------------------------------------------------------------


def run_python(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


@pytest.mark.parametrize("dtype", HALF, ids=HALF_IDS)
def test_an_array_unpickles_in_a_fresh_process_that_imported_nothing(dtype: DType) -> None:
    payload = pickle.dumps(xp.asarray([1.5, -0.25], dtype=dtype))
    out = run_python(
        f"""
        import pickle
        x = pickle.loads({payload!r})
        print(x.dtype.name, [float(v) for v in x])
        """
    )
    assert out.split() == [dtype.name, "[1.5,", "-0.25]"]


def test_a_users_float16_of_the_same_structure_is_reused_and_another_fails_the_import() -> None:
    out = run_python(
        """
        from stridewave import DType, SimpleDType
        mine = SimpleDType("Float16", bits=16, supertype=DType.Floating)
        import stridewave.array_api as xp
        print(xp.float16 is mine)
        """
    )
    assert out.strip() == "True"
    out = run_python(
        """
        from stridewave import DType, SimpleDType
        SimpleDType("BFloat16", bits=32, supertype=DType.Floating)
        try:
            import stridewave.array_api
        except ValueError as exc:
            print(exc)
        """
    )
    assert "half-precision" in out and "'BFloat16' is already registered" in out
    assert out.count("structure") >= 2
