"""The places of :mod:`stridewave.array_api`: one frozen row per device.

A device of the namespace is a place (CONTRACT section 9, "Devices are places, not
classes"): host memory (CPU), the session's files (FileBacked), Python lists
(Generic), the MLX device (Metal). Everything the namespace knows of a place is one
:class:`Place` row of :data:`PLACES`: its names, the carrier classes whose storage is
the place, the dtypes its own storage holds and those it holds in host memory, the
module of the backend it computes with, and whether it can run here. Every reader
asks the row: :class:`~stridewave.array_api._device.Device`, :func:`carrier_for`,
:func:`device_of`, ``__array_namespace_info__``, ``python -m stridewave info`` and
the tests' device lists. Adding a device is a row here, a backend module, and the
import-linter contract lines (docs/architecture.md, "What a change touches").

This module sits below the backends (they read the rows) and above nothing of the
namespace but its dtypes: it names a backend by its module, imported by ``Device``
on first use, so that MLX is imported only when Metal is first used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, Literal

from stridewave.carriers import CPU, Carrier, FileBacked, Generic, Metal
from stridewave.carriers._evictable import Evictable
from stridewave.carriers._extension import (
    HALF_DTYPES,
    CPUExtension,
    FileBackedExtension,
    GenericExtension,
    MetalExtension,
    metal_storage_dtypes,
)
from stridewave.carriers._mlx_runtime import runtime
from stridewave.carriers._npy_file import NpyFile
from stridewave.dtypes import DType, standard_dtypes

__all__ = [
    "NAMES",
    "PLACES",
    "SPELLINGS",
    "Place",
    "carrier_for",
    "device_of",
    "device_storage_dtypes",
    "place",
]

#: The thirteen, in the standard's order.
_STANDARD: Final[tuple[DType, ...]] = tuple(standard_dtypes().values())


def _everywhere() -> tuple[bool, str]:
    """Return the availability of a host place: always (host memory, files, lists)."""
    return True, "host memory"


def _all_thirteen() -> tuple[DType, ...]:
    """Return what a host place's storage holds: all thirteen standard dtypes."""
    return _STANDARD


