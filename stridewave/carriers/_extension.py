"""Extension carriers: the array API standard's dtypes on every device that has them.

The five spec carriers keep exactly the storage sets the carrier spec gives them
(``CPU``, ``Generic`` and ``Metal``: Float32, Int32, Bool; ``FileBacked``: Float32,
Int32). The standard's other dtypes live in one extension carrier per device, a
subclass of that device's spec carrier with a widened storage set (the spec allows a
custom carrier to widen its support): the same lifecycle mixin, version counter,
ownership, release, scatter, ``new_like``/``allocate_like`` and value normalization,
whose rules are rows of the one storage-dtype table
(:mod:`stridewave.carriers._storage_dtypes`).

================================  ======================  ==================================
extension carrier                 backend                 storage dtypes
================================  ======================  ==================================
:class:`GenericExtension`         1-D ``numpy.ndarray``   all thirteen
:class:`CPUExtension`             1-D ``numpy.ndarray``   all thirteen
:class:`FileBackedExtension`      1-D ``numpy.memmap``    all thirteen (raw little-endian)
:class:`MetalExtension`           1-D ``mlx.core.array``  what MLX has on the device: on a
                                                          GPU all but Float64 and
                                                          Complex128; on MLX's CPU device
                                                          all but Complex128
================================  ======================  ==================================

Each of them also stores the two half-precision dtypes beyond the standard,
:data:`HALF_DTYPES` (``Float16`` and ``BFloat16``: NumPy's ``float16`` and ml_dtypes'
``bfloat16`` on the host, MLX's own on Metal; CONTRACT section 9, version 3). They are
not among :func:`device_storage_dtypes` (the standard's dtypes a device stores).

Importing this module registers the standard's extension descriptors
(:func:`stridewave.dtypes.register_standard_dtypes`); ``import stridewave`` never
imports it. The array API namespace does, and so does unpickling an extension carrier.

Which device each carrier class belongs to, and which class stores a dtype on a
device (``carrier_for``), is the array API's table of places
(:mod:`stridewave.array_api._places`), one row per device.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final

from typing_extensions import override

from stridewave.carriers._base import Carrier
from stridewave.carriers._cpu import CPU
from stridewave.carriers._file_backed import FileBacked
from stridewave.carriers._generic import Generic
from stridewave.carriers._metal import Metal
from stridewave.carriers._mlx_runtime import import_mlx, select_device
from stridewave.carriers._storage_dtypes import extension_row_for_numpy
from stridewave.dtypes import DType, register_standard_dtypes
from stridewave.dtypes._standard import register_half_dtypes

__all__ = [
    "EXTENSION_KINDS",
    "HALF_DTYPES",
    "CPUExtension",
    "FileBackedExtension",
    "GenericExtension",
    "MetalExtension",
    "metal_storage_dtypes",
]

_STANDARD: Final[Mapping[str, DType]] = register_standard_dtypes()

#: The thirteen, in the standard's order.
_ALL: Final[tuple[DType, ...]] = tuple(_STANDARD.values())
_F64, _C128 = _STANDARD["float64"], _STANDARD["complex128"]
#: What MLX stores on its CPU device (it has no complex128), and on a GPU (no float64).
_MLX_CPU: Final[tuple[DType, ...]] = tuple(d for d in _ALL if d is not _C128)
_MLX_GPU: Final[tuple[DType, ...]] = tuple(d for d in _MLX_CPU if d is not _F64)

#: The half-precision dtypes beyond the standard (Float16, BFloat16), which every
#: extension carrier stores: MLX has both on every device, NumPy float16 and ml_dtypes
#: bfloat16 on the host.
HALF_DTYPES: Final[tuple[DType, ...]] = tuple(register_half_dtypes().values())
_HOST: Final[tuple[DType, ...]] = _ALL + HALF_DTYPES


class GenericExtension(Generic):
    """A :class:`~stridewave.Generic` that stores every dtype of the array API standard.

    Parameters
    ----------
    values : iterable
        Ordered slot values, consumed once and normalized (as for ``Generic``).
    mutable : bool, optional
        Intrinsic mutability (default ``True``).
    dtype : DType
        Required, keyword-only: one of the thirteen standard dtypes or of
        :data:`HALF_DTYPES`.

    Raises
    ------
    TypeError
        If ``dtype`` is missing or not a DType, ``values`` is not iterable, or a value
        is refused by the dtype's row of the storage-dtype table.
    ValueError
        If ``dtype`` is another descriptor (categories and compound dtypes included).
    OverflowError
        If a value is out of the dtype's range.

    Notes
    -----
    CONTRACT section 9, "Storage for them": the Generic device's extension carrier.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = _HOST
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = _HOST


