"""The array API standard's thirteen dtypes as descriptors (CONTRACT section 9).

Registration is process-wide and cannot be undone, so every test that registers runs
in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from stridewave import DType

from .conftest import BUILTINS


def run_python(code: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )


def check(code: str, stdin: bytes = b"") -> str:
    proc = run_python(code, stdin)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


def test_import_stridewave_registers_exactly_the_builtins() -> None:
    out = check(
        """
        import stridewave, stridewave.dtypes, stridewave.carriers, stridewave.interop
        import stridewave.testing
        print(sorted(d.name for d in stridewave.DType.registered()))
        """
    )
    assert out.strip() == str(sorted(BUILTINS))


def test_registration_gives_the_thirteen_with_their_hierarchy() -> None:
    out = check(
        """
        from stridewave import DType
        from stridewave.dtypes import register_standard_dtypes, standard_dtypes
        std = register_standard_dtypes()
        assert register_standard_dtypes() == std and standard_dtypes() == std
        assert [std[k] for k in ("bool", "int8", "int32", "float32", "float64")] == [
            DType.Bool, DType.Int8, DType.Int32, DType.Float32, DType.Float64]
        complex_ = DType.from_name("Complex")
        assert complex_.is_category() and complex_.supertype is DType.Any
        for api, d in std.items():
            print(api, d.name, d.bits, ">".join(c.name for c in d.supertypes()))
            assert d.is_simple() and DType.from_name(d.name) is d
            assert not d.is_subtype_of(DType.Floating) or api.startswith("float")
            assert not hasattr(DType, d.name) or d.name in (
                "Bool", "Int8", "Int32", "Float32", "Float64")
        """
    )
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()}
    assert rows == {
        "bool": ["Bool", "8", "Any"],
        "int8": ["Int8", "8", "Integer>Any"],
        "int16": ["Int16", "16", "Integer>Any"],
        "int32": ["Int32", "32", "Integer>Any"],
        "int64": ["Int64", "64", "Integer>Any"],
        "uint8": ["UInt8", "8", "Integer>Any"],
        "uint16": ["UInt16", "16", "Integer>Any"],
        "uint32": ["UInt32", "32", "Integer>Any"],
        "uint64": ["UInt64", "64", "Integer>Any"],
        "float32": ["Float32", "32", "Floating>Any"],
        "float64": ["Float64", "64", "Floating>Any"],
        "complex64": ["Complex64", "64", "Complex>Any"],
        "complex128": ["Complex128", "128", "Complex>Any"],
    }


def test_a_same_structure_registration_is_reused() -> None:
    check(
        """
        from stridewave import DType, DTypeCategory, SimpleDType
        from stridewave.dtypes import register_standard_dtypes
        mine = SimpleDType("Int64", bits=64, supertype=DType.Integer)
        cat = DTypeCategory("Complex", supertype=DType.Any)
        c64 = SimpleDType("Complex64", bits=64, supertype=cat)
        std = register_standard_dtypes()
        assert std["int64"] is mine and std["complex64"] is c64
        assert DType.from_name("Complex128").supertype is cat
        """
    )


@pytest.mark.parametrize(
    "clash",
    [
        'SimpleDType("Int64", bits=32, supertype=DType.Integer)',
        'SimpleDType("UInt8", bits=8, supertype=DType.Floating)',
        'DTypeCategory("Complex", supertype=DType.Floating)',
        'DTypeCategory("Int16", supertype=DType.Any)',
    ],
)
def test_a_clash_fails_with_value_error_naming_both_and_registers_nothing(clash: str) -> None:
    out = check(
        f"""
        from stridewave import DType, DTypeCategory, SimpleDType
        from stridewave.dtypes import register_standard_dtypes
        mine = {clash}
        before = DType.registered()
        try:
            register_standard_dtypes()
        except ValueError as exc:
            print(exc)
        else:
            raise SystemExit("no ValueError")
        assert DType.registered() == before
        """
    )
    assert "already registered" in out and "standard" in out
    assert out.count("structure") >= 2  # the registered one's and the standard one's


def test_the_numpy_mapping_covers_the_thirteen_once_registered() -> None:
    out = check(
        """
        import numpy as np
        from stridewave import from_numpy_dtype, to_numpy_dtype
        try:
            from_numpy_dtype(np.int64)
        except ValueError:
            print("unmapped before")
        from stridewave.dtypes import register_standard_dtypes
        for api, d in register_standard_dtypes().items():
            assert to_numpy_dtype(d) == np.dtype(api), api
            assert from_numpy_dtype(np.dtype(api)) is d, api
            assert d.dtype == np.dtype(api)
        print("mapped after")
        """
    )
    assert out.split("\n")[:2] == ["unmapped before", "mapped after"]


SENDER = """
import pickle, sys
from stridewave.dtypes import register_standard_dtypes
std = register_standard_dtypes()
sys.stdout.buffer.write(pickle.dumps(list(std.values())))
"""


def test_every_standard_dtype_unpickles_where_the_namespace_is_imported() -> None:
    payload = run_python(SENDER).stdout
    out = check(
        """
        import pickle, sys
        import stridewave.array_api
        got = pickle.loads(sys.stdin.buffer.read())
        from stridewave import DType
        assert all(DType.from_name(d.name) is d for d in got)
        print(" ".join(d.name for d in got))
        """,
        payload,
    )
    assert out.split() == [
        "Bool", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
        "Float32", "Float64", "Complex64", "Complex128",
    ]  # fmt: skip


def test_unpickling_still_refuses_a_receiving_definition_with_another_structure() -> None:
    payload = run_python(SENDER.replace("list(std.values())", 'std["int64"]')).stdout
    out = check(
        """
        import pickle, sys
        from stridewave import DType, SimpleDType
        SimpleDType("Int64", bits=32, supertype=DType.Integer)
        try:
            pickle.loads(sys.stdin.buffer.read())
        except ValueError as exc:
            print("refused:", exc)
        """,
        payload,
    )
    assert out.startswith("refused:") and "'Int64'" in out


def test_a_dask_worker_resolves_a_standard_dtype_or_gets_a_stand_in() -> None:
    check(
        """
        from stridewave import DType, SimpleDType
        from stridewave.dtypes._pickle import UnresolvedDType
        from stridewave.dtypes._standard import _expected, resolve_standard_on_worker
        SimpleDType("UInt16", bits=16, supertype=DType.Integer)
        kind, structure = _expected("UInt16")
        assert resolve_standard_on_worker(kind, "UInt16", structure) is DType.from_name("UInt16")
        SimpleDType("UInt32", bits=16, supertype=DType.Integer)
        kind, structure = _expected("UInt32")
        stand_in = resolve_standard_on_worker(kind, "UInt32", structure)
        assert isinstance(stand_in, UnresolvedDType)
        try:
            stand_in.name
        except ValueError as exc:
            assert "UInt32" in str(exc)
        else:
            raise SystemExit("the stand-in did not raise")
        """
    )


def test_an_extension_carrier_unpickles_in_a_fresh_process_without_imports() -> None:
    payload = run_python(
        """
        import pickle, sys
        from stridewave.carriers._extension import CPUExtension, FileBackedExtension
        from stridewave import DType
        c128, u64 = DType.from_name("Complex128"), DType.from_name("UInt64")
        carriers = [CPUExtension(0, dtype=c128).new_like([1 + 2j, -0.5j]),
                    FileBackedExtension(dtype=u64).new_like([2**64 - 1])]
        sys.stdout.buffer.write(pickle.dumps(carriers))
        """
    ).stdout
    out = check(
        """
        import pickle, sys
        got = pickle.loads(sys.stdin.buffer.read())
        print([(type(c).__name__, c.dtype().name, list(c)) for c in got])
        """,
        payload,
    )
    assert out.strip() == str(
        [
            ("CPUExtension", "Complex128", [1 + 2j, -0.5j]),
            ("FileBackedExtension", "UInt64", [2**64 - 1]),
        ]
    )


def test_the_builtins_are_not_standard_extensions_by_accident() -> None:
    # In this process (whatever the other tests registered), a user's look-alike of
    # another structure is never taken for a standard dtype.
    from stridewave.dtypes._standard import is_standard

    assert is_standard(DType.Float64) and is_standard(DType.Int8)
    assert not is_standard(DType.E4M3) and not is_standard(DType.Integer)
    assert not is_standard("Float64")
