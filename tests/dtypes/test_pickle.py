"""Spec: "Pickle reconstruction preserves receiving-process identity"."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from collections.abc import Callable

import pytest

from stridewave import DType, DTypeCategory, ScaledDType, SimpleDType, Whole
from stridewave.dtypes._pickle import reconstruct_dtype

from .conftest import BUILTINS

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


def run_python(code: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )


class Payload:
    """Pickles as an arbitrary reconstructor call (to forge old or foreign payloads)."""

    def __init__(self, *args: object) -> None:
        self.args = args

    def __reduce__(self) -> tuple[object, ...]:
        return (reconstruct_dtype, self.args)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("name", list(BUILTINS))
def test_pickle_returns_the_same_builtin_for_every_protocol(name: str, protocol: int) -> None:
    dt = DType.from_name(name)
    assert pickle.loads(pickle.dumps(dt, protocol=protocol)) is dt


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_pickle_returns_the_same_extension_for_every_protocol(
    make_name: Callable[[], str],
    protocol: int,
) -> None:
    cat = DTypeCategory(make_name(), supertype=DType.Floating)
    simple = SimpleDType(make_name(), bits=16, supertype=cat)
    mx = ScaledDType(make_name(), element=simple, scale=DType.E8M0, block=Whole, supertype=cat)
    for dt in (cat, simple, mx):
        assert pickle.loads(pickle.dumps(dt, protocol=protocol)) is dt
    nested = pickle.loads(pickle.dumps({"dtypes": (cat, simple, mx)}, protocol=protocol))
    assert nested["dtypes"] == (cat, simple, mx)


def test_pickle_records_name_and_structure_only() -> None:
    reducer, args = DType.Float32.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    assert reducer is reconstruct_dtype
    assert reducer.__module__ == "stridewave.dtypes._pickle"
    assert args == ("simple", "Float32", DType.Float32.structure())
    data = pickle.dumps(DType.Float32, protocol=0)
    assert b"SimpleDType" not in data
    assert b"reconstruct_dtype" in data


def test_unpickling_instantiates_no_class(unique_name: str) -> None:
    calls: list[str] = []

    class Counting(SimpleDType, abstract=False):
        def __init__(self, name: str) -> None:
            calls.append(name)
            super().__init__(name, bits=8, supertype=DType.Any)

    dt = Counting(unique_name)
    data = pickle.dumps(dt)
    before = DType.registered()
    assert pickle.loads(data) is dt
    assert calls == [unique_name]
    assert DType.registered() == before


def test_unpickle_an_unknown_name_raises_lookup_error(unique_name: str) -> None:
    data = pickle.dumps(Payload("simple", unique_name, ("simple", unique_name, 8, None, ())))
    with pytest.raises(LookupError, match="no dtype of that name"):
        pickle.loads(data)


def test_unpickle_a_different_kind_raises_value_error() -> None:
    data = pickle.dumps(Payload("category", "Float32", DType.Float32.structure()))
    with pytest.raises(ValueError, match="different structure"):
        pickle.loads(data)


def test_unpickle_type_strict_structure_comparison(unique_name: str) -> None:
    class Ext(SimpleDType, abstract=False):
        def structure_extension(self) -> tuple[object, ...]:
            return (1, 0.0)

    dt = Ext(unique_name, bits=8, supertype=DType.Any)
    good = dt.structure()
    assert pickle.loads(pickle.dumps(Payload("simple", unique_name, good))) is dt
    for ext in [(1.0, 0.0), (True, 0.0), (1, -0.0), (1, 0)]:
        forged = (*good[:-1], ext)
        assert forged == good  # Python's == cannot tell them apart ...
        with pytest.raises(ValueError):  # ... the structure comparison can
            pickle.loads(pickle.dumps(Payload("simple", unique_name, forged)))


def test_reject_a_legacy_category_structure() -> None:
    any_legacy = ("category", "Any", None, ("opaque_storage", True), ())
    floating_legacy = ("category", "Floating", any_legacy, ("opaque_storage", True), ())
    payloads = [
        Payload("category", "Any", any_legacy),
        Payload("category", "Floating", floating_legacy),
        Payload("simple", "Float32", ("simple", "Float32", 32, floating_legacy, ())),
        Payload("category", "Any", ("category", "Any", None, (), ("opaque_storage", False))),
    ]
    for payload in payloads:
        with pytest.raises(ValueError, match="opaque-storage"):
            pickle.loads(pickle.dumps(payload))


def test_unpickle_a_registered_extension() -> None:
    definition = textwrap.dedent("""
        from stridewave import DType, DTypeCategory, ScaledDType, SimpleDType, Whole
        cat = DTypeCategory("PickleCat", supertype=DType.Floating)
        f16 = SimpleDType("PickleF16", bits=16, supertype=cat)
        mx = ScaledDType("PickleMX", element=f16, scale=DType.E8M0, block=Whole)
    """)
    sender = run_python(
        definition + "import pickle, sys; sys.stdout.buffer.write(pickle.dumps((cat, f16, mx)))"
    )
    assert sender.returncode == 0, sender.stderr
    receiver = run_python(
        definition
        + "import pickle, sys\n"
        + "got = pickle.loads(sys.stdin.buffer.read())\n"
        + "assert got[0] is cat and got[1] is f16 and got[2] is mx, got\n"
        + "print('same identities')\n",
        stdin=sender.stdout,
    )
    assert receiver.returncode == 0, receiver.stderr
    assert receiver.stdout.decode().split() == ["same", "identities"]


@pytest.mark.parametrize(
    "receiving",
    [
        'SimpleDType("PickleF16", bits=8, supertype=DType.Floating)',  # width
        'SimpleDType("PickleF16", bits=16, supertype=DType.Integer)',  # hierarchy
        'DTypeCategory("PickleF16", supertype=DType.Floating)',  # kind
        'ScaledDType("PickleMX", element=DType.E5M2, scale=DType.E8M0, block=32)',  # plane
        'ScaledDType("PickleMX", element=DType.E4M3, scale=DType.E8M0, block=16)',  # rule
        'ScaledDType("PickleMX", element=DType.E4M3, scale=DType.Float32, block=32)',  # scale
        "Ext('PickleF16', bits=16, supertype=DType.Floating)",  # extension
    ],
)
def test_reject_a_mismatched_receiving_definition(receiving: str) -> None:
    name = "PickleMX" if "PickleMX" in receiving else "PickleF16"
    sender = run_python(f"""
        import pickle, sys
        from stridewave import DType, ScaledDType, SimpleDType
        f16 = SimpleDType("PickleF16", bits=16, supertype=DType.Floating)
        mx = ScaledDType("PickleMX", element=DType.E4M3, scale=DType.E8M0, block=32)
        sys.stdout.buffer.write(pickle.dumps(DType.from_name({name!r})))
    """)
    assert sender.returncode == 0, sender.stderr
    receiver = run_python(
        f"""
        import pickle, sys
        from stridewave import DType, DTypeCategory, ScaledDType, SimpleDType
        class Ext(SimpleDType, abstract=False):
            def structure_extension(self):
                return ("other",)
        mine = {receiving}
        data = sys.stdin.buffer.read()
        try:
            pickle.loads(data)
        except ValueError as exc:
            assert "different structure" in str(exc), exc
            assert DType.from_name({name!r}) is mine
            print("refused")
        """,
        stdin=sender.stdout,
    )
    assert receiver.returncode == 0, receiver.stderr
    assert receiver.stdout.decode().split() == ["refused"]


def test_unpickle_in_a_process_without_the_name_raises_lookup_error(unique_name: str) -> None:
    dt = SimpleDType(unique_name, bits=16, supertype=DType.Floating)
    receiver = run_python(
        """
        import pickle, sys
        import stridewave
        try:
            pickle.loads(sys.stdin.buffer.read())
        except LookupError as exc:
            print("lookup-error")
        """,
        stdin=pickle.dumps(dt),
    )
    assert receiver.returncode == 0, receiver.stderr
    assert receiver.stdout.decode().split() == ["lookup-error"]
