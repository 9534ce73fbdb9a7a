"""Type stub of the optional C accelerator of the scalar paths (``_speedups.c``)."""

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
