"""Developer sessions and CI gates: each gate is defined here and only here.

``nox`` runs the default sessions (lint, typecheck, contracts, docstrings, tests);
``.ci/run`` runs the README's test command and then the gates of :data:`CI_GATES`, one
``nox -s`` each. Other sessions: ``soak``, ``big``, ``docs``, ``interop``, ``clients``,
``peer``, ``bench``, ``array_api``, ``mutation`` (docs/testing.md says what each adds).
"""

from __future__ import annotations

import re
from pathlib import Path

import nox

nox.options.sessions = ["lint", "typecheck", "contracts", "docstrings", "tests"]
nox.options.default_venv_backend = "venv"

#: The sessions ``.ci/run`` calls after the README's test command, in order.
CI_GATES = ["lint", "typecheck", "contracts", "docstrings", "speedups", "mindeps"]

#: The tests that exercise the scalar paths and the value rules under them: the carrier
#: kinds (contract, write paths, normalization, hardening), the dtype descriptors and the
#: array API. ``speedups`` and ``mindeps`` run these, not the whole suite, to keep CI
#: within its time (docs/testing.md).
CORE_TESTS = ["tests/carriers", "tests/dtypes", "tests/array_api"]

ROOT = Path(__file__).resolve().parent

#: The consumers whose own test suites ``peer`` runs (``run-peer.sh``'s SUITE names).
PEER_SUITES = ("sklearn", "scipy", "xpx")

#: The stridewave devices ``peer`` runs them on, beside ``array_api_strict`` (the reference).
PEER_DEVICES = ("cpu", "metal")


def _peer_harness() -> Path:
    """The vendored peer suites: ``../shared/peer-suites`` or ``$STRIDEWAVE_PEER_SUITES``.

    Returns
    -------
    Path
        The folder that holds ``run-array-api-tests`` and ``consumers/``.
    """
    import os

    default = ROOT.parent / "shared" / "peer-suites"
    return Path(os.environ.get("STRIDEWAVE_PEER_SUITES", default))


def _lower_bounds() -> list[str]:
    """Pin every runtime dependency of ``pyproject.toml`` at its declared lower bound.

    Returns
    -------
    list of str
        ``name==version`` for each ``name>=version`` in ``[project] dependencies``.

    Raises
    ------
    ValueError
        If a runtime dependency has no ``>=`` lower bound.
    """
    text = (ROOT / "pyproject.toml").read_text()
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.MULTILINE | re.DOTALL)
    if block is None:
        raise ValueError("pyproject.toml has no [project] dependencies list")
    pins = []
    entries = re.findall(r'^\s*"([A-Za-z0-9_.-]+)(>=[^",;]*)?', block.group(1), re.MULTILINE)
    for name, bound in entries:
        if not bound:
            raise ValueError(f"runtime dependency {name!r} declares no lower bound (>=)")
        pins.append(f"{name}=={bound.removeprefix('>=').split(',')[0]}")
    return pins


