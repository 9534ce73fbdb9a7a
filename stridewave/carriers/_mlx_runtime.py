"""The MLX runtime of this package: the one module that imports MLX.

Everything that runs MLX work goes through here: the lazy import
(:func:`import_mlx`, which also keeps float32 matrix products at float32 accuracy,
``MLX_ENABLE_TF32=0`` unless set), the choice of MLX device (:func:`select_device`,
per ``STRIDEWAVE_METAL_DEVICE``), the fork guard (:data:`FORKED_AFTER_MLX`,
:func:`require_alive`: a child forked after MLX started raises instead of hanging),
the evaluation lock (:data:`EVAL_LOCK`, :func:`mlx_eval`) and the one-line report of
where Metal runs (:func:`runtime`). The Metal carrier (:mod:`~stridewave.carriers._metal`)
and the array API's MLX backend use these names; no other module imports MLX (an
import-linter contract).
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, Final

from stridewave.carriers import _messages

__all__ = [
    "CUDA_DEVICE_NAME",
    "DEVICE_ENV",
    "EVAL_LOCK",
    "FORKED_AFTER_MLX",
    "GPU_BUILD",
    "INSTALL_HINT",
    "MAIN_THREAD",
    "TF32_ENV",
    "Unavailable",
    "gpu_backend",
    "import_mlx",
    "mlx_eval",
    "require_alive",
    "runtime",
    "select_device",
]

#: Environment variable selecting the MLX device: unset (or ``gpu``) requires a GPU
#: runtime; ``cpu`` runs the carrier on MLX's CPU device (testing aid).
DEVICE_ENV: Final = "STRIDEWAVE_METAL_DEVICE"

INSTALL_HINT: Final = (
    'install it with pip install "stridewave[mlx]" (from a source checkout: pip install '
    '-e ".[mlx]"; Apple silicon: mlx; Linux with an NVIDIA GPU: also pip install '
    '"mlx[cuda13]"; Linux without a GPU: then set STRIDEWAVE_METAL_DEVICE=cpu to run '
    "Metal on MLX's CPU device, a testing aid)"
)


class Unavailable(RuntimeError):
    """Metal cannot run here; ``short`` is the one-line reason for ``python -m stridewave info``."""

    def __init__(self, message: str, short: str) -> None:
        super().__init__(message)
        self.short = short


#: The main thread's ident: the one thread that reads a fresh Metal result through its
#: token without making its carrier, and whose latest such read the carrier takes over
#: (``Metal.adopt_array``); it keeps no per-thread record of its reads.
MAIN_THREAD: Final = threading.main_thread().ident or 0

#: ``[True]`` in a process forked after MLX was imported in its parent (set by the
#: at-fork hook below): MLX's worker threads did not survive the fork, so every MLX
#: evaluation here would wait for ever. Metal work then raises instead.
FORKED_AFTER_MLX: Final[list[bool]] = [False]


def _after_fork_in_child() -> None:
    # Imported counts as started: the library imports MLX only to work with it, and
    # user code that imported it may have evaluated arrays the library cannot see.
    if "mlx.core" in sys.modules:
        FORKED_AFTER_MLX[0] = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def require_alive(action: str) -> None:
    """Raise RuntimeError (naming the ``spawn`` start method) in a child forked after MLX."""
    if FORKED_AFTER_MLX[0]:
        message = _messages.mlx_after_fork(action)
        raise Unavailable(message, "forked after MLX started: use the 'spawn' start method")


#: Held around every MLX evaluation of this package (``eval``, ``async_eval``): on
#: MLX's CUDA backend, threads that evaluate at once (one scheduling a graph while
#: others wait for theirs) at times never return. A leaf lock: nothing else is taken
#: while it is held, so it orders no other lock.
EVAL_LOCK = threading.Lock()
if hasattr(os, "register_at_fork"):  # inherited held by a vanished thread: reset
    os.register_at_fork(after_in_child=getattr(EVAL_LOCK, "_at_fork_reinit"))  # noqa: B009


def mlx_eval(*arrays: Any, schedule_only: bool = False) -> None:
    """Evaluate MLX arrays, one evaluating thread at a time (under ``EVAL_LOCK``).

    Parameters
    ----------
    *arrays : mlx.core.array
        The arrays to compute.
    schedule_only : bool, optional
        Schedule them on this thread's stream and return (``mlx.core.async_eval``)
        instead of waiting for them (``mlx.core.eval``, the default).

    Raises
    ------
    RuntimeError
        If MLX is unusable here (see :func:`import_mlx`), or MLX fails.
    """
    mx = import_mlx()
    evaluate = mx.async_eval if schedule_only else mx.eval
    with EVAL_LOCK:
        evaluate(*arrays)


#: MLX's switch for reduced-precision (TF32) float32 matrix products on GPUs that
#: have them (default on in MLX); StrideWeave sets it to ``"0"`` unless it is set.
TF32_ENV: Final = "MLX_ENABLE_TF32"


#: ``mlx.core`` once imported (every MLX call of the package asks for it).
_MLX: Final[list[Any]] = []


def import_mlx() -> Any:
    """Return ``mlx.core`` (imported on first use), or raise an actionable RuntimeError.

    In a child forked after MLX started in its parent, raise instead (any MLX work
    there would hang): see :func:`require_alive`.
    """
    require_alive("run MLX work")
    if _MLX:
        return _MLX[0]
    # float32 matrix products at float32's accuracy, as NumPy's (MLX otherwise runs
    # them in TF32 on tensor-core GPUs: about 1e-3 relative error per product); a
    # user's own MLX_ENABLE_TF32 setting is kept. docs/metal.md, "Precision".
    os.environ.setdefault(TF32_ENV, "0")
    try:
        import mlx.core as mx  # the one lazy import point (no module-level mlx)
    except ImportError as exc:
        raise Unavailable(
            f"Metal needs the optional MLX package, which is not importable here "
            f"({type(exc).__name__}: {exc}); {INSTALL_HINT}. CPU carriers work without it.",
            'mlx is not installed; pip install "stridewave[mlx]" (Linux without a GPU: '
            "also set STRIDEWAVE_METAL_DEVICE=cpu)",
        ) from exc
    _MLX[:] = [mx]
    return mx


def gpu_backend(mx: Any) -> str | None:
    """Return ``"metal"`` or ``"cuda"`` when MLX has a usable GPU runtime, else ``None``."""
    metal = getattr(mx, "metal", None)
    if metal is not None and metal.is_available():
        return "metal"
    cuda = getattr(mx, "cuda", None)
    if cuda is not None and cuda.is_available():
        return "cuda"
    return None


#: The description of MLX's CUDA GPU device (:func:`select_device`): its buffers live
#: in device memory, and a host view of one first moves all of it to managed memory.
CUDA_DEVICE_NAME: Final = "MLX GPU device (CUDA)"

#: Whether MLX has a GPU runtime (Apple Metal or CUDA), known once a carrier selected
#: its device (read by ``_take_view``).
GPU_BUILD: Final[list[bool]] = [False]


def select_device(mx: Any) -> tuple[Any, str]:
    """Return ``(mlx device, description)`` per ``STRIDEWAVE_METAL_DEVICE``.

    Raises
    ------
    RuntimeError
        If the variable holds an unknown value, or no GPU runtime exists and the
        variable does not ask for the CPU device.
    """
    GPU_BUILD[0] = gpu_backend(mx) is not None
    choice = os.environ.get(DEVICE_ENV, "").strip().lower()
    if choice == "cpu":
        return mx.Device(mx.cpu), "MLX CPU device (STRIDEWAVE_METAL_DEVICE=cpu, testing aid)"
    if choice not in ("", "gpu"):
        raise Unavailable(
            f"{DEVICE_ENV}={os.environ.get(DEVICE_ENV)!r} is not understood; expected "
            f"'gpu' (or unset: require a GPU runtime) or 'cpu' (MLX's CPU device, a "
            f"testing aid). Fix or unset the variable.",
            f"{DEVICE_ENV}={os.environ.get(DEVICE_ENV)!r} is not understood (use gpu or cpu)",
        )
    backend = gpu_backend(mx)
    if backend is None:
        raise Unavailable(
            f"Metal found no GPU runtime: MLX {getattr(mx, '__version__', '?')} reports "
            f"neither Apple Metal nor CUDA on {sys.platform}. On Apple silicon install "
            f'"stridewave[mlx]"; on Linux with an NVIDIA GPU install "mlx[cuda13]"; on a '
            f"machine without a GPU set {DEVICE_ENV}=cpu to run Metal on MLX's CPU device "
            f"(a testing aid).",
            f"no GPU runtime; install mlx[cuda13] (Linux, NVIDIA) or set {DEVICE_ENV}=cpu",
        )
    return mx.Device(mx.gpu), (
        "MLX GPU device (Apple Metal)" if backend == "metal" else CUDA_DEVICE_NAME
    )


def runtime() -> tuple[bool, str]:
    """Report whether ``Metal(...)`` can be constructed here, and on which device.

    Imports MLX if it is installed (nothing else); allocates nothing.

    Returns
    -------
    (bool, str)
        ``(True, device description)``, or ``(False, why not and how to fix)`` in
        one line.
    """
    try:
        mx = import_mlx()
        _device, description = select_device(mx)
    except Unavailable as exc:
        return False, exc.short
    return True, f"{description}, MLX {getattr(mx, '__version__', '?')}"
