"""The devices of :mod:`stridewave.array_api` and the backend each computes with.

A device is a place: one row of the table of places
(:data:`~stridewave.array_api._places.PLACES`), which names the module whose
``backend(name)`` builds its :class:`~stridewave.array_api._backend.Backend`
(imported on first use: the MLX backend imports MLX). Everything above this module
reaches a device's compute through ``device.backend`` and never asks which device it is.
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import TYPE_CHECKING, Any, Final

from typing_extensions import Self

from stridewave.array_api import _messages
from stridewave.array_api._places import NAMES, PLACES, SPELLINGS, Place, carrier_for, device_of
from stridewave.carriers import Carrier
from stridewave.carriers import _messages as _carrier_messages

if TYPE_CHECKING:
    from stridewave.array_api._backend import Backend
    from stridewave.dtypes import DType

__all__ = [
    "DEFAULT_DEVICE_ENV",
    "Device",
    "as_device",
    "carrier_device",
    "check_dtype",
    "default_device",
    "set_default_device",
]

#: Environment variable naming the default device: ``cpu`` (the default),
#: ``file`` (FileBacked) or ``metal``.
DEFAULT_DEVICE_ENV: Final = "STRIDEWAVE_ARRAY_API_DEVICE"

#: Guards the one-time making of each Device (``_INSTANCES``), of its backend (the
#: ``backend`` slot: the backend module's import and ``backend(name)``) and the
#: default device (``_default``). A leaf lock apart from the imports it runs; reset in
#: a forked child, where the thread that held it does not exist.
_lock = threading.RLock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=getattr(_lock, "_at_fork_reinit"))  # noqa: B009


class Device:
    """A device of :mod:`stridewave.array_api`: a place (a row of the table of places).

    Parameters
    ----------
    name : str or Device
        ``"CPU"``, ``"FileBacked"``, ``"Generic"`` or ``"Metal"`` (case-insensitive;
        ``"cpu"``, ``"file"``, ``"metal"`` also work: a row's spellings), or a Device,
        which is returned as it is.

    Raises
    ------
    ValueError
        If ``name`` names no device; the message lists the devices and guesses the
        one meant (``"gpu"``: Metal).

    Notes
    -----
    There is one Device object per place: devices compare equal by name, and
    ``place`` is the place's row of the table of places. A device
    is a place, not a class: its Arrays live in the device's spec carrier where it
    stores the dtype (:class:`~stridewave.CPU`, :class:`~stridewave.FileBacked`,
    :class:`~stridewave.Generic`, :class:`~stridewave.Metal`), else in its extension
    carrier (``CPUExtension`` ...); Tensors over opened ``.npy`` files
    (:class:`~stridewave.NpyFile`) are on FileBacked. ``Device("Metal")`` is the MLX
    device that ``STRIDEWAVE_METAL_DEVICE`` selects. Implements the devices of
    CONTRACT section 9.
    """

    __slots__ = ("backend", "has_direct", "name", "place")

    #: The device name (``"CPU"``, ``"FileBacked"``, ``"Generic"``, ``"Metal"``).
    name: str
    #: The place's row (:class:`~stridewave.array_api._places.Place`).
    place: Place
    #: Whether the backend offers direct calls (``Backend.direct``): a declared
    #: capability, known without building the backend.
    has_direct: bool
    #: What this device computes with: a slot, set on first use (``__getattr__``), so
    #: that every later access is a plain attribute read.
    backend: Backend

    _INSTANCES: Final[dict[str, Device]] = {}

    def __new__(cls, name: object) -> Self:
        if isinstance(name, Device):  # (as torch.device(a_device): the device itself)
            return name  # type: ignore[return-value]
        canonical = SPELLINGS.get(name.strip().lower()) if isinstance(name, str) else None
        if canonical is None:
            raise ValueError(_carrier_messages.unknown_device(name, NAMES, dict(SPELLINGS)))
        found = cls._INSTANCES.get(canonical)
        if found is None:
            with _lock:
                found = cls._INSTANCES.get(canonical)
                if found is None:
                    row = next(p for p in PLACES if p.name == canonical)
                    found = object.__new__(cls)
                    object.__setattr__(found, "name", canonical)
                    object.__setattr__(found, "place", row)
                    object.__setattr__(found, "has_direct", row.has_direct)
                    cls._INSTANCES[canonical] = found
        return found  # type: ignore[return-value]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Device is immutable")

    def __repr__(self) -> str:
        return f"Device({self.name!r})"

    def __getattr__(self, name: str) -> Any:
        """Build the backend on the first read of ``backend`` (the slot is unset until then).

        Parameters
        ----------
        name : str
            The attribute asked for.

        Returns
        -------
        Backend
            The device's backend, for ``name == "backend"``.

        Raises
        ------
        AttributeError
            For any other name.
        RuntimeError
            If the backend cannot be built (Metal without MLX).
        """
        if name != "backend":
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        with _lock:
            try:
                return object.__getattribute__(self, "backend")
            except AttributeError:
                module: Any = importlib.import_module(self.place.backend_module)
                found = module.backend(self.name)
                object.__setattr__(self, "backend", found)
                return found

    def describe(self) -> str:
        """Return the device in words (for Metal: the MLX device and version).

        Returns
        -------
        str
            E.g. ``"CPU"`` or ``"Metal: MLX CPU device (...), MLX 0.32.4"``.
        """
        module: Any = importlib.import_module(self.place.backend_module)
        text: str = module.describe(self.name)
        return text

    def __reduce__(self) -> tuple[type[Device], tuple[str]]:
        """Pickle as the device name (one device per place).

        Returns
        -------
        tuple
            ``(Device, (name,))``.
        """
        return (Device, (self.name,))


CPU_DEVICE: Final = Device("CPU")
FILE_DEVICE: Final = Device("FileBacked")
GENERIC_DEVICE: Final = Device("Generic")
METAL_DEVICE: Final = Device("Metal")

#: The device of each carrier class a row names (its spec and extension carriers and
#: members), for the look-up by exact class.
_KIND_DEVICE: Final[dict[type, Device]] = {
    kind: Device(row.name) for row in PLACES for kind in row.kinds
}

_default: list[Device] = []


def default_device() -> Device:
    """Return the device that creation functions use when given ``device=None``.

    Returns
    -------
    Device
        The device set by :func:`set_default_device`, else the one named by the
        environment variable ``STRIDEWAVE_ARRAY_API_DEVICE`` (``cpu``, ``file``,
        ``metal``; read once), else ``Device("CPU")``.

    Raises
    ------
    ValueError
        If the environment variable names no device.
    """
    if _default:
        return _default[0]
    with _lock:
        if not _default:
            name = os.environ.get(DEFAULT_DEVICE_ENV, "").strip()
            _default.append(Device(name) if name else CPU_DEVICE)
    return _default[0]


def set_default_device(device: Device | str | None) -> None:
    """Set the device creation functions use when given ``device=None``.

    Parameters
    ----------
    device : Device, str or None
        The new default (a :class:`Device` or its name); ``None`` goes back to
        the environment variable ``STRIDEWAVE_ARRAY_API_DEVICE`` (else CPU).

    Raises
    ------
    ValueError
        If ``device`` names no device.
    """
    chosen = None if device is None else as_device(device)
    with _lock:
        _default.clear()
        if chosen is not None:
            _default.append(chosen)


def as_device(device: object) -> Device:
    """Return ``device`` as a :class:`Device` (a Device, a device name, or a carrier class).

    Parameters
    ----------
    device : Device, str or type
        The device, its name, or a carrier class a row of the places names.

    Returns
    -------
    Device
        The device.

    Raises
    ------
    ValueError
        If ``device`` names no device.
    """
    if isinstance(device, Device):
        return device
    if isinstance(device, type) and device in _KIND_DEVICE:
        return _KIND_DEVICE[device]
    if isinstance(device, str):
        return Device(device)
    raise ValueError(_messages.not_a_device(device))


def carrier_device(carrier: Carrier) -> Device:
    """Return the device of ``carrier``: the place its storage is, whatever its class.

    Parameters
    ----------
    carrier : Carrier
        A carrier.

    Returns
    -------
    Device
        Its device: a spec carrier's or extension carrier's own, FileBacked for an
        opened ``.npy`` (NpyFile), an Evictable's primary tier's.

    Raises
    ------
    TypeError
        If no device computes on the carrier's kind (a user's own kind).
    """
    kind = type(carrier)
    found = _KIND_DEVICE.get(kind)
    if found is not None:
        return found
    try:
        return Device(device_of(carrier))
    except TypeError:
        spec = [row.spec_carrier.__name__ for row in PLACES]
        raise TypeError(_messages.no_device_for_carrier(kind, spec)) from None


def check_dtype(device: Device, dtype: DType) -> None:
    """Raise TypeError when ``device`` does not store ``dtype``.

    Parameters
    ----------
    device : Device
        The device asked.
    dtype : DType
        A namespace dtype.

    Raises
    ------
    TypeError
        If the device lacks ``dtype``; the message names the device, the dtypes it
        has and a device that has ``dtype`` (CONTRACT section 9).
    """
    if dtype not in device.backend.dtypes():
        carrier_for(device.name, dtype)  # (raises the message)
