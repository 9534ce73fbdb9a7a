"""The extension carrier kinds in the contract suite's kind table.

:func:`extension_kinds` returns one :class:`~stridewave.testing.Kind` per extension
carrier (:mod:`stridewave.carriers._extension`), with every dtype it stores. Calling
it imports the extension carriers, which registers the array API standard's dtypes;
importing :mod:`stridewave.testing` does not, so a test session sees only the
built-ins until a test asks for these kinds.
"""

from __future__ import annotations

import functools

from stridewave.carriers import Carrier
from stridewave.dtypes import DType
from stridewave.testing._kinds import (
    SAMPLE,
    ZERO,
    Kind,
    _cpu_kind,
    _evictable_kind,
    _file_kind,
    _from_numpy_kind,
    _generic_kind,
    _metal_kind,
)

__all__ = ["extension_kinds"]

#: Two distinct sample values per standard dtype no spec carrier stores, the first
#: non-zero; each is exact in its dtype and chosen where a narrower dtype would not be.
_SAMPLES: dict[str, tuple[object, object]] = {
    "Int8": (-128, 127),
    "Int16": (-32768, 300),
    "Int64": (2**62 + 1, -(2**63)),
    "UInt8": (255, 3),
    "UInt16": (65535, 3),
    "UInt32": (2**32 - 1, 3),
    "UInt64": (2**64 - 1, 2**63 + 1),
    "Float64": (0.1, -1e300),
    "Complex64": (1.5 - 2j, -0.25j),
    "Complex128": (0.1 + 0.2j, -3e300j),
    # beyond the standard: exact in the dtype, float16's beyond bfloat16's precision
    # and bfloat16's beyond float16's range
    "Float16": (1 + 2.0**-10, -(2.0**-24)),
    "BFloat16": (-(2.0**120), 1 + 2.0**-7),
}


@functools.cache
def extension_kinds() -> tuple[Kind, ...]:
    """Return the contract suite's kinds of the extension carriers.

    Registers the standard dtypes (importing the extension carriers does) and adds
    their sample and zero values to :data:`~stridewave.testing.SAMPLE` and
    :data:`~stridewave.testing.ZERO`.

    Returns
    -------
    tuple of Kind
        ``GenericExtension``, ``CPUExtension``, ``CPUExtension.from_numpy``,
        ``FileBackedExtension``, an ``Evictable`` of ``CPUExtension`` over
        ``FileBackedExtension`` (promoted and evicted; all thirteen dtypes, and
        float16 and bfloat16) and
        ``MetalExtension`` (the dtypes MLX has on the selected device; skipped where
        Metal cannot run).
    """
    from stridewave.carriers._extension import (
        HALF_DTYPES,
        CPUExtension,
        FileBackedExtension,
        GenericExtension,
        MetalExtension,
        metal_storage_dtypes,
    )
    from stridewave.dtypes import standard_dtypes

    # (the standard's thirteen, then float16 and bfloat16, which they store too)
    standard = tuple(standard_dtypes().values()) + HALF_DTYPES
    for name, sample in _SAMPLES.items():
        dtype = DType.from_name(name)
        SAMPLE.setdefault(dtype, sample)
        ZERO.setdefault(dtype, type(sample[0])())

    def empty_file(dtype: DType) -> Carrier:
        return FileBackedExtension(dtype=dtype)

    cpu = _cpu_kind(CPUExtension, standard)
    file = _file_kind(FileBackedExtension, standard, standard)
    return (
        _generic_kind(GenericExtension, standard, standard),
        cpu,
        _from_numpy_kind(CPUExtension, standard),
        file,
        _evictable_kind(cpu, file, empty_file),
        _evictable_kind(cpu, file, empty_file, evicted=True),
        _metal_kind(MetalExtension, metal_storage_dtypes() + HALF_DTYPES),
    )
