"""OCP Microscaling (MX) quantization: element and scale planes from real numbers, and back.

The OCP Microscaling Formats (MX) Specification v1.0 stores a block of ``k`` values as
one shared scale ``X`` (an E8M0 power of two) and ``k`` narrow floating-point elements
``P_i``; the value of element ``i`` is ``P_i * X``. This module implements the
specification's conversion (its Algorithm 1, section 6.3) for the five MX floating-point
element types and returns the two planes as NumPy arrays of the ``ml_dtypes`` types
that :func:`stridewave.to_numpy_dtype` maps the planes of a
:class:`~stridewave.ScaledDType` to.

==========  ========  ============  =====================  =========================
format      element   ``emax``      largest element        element NaN / Inf
==========  ========  ============  =====================  =========================
MXFP8       E4M3      8             448                    NaN only
MXFP8       E5M2      15            57344                  NaN and Inf
MXFP6       E3M2      4             28                     neither
MXFP6       E2M3      2             7.5                    neither
MXFP4       E2M1      2             6                      neither
==========  ========  ============  =====================  =========================

The rules, per block of ``block`` consecutive values along ``axis``:

1. ``shared_exp = floor(log2(max_i |V_i|)) - emax``, where ``emax`` is the exponent
   of the element type's largest normal number. An all-zero block takes the
   smallest scale. ``shared_exp`` is clamped below at -127, the smallest E8M0
   exponent (values then round toward zero, as the spec's clamp implies).
2. ``X = 2**shared_exp`` is stored in E8M0 (bias 127, no sign, no zero; code 255 is
   NaN).
3. ``P_i = V_i / X`` rounded to the element type, to nearest with ties to even;
   a magnitude beyond the element type's largest normal saturates to it (the
   spec's "clamping normal numbers"), for every element type, including E5M2
   whose Inf is never produced by conversion.
4. A block holding a NaN or an infinity, or whose ``shared_exp`` would exceed
   127 (only possible for float64 input beyond the float32 range), gets the NaN
   scale: every value of that block reads back as NaN (spec: "if X is NaN, all
   values in the block are NaN"). Its elements are NaN where the element type has
   a NaN (E4M3, E5M2), else zero.

This follows the reference implementation published with the specification's
authors (``microsoft/microxcaling``, ``mx/mx_ops.py`` with ``round="even"``), against
which ``tests/mx/test_reference.py`` checks it bit for bit.

Other scale rules
-----------------
Hardware and libraries that deploy MX choose the scale differently; ``quantize``'s
``scale_rule`` gives their bits. Rule 1 above is ``"floor"``. The other three are
defined on float32 arithmetic: the block maximum ``amax`` is taken in float32 (a
float64 block beyond float32's range gets the NaN scale), and the ratio ``r`` to
the element type's largest magnitude ``largest`` is rounded once to float32:

``"rceil"``
    ``r = amax * (1 / largest)``, the reciprocal a float32 constant; the exponent is
    ``ceil(log2(r))`` exactly (``r``'s float32 exponent, plus one unless ``r`` is a
    power of two). NVIDIA's cuBLAS block scaling, Transformer Engine's
    ``amax * max_norm_rcp``, and torchao's ``ScaleCalculationMode.RCEIL``
    (``_to_mx_rceil`` in ``torchao/prototype/mx_formats/mx_tensor.py``).
``"ceil"``
    ``r = amax / largest`` (a division), then ``ceil(log2(r))`` exactly. JAX's
    ``cast_to_e8m0_with_rounding_up`` in ``jax/_src/cudnn/scaled_matmul_stablehlo.py``
    (``jax.nn.scaled_dot_general``), and ``mx.quantize(mode="mxfp8" | "mxfp4")`` of MLX
    0.32.4 (measured on its CPU device).
``"nearest"``
    ``r = amax / largest``, then ``round(log2(r))``, evaluated exactly (``r``'s
    significand against ``sqrt(2)``, not a rounded ``log2``). MLX's E8M0 conversion
    (``fp8_e8m0`` in its Metal kernels, ``to_fp8_e8m0`` on the CPU) and its
    ``mx.quantize`` for the MX modes up to 0.32.1.

The exponent is then clamped to E8M0's ``[-127, 127]``: a zero ratio (an all-zero
block, or ``amax`` below ``2**-149 * largest``) takes ``-127`` (code 0), except
under ``"nearest"``, which writes code 127 (``2**0``) there as MLX does. Elements
round as in rule 3 under every rule, and a block holding NaN or an infinity gets
the NaN scale under every rule. Where the sources differ from this:

* MLX's CPU ``mx.quantize`` does not clamp: an exponent below -127 wraps around
  modulo 256 into a large scale, and a NaN or infinite block gets code 128; its
  E2M1 rounding picks the nearer table entry with ties toward zero and stores
  ``+0`` for a negative value that rounds to zero (MLX's Metal kernels round ties
  to even and keep the sign, as here). MLX 0.32.4 writes code 127 for an all-zero
  block under its ceil rule.
* MLX evaluates ``round(log2(r))`` with a float32 ``log2``; for ratios within about
  ``|k| * 2**-23`` (relative) of ``sqrt(2) * 2**k`` its result can fall on the other
  side, where ``"nearest"`` gives the exact rounding.
* JAX's round-up wraps a NaN ratio to code 0 (an infinite one to 255).
* torchao's ``ScaleCalculationMode.CEIL`` is another rule, ``ceil(log2(amax)) -
  emax``; it is not offered.
"""

from __future__ import annotations

import functools
from typing import Any, Final, NamedTuple, overload

import ml_dtypes
import numpy as np
import numpy.typing as npt
from numpy.lib.array_utils import normalize_axis_index

from stridewave.dtypes import DType, ScaledDType, SimpleDType
from stridewave.interop import to_numpy_dtype

__all__ = [
    "ELEMENT_NAMES",
    "SCALE_RULES",
    "Quantized",
    "dequantize",
    "from_mlx",
    "pack_elements",
    "quantize",
    "scaled_dtype",
    "to_mlx",
    "unpack_elements",
]

