"""einops on namespace arrays: ``einops.array_api`` (``rearrange``, ``reduce``, ``repeat``,
``pack``/``unpack``, which call ``__array_namespace__``), and ``einsum`` and ``parse_shape``
from ``einops`` itself, which a user calls on the same arrays.
"""

from __future__ import annotations

from typing import Any

from _case_support import CaseFn, case_decorator, wide

CLIENT = "einops"
CASES: dict[str, CaseFn] = {}
case = case_decorator(CASES)


@case
def rearrange_transpose(xp: Any, ctx: Any) -> Any:
    from einops.array_api import rearrange

    return rearrange(ctx.randn(2, 3, 4), "a b c -> c a b")


@case
def rearrange_merge_axes(xp: Any, ctx: Any) -> Any:
    from einops.array_api import rearrange

    return rearrange(ctx.randn(2, 3, 4), "a b c -> a (b c)")


@case
def rearrange_split_axis(xp: Any, ctx: Any) -> Any:
    from einops.array_api import rearrange

    return rearrange(ctx.randn(6, 4), "(h w) c -> h w c", h=2)


@case
def rearrange_space_to_depth(xp: Any, ctx: Any) -> Any:
    from einops.array_api import rearrange

    x = ctx.randn(1, 4, 4, 3)
    return rearrange(x, "b (h h2) (w w2) c -> b h w (c h2 w2)", h2=2, w2=2)


@case
def rearrange_list_of_arrays(xp: Any, ctx: Any) -> Any:
    from einops.array_api import rearrange

    return rearrange([ctx.randn(3, 4), ctx.randn(3, 4)], "n h w -> h (n w)")


@case
def rearrange_add_axis(xp: Any, ctx: Any) -> Any:
    from einops.array_api import rearrange

    return rearrange(ctx.randn(3, 4), "h w -> 1 h w 1")


@case
def reduce_mean(xp: Any, ctx: Any) -> Any:
    from einops.array_api import reduce

    return reduce(ctx.randn(2, 3, 4), "a b c -> a c", "mean")


@case
def reduce_max_pool(xp: Any, ctx: Any) -> Any:
    from einops.array_api import reduce

    return reduce(ctx.randn(1, 4, 6), "b (h 2) (w 2) -> b h w", "max")


@case
def reduce_sum_all(xp: Any, ctx: Any) -> Any:
    from einops.array_api import reduce

    return reduce(ctx.randn(3, 4), "h w ->", "sum")


@case
def reduce_min_int(xp: Any, ctx: Any) -> Any:
    from einops.array_api import reduce

    return reduce(ctx.integers(100, 4, 5), "h w -> w", "min")


@case
def reduce_prod(xp: Any, ctx: Any) -> Any:
    from einops.array_api import reduce

    return reduce(ctx.uniform(3, 4, low=0.5, high=1.5), "h w -> h", "prod")


@case
def repeat_new_axis(xp: Any, ctx: Any) -> Any:
    from einops.array_api import repeat

    return repeat(ctx.randn(3, 4), "h w -> h w c", c=2)


@case
def repeat_upsample(xp: Any, ctx: Any) -> Any:
    from einops.array_api import repeat

    return repeat(ctx.randn(2, 3), "h w -> (h 2) (w 3)")


@case
def pack_unpack(xp: Any, ctx: Any) -> Any:
    from einops.array_api import pack, unpack

    packed, shapes = pack([ctx.randn(2, 3, 4), ctx.randn(2, 4)], "b * c")
    a, b = unpack(packed, shapes, "b * c")
    return packed, a, b


@case
def einsum_matmul(xp: Any, ctx: Any) -> Any:
    from einops import einsum

    return einsum(ctx.randn(3, 4), ctx.randn(4, 5), "i j, j k -> i k")


@case
def einsum_batch_trace(xp: Any, ctx: Any) -> Any:
    from einops import einsum

    return einsum(ctx.randn(2, 3, 3), "b i i -> b")


@case
def einsum_outer(xp: Any, ctx: Any) -> Any:
    from einops import einsum

    return einsum(ctx.randn(3), ctx.randn(4), "i, j -> i j")


@case
def parse_shape(xp: Any, ctx: Any) -> Any:
    from einops import parse_shape

    d = parse_shape(ctx.randn(2, 3, 4), "a _ c")
    return d["a"], d["c"]


for _name in ("rearrange_merge_axes", "reduce_mean", "repeat_new_axis", "einsum_matmul"):
    CASES[f"{_name}[float64]"] = wide(CASES[_name])
