"""StrideWeave: typed 1-D storage and dtype descriptors over NumPy, ml_dtypes and MLX.

The stable public surface is the names in ``__all__``; importing this package never
imports ``mlx`` (the Metal carrier loads it on first construction).
"""

# First: under ``python -m stridewave``, importing it handles Ctrl-C during the imports below.
from stridewave import _startup  # noqa: F401
from stridewave._version import __version__
from stridewave.carriers import (
    CPU,
    Carrier,
    Evictable,
    FileBacked,
    Generic,
    Metal,
    accepts_storage_dtype,
    storage_zero,
    validate_storage_dtype,
)
from stridewave.dtypes import CompoundDType, DType, DTypeCategory, ScaledDType, SimpleDType, Whole
from stridewave.interop import from_numpy_dtype, to_numpy_dtype
from stridewave.layout import Layout
from stridewave.tensor import Tensor

__all__ = [
    "__version__",
    # dtype-descriptors
    "DType",
    "DTypeCategory",
    "SimpleDType",
    "CompoundDType",
    "ScaledDType",
    "Whole",
    # carrier-storage
    "Carrier",
    "Generic",
    "CPU",
    "FileBacked",
    "Metal",
    "Evictable",
    "validate_storage_dtype",
    "accepts_storage_dtype",
    "storage_zero",
    # views
    "Layout",
    "Tensor",
    # interop
    "to_numpy_dtype",
    "from_numpy_dtype",
]
