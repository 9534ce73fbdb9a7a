"""Error text of :mod:`stridewave.array_api`: one function per situation.

Every message says what was given, what was expected and how to fix it. The wording
lives here so that each situation reads the same wherever it is raised, and tests can
match on it. Functions return ``str``; raising stays with the caller, which picks the
exception the standard names. Control flow never reads this text: a caller that must
tell one situation from another catches :class:`DeviceMismatch`, not a message.
"""

from __future__ import annotations

import reprlib
from typing import TYPE_CHECKING

from stridewave.carriers._messages import dtype_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from stridewave.dtypes import DType

__all__ = [
    "DeviceMismatch",
    "compound_tensor",
    "devices_differ",
    "dtype_text",
    "no_device_for_carrier",
    "not_a_device",
    "outside_carrier",
    "released",
    "shapes_do_not_broadcast",
]


class DeviceMismatch(ValueError):
    """Arrays on two devices were combined (a ``ValueError``, as the standard asks).

    Notes
    -----
    Implements "arrays of different devices are not combined" (CONTRACT section 9).
    """


def not_a_device(device: object) -> str:
    """Return the message for a ``device`` argument that is no device at all."""
    return (
        f"expected a stridewave.array_api Device (e.g. xp.Device('CPU')), got "
        f"{type(device).__name__} {device!r}."
    )


def no_device_for_carrier(kind: type, kinds: Sequence[str]) -> str:
    """Return the message for a carrier kind no device computes on (``kinds``: the devices' own)."""
    return (
        f"stridewave.array_api has no device for carrier kind {kind.__name__}; use "
        f"{', '.join(kinds)} or an Evictable over one of them."
    )


def compound_tensor(value: object) -> str:
    """Return the message for a compound (multi-subtensor) Tensor given as an array."""
    return (
        f"stridewave.array_api works on single-subtensor Tensors; {value!r} is compound "
        "(one subtensor per plane): pass tensor.subtensors[k]."
    )


def devices_differ(first: object, second: object, what: str = "") -> str:
    """Return the message for arrays of two devices combined in one call."""
    where = f"{what}: " if what else ""
    return (
        f"{where}arrays on different devices ({first!r} and {second!r}) cannot be "
        "combined; move one first with x.to_device(...)."
    )


def outside_carrier(tensor: object, size: int) -> str:
    """Return the message for a view whose slots no longer fit its carrier."""
    # (the view's geometry, not its repr: the repr would read the values again)
    layout = getattr(tensor, "layout", None)
    shape = getattr(layout, "shape", "?")
    strides = getattr(layout, "strides", "?")
    offset = getattr(tensor, "offset", "?")
    return (
        f"the {type(tensor).__name__} of shape {shape} (strides {strides}, offset "
        f"{offset}) addresses slots outside its carrier of {size} slots (the carrier "
        "shrank after the view was made); make the view again from the carrier."
    )


def released(carrier: object) -> str:
    """Return the message for an operation reading a released carrier."""
    return f"cannot read {carrier!r}: it is released and has no storage (carrier rule)."


def shapes_do_not_broadcast(name: str, s1: tuple[int, ...], s2: tuple[int, ...]) -> str:
    """Return the message for two operand shapes that do not broadcast together."""
    return (
        f"{name}: the shapes {s1} and {s2} cannot be broadcast together (aligned from "
        "the right, each pair of axes must be equal or one of them 1); reshape or index "
        "an operand so that they can (for instance x[:, None])."
    )


# -- the array object ---------------------------------------------------------------------


def file_backed_read_only(carrier: object) -> str:
    """Return the message for a write into a FileBacked array (no scatter there)."""
    return (
        f"cannot write into {carrier!r}: FileBacked storage has no scatter (carrier "
        "spec), so FileBacked arrays are read-only in stridewave.array_api. Compute a "
        "new array instead, or move it with x.to_device(xp.Device('CPU'))."
    )


def inplace_shape(name: str, shape: tuple[int, ...], result: tuple[int, ...]) -> str:
    """Return the message for an in-place operator whose result has another shape."""
    return (
        f"in-place {name} would change the shape {shape} to {result}; the right operand "
        "must broadcast to the left one's shape."
    )