class CPUExtension(CPU):
    """A :class:`~stridewave.CPU` that stores every dtype of the array API standard.

    Parameters
    ----------
    size : int-like
        Number of slots (elements), ``>= 0``.
    pointer : int or None, optional
        ``None`` (default) owns a new allocation; a positive address wraps memory, as
        for ``CPU``.
    mutable : bool, optional
        Intrinsic mutability (default ``True``).
    dtype : DType, optional
        One of the thirteen standard dtypes or of :data:`HALF_DTYPES` (default
        ``DType.Float32``).
    empty : bool, optional
        Skip zero-initialization of an owned allocation (default ``False``).

    Raises
    ------
    TypeError
        If ``size`` or ``pointer`` is not an integer, ``dtype`` is not a DType, or a
        flag is not a bool.
    ValueError
        If ``size`` is negative, ``pointer`` is not positive, or ``dtype`` is not one of
        the thirteen.

    Notes
    -----
    CONTRACT section 9, "Storage for them": the CPU device's extension carrier.
    ``CPUExtension.from_numpy`` wraps an array of any of the thirteen NumPy dtypes,
    ``float16`` and ml_dtypes' ``bfloat16``.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = _HOST
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = _HOST
    _row_for_numpy = staticmethod(extension_row_for_numpy)


class FileBackedExtension(FileBacked):
    """A :class:`~stridewave.FileBacked` that stores every dtype of the array API standard.

    Parameters
    ----------
    filename : str or None, optional
        A bare file name in the session directory; ``None`` (default) generates one.
    mutable : bool, optional
        Intrinsic mutability (default ``True``).
    dtype : DType
        Required, keyword-only: one of the thirteen standard dtypes or of
        :data:`HALF_DTYPES`, stored as raw little-endian values (Bool one byte per slot,
        complex as two parts).

    Raises
    ------
    TypeError
        If ``dtype`` is missing or not a DType, or ``mutable`` is not a bool.
    ValueError
        If ``filename`` has path components or exists already, or ``dtype`` is not one of
        the thirteen.

    Notes
    -----
    CONTRACT section 9, "Storage for them": the FileBacked device's extension carrier;
    like ``FileBacked`` it does not scatter.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = _HOST
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = _HOST


def metal_storage_dtypes() -> tuple[DType, ...]:
    """Return the standard dtypes MLX stores on this process's Metal device.

    Asked afresh on each call (``STRIDEWAVE_METAL_DEVICE`` may change).

    Returns
    -------
    tuple of DType
        On a GPU, all but Float64 and Complex128; on MLX's CPU device, all but
        Complex128; where Metal cannot run here (no MLX, no device), the CPU device's
        set (what MLX can store at all).
    """
    try:
        mx = import_mlx()
        device, _name = select_device(mx)
    except RuntimeError:
        return _MLX_CPU
    return _MLX_CPU if device.type == mx.cpu else _MLX_GPU


class MetalExtension(Metal):
    """A :class:`~stridewave.Metal` that stores every dtype MLX has on its device.

    Parameters
    ----------
    size : int-like
        Number of slots (elements), ``>= 0``.
    mutable : bool, optional
        Intrinsic mutability (default ``True``).
    dtype : DType, optional
        One of :func:`metal_storage_dtypes` (default ``DType.Float32``).
    empty : bool, optional
        Allow skipping initialization (default ``False``).

    Raises
    ------
    TypeError
        If ``size`` is not an integer, ``dtype`` is not a DType, or a flag is not a
        bool.
    ValueError
        If ``size`` is negative, or ``dtype`` is not stored by MLX on this device
        (Complex128 anywhere; Float64 on a GPU).
    RuntimeError
        If MLX or its device is not available (as for ``Metal``).

    Notes
    -----
    CONTRACT section 9, "Storage for them": the Metal device's extension carrier.
    ``supports_storage_dtype`` answers for the device this process selected.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = _MLX_CPU + HALF_DTYPES
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = _MLX_CPU + HALF_DTYPES

    @override
    def _device_storage_dtypes(self) -> tuple[DType, ...]:
        return metal_storage_dtypes() + HALF_DTYPES

    @override
    def _supported_storage_dtypes(self) -> tuple[DType, ...]:
        return metal_storage_dtypes() + HALF_DTYPES

    @override
    def _constructible_storage_dtypes(self) -> tuple[DType, ...]:
        return metal_storage_dtypes() + HALF_DTYPES


#: The extension carrier kinds, in the order ``python -m stridewave info`` lists them.
EXTENSION_KINDS: Final[tuple[type[Carrier], ...]] = (
    GenericExtension,
    CPUExtension,
    FileBackedExtension,
    MetalExtension,
)
