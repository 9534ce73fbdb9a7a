"""The client matrix: real consumers of the array API standard on ``stridewave.array_api``.

Every case of ``cases_*.py`` (and of any extra case file) calls one client library
(scikit-learn, SciPy, array-api-extra, einops, xarray, Dask) the way a user would, on
inputs built through a namespace. It runs on three targets:

``strict``    ``array_api_strict``, the reference;
``sw-cpu``    ``stridewave.array_api`` with the CPU device as the default device;
``sw-metal``  ``stridewave.array_api`` with Metal as the default device
              (``STRIDEWAVE_ARRAY_API_DEVICE=metal``; ``STRIDEWAVE_METAL_DEVICE=cpu``,
              MLX's CPU device, unless the environment already chooses).

and, on request (``--targets``), ``sw-metal-arg``: inputs made with
``xp.asarray(..., device="metal")`` while the default device stays CPU, as a user who
never sets the default device writes it.

In the same interpreter each case first runs on NumPy arrays (``array_api_compat.numpy``),
which gives the expected values. A case passes on a target when it raises nothing, its
result has the reference's structure, shapes and dtypes, its values equal NumPy's within
float32 tolerance, and every array in it belongs to the target namespace and lies on the
target's device.

Each (client, target) batch runs in a fresh interpreter (a worker). The worker records
each case as it starts and ends, so a worker that crashes or outlives the per-case
timeout costs one case: the case is marked and a new worker runs the rest.

Usage::

    python tests/clients/run_clients.py                       # all clients, all targets
    python tests/clients/run_clients.py --clients sklearn,scipy --targets strict,sw-cpu
    python tests/clients/run_clients.py --cases kept_back.py  # plus the cases of a file
    STRIDEWAVE_CLIENT_CASES=a.py:b.py python tests/clients/run_clients.py

A case file defines ``CLIENT`` (the client's name) and ``CASES``, a dict from case name
to a function ``(xp, ctx) -> result``; a case may name its own client with a
``"client:"`` prefix in its key. ``ctx`` is a :class:`Context`. A case file may import
``_case_support`` (this directory's ``case`` decorator and float64/int64 variants).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: The case files of the matrix, in table order.
CASE_FILES = [
    HERE / "cases_sklearn.py",
    HERE / "cases_scipy.py",
    HERE / "cases_array_api_extra.py",
    HERE / "cases_einops.py",
    HERE / "cases_xarray.py",
    HERE / "cases_dask.py",
]

#: Extra case files (``os.pathsep``-separated): the cases kept back from the repository.
EXTRA_CASES_ENV = "STRIDEWAVE_CLIENT_CASES"

TARGETS = ("strict", "sw-cpu", "sw-metal")
OPTIONAL_TARGETS = ("sw-metal-arg",)

#: The modules each client needs; a client whose modules are missing is skipped.
CLIENT_MODULES = {
    "sklearn": ["sklearn", "scipy"],
    "scipy": ["scipy"],
    "array_api_extra": ["array_api_extra"],
    "einops": ["einops"],
    "xarray": ["xarray"],
    "dask": ["dask", "distributed"],
}

#: float32 tolerance of the value comparison.
RTOL = 1e-3
ATOL = 1e-4

PASS = "pass"


def target_env(target: str) -> dict[str, str]:
    """Return the environment variables a worker for ``target`` starts with."""
    env = {"SCIPY_ARRAY_API": "1"}
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = os.environ.get(var, "1")
    if target == "sw-cpu":
        env["STRIDEWAVE_ARRAY_API_DEVICE"] = "cpu"
    elif target == "sw-metal":
        env["STRIDEWAVE_ARRAY_API_DEVICE"] = "metal"
        env["STRIDEWAVE_METAL_DEVICE"] = os.environ.get("STRIDEWAVE_METAL_DEVICE", "cpu")
    elif target == "sw-metal-arg":
        env["STRIDEWAVE_ARRAY_API_DEVICE"] = "cpu"
        env["STRIDEWAVE_METAL_DEVICE"] = os.environ.get("STRIDEWAVE_METAL_DEVICE", "cpu")
    elif target != "strict":
        raise ValueError(f"unknown target {target!r}; use one of {TARGETS + OPTIONAL_TARGETS}")
    return env


# ---------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------

CaseFn = Callable[[Any, "Context"], Any]


def _import_case_support() -> None:
    """Load ``_case_support`` by path, once, so that the case files import it anywhere.

    A worker runs this file as a script, with this directory on ``sys.path``; pytest's
    process, which loads this file by path, has not.
    """
    if "_case_support" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location("_case_support", HERE / "_case_support.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_case_support"] = module
    spec.loader.exec_module(module)


def load_cases(files: list[Path]) -> dict[str, dict[str, CaseFn]]:
    """Return ``{client: {case name: function}}`` from the case files, in file order.

    Raises
    ------
    ValueError
        If two files define the same case of the same client.
    """
    out: dict[str, dict[str, CaseFn]] = {}
    _import_case_support()
    for path in files:
        spec = importlib.util.spec_from_file_location(f"_client_cases_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise ValueError(f"cannot load the case file {path}: not a Python file")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        default = getattr(module, "CLIENT", None)
        for key, fn in module.CASES.items():
            client, _, name = key.rpartition(":")
            client = client or default
            if client is None:
                raise ValueError(f"{path}: case {key!r} names no client; set CLIENT")
            cases = out.setdefault(client, {})
            if name in cases:
                raise ValueError(f"{path}: case {client}:{name} is defined twice")
            cases[name] = fn
    return out


def case_files(extra: list[str], from_env: bool = True) -> list[Path]:
    """Return the matrix's case files plus ``extra`` and those of ``$STRIDEWAVE_CLIENT_CASES``."""
    more = [p for p in os.environ.get(EXTRA_CASES_ENV, "").split(os.pathsep) if p and from_env]
    return CASE_FILES + [Path(p).resolve() for p in [*extra, *more]]