#: The oldest versions ``pyproject.toml`` declares for the runtime dependencies.
MIN_VERSIONS = _lower_bounds()


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (the Metal carrier on MLX's CPU device where mlx installs)."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs, env={"STRIDEWAVE_METAL_DEVICE": "cpu"})


@nox.session
def soak(session: nox.Session) -> None:
    """Run the slow soak and stress variants, then the fuzz with the nightly examples."""
    session.install("-e", ".[test]")
    env = {"STRIDEWAVE_METAL_DEVICE": "cpu", "STRIDEWAVE_SOAK": "1"}
    session.run("pytest", "-m", "slow", "--runslow", *session.posargs, env=env)
    session.run(
        "pytest", "tests/carriers/test_metal_host_writes_under_threads.py", *session.posargs,
        env=env,
    )  # fmt: skip
    env["HYPOTHESIS_PROFILE"] = "nightly"
    session.run("pytest", "tests/carriers/hardening/test_fuzz.py", *session.posargs, env=env)


@nox.session
def big(session: nox.Session) -> None:
    """Run the demo on a generated 1 GB file, with and without --plot, and check its peak memory."""
    session.install("-e", ".[test]")
    session.run(
        "pytest", "-m", "big", "-s", "-n", "0", "tests/test_demo_memory.py", *session.posargs,
        env={"STRIDEWAVE_BIG": "1"},
    )  # fmt: skip


@nox.session
def lint(session: nox.Session) -> None:
    """Run ruff's linter and formatter check."""
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Run ``mypy --strict`` on the package and its tests."""
    session.install("-e", ".[test]", "mypy")
    session.run("mypy", "--strict", "stridewave", "tests")


@nox.session
def contracts(session: nox.Session) -> None:
    """Check the import-linter layering contracts of ``pyproject.toml``."""
    session.install("-e", ".", "import-linter>=2.3")
    session.run("lint-imports")


@nox.session
def docstrings(session: nox.Session) -> None:
    """Validate the numpydoc docstrings of the public surface."""
    session.install("-e", ".[test]", "numpydoc>=1.11")  # stridewave.testing needs pytest
    session.run("python", "tools/check_docstrings.py")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation with Sphinx, warnings as errors."""
    session.install("-e", ".[docs]")
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html")


@nox.session
def interop(session: nox.Session) -> None:
    """Run the interop matrix with every consumer: PyTorch and JAX (CPU), xarray, pyarrow.

    ``torch==2.13.0`` is the CPU build (a wheel on the project's machines); the tests of
    a consumer that is absent skip.
    """
    session.install("-e", ".[test]", "torch==2.13.0", "jax", "jaxlib", "xarray", "pyarrow")
    session.run("pytest", "tests/interop", *session.posargs, env={"STRIDEWAVE_METAL_DEVICE": "cpu"})


@nox.session
def clients(session: nox.Session) -> None:
    """Run the client matrix (real array API clients) and print its table.

    scikit-learn, SciPy, array-api-extra, einops, xarray and Dask, each on
    ``array_api_strict``, the CPU device and Metal (MLX's CPU device unless
    ``STRIDEWAVE_METAL_DEVICE`` says otherwise).

    Extra arguments go to the runner, e.g. ``nox -s clients -- --clients sklearn`` or
    ``-- --cases kept_back.py`` (or set ``STRIDEWAVE_CLIENT_CASES``); ``-- --pytest``
    runs the pytest entry instead, which fails where a case passes on strict only.
    """
    import os

    session.install("-e", ".[test,clients]")
    env = {"STRIDEWAVE_METAL_DEVICE": os.environ.get("STRIDEWAVE_METAL_DEVICE", "cpu")}
    if session.posargs[:1] == ["--pytest"]:
        session.run("pytest", "-m", "clients", "tests/clients", *session.posargs[1:], env=env)
        return
    session.run("python", "tests/clients/run_clients.py", *session.posargs, env=env)


@nox.session
def bench(session: nox.Session) -> None:
    """Run the benchmarks and print ratios against NumPy measured in the same run.

    The clients' extra brings scikit-learn and array_api_strict for ``bench_sklearn.py``.
    """
    session.install("-e", ".[clients]")
    session.run("python", "benchmarks/run.py", *session.posargs)


@nox.session
def mindeps(session: nox.Session) -> None:
    """Run the core tests at the lowest runtime versions ``pyproject.toml`` declares.

    ``nox -s mindeps -- tests`` runs the whole suite there instead.
    """
    session.install("-e", ".[test]", *MIN_VERSIONS)
    session.run("python", "-m", "pip", "check")
    check = "; ".join(
        [
            "import importlib.metadata as m",
            f"pins = {MIN_VERSIONS!r}",
            "got = [p.split('==')[0] + '==' + m.version(p.split('==')[0]) for p in pins]",
            "print('lowest versions:', ', '.join(got))",
            "assert [g.lower() for g in got] == [p.lower() for p in pins], (got, pins)",
        ]
    )
    session.run("python", "-c", check)
    session.run(
        "python", "-m", "pytest", *(session.posargs or CORE_TESTS),
        env={"STRIDEWAVE_METAL_DEVICE": "cpu"},
    )  # fmt: skip


@nox.session
def speedups(session: nox.Session) -> None:
    """Run the core tests with the C accelerator off: the pure-Python scalar paths.

    ``STRIDEWAVE_NO_SPEEDUPS=1`` makes the package ignore its compiled accelerator
    (``stridewave.carriers._base``); the session checks that it did. ``nox -s speedups
    -- tests`` runs the whole suite so.
    """
    session.install("-e", ".[test]")
    env = {"STRIDEWAVE_NO_SPEEDUPS": "1", "STRIDEWAVE_METAL_DEVICE": "cpu"}
    check = (
        "from stridewave.carriers import _base; print('scalar paths:', _base.SCALAR_PATH); "
        "assert _base.SCALAR_PATH.startswith('pure Python'), _base.SCALAR_PATH"
    )
    session.run("python", "-c", check, env=env)
    session.run("python", "-m", "pytest", *(session.posargs or CORE_TESTS), env=env)


@nox.session(name="array_api")
def array_api(session: nox.Session) -> None:
    """Run the full array API conformance suite on the host device and on Metal.

    Needs the vendored suite in ``../shared/peer-suites`` (or ``$STRIDEWAVE_PEER_SUITES``);
    Metal runs on MLX's CPU device unless ``STRIDEWAVE_METAL_DEVICE`` says otherwise.
    The runner skips only the dtypes the device does not store; every other failure
    is in the device's xfails file (``tests/array_api/xfails-<device>.txt``), with
    its reason.
    Extra arguments go to the runner, e.g. ``nox -s array_api -- --max-examples 20``.
    """
    import os

    session.install("-e", ".[test]")
    root = ROOT
    peer = _peer_harness()
    python = str(Path(session.bin) / "python")
    for device in ("cpu", "metal"):
        env = {
            "PYTHON": python,
            "STRIDEWAVE_ARRAY_API_DEVICE": device,
            "STRIDEWAVE_METAL_DEVICE": os.environ.get("STRIDEWAVE_METAL_DEVICE", "cpu"),
        }
        session.run(
            "bash",
            str(peer / "run-array-api-tests"),
            "--xfails-file",
            str(root / "tests" / "array_api" / f"xfails-{device}.txt"),
            "--disable-deadline",
            "-q",
            "-p",
            "no:warnings",
            *session.posargs,
            env=env,
            external=True,
        )


@nox.session
def peer(session: nox.Session) -> None:
    """Run the consumers' own array-API test suites on ``array_api_strict`` and on us.

    scikit-learn's, SciPy's and array-api-extra's own tests (``sklearn``, ``scipy``,
    ``xpx``) through the vendored harness ``consumers/run-peer.sh`` (in
    ``../shared/peer-suites`` or ``$STRIDEWAVE_PEER_SUITES``): each suite on
    ``array_api_strict`` (the reference) and on stridewave's ``cpu`` and ``metal``
    devices (Metal on MLX's CPU device unless ``STRIDEWAVE_METAL_DEVICE`` says
    otherwise), then the harness's ``compare.py`` report: the tests that pass on strict
    and fail on us, grouped by cause. SciPy runs the harness's default subset
    (``PEER_SCIPY_SAMPLE``). Too slow for CI (SciPy alone takes 10-20 minutes on two
    cores); the default run holds a sample of it. Fails when a strict-passing test
    fails on the CPU device; Metal's are reported.

    Arguments choose suites and devices, the rest go to pytest: ``nox -s peer -- xpx
    metal``, ``nox -s peer -- sklearn -k pca``. Records and logs go to ``$PEER_OUT``
    (default: the session's temporary folder).
    """
    import json
    import os

    harness = _peer_harness() / "consumers"
    if not (harness / "run-peer.sh").is_file():
        session.error(f"no peer harness at {harness} (set STRIDEWAVE_PEER_SUITES)")
    suites = [a for a in session.posargs if a in PEER_SUITES] or list(PEER_SUITES)
    devices = [a for a in session.posargs if a in PEER_DEVICES] or list(PEER_DEVICES)
    extra = [a for a in session.posargs if a not in PEER_SUITES + PEER_DEVICES]
    session.install("-e", ".[test,clients]")  # pytest, pytest-xdist, hypothesis, mlx
    out = str(Path(os.environ.get("PEER_OUT") or session.create_tmp()).resolve())
    env = {
        "PYTHON": str(Path(session.bin) / "python"),
        "PEER_OUT": out,
        "STRIDEWAVE_METAL_DEVICE": os.environ.get("STRIDEWAVE_METAL_DEVICE", "cpu"),
    }
    runs = [("array_api_strict", "cpu")] + [("stridewave", device) for device in devices]
    for suite in suites:
        for namespace, device in runs:
            session.run(
                "bash", str(harness / "run-peer.sh"), suite, namespace, device, *extra,
                env=env, external=True,
            )  # fmt: skip
    report = str(Path(out) / "compare.json")
    chosen = [f"--suite={suite}" for suite in suites]
    session.run(
        "python", str(harness / "compare.py"), out, *chosen, "--md", str(Path(out) / "compare.md"),
        "--json", report, env=env,
    )  # fmt: skip
    data = json.loads(Path(report).read_text())
    lost = {
        f"{suite} {device}": found["pass_strict_fail_stridewave"]
        for suite, sdata in data["suites"].items()
        for device, found in sdata["devices"].items()
    }
    session.log("pass on array_api_strict, fail on stridewave: " + ", ".join(
        f"{run}: {n}" for run, n in lost.items()
    ))  # fmt: skip
    cpu = {run: n for run, n in lost.items() if run.endswith(" cpu") and n}
    if cpu:
        session.error(f"strict-passing tests fail on the CPU device: {cpu} (report: {out})")


@nox.session
def mutation(session: nox.Session) -> None:
    """Mutation-test the modules that hold the rules (mutmut; docs/testing.md).

    ``nox -s mutation -- layout`` runs one module; all six by default. Not part of CI.
    """
    session.install("-e", ".[test]", "mutmut>=3.8,<4")
    session.run("python", "tools/mutation.py", *session.posargs)