def inplace_dtype(name: str, dtype: DType, result: DType) -> str:
    """Return the message for an in-place operator whose result has another dtype."""
    return (
        f"in-place {name} would change the dtype {dtype_text(dtype)} to "
        f"{dtype_text(result)}; use the out-of-place operator."
    )


def array_constructor() -> str:
    """Return the message for ``Array(...)`` called directly."""
    return (
        "stridewave.array_api.Array is built by the namespace: use xp.asarray(values) "
        "or xp.asarray(tensor) (no copy), not Array(...)."
    )


def matrix_transpose_needs_2d(shape: tuple[int, ...]) -> str:
    """Message: ``x.mT`` of an array of fewer than two axes."""
    return (
        f"x.mT transposes the last two axes, but the array has shape {shape}; "
        "give it at least two axes first (xp.reshape or x[None, :])."
    )


def transpose_needs_2d(ndim: int, shape: tuple[int, ...]) -> str:
    """Return the message for ``.T`` of an array that is not 2-D."""
    return (
        f".T needs a 2-D array, got {ndim}-D (shape {shape}); use xp.permute_dims or .mT "
        "for stacks of matrices."
    )


def no_stream() -> str:
    """Return the message for a ``stream`` given to ``to_device``."""
    return "stridewave.array_api.to_device takes no stream; pass stream=None."


def not_one_element(what: str, shape: tuple[int, ...]) -> str:
    """Return the message for a Python scalar asked of an array of more than one element."""
    return f"{what} needs a 0-d array (one element); got shape {shape}."


def index_needs_int32(dtype: DType) -> str:
    """Return the message for ``__index__`` of an array that is not of an integer dtype."""
    return f"__index__ needs an array of an integer dtype, got {dtype_text(dtype)}."


def iterate_0d() -> str:
    """Return the message for iterating over a 0-d array."""
    return "iteration over a 0-d array: it has no first axis (use float(x) or x[()])."


def no_numpy_view(device: object) -> str:
    """Return the message for ``__array__(copy=False)`` of a device NumPy cannot view."""
    return f"an array on {device!r} has no NumPy view; drop copy=False."


def api_version(version: object) -> str:
    """Return the message for a standard version the namespace does not implement."""
    return (
        f"stridewave.array_api implements the array API standard 2024.12; got "
        f"api_version={version!r}."
    )


# -- indexing -----------------------------------------------------------------------------


def slice_bound(what: str, value: object) -> str:
    """Return the message for a slice bound that is no integer."""
    return f"slice {what} must be an integer or None, got {value!r}."


def two_ellipses(key: object) -> str:
    """Return the message for a key with more than one ellipsis."""
    return f"an index can have at most one ellipsis (...); got {key!r}."


def too_many_indices(ndim: int, key: object, used: int) -> str:
    """Return the message for a key that indexes more axes than the array has."""
    return f"too many indices: the array has {ndim} axes but the key {key!r} indexes {used}."


def index_out_of_bounds(value: int, axis: int, extent: int) -> str:
    """Return the message for an integer index outside its axis."""
    return f"index {value} is out of bounds for axis {axis} with size {extent}."


def zero_step() -> str:
    """Return the message for a slice step of zero."""
    return "slice step cannot be zero."


def index_on_other_device(index_device: object, device: object) -> str:
    """Return the message for an index array on another device than the array."""
    return (
        f"the index array is on {index_device!r} but the array on {device!r}; move it "
        "with .to_device()."
    )


def assign_from_other_device(value_device: object, device: object) -> str:
    """Return the message for assigning an array of another device."""
    return (
        f"cannot assign an array on {value_device!r} into one on {device!r}; move it "
        "with .to_device()."
    )


def assign_loses_information(value: DType, dtype: DType) -> str:
    """Return the message for assigning values of a wider dtype."""
    return (
        f"cannot assign {dtype_text(value)} values into a {dtype_text(dtype)} array "
        "without losing information; cast with xp.astype first."
    )