@dataclass(frozen=True)
class Place:
    """One place of :mod:`stridewave.array_api`: everything the namespace knows of it.

    Parameters
    ----------
    name : str
        The device name, as ``Device.name`` spells it (``"CPU"``).
    short : str
        The short lower-case spelling, also the tests' id (``"cpu"``, ``"file"``).
    aliases : tuple of str
        Other lower-case spellings ``Device(...)`` accepts (``("host",)``).
    spec_carrier : type of Carrier
        The spec's carrier of the place: it stores the spec's dtypes there.
    extension_carrier : type of Carrier
        The place's extension carrier (a subclass of ``spec_carrier``): it stores the
        standard's other dtypes there.
    members : tuple of type of Carrier
        Other carrier kinds whose storage is the place (an opened ``.npy`` file,
        :class:`~stridewave.NpyFile`, is on FileBacked); subclasses count too.
    backend_module : str
        The module whose ``backend(name)`` builds the place's backend and whose
        ``describe(name)`` gives it in words; imported on first use.
    has_direct : bool
        Whether the backend offers direct calls (``Backend.direct``), known without
        building it.
    needs : str or None
        The module the place needs importable (``"mlx"``), or None; the tests mark
        and skip the place by it (``needs_mlx``).
    device_dtypes : callable
        ``() -> tuple of DType``: the standard dtypes the place's own storage holds,
        in the standard's order (asked afresh: Metal's depend on the MLX device that
        ``STRIDEWAVE_METAL_DEVICE`` selects).
    available : callable
        ``() -> (bool, str)``: whether the place can run in this process, and on
        what or why not (Metal: MLX importable and its device usable).

    Notes
    -----
    Frozen: a row is the same for the life of the process; the answers that depend
    on the runtime are the two callables. Implements the devices of CONTRACT
    section 9 ("Devices are places, not classes"; version 3: every listed device
    stores all thirteen, those its storage lacks held in host memory).
    """

    name: str
    short: str
    aliases: tuple[str, ...]
    spec_carrier: type[Carrier]
    extension_carrier: type[Carrier]
    members: tuple[type[Carrier], ...]
    backend_module: str
    has_direct: bool
    needs: str | None
    device_dtypes: Callable[[], tuple[DType, ...]]
    available: Callable[[], tuple[bool, str]]

    @property
    def kinds(self) -> tuple[type[Carrier], ...]:
        """The carrier kinds whose storage is this place (subclasses count too).

        Returns
        -------
        tuple of type of Carrier
            ``spec_carrier``, ``extension_carrier``, then ``members``.
        """
        return (self.spec_carrier, self.extension_carrier, *self.members)

    @property
    def host_addressable(self) -> bool:
        """Whether the place's storage is host memory NumPy addresses directly.

        Returns
        -------
        bool
            The spec carrier's capability record's answer (``Capabilities``).
        """
        return self.spec_carrier.capabilities.host_addressable

    def host_held(self) -> frozenset[DType]:
        """Return the standard dtypes the place holds in host memory and computes on the host.

        Returns
        -------
        frozenset of DType
            Those its own storage lacks: none on the host places; on Metal
            ``complex128``, and ``float64`` on a GPU (CONTRACT section 9, version 3).
            The Metal backend's ``held`` is this answer, taken when it is built.
        """
        own = self.device_dtypes()
        return frozenset(d for d in _STANDARD if d not in own)

    def dtypes(self) -> tuple[DType, ...]:
        """Return the standard dtypes the place stores, in the standard's order.

        Returns
        -------
        tuple of DType
            All thirteen on every place: its own storage's, and the host-held ones.
        """
        own = self.device_dtypes()
        held = self.host_held()
        return tuple(d for d in _STANDARD if d in own or d in held)

    def computes_on(self, dtype: DType) -> Literal["device", "host"]:
        """Return where operations on ``dtype`` run for this place.

        Parameters
        ----------
        dtype : DType
            One of the thirteen standard dtypes.

        Returns
        -------
        str
            ``"host"`` for a host-held dtype (NumPy on host memory), else
            ``"device"`` (the place's own compute library; on the host places that
            is NumPy on host memory too).

        Raises
        ------
        TypeError
            If ``dtype`` is not one of the thirteen.
        """
        if not any(dtype is d for d in _STANDARD):
            raise TypeError(
                f"computes_on() takes one of the thirteen standard dtypes; got {dtype!r}. "
                f"Pass e.g. DType.Float32."
            )
        return "host" if dtype in self.host_held() else "device"


#: The places, in the order ``__array_namespace_info__().devices()`` lists them.
PLACES: Final[tuple[Place, ...]] = (
    Place(
        name="CPU",
        short="cpu",
        aliases=("host",),
        spec_carrier=CPU,
        extension_carrier=CPUExtension,
        members=(),
        backend_module="stridewave.array_api._host",
        has_direct=True,
        needs=None,
        device_dtypes=_all_thirteen,
        available=_everywhere,
    ),
    Place(
        name="FileBacked",
        short="file",
        aliases=(),
        spec_carrier=FileBacked,
        extension_carrier=FileBackedExtension,
        members=(NpyFile,),
        backend_module="stridewave.array_api._host",
        has_direct=False,
        needs=None,
        device_dtypes=_all_thirteen,
        available=_everywhere,
    ),
    Place(
        name="Generic",
        short="generic",
        aliases=(),
        spec_carrier=Generic,
        extension_carrier=GenericExtension,
        members=(),
        backend_module="stridewave.array_api._host",
        has_direct=False,
        needs=None,
        device_dtypes=_all_thirteen,
        available=_everywhere,
    ),
    Place(
        name="Metal",
        short="metal",
        aliases=("mlx",),
        spec_carrier=Metal,
        extension_carrier=MetalExtension,
        members=(),
        backend_module="stridewave.array_api._mlx_backend",
        has_direct=True,
        needs="mlx",
        device_dtypes=metal_storage_dtypes,
        available=runtime,
    ),
)

#: The device names, in the table's order.
NAMES: Final[tuple[str, ...]] = tuple(p.name for p in PLACES)

_BY_NAME: Final[Mapping[str, Place]] = MappingProxyType({p.name: p for p in PLACES})

#: Every lower-case spelling ``Device(...)`` accepts, to its device name.
SPELLINGS: Final[Mapping[str, str]] = MappingProxyType(
    {
        spelling: p.name
        for p in PLACES
        for spelling in dict.fromkeys((p.name.lower(), p.short, *p.aliases))
    }
)


