"""A bare standard descriptor unpickles as any descriptor does (spec: "Pickle reconstruction
preserves receiving-process identity"): where its name is not registered, ``LookupError``;
a refused payload leaves the registry as it was.

An Array or an extension carrier of a standard dtype still unpickles in a fresh process
without imports (CONTRACT section 9): its pickle imports the module that registers them.
Registration is process-wide, so every receiver is a fresh interpreter.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import pytest


def run_python(code: str, stdin: bytes = b"") -> str:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


# One payload per extension descriptor, pickled by a process that registered them, and
# (the format an earlier release wrote) a reference to the standard resolver with a
# structure no descriptor of that name has.
SENDER = """
import pickle, sys
import stridewave.array_api as xp
from stridewave.dtypes._standard import EXTENSION_NAMES, resolve_standard
from stridewave import DType

class Crafted:
    def __init__(self, name, structure):
        self.args = ("simple", name, structure)
    def __reduce__(self):
        return (resolve_standard, self.args)

payloads = [pickle.dumps(xp.int64)]
payloads += [pickle.dumps(DType.from_name(n)) for n in EXTENSION_NAMES]
payloads.append(pickle.dumps(Crafted("Complex64", ("simple", "Complex64", 32, (), ()))))
payloads.append(pickle.dumps(Crafted("UInt8", ("simple", "UInt8", 8, (), ()))))
sys.stdout.buffer.write(pickle.dumps(payloads))
"""


@pytest.fixture(scope="module")
def payloads() -> bytes:
    proc = subprocess.run(
        [sys.executable, "-c", SENDER], capture_output=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout


def test_a_fresh_process_refuses_every_bare_standard_descriptor_and_registers_nothing(
    payloads: bytes,
) -> None:
    out = run_python(
        """
        import pickle, sys
        from stridewave import DType
        payloads = pickle.loads(sys.stdin.buffer.read())
        before = DType.registered()
        for payload in payloads:
            try:
                got = pickle.loads(payload)
            except LookupError as exc:
                print("LookupError", "import stridewave.array_api" in str(exc))
            else:
                print("unpickled", got)
            assert DType.registered() == before, DType.registered()
        assert "stridewave.array_api" not in sys.modules
        assert "stridewave.carriers._extension" not in sys.modules
        """,
        payloads,
    )
    lines = out.split("\n")[:-1]
    assert len(lines) == len(pickle.loads(payloads))
    assert set(lines) == {"LookupError True"}


def test_a_process_that_registered_them_gets_its_own_identities(payloads: bytes) -> None:
    out = run_python(
        """
        import pickle, sys
        import stridewave.array_api as xp
        from stridewave import DType
        *good, wrong_complex, wrong_uint = pickle.loads(sys.stdin.buffer.read())
        assert pickle.loads(good[0]) is xp.int64
        names = [pickle.loads(p).name for p in good[1:]]
        assert all(DType.from_name(n) is pickle.loads(p) for n, p in zip(names, good[1:]))
        print(" ".join(names))
        before = DType.registered()
        for payload in (wrong_complex, wrong_uint):
            try:
                pickle.loads(payload)
            except ValueError as exc:
                print("ValueError", DType.registered() == before)
        """,
        payloads,
    )
    assert out.split("\n")[:-1] == [
        "Complex Int16 Int64 UInt8 UInt16 UInt32 UInt64 Complex64 Complex128",
        "ValueError True",
        "ValueError True",
    ]


def test_a_dask_worker_gets_a_stand_in_for_an_unregistered_standard_name() -> None:
    out = run_python(
        """
        from stridewave import DType
        from stridewave.dtypes._pickle import UnresolvedDType
        from stridewave.dtypes._standard import _expected, resolve_standard_on_worker
        before = DType.registered()
        kind, structure = _expected("UInt16")
        stand_in = resolve_standard_on_worker(kind, "UInt16", structure)
        assert isinstance(stand_in, UnresolvedDType), stand_in
        assert DType.registered() == before
        try:
            stand_in.name
        except LookupError as exc:
            print("LookupError", "register_dtypes" in str(exc))
        """
    )
    assert out.strip() == "LookupError True"
