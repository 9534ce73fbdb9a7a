"""The command line, driven in subprocesses as a user runs it."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.lib import format as npy_format

import stridewave


def sigint_as_python_starts_it() -> None:
    """``preexec_fn``: SIGINT at its default in the child, however this run was started.

    A process started with SIGINT ignored (``nohup``, a background job) passes that on,
    and Python then installs no ``KeyboardInterrupt`` handler.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_cli(*args: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """Run ``python -m stridewave *args``; ``options`` go to ``subprocess.run`` (env...)."""
    return subprocess.run(
        [sys.executable, "-m", "stridewave", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **options,
    )


def test_info_prints_version_and_exits_zero() -> None:
    proc = run_cli("info")
    assert proc.returncode == 0, proc.stderr
    assert f"stridewave {stridewave.__version__}" in proc.stdout


def test_no_command_prints_help_and_exits_two() -> None:
    proc = run_cli()
    assert proc.returncode == 2
    assert "info" in proc.stderr
    assert "error: give a command" in proc.stderr


# -- demo -----------------------------------------------------------------------------


def test_demo_help_lists_its_options() -> None:
    proc = run_cli("demo", "--help")
    assert proc.returncode == 0
    for word in ("PATH", "--dtype", "--no-metal", "--plot", "Mauna"):
        assert word in proc.stdout


def test_demo_on_the_shipped_data_set_reports_every_step() -> None:
    proc = run_cli("demo", "--no-metal")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "co2_mauna_loa_weekly.csv" in out
    assert "2,284 rows x 2 columns" in out
    for step in ("load", "view", "transpose", "evict", "promote", "checksum", "microscale"):
        assert f"  {step}" in out
    assert "zero-copy: yes" in out
    assert "matches numpy .T: yes" in out
    assert "every value survived" in out
    assert "read: 59 missing values (NA or empty) read as NaN" in out
    # the data has missing weeks: their blocks get the NaN scale, in every format
    assert "MXFP4 (E2M1): 4.25 bits/value" in out
    assert "read back as NaN (a block holding a NaN gets the NaN scale" in out
    assert "  total" in out


def test_demo_on_a_user_npy_file(tmp_path: Path) -> None:
    data = np.arange(12, dtype=np.int64).reshape(4, 3) * 7
    path = tmp_path / "table.npy"
    np.save(path, data)
    proc = run_cli("demo", str(path), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert "4 rows x 3 columns" in proc.stdout
    assert "CPU(Int32, 12 slots)" in proc.stdout
    assert "int64 -> Int32: every value fits, none changed" in proc.stdout
    assert "every value survived" in proc.stdout


def test_float_data_that_happens_to_be_integral_stays_float32_with_its_negative_zero(
    tmp_path: Path,
) -> None:
    path = tmp_path / "integral.npy"
    np.save(path, np.array([[1.0, -0.0], [2.0, 3.0], [-0.0, 5.0]]))
    proc = run_cli("demo", str(path), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert "CPU(Float32, 6 slots)" in proc.stdout
    assert "float64 -> Float32: 0 values rounded" in proc.stdout
    assert "sign of zero: 2 values -0.0, kept" in proc.stdout
    assert "every value survived" in proc.stdout


def test_demo_on_a_user_csv_written_by_numpy(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    data = rng.normal(size=(50, 4))
    path = tmp_path / "table.csv"
    np.savetxt(path, data, delimiter=",", header="a,b,c,d", comments="")
    proc = run_cli("demo", str(path), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert "50 rows x 4 columns (a, b, c, d)" in proc.stdout
    assert "CPU(Float32, 200 slots)" in proc.stdout
    assert "MXFP4 (E2M1): 4.25 bits/value" in proc.stdout


def test_demo_on_a_raw_file_with_dtype(tmp_path: Path) -> None:
    path = tmp_path / "values.bin"
    np.linspace(0, 1, 64, dtype="<f4").tofile(path)
    proc = run_cli("demo", str(path), "--dtype", "<f4", "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert "64 rows x 1 column (col0)" in proc.stdout


def _npz_with_a_text_member(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "not an array")


def _npz_with_a_broken_npy_member(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.npy", b"\x93NUMPY garbage")


def _tiny_npy_claiming_2_to_the_40() -> bytes:
    buffer = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": (2**40,)}
    npy_format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + b"\0" * 16


def _npy_claiming_2_to_the_40(path: Path) -> None:
    path.write_bytes(_tiny_npy_claiming_2_to_the_40())


def _npz_claiming_2_to_the_40(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("big.npy", _tiny_npy_claiming_2_to_the_40())


def _float128_npy(path: Path) -> None:
    np.save(path, np.array([np.longdouble("1e4000"), 1.0], dtype=np.longdouble))


BAD_FILES = {
    "member.npz": _npz_with_a_text_member,
    "broken.npz": _npz_with_a_broken_npy_member,
    "huge.npy": _npy_claiming_2_to_the_40,
    "huge.npz": _npz_claiming_2_to_the_40,
    "f128.npy": _float128_npy,
}


@pytest.mark.parametrize(
    ("name", "content", "args", "message"),
    [
        ("missing.npy", None, (), "no such file"),
        ("bad.npy", b"not numpy at all", (), "not a .npy file"),
        ("typed.npy", None, ("--dtype", "<f4"), "--dtype is for raw binary files only"),
        ("bad.csv", b"a,b\n1,2\n3,x\n", (), "data row 2, column 2 ('b') holds 'x'"),
        ("wide.csv", b"x,y\n1,2,3\n", (), "more fields than the header has names"),
        ("wider.csv", b"x,y\n1,2\n3,4,5\n", (), "Expected 2 fields in line 3, saw 3"),
        ("empty.csv", b"", (), "the CSV file is empty"),
        ("data.txt", b"1 2 3", (), "unknown suffix '.txt'"),
        ("odd.bin", b"12345", ("--dtype", "<f4"), "not a whole number of float32 items"),
        ("x.bin", b"1234", ("--dtype", "nonsense"), "is not a numeric NumPy scalar dtype"),
        ("o.bin", b"12345678", ("--dtype", "O"), "is not a numeric NumPy scalar dtype"),
        ("s.bin", b"12345678", ("--dtype", "(2,f4"), "is not a numeric NumPy scalar dtype"),
        ("e3.npy", None, (), "holds no values"),
        ("member.npz", None, (), "member 'notes.txt' is not a .npy array"),
        ("broken.npz", None, (), "not a readable .npy file"),
        ("huge.npy", None, (), "claims shape (1099511627776,) of float64"),
        ("huge.npz", None, (), "claims shape (1099511627776,) of float64"),
        ("f128.npy", None, (), "extended precision"),
        ("f128.bin", b"\0" * 32, ("--dtype", "float128"), "extended precision"),
    ],
)
def test_demo_bad_input_is_one_clear_line_and_nonzero_exit(
    tmp_path: Path, name: str, content: bytes | None, args: tuple[str, ...], message: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    elif name == "typed.npy":
        np.save(path, np.arange(3.0))
    elif name == "e3.npy":
        np.save(path, np.zeros((0, 2, 3)))
    elif name in BAD_FILES:
        BAD_FILES[name](path)
    proc = run_cli("demo", str(path), *args, "--no-metal")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert message in lines[0]
    assert proc.stdout == ""
    assert "Warning" not in proc.stderr


def test_escape_sequences_from_a_file_are_never_printed_raw(tmp_path: Path) -> None:
    path = tmp_path / "esc.csv"
    path.write_bytes(b"\x1b[31mred\x1b[0m,y\xe2\x80\xaet\n1,2\n3,4\n")
    proc = run_cli("demo", str(path), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout + proc.stderr and "\u202e" not in proc.stdout
    assert "(\\x1b[31mred\\x1b[0m, y\\u202et)" in proc.stdout
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"x,y\n1,2\n3,\x1b[2Jboom\n")
    proc = run_cli("demo", str(bad), "--no-metal")
    assert proc.returncode == 1
    assert "\x1b" not in proc.stderr and "\\x1b[2Jboom" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_demo_stores_a_bool_table_as_int32_so_it_can_evict_to_a_file(tmp_path: Path) -> None:
    path = tmp_path / "flags.npy"
    np.save(path, np.array([[True, False], [False, True]]))
    proc = run_cli("demo", str(path), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert "bool -> Int32" in proc.stdout
    assert "every value survived" in proc.stdout
    assert proc.stderr == ""


def test_demo_reports_integer_rounding_and_overflow_without_warnings(tmp_path: Path) -> None:
    ints = tmp_path / "ints.npy"
    np.save(ints, np.array([2**40 + 1, 16777217, 3]))
    proc = run_cli("demo", str(ints), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert "int64 -> Float32: 2 values rounded, largest absolute error 1" in proc.stdout
    huge = tmp_path / "huge.npy"
    np.save(huge, np.array([1e39, 1.0, 2.5]))
    proc = run_cli("demo", str(huge), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert "1 value beyond binary32 became inf" in proc.stdout
    assert "Warning" not in proc.stderr


def test_demo_reads_numpy_savetxt_headers_and_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    np.savetxt(path, np.ones((3, 2)), delimiter=",", header="x,y")  # numpy writes "# x,y"
    proc = run_cli("demo", str(path), "--no-metal")
    assert "3 rows x 2 columns (x, y)" in proc.stdout, proc.stdout
    bom = tmp_path / "bom.csv"
    bom.write_bytes("\ufeffa,b\n1,2\n".encode())
    proc = run_cli("demo", str(bom), "--no-metal")
    assert "1 row x 2 columns (a, b)" in proc.stdout, proc.stdout


def test_version_flag_and_a_quiet_broken_pipe() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"stridewave {stridewave.__version__}"
    shell = subprocess.run(
        f"{sys.executable} -m stridewave info | head -1",
        shell=True, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "Traceback" not in shell.stderr and "BrokenPipe" not in shell.stderr


# -- CSV files as people have them (read by pandas) ------------------------------------


@pytest.mark.parametrize(
    ("content", "shape", "notes"),
    [
        (b"a,b\n1,NA\n,4\n5,6\n", "3 rows x 2 columns (a, b)", ["2 missing values (NA or empty)"]),
        (b"# made by hand\na,b\n# a comment line\n1,2\n3,4\n", "2 rows x 2 columns (a, b)",
         ["2 comment lines (#) skipped"]),
        (b"a;b\n1;2\n3;4\n", "2 rows x 2 columns (a, b)", ["delimiter ';' detected"]),
        (b"a\tb\n1\t2\n3\t4\n", "2 rows x 2 columns (a, b)", ["delimiter '\\t' detected"]),
        (b"date,co2\n2021-01-02,415.1\n2021-01-09,415.4\n", "2 rows x 1 column (co2)",
         ["column 'date' left out: holds dates (e.g. '2021-01-02')"]),
        (b"x;y\n1,5;2\n3;4,25\n", "2 rows x 2 columns (x, y)",
         ["delimiter ';' detected", "decimal comma detected"]),
        (b"1,2\n3\n", "2 rows x 2 columns (col0, col1)", ["1 missing value"]),
        (b"1\n2\n3\n", "3 rows x 1 column (col0)", []),
    ],
)  # fmt: skip
def test_csv_files_as_people_have_them_each_with_a_one_line_note(
    tmp_path: Path, content: bytes, shape: str, notes: list[str]
) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    proc = run_cli("demo", str(path), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert shape in proc.stdout
    for note in notes:
        assert note in proc.stdout, proc.stdout
    assert proc.stderr == ""


def test_progress_bars_draw_on_a_terminal_only() -> None:
    import io

    from stridewave.cli._demo import PROGRESS_MIN, progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream, total, drawn in [
        (Terminal(), PROGRESS_MIN, True),
        (Terminal(), PROGRESS_MIN - 1, False),  # a short step: no bar
        (io.StringIO(), PROGRESS_MIN, False),  # redirected: silent
    ]:
        with progress(total, "load", stream=stream) as bar:
            bar.update(total)
        assert ("load" in stream.getvalue()) is drawn


def test_every_step_is_timed_whole_and_the_steps_cover_the_run(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.random.default_rng(3).normal(size=(200_000, 5)))
    proc = run_cli("demo", str(path), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    steps = [
        float(line.split()[1].replace(",", ""))
        for line in proc.stdout.splitlines()
        if line.startswith("  ") and line.split()[0] != "total" and " ms  " in line
    ]
    total_line = next(line for line in proc.stdout.splitlines() if line.startswith("  total"))
    wall = float(total_line.rsplit("wall time of the demo", 1)[1].split()[0].replace(",", ""))
    assert sum(steps) <= wall
    assert sum(steps) >= 0.8 * wall  # nothing slow happens between the timed steps


def test_plot_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "demo.png"
    proc = run_cli("demo", "--no-metal", "--plot", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {out}" in proc.stdout


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("out.jpgx", "the picture is a PNG; give a path ending in .png"),
        ("missing/out.png", "does not exist; create it first"),
    ],
)
def test_a_plot_path_it_cannot_write_is_refused_before_the_demo_runs(
    tmp_path: Path, name: str, says: str
) -> None:
    pytest.importorskip("matplotlib")
    proc = run_cli("demo", "--no-metal", "--plot", str(tmp_path / name))
    assert proc.returncode == 1
    assert proc.stdout == ""  # refused before the first step
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_plot_without_matplotlib_names_the_extra(tmp_path: Path) -> None:
    script = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from stridewave.cli._main import main\n"
        f"sys.exit(main(['demo', '--no-metal', '--plot', {str(tmp_path / 'x.png')!r}]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 1
    expected = (
        "stridewave demo: error: --plot needs matplotlib, which is not installed; "
        "run: python -m pip install 'stridewave[plot]' "
        "(in a source checkout: python -m pip install -e '.[plot]')"
    )
    assert proc.stderr.strip().splitlines() == [expected]
    assert proc.stdout == ""


def test_the_library_never_imports_the_command_line_dependencies() -> None:
    script = (
        "import sys, stridewave, stridewave.mx\n"
        "print(sorted(m for m in ('pandas', 'tqdm', 'matplotlib') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


INTERRUPT_AT_EVICT = """
import os, signal, sys
import stridewave.cli._demo as demo
step = demo.Report.step
def interrupting(self, name, seconds, text):
    step(self, name, seconds, text)
    if name == "evict":
        os.kill(os.getpid(), signal.SIGINT)
demo.Report.step = interrupting
from stridewave.cli._main import main
sys.exit(main(sys.argv[1:]))
"""


def test_ctrl_c_prints_one_line_exits_130_and_leaves_no_file(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", INTERRUPT_AT_EVICT, "demo", "--no-metal"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "TMPDIR": str(tmp)},
        preexec_fn=sigint_as_python_starts_it,
    )
    assert "  evict" in proc.stdout  # interrupted with a FileBacked tier alive
    assert proc.returncode == 130
    assert proc.stderr.splitlines() == ["python -m stridewave demo: interrupted"]
    assert list(tmp.iterdir()) == []


#: A ``sitecustomize`` that sends this process SIGINT when ml_dtypes starts to import:
#: Ctrl-C at the slowest moment of ``import stridewave`` (about a second), every time.
INTERRUPT_WHILE_IMPORTING = """
import importlib.abc, os, signal, sys

class _Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "ml_dtypes":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, _Interrupt())
"""


@pytest.mark.parametrize("ignored", [False, True], ids=["ctrl-c", "sigint-ignored"])
def test_ctrl_c_while_the_package_imports_is_one_line_and_130(
    tmp_path: Path, ignored: bool
) -> None:
    import signal

    (tmp_path / "sitecustomize.py").write_text(INTERRUPT_WHILE_IMPORTING)
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    proc = run_cli(
        "info",
        env={**os.environ, "PYTHONPATH": path},
        preexec_fn=(
            (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
            if ignored
            else sigint_as_python_starts_it
        ),
    )
    if ignored:  # a background job: the interrupt is ignored, as before
        assert proc.returncode == 0, proc.stderr
        assert f"stridewave {stridewave.__version__}" in proc.stdout
    else:
        assert (proc.returncode, proc.stderr) == (130, "python -m stridewave info: interrupted\n")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["-m", "stridewave", "demo"], ("stridewave", ["demo"])),
        (["-mstridewave", "demo"], ("stridewave", ["demo"])),
        (["-Im", "stridewave"], ("stridewave", [])),
        (["-X", "importtime", "-m", "stridewave", "info"], ("stridewave", ["info"])),
        (["-Ximporttime", "-Wignore", "-m", "stridewave"], ("stridewave", [])),
        (["-W", "ignore", "-Em", "stridewave.__main__"], ("stridewave.__main__", [])),
        (["--check-hash-based-pycs", "never", "-m", "stridewave"], ("stridewave", [])),
        (["-c", "import stridewave", "-m", "stridewave"], None),
        (["script.py", "-m", "stridewave"], None),
        (["-m"], None),
    ],
)
def test_the_module_python_runs_is_read_from_its_options_as_python_reads_them(
    argv: list[str], expected: tuple[str, list[str]] | None
) -> None:
    from stridewave._startup import _module_run

    assert _module_run(["python", *argv]) == expected


def test_importing_the_package_leaves_the_sigint_handler_alone() -> None:
    check = "import signal, stridewave; print(signal.getsignal(signal.SIGINT))"
    proc = subprocess.run(
        [sys.executable, "-c", check],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=sigint_as_python_starts_it,
    )
    assert proc.stdout.strip() == "<built-in function default_int_handler>", proc.stderr


# -- what the newcomer's first run shows -------------------------------------------------


def test_the_shipped_date_column_is_read_as_dates_not_averaged_as_numbers() -> None:
    from stridewave.cli._datafile import load_table

    table = load_table(None)
    assert table.columns == ("date", "co2")
    note = next(n for n in table.notes if n.startswith("column 'date'"))
    assert "read as dates (YYYYMMDD, 1958-03-29 to 2001-12-29)" in note
    years = table.values[:, 0]
    assert years[0] == pytest.approx(1958 + 87 / 365)  # 29 March 1958, day 88 of 365
    assert np.nanmin(years) >= 1958 and np.nanmax(years) < 2002
    proc = run_cli("demo", "--no-metal")
    assert "read: column 'date' read as dates" in proc.stdout
    assert "date=1980." in proc.stdout  # the mean date is a year, not 19,796,800


def test_a_column_of_eight_digit_numbers_that_are_not_dates_stays_numbers(
    tmp_path: Path,
) -> None:
    from stridewave.cli._datafile import load_table

    path = tmp_path / "ids.csv"
    path.write_text("id,x\n19581399,1\n20011301,2\n")  # month 13: not dates
    table = load_table(str(path))
    assert table.columns == ("id", "x") and not any("dates" in n for n in table.notes)
    assert table.values[0, 0] == 19581399


def test_a_csv_date_note_gives_an_example_from_the_file(tmp_path: Path) -> None:
    from stridewave.cli._datafile import load_table

    path = tmp_path / "dates.csv"
    path.write_text("day,x\n20240101,1\n20240702,2\n")
    note = next(n for n in load_table(str(path)).notes if n.startswith("column 'day'"))
    assert "(e.g. 2024.00)" in note


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_a_date_like_column_of_a_npy_file_gets_a_note_and_stays_numbers(
    tmp_path: Path, dtype: type
) -> None:
    from stridewave.cli._datafile import load_table

    days = np.arange(np.datetime64("2024-02-27"), np.datetime64("2024-03-04"))
    dates = np.array([int(str(d).replace("-", "")) for d in days])  # across 29 February
    table = np.stack([dates, np.arange(dates.size) * 3 + 100_000_000]).T.astype(dtype)
    np.save(tmp_path / "t.npy", table)
    loaded = load_table(str(tmp_path / "t.npy"))
    notes = [n for n in loaded.notes if "YYYYMMDD" in n]
    assert len(notes) == 1
    assert notes[0].startswith("column 'col0' (20240227 to 20240303): YYYYMMDD dates in the")
    assert "read as plain numbers" in notes[0]
    assert loaded.values[0, 0] == 20240227  # read as numbers, as the note says
    # not dates: a 30 February, a month 13, a fraction (float only)
    for bad in (20240230, 20241301, 20240101.5)[: 3 if dtype is np.float64 else 2]:
        table[2, 0] = bad
        np.save(tmp_path / "t.npy", table)
        assert not any("YYYYMMDD" in n for n in load_table(str(tmp_path / "t.npy")).notes)


def test_an_array_of_more_than_two_axes_is_read_as_a_table_and_said_so(tmp_path: Path) -> None:
    np.save(tmp_path / "cube.npy", np.arange(300, dtype=np.float32).reshape(10, 10, 3))
    proc = run_cli("demo", str(tmp_path / "cube.npy"), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    assert "10 rows x 30 columns" in proc.stdout
    assert "a 3-D array of shape (10, 10, 3): read as 10 rows x 30 columns, the axes after" in (
        proc.stdout
    )
    assert "flattened in row-major order" in proc.stdout


def test_many_date_like_columns_make_one_note_and_a_wide_table_skips_the_pca(
    tmp_path: Path,
) -> None:
    from stridewave.cli._demo import PCA_MAX_COLUMNS

    dates = np.array([20240101, 20240102, 20240103], dtype=np.int64)
    np.save(tmp_path / "wide.npy", np.repeat(dates[:, None], PCA_MAX_COLUMNS + 1, axis=1))
    proc = run_cli("demo", str(tmp_path / "wide.npy"), "--no-metal")
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stdout.splitlines() if "YYYYMMDD" in line]
    assert len(notes) == 1 and "and 253 more" in notes[0]  # the first 256 columns sampled
    assert f"skipped: {PCA_MAX_COLUMNS + 1:,} columns, more than the" in proc.stdout


@pytest.mark.parametrize(
    ("words", "usage"),
    [
        (("demo", "--bogus"), "usage: python -m stridewave demo"),  # the command's own
        (("--no-metal", "demo"), "usage: python -m stridewave [-h]"),  # before the command
    ],
)
def test_an_unknown_option_shows_the_usage_of_what_it_follows(
    words: tuple[str, str], usage: str
) -> None:
    proc = run_cli(*words)
    unknown = next(word for word in words if word.startswith("--"))
    assert proc.returncode == 2
    assert proc.stderr.startswith(usage)
    assert f"error: unrecognized arguments: {unknown}" in proc.stderr


def test_microscale_reads_a_bounded_sample_of_whole_blocks_and_says_so() -> None:
    from stridewave.cli import _demo

    sample = _demo.block_sample((3, 10_000_000), 1 << 20)
    positions = sample.positions()
    assert not isinstance(positions, slice)
    assert positions.size * 3 <= 1 << 20 and positions.size % 32 == 0
    assert np.all(positions[::32] % 32 == 0) and np.all(np.diff(positions.reshape(-1, 32)) == 1)
    assert positions[0] == 0 and positions[-1] >= 10_000_000 - 2 * 10_000_000 // 10_922
    assert sample.description.startswith("a sample of 1,048,512 of the 30,000,000 values")
    assert _demo.block_sample((2, 100), 1 << 20).whole


def test_microscale_on_a_sample_agrees_with_the_whole_table_on_the_sampled_blocks() -> None:
    from stridewave.cli import _demo

    rng = np.random.default_rng(5)
    table = rng.normal(size=(2, 64 * 1000)).astype(np.float32) * np.float32(1000)
    table[1, 5] = np.nan
    sample = _demo.block_sample(table.shape, 2 * 64 * 100)
    picked = sample.take(table)
    on_sample = _demo.mx_errors(table, "E2M1", sample=sample)
    direct = _demo.mx_errors(picked, "E2M1")
    np.testing.assert_array_equal(on_sample.relative, direct.relative)
    assert (on_sample.flushed, on_sample.saturated, on_sample.lost_to_nan) == (
        direct.flushed,
        direct.saturated,
        direct.lost_to_nan,
    )
    assert direct.lost_to_nan == 31  # the block holding the NaN is sampled (the first)


def test_demo_on_a_table_larger_than_the_sample_reports_the_sample(tmp_path: Path) -> None:
    path = tmp_path / "t.npy"
    np.save(path, np.random.default_rng(3).normal(size=(200_000, 2)).astype(np.float32))
    script = (
        "import sys\nimport stridewave.cli._demo as demo\ndemo.MX_SAMPLE = 1 << 16\n"
        "from stridewave.cli._main import main\nsys.exit(main(sys.argv[1:]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, "demo", str(path), "--no-metal"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "each OCP MX format round-trips a sample of 65,536 of the 400,000 values" in proc.stdout
    assert "the counts below are the sample's" in proc.stdout


def test_the_pca_step_streams_through_the_array_api_and_matches_numpy() -> None:
    from stridewave.cli import _demo

    rng = np.random.default_rng(8)
    base = rng.normal(size=(3, 50_000))
    table = np.stack([base[0], 2 * base[0] + 0.1 * base[1], base[2], np.full(50_000, 7.0)])
    table = table.astype(np.float32)
    table[2, 10] = np.nan
    names = ("a", "b", "c", "constant")
    shift = np.nanmean(table.astype(np.float64), axis=1)
    result = _demo.pca(table, names, shift, metal=False, chunk=4096)
    assert result is not None
    assert result.device.startswith("CPU") and result.rows == 49_999
    assert result.columns == ("a", "b", "c") and result.left_out == ("constant",)
    complete = table[:3, np.isfinite(table).all(axis=0)].astype(np.float64)
    expected = np.linalg.svd(np.corrcoef(complete), compute_uv=False)
    np.testing.assert_allclose(result.singular, expected, rtol=1e-4)
    np.testing.assert_allclose(result.reference, expected, rtol=1e-10)
    assert result.difference < 1e-4


def test_the_pca_difference_is_small_for_a_table_of_lower_rank() -> None:
    # b = 2a + 1: the third singular value is rounding noise in float32 and float64
    # alike, so a difference relative to each value would read as a failure (0.9)
    from stridewave.cli import _demo

    rng = np.random.default_rng(9)
    a, noise = rng.normal(size=(2, 20_000))
    table = np.stack([a, 2 * a + 1, noise]).astype(np.float32)
    shift = table.astype(np.float64).mean(axis=1)
    result = _demo.pca(table, ("a", "b", "noise"), shift, metal=False, chunk=4096)
    assert result is not None
    assert result.reference[-1] < 1e-6 * result.reference[0]
    assert result.difference < 1e-4


@pytest.mark.parametrize(
    "case", ["scale-1e30", "scale-1e-30", "an-inf-beside-an-offset", "offset-rows-with-nan"]
)
def test_the_pca_holds_values_whose_float32_sums_would_overflow_or_cancel(case: str) -> None:
    # the band is shifted and scaled by its first complete rows: without that, the
    # float32 Gram matrix overflowed (1e30), underflowed to 0/0 (1e-30) and the SVD
    # raised, or an inf made the shift infinite and the sums cancelled (0.29)
    from stridewave.cli import _demo

    rng = np.random.default_rng(10)
    x, y = rng.standard_normal((2, 4000))
    first = np.arange(4000) < 2000
    table = {
        "scale-1e30": np.stack([1e30 * x, y]),
        "scale-1e-30": np.stack([1e-30 * x, y]),
        "an-inf-beside-an-offset": np.stack([np.where(first & (x > 2), np.inf, 100 + x / 100), y]),
        "offset-rows-with-nan": np.stack(
            [np.where(first, 1e4, 1000 + x / 100), np.where(first, np.nan, y)]
        ),
    }[case].astype(np.float32)
    with np.errstate(invalid="ignore"):
        shift = np.nanmean(table.astype(np.float64), axis=1)  # as the load measures it
    result = _demo.pca(table, ("x", "y"), shift, metal=False, chunk=512)
    assert result is not None
    complete = table[:, np.isfinite(table).all(axis=0)].astype(np.float64)
    expected = np.linalg.svd(np.corrcoef(complete), compute_uv=False)
    np.testing.assert_allclose(result.reference, expected, rtol=1e-9)
    assert result.difference < 1e-5


def test_the_demo_runs_the_pca_on_the_best_device_and_says_which() -> None:
    proc = run_cli("demo", "--no-metal")
    assert proc.returncode == 0, proc.stderr
    pca = next(line for line in proc.stdout.splitlines() if line.startswith("  pca"))
    assert "stridewave.array_api on CPU (--no-metal)" in pca
    assert "xp.linalg.svd" in pca
    assert "largest difference of the singular values from NumPy's" in proc.stdout


def test_the_plot_reads_a_bounded_sample_and_draws_no_line_on_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("matplotlib")
    from stridewave import mx
    from stridewave.cli import _plot

    table = np.random.default_rng(4).normal(size=(2, 2_000_000)).astype(np.float32)
    seen: list[int] = []
    quantize = mx.quantize

    def counting(values: Any, *args: Any, **kwargs: Any) -> mx.Quantized:
        seen.append(np.asarray(values).size)
        return quantize(values, *args, **kwargs)

    monkeypatch.setattr(mx, "quantize", counting)
    figure, what = _plot.build_figure(table, ("a", "b"), "t")
    assert max(seen) <= _plot.SAMPLE
    assert what.startswith(f"a sample of {_plot.SAMPLE:,} of the 4,000,000 values")
    errors = figure.axes[0]
    drawn = [line for line in errors.get_lines() if not line.get_label().startswith("OCP")]
    labels = " = ".join(str(line.get_label()) for line in drawn)
    for name in ("E4M3", "E5M2", "E3M2", "E2M3", "E2M1"):
        assert labels.count(name) == 1  # every format is named once
    for i, first in enumerate(drawn):
        for second in drawn[i + 1 :]:
            a, b = np.asarray(first.get_ydata()), np.asarray(second.get_ydata())
            assert np.max(np.abs(a - b) / np.maximum(np.abs(a), np.abs(b))) > _plot.SAME_CURVE


def test_curves_that_coincide_share_one_labelled_line() -> None:
    from stridewave.cli._plot import distinct_curves

    groups = distinct_curves({"A": [1.0, 2.0], "B": [3.0, 4.0], "C": [1.001, 2.0]})
    assert groups == [(["A", "C"], [1.0, 2.0]), (["B"], [3.0, 4.0])]