def place(name: object) -> Place:
    """Return the row of the device ``name`` (its exact name, ``"CPU"``).

    Parameters
    ----------
    name : str
        ``"CPU"``, ``"FileBacked"``, ``"Generic"`` or ``"Metal"``.

    Returns
    -------
    Place
        Its row.

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`NAMES`.
    """
    found = _BY_NAME.get(name) if type(name) is str else None
    if found is None:
        raise ValueError(f"unknown device {name!r}; expected one of {', '.join(map(repr, NAMES))}.")
    return found


def device_storage_dtypes(device: str) -> tuple[DType, ...]:
    """Return the standard dtypes a device's own storage holds, in the standard's order.

    Parameters
    ----------
    device : str
        ``"CPU"``, ``"FileBacked"``, ``"Generic"`` or ``"Metal"``.

    Returns
    -------
    tuple of DType
        The row's ``device_dtypes()``: all thirteen on the host devices; on
        ``"Metal"``, :func:`~stridewave.carriers._extension.metal_storage_dtypes`.

    Raises
    ------
    ValueError
        If ``device`` is not one of :data:`NAMES`.
    """
    return place(device).device_dtypes()


def carrier_for(device: str, dtype: DType) -> type[Carrier]:
    """Return the carrier class that stores ``dtype`` on ``device``.

    Parameters
    ----------
    device : str
        ``"CPU"``, ``"FileBacked"``, ``"Generic"`` or ``"Metal"``.
    dtype : DType
        One of the thirteen standard dtypes.

    Returns
    -------
    type of Carrier
        The row's spec carrier when it stores ``dtype`` (e.g. ``CPU`` for Float32),
        else its extension carrier (e.g. ``CPUExtension`` for Int64).

    Raises
    ------
    ValueError
        If ``device`` is not one of :data:`NAMES`.
    TypeError
        If ``dtype`` is not a DType, or the device's storage does not hold it; the
        message names the device, the dtypes it has and a device that has ``dtype``.
    """
    row = place(device)
    if not isinstance(dtype, DType):
        raise TypeError(
            f"carrier_for() takes a DType; got {dtype!r} ({type(dtype).__name__}). Pass one "
            f"of the standard dtypes, e.g. DType.Float32."
        )
    spec: Any = row.spec_carrier._CONSTRUCTIBLE_STORAGE
    if any(dtype is d for d in spec):
        return row.spec_carrier
    if any(dtype is d for d in HALF_DTYPES):
        return row.extension_carrier  # (every extension carrier stores them)
    has = row.device_dtypes()
    if any(dtype is d for d in has):
        return row.extension_carrier
    others = [p.name for p in PLACES if p is not row and any(dtype is x for x in p.device_dtypes())]
    where = (
        f"; device {others[0]!r} has it: move the data there (x.to_device({others[0]!r})) "
        f"or ask for one of the dtypes above"
        if others
        else "; no device stores it"
    )
    raise TypeError(
        f"device {row.name!r} does not store {dtype!r}. It stores "
        f"{', '.join(d.name for d in has)}{where}."
    )


def device_of(carrier: Carrier) -> str:
    """Return the device (the place) whose storage ``carrier`` is, whatever its class.

    Parameters
    ----------
    carrier : Carrier
        A carrier of a kind some row lists (``Place.kinds``), or an Evictable.

    Returns
    -------
    str
        The name of the row that lists the carrier's kind (``"CPU"`` for CPU and
        CPUExtension, ``"FileBacked"`` for FileBacked, FileBackedExtension and
        NpyFile ...); for an Evictable, the device of its primary tier.

    Raises
    ------
    TypeError
        If ``carrier`` is not a carrier of one of these kinds (a user's own kind).
    """
    if isinstance(carrier, Evictable):
        return device_of(carrier.primary)
    for row in PLACES:
        if isinstance(carrier, row.kinds):
            return row.name
    listed = ", ".join(k.__name__ for row in PLACES for k in (row.spec_carrier, *row.members))
    raise TypeError(
        f"device_of() takes a carrier of a shipped kind ({listed}, Evictable or their "
        f"extensions); got {type(carrier).__name__}."
    )