@dataclass
class Context:
    """What a case gets besides its namespace: data, the target and a scratch directory.

    ``asarray`` builds an input through the namespace from NumPy data; ``rng`` is seeded
    from the case's name, so the reference and the target see the same data.
    """

    target: str
    xp: Any
    device: Any
    tmpdir: Path
    rng: Any
    result_device: Any = None
    #: The dtypes of the data helpers (``randn``, ``uniform``, ``integers`` ...): a
    #: case's float64/int64 variant sets them before it builds its inputs.
    float_dtype: str = "float32"
    int_dtype: str = "int32"
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def is_reference(self) -> bool:
        """Whether this run is the NumPy reference run."""
        return self.target == "numpy"

    @property
    def is_stridewave(self) -> bool:
        """Whether the namespace is ``stridewave.array_api``."""
        return self.target.startswith("sw-")

    def asarray(self, data: Any, dtype: str | None = None) -> Any:
        """Return ``data`` (anything NumPy reads) as an array of the namespace.

        ``dtype`` is a NumPy dtype name; the namespace's dtype of that name is used.
        """
        import numpy as np

        values = np.asarray(data) if dtype is None else np.asarray(data, dtype=dtype)
        if values.dtype in (np.float64, np.complex128):
            self.notes["float64_input"] = True
        if self.target == "numpy":
            return values
        dtype_ = getattr(self.xp, values.dtype.name)
        if self.target == "sw-metal-arg":
            return self.xp.asarray(values, dtype=dtype_, device=self.device)
        return self.xp.asarray(values, dtype=dtype_)

    def randn(self, *shape: int) -> Any:
        """Return standard normal data of ``shape`` as an array of the namespace."""
        return self.asarray(self.rng.standard_normal(shape), self.float_dtype)

    def uniform(self, *shape: int, low: float = 0.0, high: float = 1.0) -> Any:
        """Return uniform data in ``[low, high)`` as an array of the namespace."""
        return self.asarray(self.rng.uniform(low, high, shape), self.float_dtype)

    def integers(self, high: int, *shape: int) -> Any:
        """Return integers in ``[0, high)`` as an array of the namespace."""
        return self.asarray(self.rng.integers(0, high, shape), self.int_dtype)

    def classification(self, n: int = 60, features: int = 4, classes: int = 3) -> Any:
        """Return ``(X, y)``: blobs of features and ``classes`` overlapping labels."""
        import numpy as np

        y = np.arange(n) % classes
        X = self.rng.standard_normal((n, features)) + 2.0 * y[:, None]
        return self.asarray(X, self.float_dtype), self.asarray(y, self.int_dtype)

    def regression(self, n: int = 50, features: int = 4) -> Any:
        """Return ``(X, y)``: features and a noisy linear target."""
        import numpy as np

        X = self.rng.standard_normal((n, features))
        y = X @ np.arange(1.0, features + 1) + 0.1 * self.rng.standard_normal(n)
        return self.asarray(X, self.float_dtype), self.asarray(y, self.float_dtype)