#: The registered names of the MX floating-point element types, widest first.
ELEMENT_NAMES: Final[tuple[str, ...]] = ("E4M3", "E5M2", "E3M2", "E2M3", "E2M1")

#: OCP format family of each element type.
_FAMILY: Final[dict[str, str]] = {
    "E4M3": "MXFP8",
    "E5M2": "MXFP8",
    "E3M2": "MXFP6",
    "E2M3": "MXFP6",
    "E2M1": "MXFP4",
}

#: Smallest and largest E8M0 exponents; code 255 is NaN.
_SCALE_EMIN: Final = -127
_SCALE_EMAX: Final = 127
_SCALE_NAN: Final = 255

#: Input dtypes whose every value float32 holds exactly (ml_dtypes floats added below).
_FLOAT32_EXACT: Final = {np.dtype(np.float16), np.dtype(np.float32)}


_ML_FLOATS: Final = {
    np.dtype(getattr(ml_dtypes, name)).type
    for name in (
        "bfloat16",
        "float8_e4m3fn",
        "float8_e5m2",
        "float8_e4m3",
        "float8_e3m4",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "float8_e4m3b11fnuz",
        "float6_e3m2fn",
        "float6_e2m3fn",
        "float4_e2m1fn",
    )
    if hasattr(ml_dtypes, name)
}


class Quantized(NamedTuple):
    """The two planes of an MX-quantized array, as returned by :func:`quantize`.

    Parameters
    ----------
    elements : numpy.ndarray
        The element plane, of the element type's ``ml_dtypes`` dtype (e.g.
        ``float8_e4m3fn``), with the shape of the quantized values.
    scales : numpy.ndarray of ml_dtypes.float8_e8m0fnu
        The scale plane: the values' shape with the length ``n`` of the blocked axis
        replaced by ``ceil(n / block)`` (``1`` for a ``Whole`` block when ``n > 0``).
    """

    elements: npt.NDArray[Any]
    scales: npt.NDArray[Any]


class _Format(NamedTuple):
    element: npt.DTypeLike
    emax: int
    largest: float
    has_nan: bool
    block: int | None  # None: Whole


def _finfo(np_dtype: Any) -> Any:
    """``ml_dtypes.finfo`` (untyped upstream)."""
    return ml_dtypes.finfo(np_dtype)  # type: ignore[no-untyped-call]


def _format_of(dtype: object, *, where: str) -> _Format:
    if not isinstance(dtype, ScaledDType):
        raise TypeError(
            f"{where} needs a ScaledDType (e.g. stridewave.mx.scaled_dtype('E4M3')), "
            f"got {type(dtype).__name__} {dtype!r}."
        )
    element, scale = dtype.planes
    if scale is not DType.E8M0 or element.name not in ELEMENT_NAMES:
        raise ValueError(
            f"{where}: {dtype!r} is not an OCP MX floating-point format: its planes are "
            f"{element!r} and {scale!r}, but MX needs an element type among "
            f"{', '.join(ELEMENT_NAMES)} and the scale DType.E8M0; build one with "
            "stridewave.mx.scaled_dtype(element, block=32)."
        )
    np_element = to_numpy_dtype(element)
    info = _finfo(np_element)
    has_nan = bool(np.isnan(np.array(np.nan, dtype=np.float32).astype(np_element)))
    block = dtype.block if isinstance(dtype.block, int) else None
    return _Format(np_element, int(info.maxexp) - 1, float(info.max), has_nan, block)


def _work_array(values: npt.ArrayLike) -> npt.NDArray[np.floating[Any]]:
    """Return ``values`` as float32 when that is exact for its dtype, else float64."""
    array = np.asarray(values)
    dtype = array.dtype
    if dtype in _FLOAT32_EXACT:
        return array.astype(np.float32, copy=False)
    if dtype.kind == "V" and dtype.type in _ML_FLOATS:
        return array.astype(np.float32)
    if dtype == np.float64 or dtype.kind in "iu":
        return array.astype(np.float64, copy=False)
    if dtype.kind == "f":
        raise TypeError(
            f"MX quantization computes in float32 or float64; got {dtype} values. "
            "Convert them with values.astype(numpy.float64) first."
        )
    raise TypeError(
        f"MX quantization needs real numbers (integer or floating dtype); got {dtype} "
        "values. Bool, complex, datetime and object arrays are refused: convert them "
        "explicitly first."
    )


