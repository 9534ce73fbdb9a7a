"""Public storage helpers shared by every carrier kind (identity-based dtype rules).

Spec requirement "Public storage helpers share the identity-based storage rules":
:func:`validate_storage_dtype`, :func:`accepts_storage_dtype` and :func:`storage_zero`.
Descriptors are matched by object identity (``is``), never by equality, so a
look-alike descriptor is never mistaken for a registered one.
"""

from __future__ import annotations

from stridewave.carriers import _messages
from stridewave.carriers._storage_dtypes import ROWS
from stridewave.dtypes import DType

__all__ = ["accepts_storage_dtype", "storage_zero", "validate_storage_dtype"]


def accepts_storage_dtype(dtype: object, accepted: tuple[DType, ...]) -> bool:
    """Return whether ``dtype`` is identical to a member of ``accepted``.

    Parameters
    ----------
    dtype : object
        The candidate; any object (a non-``DType`` simply is not accepted).
    accepted : tuple of DType
        The accepted descriptor identities.

    Returns
    -------
    bool
        ``True`` when ``dtype is d`` for some ``d`` in ``accepted``; equality is not
        consulted. Allocates nothing.

    Raises
    ------
    TypeError
        If ``accepted`` is not a tuple (a generator or other iterable could be
        endless, and a set has no order to name in diagnostics).
    """
    if type(accepted) is not tuple:
        raise TypeError(_accepted_not_tuple(accepted))
    return any(dtype is candidate for candidate in accepted)


def _accepted_not_tuple(accepted: object) -> str:
    return (
        f"accepted must be a tuple of DType identities, e.g. (DType.Float32, DType.Int32); "
        f"got {type(accepted).__name__}. Pass tuple(...) of the descriptors."
    )


def validate_storage_dtype(dtype: object, *, carrier: str, accepted: tuple[DType, ...]) -> DType:
    """Check one storage dtype against a carrier's accepted identities.

    Parameters
    ----------
    dtype : object
        The candidate storage dtype.
    carrier : str
        The carrier name used in diagnostics, e.g. ``"CPU"``.
    accepted : tuple of DType
        The ordered accepted descriptor identities (named in the error text).

    Returns
    -------
    DType
        ``dtype`` itself, unchanged, when it is identical to a member of ``accepted``.

    Raises
    ------
    TypeError
        If ``dtype`` is not a ``DType``, or ``accepted`` is not a tuple.
    ValueError
        If ``dtype`` is a valid descriptor outside ``accepted``. For a compound dtype
        the message explains that homogeneous storage cannot hold its multiple
        simple-dtype planes (the deferred multi-plane requirement); for a category,
        that a category has no storage encoding.
    """
    if type(accepted) is not tuple:
        raise TypeError(_accepted_not_tuple(accepted))
    if not isinstance(dtype, DType):
        raise TypeError(_messages.not_a_dtype(dtype, where=f"{carrier} storage"))
    if accepts_storage_dtype(dtype, accepted):
        return dtype
    if dtype.is_compound():
        raise ValueError(_messages.compound_storage(dtype, carrier=carrier, accepted=accepted))
    if dtype.is_category():
        raise ValueError(_messages.category_storage(dtype, carrier=carrier, accepted=accepted))
    raise ValueError(_messages.unsupported_dtype(dtype, carrier=carrier, accepted=accepted))


def storage_zero(dtype: DType) -> float | int | bool | None:
    """Return the value an initialized slot of storage dtype ``dtype`` holds.

    Parameters
    ----------
    dtype : DType
        The storage descriptor.

    Returns
    -------
    float, int, bool or None
        ``0.0`` for ``DType.Float32``, ``0`` for ``DType.Int32``, ``False`` for
        ``DType.Bool``; ``None`` for every other descriptor (no carrier defines a
        concrete stored zero for it), including categories and compound dtypes.

    Raises
    ------
    TypeError
        If ``dtype`` is not a ``DType``.
    """
    for row in ROWS:  # the storage-dtype table, matched by identity
        if row.dtype is dtype:
            zero: float | int | bool = row.zero  # type: ignore[assignment]  # spec rows: real
            return zero
    if not isinstance(dtype, DType):
        raise TypeError(_messages.not_a_dtype(dtype, where="storage_zero"))
    return None
