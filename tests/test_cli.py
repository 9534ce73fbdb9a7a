"""The command line, driven in subprocesses as a user runs it."""

from __future__ import annotations

import subprocess
import sys

import stridewave


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stridewave", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_info_prints_version_and_exits_zero() -> None:
    proc = run_cli("info")
    assert proc.returncode == 0, proc.stderr
    assert f"stridewave {stridewave.__version__}" in proc.stdout


def test_no_command_prints_help_and_exits_two() -> None:
    proc = run_cli()
    assert proc.returncode == 2
    assert "info" in proc.stderr
