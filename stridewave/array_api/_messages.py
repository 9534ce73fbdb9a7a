"""Error text of :mod:`stridewave.array_api`: one function per situation.

Every message says what was given, what was expected and how to fix it. The wording
lives here so that each situation reads the same wherever it is raised, and tests can
match on it. Functions return ``str``; raising stays with the caller, which picks the
exception the standard names. Control flow never reads this text: a caller that must
tell one situation from another catches :class:`DeviceMismatch`, not a message.
"""

from __future__ import annotations

from stridewave.carriers._messages import dtype_text

__all__ = [
    "DeviceMismatch",
    "compound_tensor",
    "devices_differ",
    "dtype_text",
    "no_device_for_carrier",
    "not_a_device",
    "outside_carrier",
    "released",
    "shapes_do_not_broadcast",
    "unknown_device",
]


class DeviceMismatch(ValueError):
    """Arrays on two devices were combined (a ``ValueError``, as the standard asks).

    Notes
    -----
    Implements "arrays of different devices are not combined" (CONTRACT section 9).
    """


def unknown_device(kind: object) -> str:
    """Return the message for a device name that names no carrier kind."""
    return (
        f"unknown stridewave.array_api device {kind!r}; expected 'CPU', 'FileBacked', "
        "'Generic' or 'Metal'."
    )


def not_a_device(device: object) -> str:
    """Return the message for a ``device`` argument that is no device at all."""
    return (
        f"expected a stridewave.array_api Device (e.g. xp.Device('CPU')), got "
        f"{type(device).__name__} {device!r}."
    )


def no_device_for_carrier(kind: type) -> str:
    """Return the message for a carrier kind no device computes on."""
    return (
        f"stridewave.array_api has no device for carrier kind {kind.__name__}; use CPU, "
        "FileBacked, Generic, Metal or an Evictable over one of them."
    )


def compound_tensor(value: object) -> str:
    """Return the message for a compound (multi-subtensor) Tensor given as an array."""
    return (
        f"stridewave.array_api works on single-subtensor Tensors; {value!r} is compound "
        "(one subtensor per plane): pass tensor.subtensors[k]."
    )


def devices_differ(first: object, second: object, what: str = "") -> str:
    """Return the message for arrays of two devices combined in one call."""
    where = f"{what}: " if what else ""
    return (
        f"{where}arrays on different devices ({first!r} and {second!r}) cannot be "
        "combined; move one first with x.to_device(...)."
    )


def outside_carrier(tensor: object, size: int) -> str:
    """Return the message for a view whose slots no longer fit its carrier."""
    return (
        f"{tensor!r} addresses slots outside its carrier of {size} slots (the carrier "
        "shrank after the view was made)."
    )


def released(carrier: object) -> str:
    """Return the message for an operation reading a released carrier."""
    return f"cannot read {carrier!r}: it is released and has no storage (carrier rule)."


def shapes_do_not_broadcast(name: str, s1: tuple[int, ...], s2: tuple[int, ...]) -> str:
    """Return the message for two operand shapes that do not broadcast together."""
    return (
        f"{name}: the shapes {s1} and {s2} cannot be broadcast together (aligned from "
        "the right, each pair of axes must be equal or one of them 1); reshape or index "
        "an operand so that they can (for instance x[:, None])."
    )
