"""``__array_namespace_info__``: what :mod:`stridewave.array_api` offers."""

from __future__ import annotations

from typing import Any

from stridewave.array_api import _dtypes
from stridewave.array_api._device import Device, as_device, default_device
from stridewave.array_api._places import PLACES

__all__ = ["Info", "__array_namespace_info__"]


def _runnable(device: object, what: str) -> Device:
    """Return the device asked about (the default if None); RuntimeError if it cannot run here."""
    target = default_device() if device is None else as_device(device)
    runs, why = target.place.available()
    if not runs:
        raise RuntimeError(
            f"cannot give the {what} of {target!r}: {target.name} cannot run here ({why}). "
            "Fix that, or ask about a device that devices() lists (Device('CPU') stores "
            "all thirteen dtypes)."
        )
    return target


class Info:
    """The inspection object the array API standard asks for (``__array_namespace_info__``)."""

    __module__ = "stridewave.array_api"

    def capabilities(self) -> dict[str, Any]:
        """Return the optional capabilities.

        Returns
        -------
        dict
            ``"boolean indexing"`` and ``"data-dependent shapes"`` are ``True`` (on
            Metal they are computed by NumPy on a host copy, see docs/array-api.md);
            ``"max dimensions"`` is ``None`` (no limit of our own).
        """
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self) -> Device:
        """Return the default device (see :func:`stridewave.array_api.set_default_device`).

        Returns
        -------
        Device
        """
        return default_device()

    def devices(self) -> list[Device]:
        """Return the devices usable here: CPU, FileBacked, Generic, and Metal if MLX runs.

        Returns
        -------
        list of Device
            One per row of the table of places whose ``available()`` says it runs,
            in the table's order.
        """
        return [Device(row.name) for row in PLACES if row.available()[0]]

    def default_dtypes(self, *, device: object = None) -> dict[str, Any]:
        """Return the default dtypes of ``device`` (the default device if None).

        Parameters
        ----------
        device : Device, optional
            The device asked about (its backend's table).

        Returns
        -------
        dict
            ``"real floating"``, ``"complex floating"``, ``"integral"`` and
            ``"indexing"``: the computing library's own defaults, NumPy's on the host
            devices (float64, complex128, int64, int64), MLX's on Metal (float32,
            complex64, int32, int32). CONTRACT section 9.

        Raises
        ------
        RuntimeError
            If ``device`` is Metal and Metal cannot run here; the message says why and
            how to fix it.
        """
        target = _runnable(device, "default dtypes")
        return dict(target.backend.default_dtypes())

    def dtypes(self, *, device: object = None, kind: Any = None) -> dict[str, Any]:
        """Return the dtypes of this namespace, optionally of one kind.

        Parameters
        ----------
        device : Device, optional
            The device asked about (its backend's table; the default device if None).
        kind : str or tuple of str, optional
            A kind as :func:`stridewave.array_api.isdtype` takes it.

        Returns
        -------
        dict
            Name to dtype: exactly the dtypes the device stores (all thirteen on the
            host devices; on Metal what MLX has on its device), in the standard's
            order.

        Raises
        ------
        ValueError
            If ``kind`` is a string that names no kind, or ``device`` no device.
        RuntimeError
            If ``device`` is Metal and Metal cannot run here; the message says why and
            how to fix it.
        """
        target = _runnable(device, "dtypes")
        stored = target.backend.dtypes()
        return {
            name: dtype
            for name, dtype in _dtypes.DTYPES.items()
            if dtype in stored and (kind is None or _dtypes.isdtype(dtype, kind))
        }


def __array_namespace_info__() -> Info:
    """Return the inspection object of :mod:`stridewave.array_api` (array API standard).

    Returns
    -------
    Info
        ``capabilities()``, ``default_device()``, ``devices()``,
        ``default_dtypes()`` and ``dtypes()``.
    """
    return Info()
