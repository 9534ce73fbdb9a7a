"""What the namespace's functions share: the Array-making call over the dispatch step, and docs.

:func:`one` and :func:`apply` run a namespace function through
:mod:`~stridewave.array_api._dispatch` and make Arrays of the result
(``Array._new``); :func:`document` gives each generated or plain function its numpydoc
docstring from its signature.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, Final

from stridewave.array_api import _dispatch
from stridewave.array_api._array import Array
from stridewave.array_api._backend import Adopted
from stridewave.array_api._device import Device
from stridewave.tensor import Tensor

__all__ = ["adopted", "apply", "document", "document_all", "one", "wrap", "wrap_one"]


def wrap(result: Any, device: Device, sources: tuple[Tensor, ...] = ()) -> Any:
    """Wrap backend results (a native array, or tuples/namedtuples/lists of them).

    Parameters
    ----------
    result : object
        What the backend's namespace returned.
    device : Device
        The device it was computed on.
    sources : tuple of Tensor
        The operands (a result that views one becomes a view of its carrier).

    Returns
    -------
    object
        Arrays in place of native arrays; anything else unchanged.
    """
    backend = device.backend
    if backend.is_native(result):
        return Array._new(backend.adopt(result, sources), device)
    if isinstance(result, tuple):
        items = [wrap(item, device, sources) for item in result]
        if hasattr(result, "_fields"):
            return type(result)(*items)
        return tuple(items)
    if isinstance(result, list):
        return [wrap(item, device, sources) for item in result]
    return result


def wrap_one(result: Any, device: Device) -> Array:
    """:func:`wrap` for one native array."""
    return Array._new(device.backend.adopt(result, ()), device)


def adopted(found: Adopted, device: Device) -> Array:
    """Return the Array of a backend's adopted result (a direct call's)."""
    return Array._new(found, device)


_P = inspect.Parameter
_POS: Final = _P.POSITIONAL_ONLY
_KW: Final = _P.KEYWORD_ONLY
_PK: Final = _P.POSITIONAL_OR_KEYWORD

_RAISES: Final = """
    Raises
    ------
    ValueError
        If array arguments live on different devices (move one with
        ``x.to_device``), or the backend refuses the arguments (shapes, axes).
    TypeError
        If a dtype is requested that is not the standard's or that the device does
        not store, or an argument has an unsupported type.
    RuntimeError
        If an array's carrier is released.
"""


#: Summaries that already start with a verb in the imperative.
_VERBS: Final = frozenset(
    {"Clamp", "Convert", "Broadcast", "Join", "Insert", "Reverse", "Move", "Permute"}
    | {"Repeat", "Give", "Roll", "Remove", "Split", "Solve", "Shift", "Transpose"}
)


def document(func: Callable[..., Any], summary: str, returns: str = "Array") -> None:
    """Give ``func`` a numpydoc docstring built from its signature."""
    sig = inspect.signature(func)
    first = summary.split(" ", 1)[0]
    if first not in _VERBS:
        summary = f"Return {summary[0].lower()}{summary[1:]}"
    params = []
    for name, param in sig.parameters.items():
        star = "*" if param.kind is _P.VAR_POSITIONAL else ""
        kind = "array" if name in ("x", "x1", "x2", "arrays", "condition", "indices") else "object"
        if param.default is not _P.empty:
            kind += f", optional (default {param.default!r})"
        params.append(f"    {star}{name} : {kind}\n        See the array API standard 2024.12.")
    body = "\n".join(params) if params else "    None"
    func.__doc__ = (
        f"{summary}\n\n    Array API standard 2024.12 ``{func.__name__}``, delegated to NumPy "
        "(through\n    array_api_compat) for host carriers and to ``mlx.core`` for Metal.\n\n"
        f"    Parameters\n    ----------\n{body}\n\n    Returns\n    -------\n    {returns}\n"
        "        On the arguments' device, in a fresh carrier of its kind (or a view of\n"
        f"        an argument's carrier where the backend returns a view).\n{_RAISES}"
    )


def document_all(pairs: Sequence[tuple[Callable[..., Any], str]]) -> None:
    """Document each ``(function, summary)`` pair (see :func:`document`)."""
    for func, summary in pairs:
        document(func, summary)


#: Argument types a call's keywords may hold for the one-operand step.
_PLAIN_TYPES: Final = frozenset({bool, int, float, type(None), str})


def apply(
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    sub: str | None = None,
    device: Device | None = None,
) -> Any:
    """Run ``name`` through the dispatch step and make Arrays of what it returns.

    Parameters
    ----------
    name : str
        The function, in the backend's namespace (or its ``sub`` namespace).
    args : tuple
        Positional arguments.
    kwargs : dict, optional
        Keyword arguments.
    sub : str, optional
        A sub-namespace (``"linalg"``, ``"fft"``).
    device : Device, optional
        The device, when the caller resolved it already.

    Returns
    -------
    object
        Arrays in place of the backend's arrays (also inside tuples, lists and
        named tuples); anything else as the backend returned it.

    Raises
    ------
    ValueError
        If the arrays live on two devices, or the backend refuses the arguments.
    RuntimeError
        If a carrier is released.
    """
    result, found, sources = _dispatch.apply(name, args, kwargs, sub=sub, device=device)
    return wrap(result, found, sources)


def one(
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    sub: str | None = None,
    device: Device | None = None,
) -> Array:
    """:func:`apply` for a function that returns one array.

    One Array operand with plain keyword values (the statistical functions, most
    others) takes the one-operand step (``_dispatch.unary``): the direct call where
    the device has one, else the backend's function, without the argument walk.
    """
    if (
        device is None
        and sub is None
        and len(args) == 1
        and type(args[0]) is Array
        and (kwargs is None or all(type(v) in _PLAIN_TYPES for v in kwargs.values()))
    ):
        return Array._new(*_dispatch.unary(name, args[0], kwargs))
    result: Array = apply(name, args, kwargs, sub=sub, device=device)
    return result