def assign_wrong_kind(value: object, dtype: DType, array_like: bool) -> str:
    """Return the message for assigning a value of a kind the dtype cannot hold."""
    hint = (
        "convert it first: x[key] = xp.asarray(value, device=x.device)"
        if array_like
        else "pass a Python scalar of the array's kind or an array of this namespace"
    )
    return (
        f"cannot assign {type(value).__name__} {value!r} into a {dtype_text(dtype)} array; {hint}."
    )


def assign_bool(value: object, dtype: DType) -> str:
    """Return the message for assigning a bool into a numeric array."""
    return f"cannot assign the bool {value!r} into a {dtype_text(dtype)} array."


def assign_released(array: object, carrier: object) -> str:
    """Return the message for assigning into an array whose carrier is released."""
    return f"cannot assign into {array!r}: its carrier {carrier!r} is released."


def write_shared_slots(what: str, shape: tuple[int, ...], strides: tuple[int, ...]) -> str:
    """Return the message for a write into an array whose elements share storage slots."""
    return (
        f"cannot {what} an Array of shape {shape} with strides {strides} (slots): some "
        "of its elements share one storage slot (a broadcast view, as xp.broadcast_to "
        "returns), so a write would land on several elements at once; NumPy's broadcast "
        "views refuse writes too. Write into a copy: y = xp.asarray(x, copy=True)."
    )


def assign_shape(value: tuple[int, ...], key: object, shape: tuple[int, ...]) -> str:
    """Return the message for assigned values that do not broadcast to the selection."""
    return (
        f"cannot assign values of shape {value} to x[{key!r}] of shape {shape}: the "
        "values must broadcast to it (aligned from the right, each pair of axes equal or "
        "the value's 1); reshape or index the values."
    )


# -- the functions ------------------------------------------------------------------------


def device_requested(wanted: object, found: object) -> str:
    """Return the message for a ``device=`` that differs from the arrays' device."""
    return f"device={wanted!r} was requested for arrays on {found!r}; move them with x.to_device first."


def expects_array(name: str, value: object) -> str:
    """Return the message for a function of one array given something else."""
    return f"{name} expects an array, got {type(value).__name__} {value!r}."


def needs_an_array(name: str, x1: object, x2: object) -> str:
    """Return the message for a two-operand function given no array at all."""
    return (
        f"{name} needs at least one array argument; got {type(x1).__name__} and "
        f"{type(x2).__name__}."
    )


def int_out_of_range(name: str, value: int, dtype: DType, low: int, high: int) -> str:
    """Return the message for a Python int outside the range of the integer array beside it."""
    return (
        f"{name}: the Python int {value} is outside the range [{low}, {high}] of the "
        f"{dtype_text(dtype)} array it is combined with; cast the array to a wider integer "
        "or a floating dtype first (xp.astype), or pass a float."
    )


def int_beyond_bool_int(name: str, value: int) -> str:
    """Return the message for a Python int beyond int64 combined with a bool array."""
    return (
        f"{name}: a bool array and the Python int {value} compute in int64 (the default "
        f"integer), whose range [{-(2**63)}, {2**63 - 1}] does not hold it; pass a float, "
        "or cast the array to a floating dtype first (xp.astype)."
    )


def format_needs_0d(format_spec: str, shape: tuple[int, ...]) -> str:
    """Return the message for a format specification given to an array of several values."""
    return (
        f"format spec {format_spec!r} applies to one value, but the array has shape {shape}; "
        'format its elements one at a time (f"{float(x[i]):...}") or a 0-d array.'
    )


def bad_operand(name: str, value: object) -> str:
    """Return the message for an operand that is neither an array nor a Python scalar."""
    return (
        f"{name}: operands must be arrays or Python scalars (bool, int, float, complex); got "
        f"{type(value).__name__} {value!r}."
    )


def no_dtype_for(value: object) -> str:
    """Return the message for a fill value of no namespace dtype."""
    return (
        f"cannot infer an array dtype from {type(value).__name__} {value!r}; pass a bool, "
        "int or float (complex numbers have no dtype here)."
    )