# ---------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------


class Mismatch(AssertionError):
    """A result differs from NumPy's, or is in the wrong namespace or on the wrong device."""


def _is_array(value: Any) -> bool:
    return hasattr(value, "__array_namespace__") or type(value).__module__ == "numpy"


def _leaves(value: Any, path: str = "result") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _leaves(value[key], f"{path}[{key!r}]")
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]")
    else:
        yield path, value


def to_numpy(value: Any) -> Any:
    """Return an array of any namespace (or a scalar) as NumPy values, for the comparison."""
    import numpy as np

    if type(value).__module__.startswith("array_api_strict"):
        import array_api_strict

        return np.from_dlpack(value.to_device(array_api_strict.Device("CPU_DEVICE")))
    if hasattr(value, "to_device") and type(value).__module__.startswith("stridewave"):
        import stridewave.array_api as sxp

        return np.asarray(value.to_device(sxp.Device("CPU")))
    return np.asarray(value)


def compare(expected: Any, got: Any, ctx: Context) -> None:
    """Raise :class:`Mismatch` unless ``got`` matches the NumPy result ``expected``.

    Raises
    ------
    Mismatch
        On another structure, a leaf outside the target namespace or off its device,
        another shape or dtype, or values beyond float32 tolerance.
    """
    import array_api_compat
    import numpy as np

    want = list(_leaves(expected))
    have = list(_leaves(got))
    if [p for p, _ in want] != [p for p, _ in have]:
        raise Mismatch(f"structure: NumPy gave {len(want)} leaves, the target {len(have)}")
    for (path, ref), (_, val) in zip(want, have, strict=True):
        ref_is_array = isinstance(ref, np.ndarray)
        if _is_array(val) and not isinstance(val, np.generic):
            if type(val).__module__.startswith("numpy"):
                raise Mismatch(f"{path}: a NumPy array, not an array of the target namespace")
            namespace = array_api_compat.array_namespace(val)
            if namespace is not ctx.xp:
                raise Mismatch(f"{path}: namespace {namespace.__name__}, not {ctx.xp.__name__}")
            device = array_api_compat.device(val)
            expected_device = ctx.result_device if ctx.result_device is not None else ctx.device
            if device != expected_device:
                raise Mismatch(f"{path}: on device {device}, expected {expected_device}")
        elif ref_is_array and ref.ndim > 0:
            raise Mismatch(f"{path}: a {type(val).__name__}, expected an array")
        ref_np = np.asarray(ref)
        val_np = to_numpy(val)
        if ref_np.shape != val_np.shape:
            raise Mismatch(f"{path}: shape {val_np.shape}, NumPy's {ref_np.shape}")
        if ref_is_array and not _same_dtype(ref_np.dtype, val_np.dtype, ctx):
            raise Mismatch(f"{path}: dtype {val_np.dtype}, NumPy's {ref_np.dtype}")
        if ref_np.dtype.kind in "fc" or val_np.dtype.kind in "fc":
            ok = np.allclose(val_np, ref_np, rtol=RTOL, atol=ATOL, equal_nan=True)
        else:
            ok = bool(np.array_equal(val_np, ref_np))
        if not ok:
            diff = _describe_difference(ref_np, val_np)
            raise Mismatch(f"{path}: values differ from NumPy's ({diff})")


