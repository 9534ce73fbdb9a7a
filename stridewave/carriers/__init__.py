"""Carriers: typed 1-D storage with a lifecycle (spec: carrier-storage).

======================= ===================================== ===========================
kind                    backend                               constructible dtypes
======================= ===================================== ===========================
:class:`Generic`        1-D ``numpy.ndarray`` built from values Float32, Int32, Bool
:class:`CPU`            1-D ``numpy.ndarray``, owned or wrapped Float32, Int32, Bool
:class:`FileBacked`     1-D ``numpy.memmap`` of a raw LE file   Float32, Int32
:class:`Metal`          1-D ``mlx.core.array`` (GPU; lazy mlx)  Float32, Int32, Bool
:class:`Evictable`      a primary and a secondary carrier       the tiers' common dtypes
:class:`NpyFile`        1-D ``numpy.memmap`` of a user's .npy   Float32, Int32
======================= ===================================== ===========================

The array API standard's other dtypes live in extension carriers of the same devices
(:mod:`stridewave.carriers._extension`), which this package does not import: importing
them registers the standard's extension descriptors.
"""

from stridewave.carriers import _messages
from stridewave.carriers._base import Carrier
from stridewave.carriers._capabilities import Capabilities, ScatterSupport
from stridewave.carriers._cpu import CPU
from stridewave.carriers._evictable import Evictable
from stridewave.carriers._file_backed import FileBacked
from stridewave.carriers._generic import Generic
from stridewave.carriers._metal import Metal
from stridewave.carriers._npy_file import NpyFile
from stridewave.carriers._storage import (
    accepts_storage_dtype,
    storage_zero,
    validate_storage_dtype,
)

#: The shipped carrier kinds, in the order ``python -m stridewave info`` lists them;
#: what each can do is its ``capabilities`` record.
KINDS: tuple[type[Carrier], ...] = (Generic, CPU, FileBacked, NpyFile, Metal, Evictable)
_messages.register_kinds(KINDS)

__all__ = [
    "CPU",
    "KINDS",
    "Capabilities",
    "Carrier",
    "Evictable",
    "FileBacked",
    "Generic",
    "Metal",
    "ScatterSupport",
    "NpyFile",
    "accepts_storage_dtype",
    "storage_zero",
    "validate_storage_dtype",
]