def bad_shape(shape: object) -> str:
    """Return the message for a shape that is not an int or a tuple of ints."""
    return f"shape must be an int or a tuple of ints, got {shape!r}."


def fill_out_of_range(value: object, dtype: object = "int32") -> str:
    """Return the message for an integer fill value out of its dtype's range."""
    return f"fill value {value} is out of the {dtype_text(dtype)} range; ask for a wider dtype."


def nonfinite_into_integer(value: object, dtype: object) -> str:
    """Return the message for a NaN or an infinity written into an integer array."""
    return (
        f"cannot write {value!r} into a {dtype_text(dtype)} array: integers have no NaN or "
        "infinity. Use a floating array (xp.astype(x, xp.float64)), or replace the value first."
    )


def copy_needed(wanted: DType, target: object, dtype: DType, device: object) -> str:
    """Return the message for ``asarray(copy=False)`` of a Tensor that needs a copy."""
    return (
        f"asarray(copy=False) cannot give {dtype_text(wanted)} on {target!r} from an array "
        f"of {dtype_text(dtype)} on {device!r} without a copy."
    )


def cannot_share(obj: object) -> str:
    """Return the message for ``asarray(copy=False)`` of an object whose memory cannot be shared."""
    return (
        f"asarray(copy=False) cannot share the memory of {type(obj).__name__}: it needs a "
        "C-contiguous NumPy array or buffer of one of the array API standard's dtypes."
    )


def complex_values() -> str:
    """Return the message for complex input values."""
    return (
        "complex values cannot make an array of a real dtype; ask for a complex one "
        "(dtype=xp.complex64 or xp.complex128)."
    )


def values_out_of_range(dtype: object) -> str:
    """Return the message for integer values out of the range of the dtype asked for."""
    name = getattr(dtype, "name", "")
    wider = (
        "a floating dtype (dtype=xp.float64): no integer dtype is wider than 64 bits"
        if name in ("Int64", "UInt64")
        else "a wider integer dtype (dtype=xp.int64)"
    )
    return f"values out of the {dtype_text(dtype)} range; ask for {wider}."


def integers_out_of_range(obj: object, dtype: object) -> str:
    """Return the message for Python integers out of the range of the default integer."""
    return (
        f"integer values out of the {dtype_text(dtype)} range cannot make a "
        f"{dtype_text(dtype)} array: {obj!r}."
    )


def no_namespace_dtype(obj: object, numpy_dtype: object) -> str:
    """Return the message for input of none of the standard's dtypes."""
    return (
        f"Value {reprlib.repr(obj)} (a {type(obj).__name__} of NumPy dtype {numpy_dtype}) "
        "is of none of the array API standard's dtypes (bool, int8 to int64, uint8 to "
        "uint64, float32, float64, complex64, complex128) nor float16 or bfloat16, so "
        "asarray cannot take it; convert it first, e.g. with numpy.asarray(data, "
        "dtype=numpy.float32)."
    )


def data_not_on_device(lacking: str, fix: object) -> str:
    """Return the message for ``asarray`` of data whose dtype the device does not store.

    ``lacking`` is the device's own refusal (device, its dtypes, a device that has it).
    """
    return (
        f"{lacking} asarray keeps the data's dtype and never narrows it silently: to "
        f"convert, ask for the dtype (xp.asarray(data, dtype=xp.{fix}))."
    )


def float32_overflow(bad: object, obj: object) -> str:
    """Return the message for a value beyond float32's range."""
    return (
        f"{bad!r} has no finite float32 value (its magnitude is at least 2**128 - 2**103), "
        f"so it cannot make a float32 array from {type(obj).__name__}. Scale the data, or "
        "keep it in NumPy as float64."
    )


def complex64_overflow(bad: object, obj: object) -> str:
    """Return the message for a complex value with a part beyond float32's range."""
    return (
        f"{bad!r} has no finite complex64 value (a part's magnitude is at least "
        f"2**128 - 2**103, float32's limit), so it cannot make a complex64 array from "
        f"{type(obj).__name__}. Scale the data, or ask for complex128."
    )


