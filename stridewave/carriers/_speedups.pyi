"""Type stub of the optional C accelerator (``_speedups.c``): the scalar paths, one host call."""

from collections.abc import Callable
from typing import Any

def scalar_base(
    get_value: Callable[..., Any],
    set_value: Callable[..., Any],
    getitem: Callable[..., Any],
    setitem: Callable[..., Any],
    /,
) -> type:
    """Build the C base type of Carrier (once); the four methods are its fallbacks."""

def host_binary(state: tuple[Any, ...], /) -> Callable[[Any, Any], Any]:
    """Return the C form of the CPU device's two-operand ufunc call (``_host._direct_ufunc``).

    ``state`` is ``(ufunc, run, get_state, unset, LAZY, dtypes, large, ndarray,
    fallback, finish)``; the call's ``__self__`` is that tuple.
    """
