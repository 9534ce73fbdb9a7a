"""``stridewave.array_api``: the Python array API standard (2024.12) over carriers.

A namespace in the sense of the standard, with the standard's thirteen dtypes
(registered as descriptors when this module is first imported; beyond them
``float16`` and ``bfloat16``, which ``dtypes()`` does not list), whose arrays are
Tensors on carriers and whose devices are places (CONTRACT section 9): each device
stores what its backend computes (host devices all thirteen, Metal what MLX has on
its device) and has its backend's default dtypes (NumPy's on host, MLX's on Metal)::

    import stridewave.array_api as xp
    x = xp.asarray([1.0, 2.0, 3.0])              # a CPU carrier
    y = xp.asarray([1.0, 2.0], device="metal")    # a Metal carrier (MLX)
    tensor.__array_namespace__() is xp            # for any stridewave Tensor

Compute is delegated: NumPy through ``array_api_compat`` for host carriers (CPU,
FileBacked, Generic), ``mlx.core`` for Metal (imported on first use). See
docs/array-api.md for devices, delegation, conformance figures and known gaps.
"""

from __future__ import annotations

from typing import Final

from stridewave.array_api import fft, linalg
from stridewave.array_api._array import Array
from stridewave.array_api._creation_functions import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tril,
    triu,
    zeros,
    zeros_like,
)
from stridewave.array_api._data_type_functions import (
    astype,
    can_cast,
    finfo,
    iinfo,
    isdtype,
    result_type,
)
from stridewave.array_api._device import (
    DEFAULT_DEVICE_ENV,
    Device,
    default_device,
    set_default_device,
)
from stridewave.array_api._dtypes import DTYPES as _DTYPES
from stridewave.array_api._dtypes import HALF as _HALF
from stridewave.array_api._elementwise_functions import (
    abs,
    acos,
    acosh,
    add,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    ceil,
    clip,
    conj,
    copysign,
    cos,
    cosh,
    divide,
    equal,
    exp,
    expm1,
    floor,
    floor_divide,
    greater,
    greater_equal,
    hypot,
    imag,
    isfinite,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    multiply,
    negative,
    nextafter,
    not_equal,
    positive,
    pow,
    real,
    reciprocal,
    remainder,
    round,
    sign,
    signbit,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    trunc,
)
from stridewave.array_api._info import __array_namespace_info__
from stridewave.array_api._linear_algebra_functions import (
    matmul,
    matrix_transpose,
    tensordot,
    vecdot,
)
from stridewave.array_api._manipulation_functions import (
    broadcast_arrays,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    moveaxis,
    permute_dims,
    repeat,
    reshape,
    roll,
    squeeze,
    stack,
    tile,
    unstack,
)
from stridewave.array_api._searching_functions import (
    argmax,
    argmin,
    argsort,
    count_nonzero,
    nonzero,
    searchsorted,
    sort,
    take,
    take_along_axis,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
    where,
)
from stridewave.array_api._statistical_functions import (
    all,
    any,
    cumulative_prod,
    cumulative_sum,
    diff,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)

__array_api_version__: Final = "2024.12"

bool: Final = _DTYPES["bool"]
int8: Final = _DTYPES["int8"]
int16: Final = _DTYPES["int16"]
int32: Final = _DTYPES["int32"]
int64: Final = _DTYPES["int64"]
uint8: Final = _DTYPES["uint8"]
uint16: Final = _DTYPES["uint16"]
uint32: Final = _DTYPES["uint32"]
uint64: Final = _DTYPES["uint64"]
float32: Final = _DTYPES["float32"]
float64: Final = _DTYPES["float64"]
complex64: Final = _DTYPES["complex64"]
complex128: Final = _DTYPES["complex128"]
#: Beyond the standard (CONTRACT section 9, version 3): never listed by
#: ``__array_namespace_info__().dtypes()``; docs/array-api.md, "float16 and bfloat16".
float16: Final = _HALF["float16"]
bfloat16: Final = _HALF["bfloat16"]

e: Final = 2.718281828459045
pi: Final = 3.141592653589793
inf: Final = float("inf")
nan: Final = float("nan")
newaxis: Final = None

__all__ = [
    "Array",
    "DEFAULT_DEVICE_ENV",
    "Device",
    "__array_api_version__",
    "__array_namespace_info__",
    "abs",
    "acos",
    "acosh",
    "add",
    "all",
    "any",
    "arange",
    "argmax",
    "argmin",
    "argsort",
    "asarray",
    "asin",
    "asinh",
    "astype",
    "atan",
    "atan2",
    "atanh",
    "bfloat16",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "bool",
    "broadcast_arrays",
    "broadcast_to",
    "can_cast",
    "ceil",
    "clip",
    "complex128",
    "complex64",
    "concat",
    "conj",
    "copysign",
    "cos",
    "cosh",
    "count_nonzero",
    "cumulative_prod",
    "cumulative_sum",
    "default_device",
    "diff",
    "divide",
    "e",
    "empty",
    "empty_like",
    "equal",
    "exp",
    "expand_dims",
    "expm1",
    "eye",
    "fft",
    "finfo",
    "flip",
    "float16",
    "float32",
    "float64",
    "floor",
    "floor_divide",
    "from_dlpack",
    "full",
    "full_like",
    "greater",
    "greater_equal",
    "hypot",
    "iinfo",
    "imag",
    "inf",
    "int16",
    "int32",
    "int64",
    "int8",
    "isdtype",
    "isfinite",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "linalg",
    "linspace",
    "log",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "matrix_transpose",
    "max",
    "maximum",
    "mean",
    "meshgrid",
    "min",
    "minimum",
    "moveaxis",
    "multiply",
    "nan",
    "negative",
    "newaxis",
    "nextafter",
    "nonzero",
    "not_equal",
    "ones",
    "ones_like",
    "permute_dims",
    "pi",
    "positive",
    "pow",
    "prod",
    "real",
    "reciprocal",
    "remainder",
    "repeat",
    "reshape",
    "result_type",
    "roll",
    "round",
    "searchsorted",
    "set_default_device",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "sort",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "subtract",
    "sum",
    "take",
    "take_along_axis",
    "tan",
    "tanh",
    "tensordot",
    "tile",
    "tril",
    "triu",
    "trunc",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unstack",
    "var",
    "vecdot",
    "where",
    "zeros",
    "zeros_like",
]

# xarray's nan-reductions and missing-value rules, for namespace Arrays (after xarray loads).
import sys as _sys

from stridewave.array_api import _xarray

_xarray.install_when_imported(_sys.modules[__name__])