def no_dlpack_for_bfloat16(device: object) -> str:
    """Return the message for DLPack asked of a bfloat16 Array."""
    return (
        f"a bfloat16 Array on {device!r} cannot be exported through DLPack: NumPy's DLPack "
        "exports no ml_dtypes dtype, and bfloat16 is one. Export a float32 copy "
        "(xp.astype(x, xp.float32), exact: float32 holds every bfloat16), or take "
        "numpy.asarray(x), an ml_dtypes.bfloat16 NumPy array."
    )


def half_overflow(bad: object, dtype: object) -> str:
    """Return the message for a value beyond float16's or bfloat16's range."""
    return (
        f"{bad!r} has no finite {dtype} value (float16's largest is 65504, bfloat16's about "
        f"3.39e38), so it cannot be stored in a {dtype} array. Scale the value, or use "
        "float32."
    )


def matmul_needs_arrays() -> str:
    """Return the message for ``matmul`` given something that is not an array."""
    return "matmul needs two arrays."


def matmul_shapes(s1: tuple[int, ...], s2: tuple[int, ...]) -> str:
    """Return the message for ``matmul`` operands whose contracted axes differ."""
    axis = "second-to-last" if len(s2) > 1 else "only"
    return (
        f"matmul: the last axis of x1 (shape {s1}) must match the {axis} axis of x2 "
        f"(shape {s2}); transpose an operand (x.mT) or fix the shapes."
    )


def reshape_size(shape: tuple[int, ...], size: int, new: object) -> str:
    """Return the message for a reshape to a shape of another size."""
    return (
        f"reshape: an array of shape {shape} ({size} elements) cannot take the shape "
        f"{new}; the new shape must hold the same number of elements (one axis may be -1 "
        "to have it inferred)."
    )


def nonzero_0d() -> str:
    """Return the message for ``nonzero`` of a 0-d array."""
    return "nonzero needs an array with at least one axis."


# -- dtypes -------------------------------------------------------------------------------


def unsupported_dtype(dtype: object) -> str:
    """Return the message for a dtype the namespace does not have."""
    return (
        f"stridewave.array_api has the array API standard's dtypes (xp.bool, xp.int8 ... "
        f"xp.uint64, xp.float32, xp.float64, xp.complex64, xp.complex128) and, beyond the "
        f"standard, xp.float16 and xp.bfloat16; got {dtype!r}. Use one of those."
    )


def unheld_result_dtype(dtype: object) -> str:
    """Return the message for a backend result of a dtype no carrier holds."""
    return (
        f"the backend returned dtype {dtype}, which stridewave.array_api cannot hold "
        "(the array API standard's dtypes only)."
    )


def result_type_of_nothing() -> str:
    """Return the message for ``result_type`` given no array or dtype.

    One message whatever the scalars, free of regular-expression syntax beyond
    ``.``: SciPy's tests pass the message of one call to ``pytest.raises(match=...)``
    for a call with other scalars (as ``array_api_strict``'s constant message allows).
    """
    return (
        "result_type needs at least one array or dtype, and got only Python scalars: "
        "Python scalars alone have no array dtype; pass an array or a dtype among "
        "them, such as xp.float64."
    )


def scalar_of_other_kind(scalar: object, dtype: object) -> str:
    """Return the message for a Python scalar that cannot take an array's dtype."""
    return (
        f"the Python scalar {scalar!r} cannot take the array dtype {dtype!r}; use an array "
        "of a matching kind."
    )


def unknown_dtype_kind(kind: object, kinds: object) -> str:
    """Return the message for a dtype kind ``isdtype`` does not know."""
    return f"unknown dtype kind {kind!r}; expected one of {kinds}."


def finfo_needs_float(dtype: object) -> str:
    """Return the message for ``finfo`` of a dtype that is not floating."""
    return f"finfo needs a floating dtype (e.g. xp.float32, xp.complex64); got {dtype!r}."


def iinfo_needs_int(dtype: object) -> str:
    """Return the message for ``iinfo`` of a dtype that is not an integer."""
    return f"iinfo needs an integer dtype (e.g. xp.int32, xp.uint8); got {dtype!r}."
