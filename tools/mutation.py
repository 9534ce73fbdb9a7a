"""Mutation testing of the modules that hold the rules, one module at a time (mutmut 3).

Usage: ``python tools/mutation.py [MODULE ...] [--max-children N] [--recheck]`` (what
``nox -s mutation -- MODULE ...`` runs); MODULE is a key of ``TARGETS`` and all of
them run when none is named; ``--recheck`` runs only the last run's survivors again,
against the current tests (after adding tests; the module must be unchanged). See
``docs/testing.md``.

For each module the script lays a private copy of the package and the tests under
``.mutation/<module>/`` with a ``[tool.mutmut]`` table that mutates that module only
and selects that module's targeted tests, runs ``mutmut run`` there, and prints the
score: killed mutants over the non-equivalent ones (``EQUIVALENT`` lists the
mutants reviewed as equivalent, with the reason). mutmut runs, for each mutant,
only the selected tests that call the mutated function, and stops at the first
failure. The surviving mutants' diffs go to ``.mutation/<module>/survivors.txt``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".mutation"


@dataclass(frozen=True)
class Target:
    """One module under mutation and the tests that target it."""

    path: str
    tests: tuple[str, ...]


TARGETS: dict[str, Target] = {
    "storage": Target("stridewave/carriers/_storage.py", ("tests/carriers/test_storage.py",)),
    "lifecycle": Target(
        "stridewave/carriers/_lifecycle.py",
        ("tests/carriers/test_ownership.py", "tests/carriers/test_contract.py"),
    ),
    "normalize": Target(
        "stridewave/carriers/_normalize.py",
        ("tests/carriers/test_normalization.py", "tests/carriers/test_bulk.py"),
    ),
    "dtypes": Target(
        "stridewave/carriers/_storage_dtypes.py",
        (
            "tests/carriers/test_normalization.py",
            "tests/carriers/test_bulk.py",
            "tests/carriers/test_write_paths.py",
        ),
    ),
    "layout": Target("stridewave/layout.py", ("tests/test_layout.py",)),
    "scatter": Target(
        "stridewave/carriers/_scatter.py",
        (
            "tests/test_scatter_plan.py",
            "tests/test_scatter.py",
            "tests/carriers/test_scatter_template.py",
            # the scatter contract (stridewave.testing.ScatterTests) runs there per kind
            "tests/carriers/test_contract.py",
        ),
    ),
}

#: Mutants reviewed as equivalent (no observable behaviour changes), by mutmut's
#: name, with the reason; docs/testing.md gives the same list. Names follow the
#: source: re-review them when the module changes.
_MA = "stridewave.carriers._normalize.x_materialize__mutmut_"
_SC = "stridewave.carriers._scatter.x_"
_SD = "stridewave.carriers._storage_dtypes.x_"
_LO = "stridewave.layout.xǁLayoutǁ"
_LC = "stridewave.carriers._lifecycle.xǁ_Lifecycleǁ"
_STRICT = "zip(..., strict=True) loosened: the lengths are equal (checked in __init__)"
EQUIVALENT: dict[str, str] = {
    # -- layout.py --
    "stridewave.layout.x__row_major_strides__mutmut_3": "[1] * len(shape) for [0] * "
    "len(shape): the loop overwrites every entry",
    **{f"{_LO}__init____mutmut_{n}": _STRICT for n in (48, 51, 52, 65, 68, 69)},
    **{f"{_LO}_compute_injective_cheap__mutmut_{n}": _STRICT for n in (9, 12, 13)},
    **{f"{_LO}index__mutmut_{n}": _STRICT for n in (17, 20, 23)},
    **{f"{_LO}indices__mutmut_{n}": _STRICT for n in (9, 12, 13)},
    f"{_LO}_compute_injective_cheap__mutmut_1": "size < 1 for size <= 1: a layout of one "
    "element has no axis of extent > 1, and the loop returns True as well",
    **{
        f"{_LO}indices__mutmut_{n}": "np.arange without dtype=int64: NumPy 2's default "
        "integer is int64 on every 64-bit platform, and the stride is an int64"
        for n in (17, 19)
    },
    f"{_LO}indices__mutmut_28": "reshape(-2) for reshape(-1): NumPy takes any negative "
    "extent as the one to infer",
    # -- carriers/_storage_dtypes.py --
    **{
        f"{_SD}_bool_array__mutmut_{n}": "the Bool row's kind test and conversion: a bool "
        "array is the storage dtype and returns first, so every array reaching the test is "
        "refused either way, and the conversion after it cannot run"
        for n in (4, 5, 15, 16)
    },
    **{
        f"{_SD}{rule}_array__mutmut_{n}": "'X' added to the accepted dtype kinds: no NumPy "
        "dtype has kind 'X'"
        for rule, n in (("_float32", 5), ("_int32", 5))
    },
    **{
        f"{_SD}{rule}_array__mutmut_{n}": "a converted array reported as not fresh: the "
        "caller copies it once more (speed only)"
        for rule, n in (("_float32", 21), ("_int32", 44))
    },
    f"{_SD}_float32__mutmut_21": "itemsize >= 8: a numpy.float64 is rounded to binary32 "
    "before the store instead of by it (the same binary32; overflow refused the same way)",
    f"{_SD}_float32__mutmut_22": "itemsize > 9: no floating dtype has 9 bytes",
    **{
        f"{_SD}_float32_from_int__mutmut_{n}": "a test of i < 0 that differs only at i == 0, "
        "where -0 == 0 (and 0 returns before the rounding)"
        for n in (5, 6, 46, 47)
    },
    f"{_SD}_float32_from_int__mutmut_7": "magnitude < 2**53: 2**53 itself takes the rounding "
    "path, which keeps it exactly",
    f"{_SD}_float32_from_wide__mutmut_11": "the message of the isinf branch after the cast: "
    "NumPy reports every overflowing cast as FloatingPointError under errstate(over='raise'), "
    "so the branch is never reached",
    f"{_SD}_int32__mutmut_1": "the exact-int shortcut missed: operator.index(int) gives the "
    "same int",
    f"{_SD}_int32_array__mutmut_18": "itemsize >= 4: also range-checks non-native int32 "
    "arrays, which always fit (speed only)",
    f"{_SD}_int32_array__mutmut_19": "itemsize > 5: no integer dtype has 5 to 7 bytes",
    f"{_SD}_int32_array__mutmut_20": "kind 'u' or itemsize 4: also range-checks uint8/uint16 "
    "and non-native int32 arrays, which always fit (speed only)",
    # -- carriers/_scatter.py --
    **{
        f"{_SC}unique_last__mutmut_{n}": "the scratch span or the dense/sparse threshold "
        "changed: both algorithms are exact, only the choice between them moves (speed only)"
        for n in (18, 20, 21, 22, 23, 24)
    },
    **{
        f"{_SC}unique_last__mutmut_{n}": "np.full(span, -1) without dtype=int64: -1 makes "
        "it NumPy's default integer, int64 on 64-bit platforms"
        for n in (28, 31)
    },
    f"{_SC}unique_last__mutmut_33": "-2 for -1 as the 'not hit' mark: hits are found as >= 0",
    f"{_SC}_extreme_element__mutmut_7": "s >= 0 for s > 0 next to 'and s != 0': the same test",
    **{
        f"{_SC}{fn}__mutmut_{n}": _STRICT
        for fn, numbers in (
            ("_extreme_element", (15, 18, 19, 24, 27, 28)),
            ("_inner_axis", (7, 10, 11)),
            ("source_values", (24, 27, 28)),
        )
        for n in numbers
    },
    **{
        f"{_SC}{fn}__mutmut_{n}": "reshape(-2) for reshape(-1): NumPy infers any negative extent"
        for fn, n in (("source_values", 35), ("source_values", 39))
    },
    **{
        f"{_SC}_inner_axis__mutmut_{n}": "another axis taken as the inner one, or the "
        "fallback for no axis of extent > 1 (unreachable: a copy that large has one): the "
        "tiles or slabs still cover the array (speed only)"
        for n in (1, 3, 12, 13, 14, 15, 16, 19, 20)
    },
    **{
        f"{_SC}_copy_blocks__mutmut_{n}": "other tiles or slabs that still cover the whole "
        "array (some parts twice, or more than their share): the same copy (speed only)"
        for n in (
            *(19, 20, 26, 33, 37, 38, 39, 40, 44, 45, 46, 49, 53),
            *(55, 58, 59, 61, 68, 70, 76, 79, 83, 84, 85, 86, 90),
        )
    },
    **{
        f"{_SC}_copy__mutmut_{n}": "the size or thread-count thresholds of the tiled, threaded "
        "copy moved: the same copy on fewer or more threads (speed only)"
        for n in (1, 2, 3, 4, 31, 32)
    },
    **{
        f"{_SC}_copy__mutmut_{n}": "casting='same_kind' left out: it is np.copyto's default"
        for n in (10, 28)
    },
    f"{_SC}_copy__mutmut_40": "enumerate from 0 at shutdown: the first part is copied twice, "
    "with the same values",
    f"{_SC}normalize_source__mutmut_5": "size >= 1: a one-element broadcast is normalized as "
    "one value either way",
    f"{_SC}scatter_numpy__mutmut_17": "values[:2] for values[:1]: only one[0] is read",
    f"{_SC}scatter_numpy__mutmut_68": "source_base != 1: a dropped zero-stride axis makes the "
    "kept source strides non-row-major whenever source_base is 1, and a row-major source "
    "with source_base 0 maps positions to themselves",
    **{
        f"stridewave.carriers._scatter.x\u01c1ScatterSource\u01c1host__mutmut_{n}": "the caller's name "
        "for materialize's messages: a scatter source is a carrier's storage array (never "
        "an object array, never 2-D), which reaches none of them"
        for n in (8, 13, 14)
    },
    **{
        f"{_SC}plan_scatter__mutmut_{n}": "the fields of an empty mapping's plan: every "
        "caller (scatter_indices, scatter_numpy, Metal) returns on dest.size == 0 first"
        for n in (10, 16, 17)
    },
    **{f"{_SC}plan_scatter__mutmut_{n}": _STRICT for n in (28, 32, 33)},
    f"{_SC}_copy__mutmut_48": "_executor(None): a new pool for every copy; the old one is "
    "collected and its idle threads exit (speed only)",
    f"{_SC}scatter_numpy__mutmut_69": "source == row-major in the remap test: a non-row-major "
    "kept source always comes with source_base != 0 (a dropped zero-stride axis), and "
    "remapping through a row-major source is the identity",
    f"{_SC}source_values__mutmut_17": "a broadcast source missed: NumPy's reshape(-1) of a "
    "view whose axes all have stride 0 or extent 1 is itself a zero-stride view",
    **{
        f"{_SC}unique_last__mutmut_{n}": "np.arange without dtype=int64: NumPy's default "
        "integer, int64 on 64-bit platforms"
        for n in (42, 44)
    },
    f"{_SC}unique_last__mutmut_56": "kind='STABLE': NumPy reads the sort kind without case",
    **{
        f"stridewave.carriers._scatter.x\u01c1ScatterSource\u01c1backend__mutmut_{n}": _STRICT
        for n in (14, 17, 20)
    },
    # -- carriers/_lifecycle.py --
    **dict.fromkeys(
        (
            "stridewave.carriers._lifecycle.xǁ_AccessScopeǁ__exit____mutmut_9",
            f"{_LC}_claim_all__mutmut_60",
            f"{_LC}_init_lifecycle__mutmut_10",
            f"{_LC}_init_lifecycle__mutmut_15",
            f"{_LC}_locked__mutmut_12",
            f"{_LC}_locked__mutmut_18",
            f"{_LC}_unclaim__mutmut_12",
        ),
        "'' for None as the scope's or the mover's thread: read only next to a depth "
        "> 0 (set with the thread on entry) or compared with a real thread id",
    ),
    "stridewave.carriers._lifecycle.xǁ_AccessScopeǁ__exit____mutmut_5": "depth < 0 "
    "for <= 0 on exit: the thread stays recorded with depth 0, and admission needs depth > 0",
    f"{_LC}_admitted__mutmut_4": "depth > 0 or thread == me: while depth > 0 the scope holds "
    "the lock, and every admission check runs under it, so only the scope's thread asks",
    f"{_LC}_admitted__mutmut_5": "depth >= 0: the scope's thread is reset to None whenever "
    "depth returns to 0, so it never equals the caller then",
    f"{_LC}_claim_all__mutmut_32": "getattr without its default: every _Lifecycle is a "
    "Carrier, which sets _dtype before _init_lifecycle",
    **dict.fromkeys(
        (
            f"{_LC}_unclaim__mutmut_11",
            f"{_LC}_init_lifecycle__mutmut_8",
            f"{_LC}_init_lifecycle__mutmut_9",
        ),
        "the scope depth set to 1 or None while unowned (at birth, after unclaim): read only "
        "while owned, and a claim sets it to 0",
    ),
    f"{_LC}_init_lifecycle__mutmut_16": "_gate = '' at birth: _refresh() sets it on the next line",
    "stridewave.carriers._lifecycle.xǁ_Mutationǁ__enter____mutmut_3": "None as the "
    "action passed to _before_mutation: only a released Evictable's message uses it, and "
    "_require_admitted refused a released carrier first",
    # -- carriers/_normalize.py --
    f"{_MA}1": "holes=True by default: every caller but scatter passes holes, and scatter's "
    "source is a carrier's storage array, which never holds None",
    f"{_MA}52": "islice(limit + 2): one more item consumed before the same ValueError",
    f"{_MA}72": "a list's array reported as not fresh: the caller copies it once more (speed only)",
    **{
        f"stridewave.carriers._normalize.x_storage_numpy_dtype__mutmut_{n}": "'<' or native "
        "order swapped for little_endian (or its default flipped): the same dtype on a "
        "little-endian host (every host NumPy wheels and MLX support here)"
        for n in (1, 4, 5)
    },
}

_STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped"}
_TIMEOUT = {-24, 24, 152, 255, 36}


def _mutmut_table(target: Target) -> str:
    tests = ", ".join(f'"{t}"' for t in target.tests)
    return (
        "\n[tool.mutmut]\n"
        'source_paths = ["stridewave"]\n'
        f'only_mutate = ["{target.path}"]\n'
        f"pytest_add_cli_args_test_selection = [{tests}]\n"
        # Metal runs on MLX's worker threads, which a forked worker does not have.
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-n", "0", "-m", "not needs_mlx"]\n'
        # mutmut's own process has a progress thread: fork workers from a server instead.
        'process_isolation = "forkserver"\n'
    )


def _lay_out(name: str, target: Target) -> Path:
    work = WORK / name
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    shutil.copytree(ROOT / "stridewave", work / "stridewave", ignore=ignore)
    shutil.copytree(ROOT / "tests", work / "tests", ignore=ignore)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (work / "pyproject.toml").write_text(pyproject + _mutmut_table(target), encoding="utf-8")
    return work


def _results(work: Path, target: Target) -> dict[str, str]:
    meta = json.loads((work / "mutants" / (target.path + ".meta")).read_text(encoding="utf-8"))
    statuses: dict[str, str] = {}
    for mutant, code in meta["exit_code_by_key"].items():
        if code in _TIMEOUT:
            statuses[mutant] = "timeout"
        else:
            statuses[mutant] = _STATUS.get(code, "not checked" if code is None else "suspicious")
    return statuses


def _left(work: Path, target: Target) -> list[str]:
    """Return the mutants of the last run that neither died nor are listed equivalent."""
    statuses = _results(work, target)
    return sorted(
        m for m, s in statuses.items() if s not in {"killed", "timeout"} and m not in EQUIVALENT
    )


def _refresh_tests(name: str, target: Target) -> Path:
    """Bring the current tests into the last run's copy (the module must be unchanged)."""
    work = WORK / name
    copied = work / target.path
    if not copied.exists() or copied.read_bytes() != (ROOT / target.path).read_bytes():
        raise SystemExit(f"{target.path} changed since its last run: run `{name}` in full.")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for folder in ("stridewave", "tests"):
        shutil.rmtree(work / folder)
        shutil.copytree(ROOT / folder, work / folder, ignore=ignore)
    # mutmut copies what is missing from mutants/: keep only the mutated module there
    keep = {target.path, target.path + ".meta", target.path + ".spans"}
    for path in (work / "mutants" / "stridewave").rglob("*"):
        if path.is_file() and path.relative_to(work / "mutants").as_posix() not in keep:
            path.unlink()
    return work


