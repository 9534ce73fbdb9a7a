"""The built-in descriptor graph, installed once at import.

Categories are relationship-only identities; simple dtypes are fixed-width encodings
(width in bits on the right)::

    Any                      category (root)
    ├── Bool                 simple,  8 bits
    ├── Integer              category
    │   ├── Int32            simple, 32 bits
    │   └── Int8             simple,  8 bits
    └── Floating             category
        ├── Float32          simple, 32 bits  IEEE 754 binary32
        ├── Float64          simple, 64 bits  IEEE 754 binary64
        ├── E8M0             simple,  8 bits  OCP MX scale (float8_e8m0fnu)
        ├── E5M2             simple,  8 bits  OCP FP8 (float8_e5m2)
        ├── E4M3             simple,  8 bits  OCP FP8 (float8_e4m3fn)
        ├── E3M2             simple,  6 bits  OCP MX FP6 (float6_e3m2fn)
        ├── E2M3             simple,  6 bits  OCP MX FP6 (float6_e2m3fn)
        └── E2M1             simple,  4 bits  OCP MX FP4 (float4_e2m1fn)

Each is bound as ``DType.<name>`` (the only attributes ever added to ``DType``) and is
the object ``DType.from_name(<name>)`` returns.  No compound dtype is built in.

Spec: "The built-in descriptor graph is stable".
"""

from __future__ import annotations

from typing import Final

from stridewave.dtypes._model import DType, DTypeCategory, SimpleDType

__all__ = ["BUILTIN_NAMES"]


def _install() -> tuple[str, ...]:
    any_ = DTypeCategory("Any")
    floating = DTypeCategory("Floating", supertype=any_)
    integer = DTypeCategory("Integer", supertype=any_)
    simple: list[tuple[str, int, DTypeCategory]] = [
        ("Bool", 8, any_),
        ("Int32", 32, integer),
        ("Int8", 8, integer),
        ("Float32", 32, floating),
        ("Float64", 64, floating),
        ("E8M0", 8, floating),
        ("E5M2", 8, floating),
        ("E4M3", 8, floating),
        ("E3M2", 6, floating),
        ("E2M3", 6, floating),
        ("E2M1", 4, floating),
    ]
    descriptors: list[DType] = [any_, floating, integer]
    descriptors += [SimpleDType(n, bits=b, supertype=s) for n, b, s in simple]
    for descriptor in descriptors:
        # The DType namespace is frozen against everyone else; this is its only writer.
        type.__setattr__(DType, descriptor.name, descriptor)
    return tuple(d.name for d in descriptors)


BUILTIN_NAMES: Final[tuple[str, ...]] = _install()
"""Names of the built-in descriptors, in registration order."""
