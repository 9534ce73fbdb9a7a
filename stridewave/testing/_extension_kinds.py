"""The extension carrier kinds in the contract suite's kind table.

:func:`extension_kinds` returns one :class:`~stridewave.testing.Kind` per extension
carrier (:mod:`stridewave.carriers._extension`), with every dtype it stores. Calling
it imports the extension carriers, which registers the array API standard's dtypes;
importing :mod:`stridewave.testing` does not, so a test session sees only the
built-ins until a test asks for these kinds.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import pytest

from stridewave.carriers import Carrier, Evictable
from stridewave.carriers._metal import metal_runtime
from stridewave.dtypes import DType
from stridewave.testing._kinds import (
    SAMPLE,
    ZERO,
    Kind,
    _evicted,
    _fresh,
    _raw_file,
    _raw_generic,
    _raw_mlx,
    _raw_via_pointer,
    raw_values,
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
        ``FileBackedExtension`` (promoted and evicted; all thirteen dtypes) and
        ``MetalExtension`` (the
        dtypes MLX has on the selected device; skipped where Metal cannot run).
    """
    from stridewave.carriers._extension import (
        CPUExtension,
        FileBackedExtension,
        GenericExtension,
        MetalExtension,
        metal_storage_dtypes,
    )
    from stridewave.dtypes import standard_dtypes

    standard = tuple(standard_dtypes().values())
    for name, sample in _SAMPLES.items():
        dtype = DType.from_name(name)
        SAMPLE.setdefault(dtype, sample)
        ZERO.setdefault(dtype, type(sample[0])())

    def make_generic(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        return GenericExtension(values, dtype=dtype, mutable=mutable)

    def make_cpu(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        if mutable:  # through the constructor and public writes
            carrier = CPUExtension(len(values), dtype=dtype)
            for i, v in enumerate(values):
                carrier[i] = v
            return _fresh(carrier)
        return CPUExtension(0, dtype=dtype).new_like(values, mutable=False, dtype=dtype)

    def make_wrapped(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        return CPUExtension.from_numpy(np.array(values, dtype=dtype.dtype), mutable=mutable)

    def make_file(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        return FileBackedExtension(dtype=dtype).new_like(values, mutable=mutable)

    def make_metal(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        if mutable:
            carrier = MetalExtension(len(values), dtype=dtype)
            for i, v in enumerate(values):
                carrier[i] = v
            return _fresh(carrier)
        return MetalExtension(0, dtype=dtype).new_like(values, mutable=False, dtype=dtype)

    def make_evictable(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        """Make a promoted Evictable, CPUExtension over FileBackedExtension."""
        return Evictable(make_cpu(values, dtype, mutable), FileBackedExtension(dtype=dtype))

    metal = metal_storage_dtypes()
    return (
        Kind(
            name="GenericExtension",
            cls=GenericExtension,
            make=make_generic,
            raw_values=_raw_generic,
            dtypes=standard,
            supported=standard,
        ),
        Kind(
            name="CPUExtension",
            cls=CPUExtension,
            make=make_cpu,
            raw_values=_raw_via_pointer,
            dtypes=standard,
            supported=standard,
            initializes_empty=False,
        ),
        Kind(
            name="CPUExtension.from_numpy",
            cls=CPUExtension,
            make=make_wrapped,
            raw_values=_raw_via_pointer,
            dtypes=standard,
            supported=standard,
            initializes_empty=False,
        ),
        Kind(
            name="FileBackedExtension",
            cls=FileBackedExtension,
            make=make_file,
            raw_values=_raw_file,
            dtypes=standard,
            supported=standard,
            scatters=False,
        ),
        Kind(
            name="Evictable(CPUExtension/FileBackedExtension)",
            cls=Evictable,
            make=make_evictable,
            raw_values=raw_values,
            dtypes=standard,
            supported=standard,
            initializes_empty=False,
        ),
        Kind(
            name="Evictable(CPUExtension/FileBackedExtension)-evicted",
            cls=Evictable,
            make=_evicted(make_evictable),
            raw_values=raw_values,
            dtypes=standard,
            supported=standard,
            initializes_empty=False,
        ),
        Kind(
            name="MetalExtension",
            cls=MetalExtension,
            make=make_metal,
            raw_values=_raw_mlx,
            dtypes=metal,
            supported=metal,
            marks=(pytest.mark.needs_mlx,),
            available=metal_runtime,
            exports_views=False,
        ),
    )