def run(name: str, max_children: int, *, recheck: bool = False) -> dict[str, object]:
    """Run mutmut over one module (or only its last survivors); return counts and score."""
    target = TARGETS[name]
    work = _refresh_tests(name, target) if recheck else _lay_out(name, target)
    start = time.monotonic()
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)]
    if recheck:
        command += _left(work, target)
    subprocess.run(command, cwd=work, check=True, stdout=subprocess.DEVNULL)
    seconds = time.monotonic() - start
    statuses = _results(work, target)
    # a time-out is a detection too (an endless loop the tests would not finish)
    detected = {"killed", "timeout"}
    survivors = sorted(m for m, s in statuses.items() if s not in detected and m not in EQUIVALENT)
    # One process shows every survivor's diff (``mutmut show`` would start one each).
    show = (
        "import sys\n"
        "from mutmut.mutation.diff_apply import get_diff_for_mutant\n"
        "for line in sys.stdin.read().splitlines():\n"
        "    status, name = line.split('|')\n"
        "    print(f'# {name}: {status}')\n"
        f"    print(get_diff_for_mutant(name, path={target.path!r}))\n"
    )
    # one per line: a status may hold a space ("no tests")
    listing = "\n".join(f"{statuses[m]}|{m}" for m in survivors)
    with (work / "survivors.txt").open("w", encoding="utf-8") as out:
        subprocess.run(
            [sys.executable, "-c", show],
            cwd=work,
            input=listing,
            text=True,
            stdout=out,
            check=False,
        )
    # An "equivalent" mutant that a test kills is a stale name (the module changed since
    # the review, and mutmut's numbers moved): say so, and review that module again.
    stale = sorted(m for m, s in statuses.items() if m in EQUIVALENT and s in detected)
    for mutant in stale:
        print(f"warning: {mutant} is listed in EQUIVALENT but was killed: review it", flush=True)
    equivalent = sum(1 for m in statuses if m in EQUIVALENT)
    killed = sum(1 for m, s in statuses.items() if s in detected and m not in EQUIVALENT)
    judged = len(statuses) - equivalent
    return {
        "module": target.path,
        "mutants": len(statuses),
        "equivalent": equivalent,
        "killed": killed,
        "survived": len(survivors),
        "score": killed / judged if judged else 1.0,
        "seconds": round(seconds),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the named modules (all by default) and print one line per module."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=", ".join(TARGETS))
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="run only the last run's survivors again, against the current tests",
    )
    args = parser.parse_args(argv)
    unknown = [m for m in args.modules if m not in TARGETS]
    if unknown:
        parser.error(f"unknown module(s) {unknown}; choose from {', '.join(TARGETS)}")
    failed = False
    for name in args.modules or list(TARGETS):
        row = run(name, args.max_children, recheck=args.recheck)
        print(
            f"{row['module']}: {row['killed']}/{row['mutants'] - row['equivalent']} "  # type: ignore[operator]
            f"non-equivalent mutants killed ({row['score']:.1%}), {row['equivalent']} "
            f"equivalent, {row['survived']} left (see .mutation/{name}/survivors.txt); "
            f"{row['seconds']} s",
            flush=True,
        )
        failed |= row["score"] < 0.95  # type: ignore[operator]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