def _same_dtype(ref: Any, got: Any, ctx: Context) -> bool:
    """Whether ``got`` is NumPy's dtype ``ref`` as far as the standard pins it.

    The kind (bool, signed, unsigned, real or complex floating) must match. The width
    need not: a client's NumPy path may compute in float64 where its array API path
    keeps float32, and a namespace's default integer may be int32. But a case whose
    inputs hold float64 data must get float64 (or complex128) back where NumPy does:
    narrowing them is a loss of precision, not a choice of default.
    """
    if ref.kind != got.kind and not {ref.kind, got.kind} <= {"i", "u"}:
        return False
    narrowed = ref.kind in "fc" and ref.itemsize > got.itemsize
    return not (narrowed and ctx.notes.get("float64_input"))


def _describe_difference(ref: Any, val: Any) -> str:
    import numpy as np

    try:
        err = np.abs(val.astype(np.float64) - ref.astype(np.float64))
        worst = float(np.nanmax(err)) if err.size else math.nan
        return f"max abs error {worst:.3g}"
    except (TypeError, ValueError):
        return f"{val!r:.60} vs {ref!r:.60}"


# ---------------------------------------------------------------------------------------
# Worker (one client, one target, in a fresh interpreter)
# ---------------------------------------------------------------------------------------


def _namespace(target: str) -> tuple[Any, Any]:
    if target == "strict":
        import array_api_strict as xp

        return xp, xp.__array_namespace_info__().default_device()
    import stridewave.array_api as sxp

    if target == "sw-metal-arg":
        return sxp, sxp.Device("Metal")
    return sxp, sxp.__array_namespace_info__().default_device()


def _setup_clients() -> None:
    with contextlib.suppress(ImportError):
        import sklearn

        sklearn.set_config(array_api_dispatch=True)


def _run_one(fn: CaseFn, name: str, target: str, xp: Any, device: Any) -> tuple[str, str]:
    import array_api_compat.numpy
    import numpy as np

    seed = zlib.crc32(name.encode())
    with tempfile.TemporaryDirectory(prefix="client-case-") as tmp:
        ref_ctx = Context(
            "numpy", array_api_compat.numpy, "cpu", Path(tmp) / "ref", np.random.default_rng(seed)
        )
        ref_ctx.tmpdir.mkdir()
        try:
            expected = fn(array_api_compat.numpy, ref_ctx)
        except Exception as exc:  # noqa: BLE001 - a case is reported, never raised
            return "ref-error", _reason(exc)
        ctx = Context(target, xp, device, Path(tmp) / "target", np.random.default_rng(seed))
        ctx.tmpdir.mkdir()
        try:
            got = fn(xp, ctx)
            compare(expected, got, ctx)
        except Mismatch as exc:
            return "fail", f"Mismatch: {exc}"
        except Exception as exc:  # noqa: BLE001
            return "fail", _reason(exc)
    return PASS, ""