def _blocks(lanes: npt.NDArray[Any], block: int, fill: Any = 0) -> tuple[npt.NDArray[Any], bool]:
    """View ``lanes`` (``(..., n)``) as ``(..., nb, block)``, padding a copy when needed.

    Returns the blocked array and whether it is a fresh array (safe to overwrite).
    """
    lead, n = lanes.shape[:-1], lanes.shape[-1]
    nb = -(-n // block)
    if n == nb * block and lanes.flags.c_contiguous:
        return lanes.reshape(*lead, nb, block), False
    padded = np.full((*lead, nb * block), fill, dtype=lanes.dtype)
    padded[..., :n] = lanes
    return padded.reshape(*lead, nb, block), True


def _to_float32_round_to_odd(wide: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """Round float64 to float32 toward zero, setting the last bit when inexact (round to odd).

    ml_dtypes converts float64 to the narrow types through float32; rounding twice to
    nearest can differ from rounding once (a value just above a tie of the narrow type
    lands on the tie in float32, then rounds to even). Round-to-odd into a format with
    at least two more significand bits than the target makes the second rounding give
    the correctly rounded result (Boldo and Melquiond, 2008); float32 has 24 bits
    against at most 4 for the MX elements.
    """
    narrow = wide.astype(np.float32)
    back = narrow.astype(np.float64)
    away = np.abs(back) > np.abs(wide)  # rounded away from zero: step back toward it
    narrow[away] = np.nextafter(narrow[away], np.float32(0))
    bits = narrow.view(np.uint32)
    bits |= (back != wide).astype(np.uint32)  # NaN compares unequal: stays NaN
    return narrow


#: The rules :func:`quantize` knows for the shared scale (see the module documentation).
SCALE_RULES: Final[tuple[str, ...]] = ("floor", "rceil", "ceil", "nearest")


def _shared_exponent(
    amax: npt.NDArray[np.floating[Any]], fmt: _Format, rule: str
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_]]:
    """Return the unbiased E8M0 exponent of each block, and where it takes the NaN scale."""
    if rule == "floor":
        _, exponent = np.frexp(amax)  # amax = m * 2**exponent, 0.5 <= m < 1
        shared = exponent.astype(np.int32) - (1 + fmt.emax)
        shared[amax == 0] = _SCALE_EMIN
        np.maximum(shared, _SCALE_EMIN, out=shared)
        bad = ~np.isfinite(amax) | (shared > _SCALE_EMAX)
        return shared, bad
    # the other rules are defined on float32 arithmetic: the block maximum in float32,
    # then the ratio to the element type's largest magnitude rounded once to float32
    with np.errstate(over="ignore", invalid="ignore"):
        amax32 = amax.astype(np.float32)
        largest = np.float32(fmt.largest)
        # rceil: amax times the float32 reciprocal of the largest element; else a division
        ratio = amax32 * (np.float32(1) / largest) if rule == "rceil" else amax32 / largest
    bad = ~np.isfinite(ratio)
    ratio[bad] = 0
    mantissa, exponent = np.frexp(ratio)  # exact for subnormal ratios too
    shared = exponent.astype(np.int32) - 1  # floor(log2(ratio))
    if rule == "nearest":  # log2(ratio) >= floor + 1/2 exactly when (2 m)**2 >= 2
        m64 = mantissa.astype(np.float64)
        shared += m64 * m64 >= 0.5
    else:  # ceil: up one unless ratio is a power of two
        shared += mantissa != 0.5
    # a zero ratio (an all-zero block, or one below 2**-149 * largest): the smallest
    # scale, except for MLX's rule, which writes 2**0 there
    shared[ratio == 0] = 0 if rule == "nearest" else _SCALE_EMIN
    np.clip(shared, _SCALE_EMIN, _SCALE_EMAX, out=shared)
    return shared, bad


#: Packed element types: elements per group, bytes per group.
_PACKING: Final[dict[np.dtype[Any], tuple[int, int]]] = {
    np.dtype(ml_dtypes.float4_e2m1fn): (2, 1),
    np.dtype(ml_dtypes.float6_e3m2fn): (4, 3),
    np.dtype(ml_dtypes.float6_e2m3fn): (4, 3),
}


def _check_packable(n: int, element: np.dtype[Any], *, where: str) -> None:
    count, _ = _PACKING[element]
    if n % count:
        raise ValueError(
            f"{where}: packing {element} elements needs a blocked axis whose length is a "
            f"multiple of {count} ({count} elements share {_PACKING[element][1]} byte(s)); "
            f"got length {n}. Pad the values, or leave packed out."
        )


def _pack_lanes(elements: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """Pack element codes along the last axis: FP4 two per byte, FP6 four per three bytes.

    FP4: element ``2i`` in the low nibble of byte ``i``, ``2i + 1`` in the high one.
    FP6: elements ``4i .. 4i + 3`` form the 24-bit little-endian word
    ``c0 | c1 << 6 | c2 << 12 | c3 << 18`` in bytes ``3i .. 3i + 2``.
    """
    codes = elements.view(np.uint8)
    count, _ = _PACKING[elements.dtype]
    groups = codes.reshape(*codes.shape[:-1], codes.shape[-1] // count, count)
    if count == 2:
        packed: npt.NDArray[np.uint8] = (groups[..., 0] & np.uint8(0x0F)) | (
            groups[..., 1] << np.uint8(4)
        )
        return packed
    g = groups.astype(np.uint32) & 0x3F
    word = g[..., 0] | (g[..., 1] << 6) | (g[..., 2] << 12) | (g[..., 3] << 18)
    out = np.stack([word & 0xFF, (word >> 8) & 0xFF, word >> 16], axis=-1).astype(np.uint8)
    return out.reshape(*codes.shape[:-1], groups.shape[-2] * 3)


def _unpack_lanes(packed: npt.NDArray[np.uint8], element: np.dtype[Any]) -> npt.NDArray[Any]:
    """Invert :func:`_pack_lanes`: return element codes of dtype ``element``."""
    count, nbytes = _PACKING[element]
    if count == 2:
        codes = np.stack([packed & 0x0F, packed >> 4], axis=-1)
    else:
        b = packed.reshape(*packed.shape[:-1], packed.shape[-1] // nbytes, nbytes)
        b = b.astype(np.uint32)
        word = b[..., 0] | (b[..., 1] << 8) | (b[..., 2] << 16)
        codes = np.stack([(word >> s) & 0x3F for s in (0, 6, 12, 18)], axis=-1)
    flat = codes.astype(np.uint8).reshape(*packed.shape[:-1], packed.shape[-1] // nbytes * count)
    return flat.view(element)


def quantize(
    values: npt.ArrayLike,
    scaled_dtype: ScaledDType,
    axis: int = -1,
    *,
    scale_rule: str = "floor",
    packed: bool = False,
) -> Quantized:
    """Quantize real numbers to an OCP MX format: the element and scale planes.

    Implements the OCP Microscaling Formats v1.0 conversion (Algorithm 1, section
    6.3): per block of ``scaled_dtype.block`` consecutive values along ``axis``, the
    shared scale is ``2**(floor(log2(max |V|)) - emax)`` (``emax``: the exponent of
    the element type's largest normal number), clamped below at ``2**-127``; each
    element is ``V / scale`` rounded to nearest, ties to even, saturating at the
    element type's largest magnitude. A block holding NaN or an infinity gets the
    NaN scale (E8M0 code 255): all its values read back as NaN. See the module
    documentation for every rule.

    Parameters
    ----------
    values : array_like of real numbers, shape (..., n, ...)
        Integer or floating values, at least one dimension. float16, float32 and the
        ``ml_dtypes`` floats are computed in float32 (exactly); float64 and integers
        in float64 (an int64 beyond ``2**53`` is first rounded to float64).
    scaled_dtype : ScaledDType
        The MX format: element plane one of ``E4M3``, ``E5M2``, ``E3M2``, ``E2M3``,
        ``E2M1``; scale plane ``E8M0``; ``block`` a positive int (elements per scale;
        the OCP formats use 32) or ``Whole`` (one scale for the whole axis).
        :func:`scaled_dtype` builds them.
    axis : int, optional
        The axis along which blocks run (default: the last). A trailing partial
        block is scaled by its own values.
    scale_rule : {"floor", "rceil", "ceil", "nearest"}, optional
        How the shared exponent follows from the block maximum ``amax`` (the
        module documentation gives each rule exactly, with its source):
        ``"floor"`` (default), OCP MX v1.0: ``floor(log2(amax)) - emax``;
        ``"rceil"``, NVIDIA cuBLAS and Transformer Engine, torchao's RCEIL:
        ``ceil(log2(r))`` of the float32 ``r = amax * (1 / largest)``;
        ``"ceil"``, JAX's ``cast_to_e8m0_with_rounding_up`` and MLX 0.32.4's
        ``mx.quantize``: ``ceil(log2(r))`` of the float32 ``r = amax / largest``;
        ``"nearest"``, MLX's E8M0 conversion and its ``mx.quantize`` up to 0.32.1:
        ``round(log2(amax / largest))``. Elements round the same way under every rule.
    packed : bool, optional
        Return the element plane of E2M1, E3M2 or E2M3 packed into uint8, two
        E2M1 codes a byte or four FP6 codes in three bytes along ``axis`` (the
        layout of :func:`pack_elements`); :func:`dequantize` reads it as it is.
        The length of ``axis`` must then be a multiple of 2 (E2M1) or 4 (FP6).

    Returns
    -------
    Quantized
        ``(elements, scales)``: ``elements`` has the shape of ``values`` and the
        ``ml_dtypes`` dtype of the element plane (``to_numpy_dtype(element)``), or
        uint8 with ``axis`` of ``n // 2`` (E2M1) or ``3 * n // 4`` (FP6) when packed;
        ``scales`` has dtype ``ml_dtypes.float8_e8m0fnu`` and the shape of ``values``
        with ``axis`` shortened to ``ceil(n / block)``. Both are C-contiguous new
        arrays: the planes of a ``Tensor.compound`` of ``scaled_dtype`` once in
        carriers of the plane dtypes.

    Raises
    ------
    TypeError
        If ``scaled_dtype`` is not a ``ScaledDType``, or ``values`` are not real
        numbers (bool, complex, datetime, object, or a float wider than float64).
    TypeError
        If ``packed`` is not a bool.
    ValueError
        If ``scaled_dtype`` is not an MX floating-point format (other element or
        scale plane), ``values`` has no dimension, ``scale_rule`` is not one of
        :data:`SCALE_RULES`, or ``packed`` is asked for FP8 elements or for an axis
        whose length is not a multiple of the packing group.
    numpy.exceptions.AxisError
        If ``axis`` is out of range (a ``ValueError`` and ``IndexError``).

    See Also
    --------
    dequantize : The inverse, to float32.
    to_mlx : The planes in MLX's layout.

    Examples
    --------
    >>> import numpy as np
    >>> from stridewave import mx
    >>> fmt = mx.scaled_dtype("E2M1", block=4)
    >>> q = mx.quantize(np.array([0.25, 1.0, 3.0, 12.0], dtype=np.float32), fmt)
    >>> q.scales.astype(np.float32), q.elements.astype(np.float32)
    (array([2.], dtype=float32), array([0. , 0.5, 1.5, 6. ], dtype=float32))
    >>> mx.dequantize(q.elements, q.scales, fmt)
    array([ 0.,  1.,  3., 12.], dtype=float32)
    """
    fmt = _format_of(scaled_dtype, where="quantize")
    if scale_rule not in SCALE_RULES:
        raise ValueError(
            f"quantize: unknown scale_rule {scale_rule!r}; use one of "
            f"{', '.join(map(repr, SCALE_RULES))} (the default, 'floor', is OCP MX v1.0)."
        )
    if type(packed) is not bool:
        raise TypeError(f"quantize: packed must be True or False; got {packed!r}.")
    if packed and np.dtype(fmt.element) not in _PACKING:
        raise ValueError(
            f"quantize: packed=True applies to FP4 and FP6 elements (E2M1, E3M2, E2M3); "
            f"{scaled_dtype!r} has 8-bit elements, already one per byte. Leave packed out."
        )
    work = _work_array(values)
    if work.ndim == 0:
        raise ValueError(
            "quantize needs an array of at least one dimension (blocks run along an "
            f"axis); got a scalar {work!r}. Pass numpy.atleast_1d(values)."
        )
    ax = normalize_axis_index(axis, work.ndim)
    lanes = np.moveaxis(work, ax, -1)
    n = lanes.shape[-1]
    if packed:
        _check_packable(n, np.dtype(fmt.element), where="quantize")
    block = fmt.block if fmt.block is not None else max(n, 1)
    blocks, _ = _blocks(lanes, block)

    with np.errstate(invalid="ignore"):
        amax = np.abs(blocks).max(axis=-1) if n else np.zeros(blocks.shape[:-1], work.dtype)
    shared, bad = _shared_exponent(amax, fmt, scale_rule)
    biased = np.where(bad, _SCALE_NAN, shared + 127).astype(np.uint8)
    scales = biased.view(ml_dtypes.float8_e8m0fnu)

    # 2**-shared is exact in the working dtype for every shared in [-127, 127]
    inverse = np.ldexp(np.ones((), work.dtype), -np.where(bad, 0, shared))
    inverse[bad] = np.nan
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        scaled = blocks * inverse[..., None]
        np.clip(scaled, -fmt.largest, fmt.largest, out=scaled)
        if scaled.dtype == np.float64:
            scaled = _to_float32_round_to_odd(scaled)
        elements = scaled.astype(fmt.element)
    if not fmt.has_nan and bad.any():
        elements[bad] = 0
    elements = elements.reshape(*blocks.shape[:-2], -1)[..., :n]
    if packed:
        elements = _pack_lanes(elements)
    return Quantized(
        np.ascontiguousarray(np.moveaxis(elements, -1, ax)),
        np.ascontiguousarray(np.moveaxis(scales, -1, ax)),
    )


@functools.cache
def _decode_table(element: np.dtype[Any]) -> npt.NDArray[np.float32]:
    """Return the float32 value of every 8-bit code of an element dtype, by code."""
    table: npt.NDArray[np.float32] = np.arange(256, dtype=np.uint8).view(element).astype(np.float32)
    table.flags.writeable = False
    return table


def _unpacked(plane: object, element: np.dtype[Any], axis: int, *, where: str) -> object:
    """Return ``plane`` unpacked along ``axis`` when it is a packed (uint8) FP4/FP6 plane."""
    if not (isinstance(plane, np.ndarray) and plane.dtype == np.uint8 and element in _PACKING):
        return plane
    if plane.ndim == 0:
        raise ValueError(f"{where} needs element and scale planes of at least one dimension.")
    ax = normalize_axis_index(axis, plane.ndim)
    lanes = np.moveaxis(plane, ax, -1)
    count, nbytes = _PACKING[element]
    if lanes.shape[-1] % nbytes:
        raise ValueError(
            f"{where}: a packed {element} plane holds {count} elements in every {nbytes} "
            f"bytes along the blocked axis, but axis {ax} has length {lanes.shape[-1]}. "
            "Pass the plane quantize(..., packed=True) returned."
        )
    return np.moveaxis(_unpack_lanes(np.ascontiguousarray(lanes), element), -1, ax)


@overload
def dequantize(
    elements: Quantized, scales: ScaledDType, scaled_dtype: None = None, axis: int = -1
) -> npt.NDArray[np.float32]: ...


@overload
def dequantize(
    elements: npt.NDArray[Any],
    scales: npt.NDArray[Any],
    scaled_dtype: ScaledDType,
    axis: int = -1,
) -> npt.NDArray[np.float32]: ...


def dequantize(
    elements: npt.NDArray[Any] | Quantized,
    scales: npt.NDArray[Any] | ScaledDType,
    scaled_dtype: ScaledDType | None = None,
    axis: int = -1,
) -> npt.NDArray[np.float32]:
    """Return the float32 values ``element * scale`` of MX planes.

    Call it with what :func:`quantize` returned, ``dequantize(q, fmt)``, or with the
    two planes apart, ``dequantize(q.elements, q.scales, fmt)``.

    Parameters
    ----------
    elements : Quantized or numpy.ndarray, shape (..., n, ...)
        The result of :func:`quantize` (both planes), or the element plane alone,
        of dtype ``to_numpy_dtype(scaled_dtype.element)``; for E2M1, E3M2 and E2M3
        also the packed uint8 plane of ``quantize(..., packed=True)``, read as it is.
    scales : ScaledDType or numpy.ndarray of ml_dtypes.float8_e8m0fnu
        With a ``Quantized`` first argument: the MX format. Else the scale plane:
        the shape of ``elements`` with ``axis`` of length ``ceil(n / block)``
        (``1`` for a ``Whole`` block when ``n > 0``).
    scaled_dtype : ScaledDType, optional
        The MX format the planes were quantized to (required with two planes; left
        out with a ``Quantized``).
    axis : int, optional
        The axis along which blocks run (default: the last).

    Returns
    -------
    numpy.ndarray of float32, shape of ``elements``
        Each element times its block's scale, rounded once to float32: exact unless
        the product leaves float32's range (it overflows to inf, or rounds into
        float32's subnormals). A block whose scale is NaN is all NaN.

    Raises
    ------
    TypeError
        If the format is not a ``ScaledDType``, a plane is not a NumPy array of its
        plane's dtype, or a ``Quantized`` comes with a third positional argument.
    ValueError
        If the format is not an MX floating-point format, ``elements`` has no
        dimension, the shapes of the planes do not match, or a packed plane's
        blocked axis is not a whole number of packed groups (3 bytes for FP6).
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    See Also
    --------
    quantize : The planes from real numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from stridewave import mx
    >>> fmt = mx.scaled_dtype("E4M3")
    >>> mx.dequantize(mx.quantize(np.array([1.0, -2.5, 3.0]), fmt), fmt)
    array([ 1. , -2.5,  3. ], dtype=float32)
    """
    element_plane: Any
    scale_plane: Any
    if isinstance(elements, Quantized):
        if scaled_dtype is not None:
            raise TypeError(
                "dequantize(quantized, scaled_dtype) takes the format second and nothing "
                f"positional after it; got a third argument {scaled_dtype!r}. Pass the "
                "axis by keyword: dequantize(q, fmt, axis=...)."
            )
        element_plane, scale_plane, target = elements.elements, elements.scales, scales
    elif scaled_dtype is None:
        raise TypeError(
            "dequantize needs the MX format: dequantize(q, fmt) with what quantize "
            "returned, or dequantize(elements, scales, fmt) with the two planes."
        )
    else:
        element_plane, scale_plane, target = elements, scales, scaled_dtype
    fmt = _format_of(target, where="dequantize")
    element_plane = _unpacked(element_plane, np.dtype(fmt.element), axis, where="dequantize")
    scale_np = np.dtype(ml_dtypes.float8_e8m0fnu)
    planes: tuple[tuple[str, object, npt.DTypeLike], ...] = (
        ("elements", element_plane, fmt.element),
        ("scales", scale_plane, scale_np),
    )
    for name, plane, want in planes:
        if not isinstance(plane, np.ndarray) or plane.dtype != want:
            got = plane.dtype if isinstance(plane, np.ndarray) else type(plane).__name__
            raise TypeError(
                f"dequantize: {name} must be a NumPy array of {np.dtype(want)} for "
                f"{target!r}; got {got}. Pass the planes quantize returned."
            )
    if element_plane.ndim == 0:
        raise ValueError("dequantize needs element and scale planes of at least one dimension.")
    ax = normalize_axis_index(axis, element_plane.ndim)
    n = element_plane.shape[ax]
    block = fmt.block if fmt.block is not None else max(n, 1)
    expected = list(element_plane.shape)
    expected[ax] = -(-n // block)
    if scale_plane.shape != tuple(expected):
        raise ValueError(
            f"dequantize: scales of shape {scale_plane.shape} do not match elements of shape "
            f"{element_plane.shape} with blocks of {block} along axis {ax}; expected scales "
            f"of shape {tuple(expected)}."
        )
    lanes = np.moveaxis(element_plane, ax, -1)
    # a table look-up of the (at most 8-bit) codes: exact, and faster than the cast
    decoded = np.take(_decode_table(np.dtype(fmt.element)), lanes.view(np.uint8))
    blocks, _ = _blocks(decoded, block)
    factors = np.moveaxis(scale_plane, ax, -1).astype(np.float32)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        np.multiply(blocks, factors[..., None], out=blocks)
    out = blocks.reshape(*blocks.shape[:-2], -1)[..., :n]
    result: npt.NDArray[np.float32] = np.ascontiguousarray(np.moveaxis(out, -1, ax))
    return result


def scaled_dtype(element: SimpleDType | str, *, block: int = 32) -> ScaledDType:
    """Return the registered :class:`~stridewave.ScaledDType` of one OCP MX format.

    Registers it on first use, under the name ``"MXFP8_E4M3"`` (``"MXFP8_E4M3_B16"``
    for a block other than 32; element families per the OCP spec: MXFP8, MXFP6,
    MXFP4), and returns the same identity afterwards.

    Parameters
    ----------
    element : SimpleDType or str
        The element type, or its registered name: ``E4M3``, ``E5M2``, ``E3M2``,
        ``E2M3`` or ``E2M1``.
    block : int, optional
        Elements per E8M0 scale (the OCP formats use 32).

    Returns
    -------
    ScaledDType
        With planes ``(element, DType.E8M0)`` and the given block.

    Raises
    ------
    TypeError
        If ``block`` is not an int (bool refused), or ``element`` neither a
        ``SimpleDType`` nor a str.
    ValueError
        If ``element`` is not an MX floating-point element type, ``block`` is not
        positive, or the name is already registered to a different dtype.
    """
    if isinstance(element, str):
        name = element
    elif isinstance(element, SimpleDType):
        name = element.name
    else:
        raise TypeError(
            f"scaled_dtype: element must be a SimpleDType or its name; got {element!r}."
        )
    if name not in ELEMENT_NAMES:
        raise ValueError(
            f"scaled_dtype: {name!r} is not an MX floating-point element type; use one of "
            f"{', '.join(ELEMENT_NAMES)}."
        )
    if type(block) is not int:
        raise TypeError(f"scaled_dtype: block must be an int; got {block!r}.")
    if block <= 0:
        raise ValueError(f"scaled_dtype: block must be positive; got {block}.")
    element_dtype = SimpleDType.from_name(name)
    label = f"{_FAMILY[name]}_{name}" + ("" if block == 32 else f"_B{block}")
    for _ in range(2):  # a racing thread may register it between lookup and creation
        try:
            found = ScaledDType.from_name(label)
        except LookupError:
            pass
        else:
            if found.planes != (element_dtype, DType.E8M0) or found.block != block:
                raise ValueError(
                    f"scaled_dtype: the name {label!r} is registered to {found!r}, not to "
                    f"{name} elements with an E8M0 scale per {block}; unregistered names "
                    "cannot be reused, so register your own dtype under another name."
                )
            return found
        try:
            return ScaledDType(label, element=element_dtype, scale=DType.E8M0, block=block)
        except ValueError:
            continue
    return ScaledDType.from_name(label)


def _element_dtype(element: str | SimpleDType | ScaledDType, *, where: str) -> np.dtype[Any]:
    fmt = element if isinstance(element, ScaledDType) else scaled_dtype(element)
    np_element = np.dtype(_format_of(fmt, where=where).element)
    if np_element not in _PACKING:
        raise ValueError(
            f"{where}: packing applies to the FP4 and FP6 element types (E2M1, E3M2, "
            f"E2M3); got {element!r}, whose elements take a byte each already."
        )
    return np_element


def pack_elements(elements: npt.NDArray[Any], axis: int = -1) -> npt.NDArray[np.uint8]:
    """Pack an FP4 or FP6 element plane: two E2M1 codes a byte, four E3M2/E2M3 in three.

    The layout, along ``axis``: for E2M1, element ``2i`` is the low nibble of byte
    ``i`` and element ``2i + 1`` the high one; for E3M2 and E2M3, elements ``4i`` to
    ``4i + 3`` are the 24-bit little-endian word ``c0 | c1 << 6 | c2 << 12 | c3 << 18``
    in bytes ``3i`` to ``3i + 2`` (``c0`` in the low six bits of byte ``3i``). This is
    what ``quantize(..., packed=True)`` returns and what :func:`dequantize` reads.

    Parameters
    ----------
    elements : numpy.ndarray of float4_e2m1fn, float6_e3m2fn or float6_e2m3fn, shape (..., n, ...)
        An element plane as :func:`quantize` returns it; ``n``, the length of
        ``axis``, a multiple of 2 (E2M1) or 4 (E3M2, E2M3).
    axis : int, optional
        The axis to pack along (default: the last), the blocked axis of the plane.

    Returns
    -------
    numpy.ndarray of uint8, shape (..., n // 2, ...) or (..., 3 * n // 4, ...)
        A new C-contiguous array of the packed codes.

    Raises
    ------
    TypeError
        If ``elements`` is not a NumPy array of one of the three element dtypes.
    ValueError
        If ``elements`` has no dimension or ``n`` is not a multiple of the group.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    See Also
    --------
    unpack_elements : The inverse.
    """
    given: object = elements
    if not isinstance(given, np.ndarray) or given.dtype not in _PACKING:
        got = given.dtype if isinstance(given, np.ndarray) else type(given).__name__
        raise TypeError(
            "pack_elements needs a NumPy array of float4_e2m1fn, float6_e3m2fn or "
            f"float6_e2m3fn elements (quantize's element plane); got {got}."
        )
    if elements.ndim == 0:
        raise ValueError("pack_elements needs an element plane of at least one dimension.")
    ax = normalize_axis_index(axis, elements.ndim)
    lanes = np.moveaxis(elements, ax, -1)
    _check_packable(lanes.shape[-1], elements.dtype, where="pack_elements")
    packed = _pack_lanes(np.ascontiguousarray(lanes))
    return np.ascontiguousarray(np.moveaxis(packed, -1, ax))


def unpack_elements(
    packed: npt.NDArray[np.uint8],
    element: str | SimpleDType | ScaledDType,
    axis: int = -1,
) -> npt.NDArray[Any]:
    """Unpack what :func:`pack_elements` packed: one element code per array item.

    Parameters
    ----------
    packed : numpy.ndarray of uint8, shape (..., m, ...)
        Packed codes; ``m``, the length of ``axis``, a multiple of 3 for E3M2/E2M3.
    element : str, SimpleDType or ScaledDType
        The element type (``"E2M1"``, ``"E3M2"``, ``"E2M3"``, or the format whose
        element plane it is).
    axis : int, optional
        The axis the codes were packed along (default: the last).

    Returns
    -------
    numpy.ndarray, shape (..., 2 * m, ...) or (..., 4 * m // 3, ...)
        A new C-contiguous array of the element type's ``ml_dtypes`` dtype.

    Raises
    ------
    TypeError
        If ``packed`` is not a uint8 NumPy array, or ``element`` names no type.
    ValueError
        If ``element`` is not an FP4/FP6 type, ``packed`` has no dimension, or ``m``
        is not a multiple of 3 for an FP6 type.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    See Also
    --------
    pack_elements : The packing and its layout.

    Examples
    --------
    >>> import ml_dtypes
    >>> import numpy as np
    >>> from stridewave import mx
    >>> codes = np.array([0.5, -6.0, 1.0, 3.0], dtype=ml_dtypes.float4_e2m1fn)
    >>> mx.pack_elements(codes)
    array([241,  82], dtype=uint8)
    >>> mx.unpack_elements(mx.pack_elements(codes), "E2M1").astype(np.float32)
    array([ 0.5, -6. ,  1. ,  3. ], dtype=float32)
    """
    np_element = _element_dtype(element, where="unpack_elements")
    given: object = packed
    if not isinstance(given, np.ndarray) or given.dtype != np.uint8:
        got = given.dtype if isinstance(given, np.ndarray) else type(given).__name__
        raise TypeError(f"unpack_elements needs a NumPy array of uint8 (packed codes); got {got}.")
    out = _unpacked(packed, np_element, axis, where="unpack_elements")
    assert isinstance(out, np.ndarray)
    return np.ascontiguousarray(out)


#: MLX's modes: element dtype, element codes per uint32 word, bits per code.
_MLX_MODES: Final[dict[str, tuple[np.dtype[Any], int]]] = {
    "mxfp4": (np.dtype(ml_dtypes.float4_e2m1fn), 8),
    "mxfp8": (np.dtype(ml_dtypes.float8_e4m3fn), 4),
}
_MLX_BLOCK: Final = 32


def to_mlx(q: Quantized) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8]]:
    """Return MX planes in MLX's layout: the ``(w_q, scales)`` of ``mx.quantize``.

    MLX's ``mode="mxfp4"`` and ``mode="mxfp8"`` (``mx.quantize``, ``mx.dequantize``,
    ``mx.quantized_matmul``) group 32 consecutive values of the last axis under one
    E8M0 scale and pack the element codes into uint32 words, the first element in
    the lowest bits: eight E2M1 codes a word, or four E4M3 codes (byte ``j`` of the
    little-endian word is element ``4i + j``). The scales are the E8M0 codes as
    uint8. Hand the arrays to MLX with ``mx.array(w_q)``, ``mx.array(scales)``.

    Parameters
    ----------
    q : Quantized
        What :func:`quantize` returned for ``scaled_dtype("E2M1")`` (MXFP4, the
        element plane packed or not) or ``scaled_dtype("E4M3")`` (MXFP8), blocks of
        32 along the last axis: elements of shape ``(..., K)`` with ``K`` a multiple
        of 32, scales ``(..., K // 32)``.

    Returns
    -------
    w_q : numpy.ndarray of uint32, shape (..., K // 8) for MXFP4 or (..., K // 4) for MXFP8
        The packed element codes.
    scales : numpy.ndarray of uint8, shape (..., K // 32)
        The E8M0 scale codes (a copy).

    Raises
    ------
    TypeError
        If ``q`` is not a ``Quantized`` of E2M1 or E4M3 elements and E8M0 scales.
    ValueError
        If the planes have no dimension, ``K`` is not a multiple of 32, or the scales
        are not one per 32 elements of the last axis.

    See Also
    --------
    from_mlx : The inverse.

    Examples
    --------
    >>> import numpy as np
    >>> from stridewave import mx
    >>> w = np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 64)
    >>> w_q, scales = mx.to_mlx(mx.quantize(w, mx.scaled_dtype("E2M1"), scale_rule="ceil"))
    >>> w_q.dtype, w_q.shape, scales.dtype, scales.shape
    (dtype('uint32'), (1, 8), dtype('uint8'), (1, 2))
    """
    if not isinstance(q, Quantized):
        raise TypeError(
            f"to_mlx needs what stridewave.mx.quantize returned (a Quantized); got "
            f"{type(q).__name__}."
        )
    elements, scales = q
    scale_np = np.dtype(ml_dtypes.float8_e8m0fnu)
    given: object = scales
    if not isinstance(given, np.ndarray) or given.dtype != scale_np:
        raise TypeError("to_mlx: the scale plane must be a NumPy array of float8_e8m0fnu.")
    given = elements
    if not isinstance(given, np.ndarray):
        raise TypeError("to_mlx: the element plane must be a NumPy array.")
    if elements.ndim == 0 or scales.ndim != elements.ndim:
        raise ValueError(
            f"to_mlx: planes of shapes {elements.shape} and {scales.shape}; expected "
            "elements (..., K) and scales (..., K // 32) of at least one dimension."
        )
    per_scale = _MLX_BLOCK
    if elements.dtype == np.uint8:  # packed E2M1 (two a byte); packed FP6 has no MLX mode
        per_scale = _MLX_BLOCK // 2
        mode = "mxfp4"
    else:
        modes = {dt: name for name, (dt, _) in _MLX_MODES.items()}
        if elements.dtype not in modes:
            raise TypeError(
                "to_mlx: MLX's MX modes take E2M1 (mxfp4) or E4M3 (mxfp8) elements; got "
                f"{elements.dtype}. Quantize to mx.scaled_dtype('E2M1') or "
                "mx.scaled_dtype('E4M3')."
            )
        mode = modes[elements.dtype]
    k = elements.shape[-1]
    if k % per_scale or scales.shape != (*elements.shape[:-1], k // per_scale):
        raise ValueError(
            f"to_mlx: MLX groups 32 values of the last axis under one scale; got "
            f"elements of shape {elements.shape} ({elements.dtype}) and scales of shape "
            f"{scales.shape}. Quantize along the last axis with block=32 and a last axis "
            "that is a multiple of 32."
        )
    if mode == "mxfp4" and elements.dtype != np.uint8:
        elements = _pack_lanes(np.ascontiguousarray(elements))
    codes = np.ascontiguousarray(elements).view(np.uint8)
    words = codes.reshape(*codes.shape[:-1], codes.shape[-1] // 4, 4).astype(np.uint32)
    w_q = words[..., 0] | (words[..., 1] << 8) | (words[..., 2] << 16) | (words[..., 3] << 24)
    return np.ascontiguousarray(w_q), scales.view(np.uint8).copy()


def from_mlx(
    w_q: npt.ArrayLike, scales: npt.ArrayLike, mode: str, *, packed: bool = False
) -> Quantized:
    """Return MLX's MX planes (``mx.quantize``'s ``w_q`` and ``scales``) as a ``Quantized``.

    The inverse of :func:`to_mlx`; dequantize the result with
    ``dequantize(q, scaled_dtype("E2M1"))`` (``"mxfp4"``) or
    ``dequantize(q, scaled_dtype("E4M3"))`` (``"mxfp8"``).

    Parameters
    ----------
    w_q : array_like of uint32, shape (..., K // 8) for mxfp4 or (..., K // 4) for mxfp8
        The packed element codes, e.g. ``numpy.array`` of MLX's ``w_q``.
    scales : array_like of uint8, shape (..., K // 32)
        The E8M0 scale codes.
    mode : {"mxfp4", "mxfp8"}
        The MLX mode the planes are in.
    packed : bool, optional
        For ``"mxfp4"``: return the element plane packed, two codes a byte (the
        layout of :func:`pack_elements`), instead of one ``float4_e2m1fn`` a byte.

    Returns
    -------
    Quantized
        ``elements`` of shape ``(..., K)`` (``float4_e2m1fn`` or ``float8_e4m3fn``;
        ``(..., K // 2)`` uint8 when packed) and ``scales`` of ``float8_e8m0fnu``,
        both new arrays.

    Raises
    ------
    TypeError
        If ``w_q`` is not uint32 or ``scales`` not uint8, or ``packed`` is not a bool.
    ValueError
        If ``mode`` is not ``"mxfp4"`` or ``"mxfp8"``, ``packed`` is asked for mxfp8,
        or the shapes do not match (one scale per 32 elements of the last axis).

    See Also
    --------
    to_mlx : The layout, and the way there.
    """
    if mode not in _MLX_MODES:
        raise ValueError(
            f"from_mlx: mode must be 'mxfp4' or 'mxfp8' (MLX's MX modes); got {mode!r}."
        )
    if type(packed) is not bool:
        raise TypeError(f"from_mlx: packed must be True or False; got {packed!r}.")
    if packed and mode != "mxfp4":
        raise ValueError("from_mlx: packed=True applies to mode='mxfp4' only; leave it out.")
    element, per_word = _MLX_MODES[mode]
    words = np.asarray(w_q)
    codes = np.asarray(scales)
    if words.dtype != np.uint32 or codes.dtype != np.uint8:
        raise TypeError(
            f"from_mlx: expected w_q of uint32 and scales of uint8 (what mx.quantize returns "
            f"for mode={mode!r}); got {words.dtype} and {codes.dtype}."
        )
    words_per_scale = _MLX_BLOCK // per_word
    if (
        words.ndim == 0
        or codes.ndim != words.ndim
        or codes.shape[:-1] != words.shape[:-1]
        or words.shape[-1] != codes.shape[-1] * words_per_scale
    ):
        raise ValueError(
            f"from_mlx: w_q of shape {words.shape} and scales of shape {codes.shape} do not "
            f"match mode {mode!r}: expected w_q (..., {words_per_scale} * G) and scales "
            "(..., G), one scale per 32 elements."
        )
    shifts = np.arange(4, dtype=np.uint32) * 8
    as_bytes = ((words[..., None] >> shifts) & 0xFF).astype(np.uint8)
    as_bytes = as_bytes.reshape(*words.shape[:-1], words.shape[-1] * 4)
    if mode == "mxfp4" and not packed:
        elements = _unpack_lanes(as_bytes, element)
    elif mode == "mxfp4":
        elements = as_bytes
    else:
        elements = as_bytes.view(element)
    return Quantized(
        np.ascontiguousarray(elements), codes.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu)
    )
