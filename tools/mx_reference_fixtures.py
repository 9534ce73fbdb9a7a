"""Generate the MX reference fixtures in ``tests/mx/fixtures/`` (run once, by hand).

The reference is Microsoft's MX emulation library, published by authors of the OCP
Microscaling Formats v1.0 specification: https://github.com/microsoft/microxcaling,
commit 7bc41952de394f5cc5e782baf132e7c7542eb4e4, function ``mx.mx_ops._quantize_mx``
called with ``scale_bits=8`` (E8M0), ``round="even"`` (the spec's round to nearest,
ties to even; the library's default ``"nearest"`` breaks ties away from zero),
``flush_fp32_subnorms=False`` and ``custom_cuda=False`` (its PyTorch code path).

No code of the reference is copied here: this script imports it and records, per
input and format,

* ``deq``: the reference's output (the dequantized values, ``P_i * X``);
* ``elem``: the element plane ``P_i``, as the values the reference's element
  rounding returns, put back in the input's layout with the reference's own
  ``_undo_reshape_to_blocks``;
* ``scale``: the E8M0 code (``log2(X) + 127``, 255 for NaN) of the shared scale
  ``X = 2**shared_exp`` the reference divides by, observed as the first
  ``2 ** tensor`` it computes.

Run (a throw-away environment; torch is not a dependency of StrideWeave)::

    python3 -m venv /tmp/mxref && /tmp/mxref/bin/pip install torch numpy ml_dtypes packaging
    git clone https://github.com/microsoft/microxcaling /tmp/microxcaling
    git -C /tmp/microxcaling checkout 7bc41952de394f5cc5e782baf132e7c7542eb4e4
    PYTHONPATH=/tmp/microxcaling /tmp/mxref/bin/python tools/mx_reference_fixtures.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import torch
from mx import mx_ops  # the reference, from PYTHONPATH

REFERENCE_COMMIT = "7bc41952de394f5cc5e782baf132e7c7542eb4e4"
OUT = Path(__file__).resolve().parents[1] / "tests" / "mx" / "fixtures"

#: Reference element format name for each StrideWeave element dtype name.
FORMATS = {
    "E4M3": ("fp8_e4m3", ml_dtypes.float8_e4m3fn),
    "E5M2": ("fp8_e5m2", ml_dtypes.float8_e5m2),
    "E3M2": ("fp6_e3m2", ml_dtypes.float6_e3m2fn),
    "E2M3": ("fp6_e2m3", ml_dtypes.float6_e2m3fn),
    "E2M1": ("fp4_e2m1", ml_dtypes.float4_e2m1fn),
}


def reference(values: np.ndarray, fmt: str, block: int, axis: int) -> dict[str, np.ndarray]:
    """Run the reference once; return its output, element plane and scale codes."""
    a = torch.from_numpy(values.copy())
    powers: list[torch.Tensor] = []
    elements: list[torch.Tensor] = []
    original_rpow = torch.Tensor.__rpow__
    original_core = mx_ops._quantize_elemwise_core

    def rpow(self, other):  # records 2 ** shared_exp
        result = original_rpow(self, other)
        powers.append(result.clone())
        return result

    def core(*args, **kwargs):  # records the element plane P_i
        result = original_core(*args, **kwargs)
        elements.append(result.clone())
        return result

    torch.Tensor.__rpow__ = rpow
    mx_ops._quantize_elemwise_core = core
    try:
        out = mx_ops._quantize_mx(
            a,
            8,
            fmt,
            shared_exp_method="max",
            axes=[axis],
            block_size=block,
            round="even",
            flush_fp32_subnorms=False,
            custom_cuda=False,
        )
    finally:
        torch.Tensor.__rpow__ = original_rpow
        mx_ops._quantize_elemwise_core = original_core
    _, axes, orig_shape, padded_shape = mx_ops._reshape_to_blocks(a, [axis], block)
    elem = mx_ops._undo_reshape_to_blocks(elements[0], padded_shape, orig_shape, axes)
    scale = powers[0].squeeze(axes[0] + 1).double().numpy()  # the block axis, length 1
    with np.errstate(divide="ignore", invalid="ignore"):
        log2 = np.log2(scale)
    code = np.where(np.isnan(scale), 255, log2 + 127)
    assert np.all((code == np.round(code)) & (code >= 0) & (code <= 255))
    return {"deq": out.numpy(), "elem": elem.numpy(), "scale": code.astype(np.uint8)}


def grid(np_dtype) -> np.ndarray:
    """All finite non-negative values of an element type, ascending."""
    bits = ml_dtypes.finfo(np_dtype).bits
    codes = np.arange(2**bits, dtype=np.uint8).view(np_dtype).astype(np.float64)
    return np.unique(codes[np.isfinite(codes) & (codes >= 0)])


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(20261130)
    cases: dict[str, np.ndarray] = {}
    # ordinary data, blocks at different magnitudes, a partial last block (100 = 3*32 + 4)
    scales = np.exp2(rng.integers(-30, 30, size=(48, 1)))
    cases["random"] = (rng.normal(size=(48, 100)) * scales).astype(np.float32)
    # magnitudes over the whole float32 range, subnormals included, random signs
    mags = np.exp2(rng.uniform(-149, 127.9, size=(64, 64)))
    signs = rng.choice([-1.0, 1.0], size=(64, 64))
    cases["wide"] = (mags * signs).astype(np.float32)
    # per element type: every midpoint between neighbouring element values (ties), and
    # points just either side of them, under a block maximum that fixes X = 2**k
    for name, (_, np_dtype) in FORMATS.items():
        g = grid(np_dtype)
        mids = (g[:-1] + g[1:]) / 2
        near = np.concatenate([mids, np.nextafter(mids.astype(np.float32), np.inf)])
        near = np.concatenate([near, np.nextafter(mids.astype(np.float32), -np.inf)])
        near = np.concatenate([near, -near, g, -g])
        width = 31
        rows = -(-near.size // width)
        body = np.zeros(rows * width)
        body[: near.size] = near
        k = rng.integers(-100, 100, size=(rows, 1))
        table = np.concatenate([np.full((rows, 1), g[-1]), body.reshape(rows, width)], axis=1)
        cases[f"ties_{name}"] = (table * np.exp2(k)).astype(np.float32)
    # edge blocks, one per row of 32
    f32 = np.finfo(np.float32)
    edge_rows = [
        np.zeros(32),  # all zero
        np.where(np.arange(32) % 2, -0.0, 0.0),  # signed zeros
        np.full(32, -0.0),
        np.arange(32) * float(f32.smallest_subnormal),  # float32 subnormals only
        np.linspace(-1, 1, 32) * 2.0**-126,  # around the smallest normal
        np.r_[float(f32.max), np.linspace(-1e38, 1e38, 31)],  # the top of float32
        np.r_[-float(f32.max), np.ones(31)],  # huge beside small: flush to zero
        np.r_[2.0**10, np.linspace(-3, 3, 31)],  # block max exactly a power of two
        np.r_[np.nextafter(np.float32(1024), 0), np.linspace(-3, 3, 31)],  # just under
        np.r_[np.nan, np.arange(31.0)],  # NaN in a block
        np.r_[np.inf, np.arange(31.0)],  # +inf in a block
        np.r_[-np.inf, np.arange(31.0)],  # -inf in a block
        np.r_[np.nan, np.inf, -np.inf, np.zeros(29)],
        np.r_[464.0, 470.0, 500.0, 511.0, -511.0, np.ones(27)],  # rounds past E4M3's 448
        np.r_[7.0, 6.9, 7.75, -7.9, np.ones(28) * 0.3],  # rounds past E2M3 / E2M1 maxima
        np.r_[30.0, 31.0, 29.0, -31.9, np.ones(28) * 0.01],  # past E3M2's 28
        np.r_[61000.0, 63000.0, 65000.0, -65504.0, np.ones(28)],  # past E5M2's 57344
        rng.normal(size=32) * 2.0**-140,  # subnormal block: the scale clamps at 2**-127
    ]
    cases["edges"] = np.array(edge_rows, dtype=np.float32)
    return cases


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    runs = [(name, values, 32, -1) for name, values in inputs().items()]
    random = inputs()["random"]
    runs += [("random_block16", random, 16, -1), ("random_block7", random, 7, -1)]
    runs += [("random_axis0", random, 32, 0)]
    # float64 input: computed in float64 by both; values beyond float32 and ties that a
    # detour through float32 would round twice
    rng = np.random.default_rng(7)
    wide64 = rng.normal(size=(8, 32)) * np.exp2(rng.integers(-300, 300, size=(8, 1)))
    g = grid(ml_dtypes.float8_e4m3fn)
    mids = (g[1:-1] + g[2:]) / 2
    nudged = np.r_[448.0, (mids * (1 + 2.0**-40))[:31]]
    runs.append(("float64", np.vstack([wide64, nudged, -nudged]), 32, -1))
    for name, values, block, axis in runs:
        record: dict[str, np.ndarray] = {"values": values}
        for fmt_name, (ref_name, _) in FORMATS.items():
            result = reference(values, ref_name, block, axis)
            for key, array in result.items():
                record[f"{key}_{fmt_name}"] = array
        path = OUT / f"{name}.npz"
        np.savez_compressed(
            path,
            block=np.array(block),
            axis=np.array(axis),
            reference_commit=np.array(REFERENCE_COMMIT),
            **record,
        )
        print(f"{path.name}: {values.shape} {values.dtype}, block {block}, axis {axis}")


if __name__ == "__main__":
    sys.exit(main())
