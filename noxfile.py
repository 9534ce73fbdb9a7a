"""Developer sessions: ``nox -s tests lint typecheck docs bench``."""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "typecheck", "tests"]
nox.options.default_venv_backend = "venv"


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (the Metal carrier on MLX's CPU device where mlx installs)."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs, env={"STRIDEWAVE_METAL_DEVICE": "cpu"})


@nox.session
def soak(session: nox.Session) -> None:
    """Run the slow soak and stress variants."""
    session.install("-e", ".[test]")
    session.run("pytest", "-m", "slow", "--runslow", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Run ruff's linter and formatter check."""
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Run ``mypy --strict`` on the package."""
    session.install("-e", ".", "mypy")
    session.run("mypy", "stridewave")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation with Sphinx, warnings as errors."""
    session.install("-e", ".[docs]")
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html")


@nox.session
def bench(session: nox.Session) -> None:
    """Run the benchmarks and print ratios against NumPy measured in the same run."""
    session.install("-e", ".")
    session.run("python", "benchmarks/run.py", *session.posargs)


#: The oldest versions ``pyproject.toml`` declares for the runtime dependencies.
MIN_VERSIONS = ["numpy==2.0.2", "ml_dtypes==0.5.0", "typing-extensions==4.12.2"]


@nox.session
def mindeps(session: nox.Session) -> None:
    """Run the test suite at the oldest declared NumPy, ml_dtypes and typing-extensions."""
    session.install("-e", ".[test]", *MIN_VERSIONS)
    session.run(
        "python", "-c", "import numpy, ml_dtypes; print(numpy.__version__, ml_dtypes.__version__)"
    )
    session.run("pytest", *session.posargs, env={"STRIDEWAVE_METAL_DEVICE": "cpu"})