def _reason(exc: BaseException) -> str:
    """Return ``Type: first line`` and the innermost frame of a traceback."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" [{Path(last.filename).name}:{last.lineno} {last.name}]"
    return f"{type(exc).__name__}: {first}{where}"


def worker(client: str, target: str, files: list[Path], only: list[str], out: Path) -> None:
    """Run the cases ``only`` of ``client`` on ``target``, one JSON line per event in ``out``."""
    import warnings

    warnings.simplefilter("ignore")
    xp, device = _namespace(target)
    _setup_clients()
    cases = load_cases(files)[client]
    with out.open("a") as log:
        for name in only:
            log.write(json.dumps({"start": name}) + "\n")
            log.flush()
            status, reason = _run_one(cases[name], name, target, xp, device)
            log.write(json.dumps({"case": name, "status": status, "reason": reason}) + "\n")
            log.flush()


# ---------------------------------------------------------------------------------------
# Orchestration
# ---------------------------------------------------------------------------------------


def run_batch(
    client: str,
    target: str,
    names: list[str],
    files: list[Path],
    case_timeout: float,
) -> dict[str, tuple[str, str]]:
    """Run ``names`` of ``client`` on ``target`` in workers; return ``{case: (status, reason)}``.

    A worker that dies, or runs one case longer than ``case_timeout`` seconds, is
    replaced by a fresh one for the cases it did not reach.
    """
    results: dict[str, tuple[str, str]] = {}
    pending = list(names)
    env = {**os.environ, **target_env(target)}
    with tempfile.TemporaryDirectory(prefix="client-batch-") as tmp:
        attempt = 0
        while pending:
            attempt += 1
            log = Path(tmp) / f"{attempt}.jsonl"
            log.touch()
            cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--worker",
                "--clients",
                client,
                "--targets",
                target,
                "--only",
                ",".join(pending),
                "--out",
                str(log),
                *[a for f in files[len(CASE_FILES) :] for a in ("--cases", str(f))],
            ]
            stderr = Path(tmp) / f"{attempt}.err"
            with stderr.open("w") as err:
                proc = subprocess.Popen(cmd, env=env, stdout=err, stderr=err)
                current, since, killed = None, time.monotonic(), False
                while proc.poll() is None:
                    time.sleep(0.2)
                    started, done = _read_log(log)
                    results.update(done)
                    if started != current:
                        current, since = started, time.monotonic()
                    if current is not None and time.monotonic() - since > case_timeout:
                        proc.kill()
                        proc.wait()
                        killed = True
            started, done = _read_log(log)
            results.update(done)
            pending = [n for n in pending if n not in results]
            if not pending:
                break
            if started is not None and started in pending:
                if killed:
                    results[started] = ("timeout", f"timeout: over {case_timeout:.0f} s")
                else:
                    tail = stderr.read_text().strip().splitlines()[-1:] or [""]
                    results[started] = ("crash", f"crash: exit {proc.returncode}: {tail[0]}")
                pending.remove(started)
            else:
                # the worker died before its first case (an import or setup error)
                tail = stderr.read_text().strip().splitlines()[-1:] or [""]
                for n in pending:
                    results[n] = ("crash", f"worker failed to start: {tail[0][:200]}")
                pending = []
    return results


def _read_log(log: Path) -> tuple[str | None, dict[str, tuple[str, str]]]:
    started: str | None = None
    done: dict[str, tuple[str, str]] = {}
    for line in log.read_text().splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line the worker was writing when it died
        if "start" in event:
            started = event["start"]
        else:
            done[event["case"]] = (event["status"], event["reason"])
            started = None
    return started, done


def missing_modules(client: str) -> list[str]:
    """Return the modules ``client`` needs that are not importable here."""
    return [m for m in CLIENT_MODULES.get(client, []) if importlib.util.find_spec(m) is None]


def run_matrix(
    clients: list[str] | None,
    targets: list[str],
    files: list[Path],
    case_timeout: float = 120.0,
    jobs: int = 1,
    keyword: str = "",
) -> dict[str, dict[str, dict[str, tuple[str, str]]]]:
    """Run the matrix; return ``{client: {case: {target: (status, reason)}}}``.

    ``keyword`` keeps the cases whose ``client:name`` contains it.
    """
    from concurrent.futures import ThreadPoolExecutor

    cases = {
        client: {n: fn for n, fn in named.items() if keyword in f"{client}:{n}"}
        for client, named in load_cases(files).items()
    }
    cases = {client: named for client, named in cases.items() if named}
    chosen = [c for c in cases if clients is None or c in clients]
    matrix: dict[str, dict[str, dict[str, tuple[str, str]]]] = {
        c: {name: {} for name in cases[c]} for c in chosen
    }
    work = []
    for client in chosen:
        missing = missing_modules(client)
        for target in targets:
            if missing:
                for name in cases[client]:
                    matrix[client][name][target] = ("skip", f"not installed: {missing}")
            else:
                work.append((client, target))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {
            pool.submit(run_batch, c, t, list(cases[c]), files, case_timeout): (c, t)
            for c, t in work
        }
        for future, (client, target) in futures.items():
            for name, result in future.result().items():
                matrix[client][name][target] = result
    return matrix


def counts(matrix: dict[str, dict[str, dict[str, tuple[str, str]]]], targets: list[str]) -> Any:
    """Return ``{client: {target: passes}}`` plus a ``"total"`` row."""
    out: dict[str, dict[str, int]] = {}
    for client, cases in matrix.items():
        out[client] = {
            t: sum(r.get(t, ("", ""))[0] == PASS for r in cases.values()) for t in targets
        }
        out[client]["cases"] = len(cases)
    out["total"] = {k: sum(row[k] for row in out.values()) for k in [*targets, "cases"]}
    return out


def format_table(
    matrix: dict[str, dict[str, dict[str, tuple[str, str]]]], targets: list[str]
) -> str:
    """Return the per-case table and the counts, as Markdown."""
    lines = [
        "| case | " + " | ".join(targets) + " | first failure |",
        "|---|" + "---|" * len(targets) + "---|",
    ]
    for client, cases in matrix.items():
        for name, results in cases.items():
            cells = [results.get(t, ("-", ""))[0] for t in targets]
            reason = _reasons(results, targets).replace("|", "\\|")
            lines.append(f"| {client}:{name} | " + " | ".join(cells) + f" | {reason} |")
    lines += [
        "",
        "| client | " + " | ".join(targets) + " | cases |",
        "|---|" + "---|" * (len(targets) + 1),
    ]
    for client, row in counts(matrix, targets).items():
        lines.append(f"| {client} | " + " | ".join(str(row[k]) for k in [*targets, "cases"]) + " |")
    return "\n".join(lines)


def failure_groups(
    matrix: dict[str, dict[str, dict[str, tuple[str, str]]]], target: str
) -> list[tuple[str, list[str]]]:
    """Group the cases that pass on strict and fail on ``target`` by their reason.

    The reason is taken without its source location and cut at 100 characters, so one
    root cause (a missing dtype, a device mismatch) is one group; largest group first.
    """
    groups: dict[str, list[str]] = {}
    for client, cases in matrix.items():
        for name, results in cases.items():
            if results.get("strict", ("",))[0] != PASS or target not in results:
                continue
            status, reason = results[target]
            if status != PASS:
                key = reason.split(" [", 1)[0][:100]
                groups.setdefault(key, []).append(f"{client}:{name}")
    return sorted(groups.items(), key=lambda item: -len(item[1]))


def format_groups(
    matrix: dict[str, dict[str, dict[str, tuple[str, str]]]], targets: list[str]
) -> str:
    """Return the failure groups of each stridewave target, as Markdown."""
    lines = []
    for target in targets:
        if target == "strict":
            continue
        lines += ["", f"### Passing on strict, failing on {target}", ""]
        for reason, names in failure_groups(matrix, target):
            shown = ", ".join(names[:6]) + (" ..." if len(names) > 6 else "")
            lines.append(f"- {len(names)} x `{reason}`: {shown}")
    return "\n".join(lines)


def _reasons(results: dict[str, tuple[str, str]], targets: list[str]) -> str:
    """Return the distinct failure reasons of a row, each once, with the targets it hit."""
    seen: dict[str, list[str]] = {}
    for t in targets:
        if t in results and results[t][1]:
            seen.setdefault(results[t][1][:160], []).append(t)
    return "; ".join(f"{'/'.join(ts)}: {r}" for r, ts in seen.items())


def main(argv: list[str] | None = None) -> int:
    """Run the matrix (or, with ``--worker``, one batch) from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", help="comma-separated clients (default: all)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated targets")
    parser.add_argument("--cases", action="append", default=[], help="an extra case file")
    parser.add_argument("--json", type=Path, help="write the matrix as JSON here")
    parser.add_argument("--markdown", type=Path, help="write the table as Markdown here")
    parser.add_argument("--case-timeout", type=float, default=120.0, help="seconds per case")
    parser.add_argument("-k", "--keyword", default="", help="cases whose client:name has it")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="workers at once")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--only", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    files = case_files(args.cases, from_env=not args.worker)
    clients = args.clients.split(",") if args.clients else None
    targets = args.targets.split(",")
    if args.worker:
        assert clients is not None and args.out is not None and args.only is not None
        worker(clients[0], targets[0], files, args.only.split(","), args.out)
        return 0
    matrix = run_matrix(clients, targets, files, args.case_timeout, args.jobs, args.keyword)
    table = format_table(matrix, targets)
    if "strict" in targets:
        table += "\n" + format_groups(matrix, targets)
    print(table)
    if args.json:
        args.json.write_text(json.dumps(matrix, indent=1))
    if args.markdown:
        args.markdown.write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
