"""The wording of every carrier message situation, pinned in one place.

Each row triggers one situation through the public API and pins the words a user
reads: what was given, what was expected, how to fix it. A meta-test checks that
every message function of ``stridewave.carriers._messages`` has a row here.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Callable

import numpy as np
import pytest

from stridewave import (
    CPU,
    DType,
    Evictable,
    FileBacked,
    Generic,
    Layout,
    ScaledDType,
    Tensor,
)
from stridewave.carriers import _messages, _normalize
from stridewave.carriers._normalize import normalize_scalar

F32, I32 = DType.Float32, DType.Int32


def _whole(carrier: CPU) -> Tensor:
    return Tensor(carrier, Layout((carrier.size(),)))


_keep: list[object] = []


def _released(carrier: CPU) -> CPU:
    carrier.release()
    return carrier


def _evicted_primary() -> CPU:
    primary = CPU(2)
    wrapper = Evictable(primary, CPU(0))
    _keep.append(wrapper)  # the owner must be alive to be named
    wrapper.evict()
    return primary


def _owned_tier() -> CPU:
    tier = CPU(2)
    _keep.append(Evictable(tier, CPU(0)))
    return tier


def _orphaned_tier() -> CPU:
    tier = CPU(2)
    Evictable(tier, CPU(0))  # the Evictable is gone at once; the tier stays owned
    return tier


def _duplicate_file() -> None:
    name = f"dup-{uuid.uuid4().hex}.f32"
    first = FileBacked(name, dtype=F32)
    try:
        FileBacked(name, dtype=F32)
    finally:
        first.release()


def _too_many(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_normalize, "ITERATION_LIMIT", 10)
    CPU(0).new_like(itertools.count())


def _scatter_into(receiver: CPU, source: CPU, mapping: object, offset: int = 0) -> None:
    receiver.scatter(_whole(source), _whole(receiver), mapping, offset)  # type: ignore[arg-type]


def _compound_source() -> Tensor:
    dtype = ScaledDType(f"S_{uuid.uuid4().hex}", element=F32, scale=F32, block=2)
    return Tensor.compound(dtype, [_whole(CPU(2)), _whole(CPU(1))])


def _no_load() -> None:
    from stridewave.carriers._base import Carrier

    Carrier._raw_load(CPU(1), np.zeros(1, np.float32))


def _stale_view() -> None:
    carrier = FileBacked(dtype=F32).new_like([1.0] * 4)
    view = Tensor(carrier, Layout((4,)))
    carrier.resize(2)
    np.asarray(view)


def _scatter_compound() -> None:
    receiver = CPU(2)
    receiver.scatter(_compound_source(), _whole(receiver), Layout((2,)))


def _compound() -> DType:
    return ScaledDType(f"MX_{uuid.uuid4().hex}", element=DType.E4M3, scale=DType.E8M0, block=32)


# (message function, exception, trigger, the words pinned: one regex per clause)
SITUATIONS: list[tuple[str, type[Exception], Callable[..., object], list[str]]] = [
    (
        "array_refused",
        TypeError,
        lambda: CPU(0).new_like(np.array(["a"])),
        [r"DType\.Float32 storage accepts arrays of real numbers", r"dtype <U1", r"astype"],
    ),
    (
        "bad_flag",
        TypeError,
        lambda: CPU(1, mutable=1),  # type: ignore[arg-type]
        [
            r"CPU expects mutable to be True or False",
            r"got 1 of type int",
            r"mutable=bool\(\.\.\.\)",
        ],
    ),
    (
        "bad_index_type",
        TypeError,
        lambda: CPU(1).get_value(1.0),
        [
            r"get_value expects a physical slot index",
            r"got 1\.0 of type float",
            r"numpy\.asarray\(carrier\)",
        ],
    ),
    (
        "bad_pointer_type",
        TypeError,
        lambda: CPU(1, pointer=1.5),  # type: ignore[arg-type]
        [
            r"CPU expects pointer to be a positive integer memory address or None",
            r"got 1\.5",
            r"CPU\.from_numpy\(array\)",
        ],
    ),
    (
        "bad_size_type",
        TypeError,
        lambda: CPU(1.5),  # type: ignore[arg-type]
        [
            r"CPU expects size to be a non-negative integer number of slots",
            r"got 1\.5 of type float",
            r"int\(\.\.\.\)",
        ],
    ),
    (
        "category_storage",
        ValueError,
        lambda: CPU(1, dtype=DType.Floating),
        [
            r"CPU storage accepts DType\.Float32, DType\.Int32 or DType\.Bool",
            r"got DType\.Floating, a category with no storage encoding",
            r"simple dtype",
        ],
    ),
    (
        "claim_refused",
        RuntimeError,
        lambda: Evictable(_released(CPU(1)), CPU(0)),
        [
            r"cannot claim CPU\(DType\.Float32, size=0, released\)",
            r"it is released",
            r"Nothing was claimed",
        ],
    ),
    (
        "compound_storage",
        ValueError,
        lambda: CPU(1, dtype=_compound()),
        [
            r"CPU storage accepts",
            r"a compound dtype",
            r"cannot hold multiple planes",
            r"Tensor\.compound",
        ],
    ),
    (
        "copy_impossible",
        ValueError,
        lambda: CPU(1).__array__(np.float64, copy=False),  # (3.12+ numpy takes the buffer)
        [r"copy=False\) with dtype float64 needs a conversion", r"Drop copy=False"],
    ),
    (
        "dtype_positional",
        TypeError,
        lambda: CPU(3, DType.Int32),  # type: ignore[arg-type]
        [
            r"CPU got the descriptor DType\.Int32 as a positional argument",
            r"dtype is keyword-only",
            r"CPU\(\.\.\., dtype=DType\.Int32\)",
        ],
    ),
    (
        "duplicate_file",
        FileExistsError,
        _duplicate_file,
        [
            r"FileBacked cannot create 'dup-",
            r"already exists",
            r"left untouched",
            r"Pick another name",
        ],
    ),
    (
        "index_out_of_range",
        IndexError,
        lambda: CPU(2)[-1],
        [
            r"carrier\[index\] got physical index -1",
            r"has 2 slots, so valid indices are \[0, 2\)",
            r"len\(carrier\) - 1 for slot 1",
        ],
    ),
    (
        "missing_dtype",
        TypeError,
        lambda: Generic([1]),  # type: ignore[call-arg]
        [
            r"Generic\(\) missing 1 required keyword-only argument: 'dtype'",
            r"DType\.Float32, DType\.Int32 or DType\.Bool",
        ],
    ),
    (
        "negative_size",
        ValueError,
        lambda: CPU(-1),
        [r"CPU expects a non-negative number of slots; got size=-1", r"size >= 0"],
    ),
    (
        "no_storage_row",
        ValueError,
        lambda: normalize_scalar(DType.E4M3, 1.0),
        [
            r"DType\.E4M3 has no storage encoding",
            r"carriers store DType\.Float32, DType\.Int32 or DType\.Bool",
        ],
    ),
    (
        "non_positive_pointer",
        ValueError,
        lambda: CPU(1, pointer=0),
        [r"positive memory address; got 0", r"Pass None"],
    ),
    (
        "not_a_dtype",
        TypeError,
        lambda: CPU(1, dtype="f4"),  # type: ignore[arg-type]
        [
            r"CPU storage expects dtype to be a stridewave DType",
            r"got 'f4' of type str",
            r"from_numpy_dtype",
        ],
    ),
    (
        "not_iterable",
        TypeError,
        lambda: CPU(0).new_like(5),
        [r"CPU\.new_like expects values to be an iterable", r"got 5 of type int", r"\[value\]"],
    ),
    (
        "not_one_dimensional",
        TypeError,
        lambda: CPU(0).new_like(np.zeros((2, 2))),
        [r"expects values to be one-dimensional", r"shape \(2, 2\)", r"numpy\.ravel"],
    ),
    (
        "not_owner",
        RuntimeError,
        lambda: _owned_tier()._access(object()),
        [r"cannot open an access scope", r"only its owner"],
    ),
    (
        "not_writable",
        RuntimeError,
        lambda: CPU(1, mutable=False).set_value(0, 1.0),
        [
            r"cannot set_value on CPU\(DType\.Float32, size=1, live, immutable, \[0\.\]\)",
            r"constructed with mutable=False",
            r"new_like",
        ],
    ),
    (
        "not_writable",
        RuntimeError,
        lambda: _owned_tier().set_value(0, 1.0),
        [r"it belongs to Evictable Evictable\(", r"write through the Evictable"],
    ),
    (
        "not_writable",
        RuntimeError,
        lambda: _orphaned_tier().set_value(0, 1.0),
        [r"belonged to a Evictable that no longer exists", r"ownership is never given back"],
    ),
    (
        "owned_release",
        RuntimeError,
        lambda: _owned_tier().release(),
        [r"cannot release CPU\(", r"belongs to Evictable", r"Release the Evictable instead"],
    ),
    (
        "path_component",
        ValueError,
        lambda: FileBacked("a/b", dtype=F32),
        [r"bare file name", r"'a/b'", r"path components"],
    ),
    (
        "released",
        RuntimeError,
        lambda: _released(CPU(1))[0],
        [
            r"cannot read carrier\[index\] on CPU\(DType\.Float32, size=0, released\)",
            r"released and is gone for good",
            r"new_like\(values\)",
        ],
    ),
    (
        "released",
        RuntimeError,
        lambda: _evicted_primary().set_value(0, 1.0),
        [r"it is a tier of Evictable", r"moved the values out of it", r"through the Evictable"],
    ),
    (
        "scatter_unsupported",
        NotImplementedError,
        lambda: FileBacked(dtype=F32).scatter(None, None, None),  # type: ignore[arg-type]
        [
            r"cannot scatter into FileBacked\(",
            r"does not implement scatter",
            r"CPU\(n, dtype=\.\.\.\)",
        ],
    ),
    (
        "scatter_not_a_tensor",
        TypeError,
        lambda: CPU(1).scatter(1, _whole(CPU(1)), Layout((1,))),  # type: ignore[arg-type]
        [
            r"scatter to_scatter must be a stridewave Tensor, got int",
            r"Tensor\(carrier, Layout\(shape\)\)",
        ],
    ),
    (
        "scatter_not_a_layout",
        TypeError,
        lambda: CPU(1).scatter(_whole(CPU(1)), _whole(CPU(1)), (1,)),  # type: ignore[arg-type]
        [r"scatter mapping must be a stridewave Layout, got tuple", r"strides in elements"],
    ),
    (
        "scatter_foreign_destination",
        ValueError,
        lambda: CPU(1).scatter(_whole(CPU(1)), _whole(CPU(1)), Layout((1,))),
        [r"scatter_onto views CPU\(", r"not the receiver", r"scatter_onto\.carrier\.scatter"],
    ),
    (
        "scatter_shape_mismatch",
        ValueError,
        lambda: _scatter_into(CPU(2), CPU(2), Layout((1,))),
        [
            r"mapping has shape \(1,\) but to_scatter has shape \(2,\)",
            r"one destination offset per source element",
        ],
    ),
    (
        "scatter_negative_offset",
        ValueError,
        lambda: _scatter_into(CPU(1), CPU(1), Layout((1,)), -1),
        [r"mapping_offset must be >= 0 \(elements\), got -1"],
    ),
    (
        "scatter_out_of_range",
        IndexError,
        lambda: _scatter_into(CPU(2), CPU(2), Layout((2,)), 1),
        [
            r"scatter targets physical index 2 \(source element 1\)",
            r"receiver has 2 slots",
            r"span \[1, 2\]",
        ],
    ),
    (
        "scatter_compound",
        ValueError,
        lambda: _scatter_compound(),
        [r"compound Tensor", r"one plane at a time"],
    ),
    (
        "secondary_refused",
        ValueError,
        lambda: Evictable(CPU(1), CPU(0, dtype=I32)),
        [r"Evictable needs tiers of one dtype", r"dtype=DType\.Float32", r"Nothing was claimed"],
    ),
    (
        "secondary_refused",
        ValueError,
        lambda: Evictable(CPU(1), CPU(0, mutable=False)),
        [r"intrinsically mutable secondary", r"FileBacked\(dtype=DType\.Float32\)"],
    ),
    (
        "secondary_refused",
        ValueError,
        lambda: Evictable(CPU(1), CPU(2)),
        [r"empty secondary \(size 0\)", r"with 2 slots", r"allocate_like\(0\)"],
    ),
    (
        "tier_not_a_carrier",
        TypeError,
        lambda: Evictable(CPU(1), [1.0]),  # type: ignore[arg-type]
        [
            r"Evictable expects the secondary tier to be a stridewave Carrier; got list",
            r"Nothing was claimed",
        ],
    ),
    (
        "too_many_items",
        ValueError,
        _too_many,
        [r"CPU\.new_like stopped consuming values after 10 items", r"itertools\.islice"],
    ),
    (
        "unsupported_dtype",
        ValueError,
        lambda: CPU(1, dtype=DType.Float64),
        [
            r"CPU storage accepts DType\.Float32, DType\.Int32 or DType\.Bool; got DType\.Float64",
            r"Pick one of the accepted dtypes",
        ],
    ),
    (
        "from_numpy_not_an_array",
        TypeError,
        lambda: CPU.from_numpy([1.0]),  # type: ignore[arg-type]
        [r"CPU\.from_numpy expects a numpy\.ndarray; got list", r"ascontiguousarray"],
    ),
    (
        "from_numpy_layout",
        ValueError,
        lambda: CPU.from_numpy(np.zeros(2, np.float64)),
        [r"1-D C-contiguous array of float32, int32, bool", r"dtype float64", r"\(a copy\)"],
    ),
    (
        "from_numpy_read_only",
        ValueError,
        lambda: CPU.from_numpy(np.frombuffer(b"\0" * 4, np.float32)),
        [r"read-only array with mutable=True", r"mutable=False"],
    ),
    (
        "no_load",
        NotImplementedError,
        lambda: _no_load(),
        [r"cannot replace its storage in one move", r"capabilities\.secondary is True"],
    ),
    (
        "bad_memo",
        TypeError,
        lambda: CPU(1).__deepcopy__([]),  # type: ignore[arg-type]
        [r"__deepcopy__ expects the memo dict", r"got list", r"copy\.deepcopy\(carrier\)"],
    ),
    (
        "stale_view",
        IndexError,
        lambda: _stale_view(),
        [r"addresses elements \[0, 3\] but the storage now holds 2", r"Build a new Tensor"],
    ),
    (
        "value_overflow",
        OverflowError,
        lambda: CPU(1).set_value(0, 1e39),
        [
            r"DType\.Float32 storage holds finite values of magnitude below 2\*\*128 - 2\*\*103",
            r"got 1e\+39, which does not fit",
            r"Clip or rescale",
        ],
    ),
    (
        "value_type",
        TypeError,
        lambda: CPU(1).set_value(0, "x"),
        [
            r"DType\.Float32 storage accepts real numbers",
            r"got 'x' of type str",
            r"float\(\.\.\.\)",
        ],
    ),
    (
        "value_type",
        TypeError,
        lambda: CPU(1).set_value(0, None),
        [r"got None of type NoneType", r"None is a hole only in new_like input"],
    ),
    (
        "value_type",
        TypeError,
        lambda: CPU(1, dtype=DType.Bool).set_value(0, np.True_),
        [
            r"DType\.Bool storage accepts Python bool values",
            r"numpy\.bool_ scalars are refused",
            r"bool\(x\)",
        ],
    ),
    (
        "unknown_device",
        ValueError,
        lambda: _array_api_device("gpu"),
        [r"unknown stridewave\.array_api device 'gpu'", r"Did you mean 'Metal'\?"],
    ),
]


def _array_api_device(name: str) -> object:
    """Construct an array API device by name (the façade raises the carriers' message)."""
    import stridewave.array_api as xp

    return xp.Device(name)


@pytest.mark.parametrize(
    ("function", "error", "trigger", "words"),
    [pytest.param(*row, id=f"{row[0]}-{i}") for i, row in enumerate(SITUATIONS)],
)
def test_message_wording(
    function: str,
    error: type[Exception],
    trigger: Callable[..., object],
    words: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(error) as info:
        trigger(monkeypatch) if trigger is _too_many else trigger()
    text = str(info.value)
    for clause in words:
        assert re.search(clause, text), f"{function}: {clause!r} not in {text!r}"


def test_every_message_function_has_a_situation() -> None:
    pinned = {row[0] for row in SITUATIONS}
    helpers = {"dtype_text"}  # spells a descriptor; used by the messages above
    assert set(_messages.__all__) - helpers - pinned == set()
