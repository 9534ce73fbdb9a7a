"""What the case files of the client matrix share: the ``case`` decorator and ``wide``.

A case file imports this module as ``_case_support``, which ``run_clients.load_cases``
loads by path before the case files (pytest's process has not this directory on
``sys.path``). It is no case file: the runner reads cases from ``CASES`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: A case: ``(xp, ctx) -> result``, ``ctx`` being the runner's ``Context``.
CaseFn = Callable[[Any, Any], Any]


def case_decorator(cases: dict[str, CaseFn]) -> Callable[[CaseFn], CaseFn]:
    """Return the decorator that adds a function to ``cases`` under its own name."""

    def case(fn: CaseFn) -> CaseFn:
        cases[fn.__name__] = fn
        return fn

    return case


def wide(fn: CaseFn) -> CaseFn:
    """The case ``fn`` on float64 data and int64 labels (NumPy's defaults)."""

    def run(xp: Any, ctx: Any) -> Any:
        ctx.float_dtype, ctx.int_dtype = "float64", "int64"
        return fn(xp, ctx)

    return run
