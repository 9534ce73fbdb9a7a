"""Property tests: random constructor arguments and random extension structures."""

from __future__ import annotations

import math
import pickle
import subprocess
import sys
import textwrap
import uuid

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stridewave import DType, DTypeCategory, ScaledDType, SimpleDType, Whole
from stridewave.dtypes._structure import same_structure


class Ext(SimpleDType, abstract=False):
    """A simple extension whose structure_extension() is given at construction."""

    def __init__(self, name: str, ext: object) -> None:
        super().__init__(name, bits=8, supertype=DType.Any)
        self.ext = ext

    def structure_extension(self) -> tuple[object, ...]:
        return self.ext  # type: ignore[return-value]


def fresh() -> str:
    return f"P_{uuid.uuid4().hex}"


# -- strategies ---------------------------------------------------------------------------

fresh_names = st.builds(fresh)
taken_names = st.sampled_from(["Any", "Float32", "E2M1", "Integer"])
bad_names = st.one_of(
    st.just(""), st.none(), st.integers(), st.binary(max_size=4), st.tuples(st.text(max_size=2))
)
names = st.one_of(fresh_names, fresh_names, taken_names, bad_names)

good_bits = st.integers(min_value=1, max_value=2**70)
bad_bits = st.one_of(
    st.integers(max_value=0),
    st.booleans(),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.none(),
    st.just(np.True_),
)
bits_values = st.one_of(good_bits, good_bits, bad_bits)

categories = st.sampled_from([DType.Any, DType.Floating, DType.Integer])
non_categories = st.one_of(
    st.sampled_from([DType.Float32, DType.Bool, DType.E4M3]),
    st.integers(),
    st.text(max_size=3),
    st.just(object()),
)
supertypes = st.one_of(categories, categories, non_categories)

scalars = st.one_of(
    st.text(max_size=6),
    st.integers(),
    st.floats(allow_nan=False),
    st.none(),
    st.just(Whole),
)
extensions = st.recursive(
    st.tuples(),
    lambda inner: st.lists(st.one_of(scalars, inner), max_size=4).map(tuple),
    max_leaves=12,
)
bad_values = st.one_of(
    st.booleans(),
    st.just(float("nan")),
    st.lists(st.integers(), max_size=2),
    st.just(np.float64(1.0)),
    st.just(np.int32(1)),
    st.binary(max_size=2),
    st.complex_numbers(allow_nan=False, allow_infinity=False),
    st.just(DType.Float32),
    st.sets(st.integers(), max_size=2),
)


@st.composite
def poisoned_extensions(draw: st.DrawFn) -> tuple[object, ...]:
    """A valid extension with one invalid value spliced in at a random depth."""
    base: tuple[object, ...] = draw(extensions)
    bad = draw(bad_values)
    depth = draw(st.integers(min_value=0, max_value=3))
    value: object = bad
    for _ in range(depth):
        value = (value,)
    position = draw(st.integers(min_value=0, max_value=len(base)))
    return (*base[:position], value, *base[position:])


def is_name_free(name: object) -> bool:
    return all(d.name != name for d in DType.registered())


# -- constructor arguments ----------------------------------------------------------------


@given(name=names, bits=bits_values, supertype=supertypes)
def test_random_simple_arguments_register_all_or_nothing(
    name: object, bits: object, supertype: object
) -> None:
    name_ok = type(name) is str and name != "" and is_name_free(name)
    bits_ok = type(bits) is int and bits > 0
    super_ok = isinstance(supertype, DTypeCategory)
    before = DType.registered()
    try:
        dt = SimpleDType(name, bits=bits, supertype=supertype)  # type: ignore[arg-type]
    except (ValueError, TypeError) as exc:
        assert DType.registered() == before
        assert not (name_ok and bits_ok and super_ok), exc
        expected = ValueError if not (name_ok and bits_ok) else TypeError
        assert type(exc) is expected, exc
    else:
        assert name_ok
        assert bits_ok
        assert super_ok
        assert DType.registered() == (*before, dt)
        assert dt.bits == bits
        assert dt.supertype is supertype
        assert DType.from_name(name) is dt  # type: ignore[arg-type]


@given(name=names, supertype=st.one_of(st.none(), supertypes))
def test_random_category_arguments_register_all_or_nothing(name: object, supertype: object) -> None:
    name_ok = type(name) is str and name != "" and is_name_free(name)
    super_ok = supertype is None or isinstance(supertype, DTypeCategory)
    before = DType.registered()
    try:
        cat = DTypeCategory(name, supertype=supertype)  # type: ignore[arg-type]
    except (ValueError, TypeError) as exc:
        assert DType.registered() == before
        assert not (name_ok and super_ok), exc
        assert type(exc) is (ValueError if not name_ok else TypeError), exc
    else:
        assert name_ok
        assert super_ok
        assert DType.registered() == (*before, cat)
        assert cat.supertype is supertype


simple_or_junk = st.one_of(
    st.sampled_from([DType.E4M3, DType.E5M2, DType.E8M0, DType.Float32]),
    st.sampled_from([DType.Floating, None, "E4M3"]),
)
blocks = st.one_of(st.integers(min_value=-4, max_value=2**40), st.just(Whole), bad_bits)


@given(name=names, element=simple_or_junk, scale=simple_or_junk, block=blocks)
def test_random_scaled_arguments_register_all_or_nothing(
    name: object, element: object, scale: object, block: object
) -> None:
    name_ok = type(name) is str and name != "" and is_name_free(name)
    planes_ok = isinstance(element, SimpleDType) and isinstance(scale, SimpleDType)
    block_ok = block is Whole or (type(block) is int and block > 0)
    before = DType.registered()
    try:
        mx = ScaledDType(name, element=element, scale=scale, block=block)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        assert DType.registered() == before
        assert not (name_ok and planes_ok and block_ok)
    else:
        assert name_ok
        assert planes_ok
        assert block_ok
        assert DType.registered() == (*before, mx)
        assert mx.planes == (element, scale)
        assert mx.block == block


# -- structure extensions -----------------------------------------------------------------


@given(ext=extensions)
def test_random_valid_extensions_are_recorded_canonically(ext: tuple[object, ...]) -> None:
    dt = Ext(fresh(), ext)
    assert same_structure(dt.structure()[-1], ext)
    assert pickle.loads(pickle.dumps(dt)) is dt
    hash(dt.structure())


@given(ext=poisoned_extensions())
def test_random_invalid_extensions_register_nothing(ext: tuple[object, ...]) -> None:
    name = fresh()
    before = DType.registered()
    try:
        Ext(name, ext)
    except TypeError as exc:
        assert "structure_extension" in str(exc)
    else:
        raise AssertionError(f"accepted {ext!r}")
    assert DType.registered() == before
    assert is_name_free(name)


@given(a=extensions, b=extensions)
def test_different_extensions_give_different_structures(
    a: tuple[object, ...], b: tuple[object, ...]
) -> None:
    x, y = Ext(fresh(), a), Ext(fresh(), b)
    assert same_structure(x.structure()[2:], y.structure()[2:]) == same_structure(a, b)


# -- pickle across processes --------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import pickle, sys
    from stridewave import DType, SimpleDType

    class Ext(SimpleDType, abstract=False):
        def __init__(self, name, ext):
            super().__init__(name, bits=8, supertype=DType.Any)
            self.ext = ext

        def structure_extension(self):
            return self.ext

    definitions, blobs = pickle.load(sys.stdin.buffer)
    results = []
    for (name, ext), blob in zip(definitions, blobs):
        mine = Ext(name, ext)
        try:
            results.append("same" if pickle.loads(blob) is mine else "other")
        except ValueError:
            results.append("refused")
    print(" ".join(results))
    """
)


@settings(max_examples=8, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    pairs=st.lists(st.tuples(extensions, st.one_of(st.none(), extensions)), min_size=1, max_size=12)
)
def test_random_extensions_round_trip_through_pickle_in_a_subprocess(
    pairs: list[tuple[tuple[object, ...], tuple[object, ...] | None]],
) -> None:
    """The child registers the same definition (or, where given, another extension)."""
    sent = [Ext(fresh(), ext) for ext, _ in pairs]
    definitions = [
        (dt.name, ext if other is None else other)
        for dt, (ext, other) in zip(sent, pairs, strict=True)
    ]
    blobs = [pickle.dumps(dt) for dt in sent]
    proc = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=pickle.dumps((definitions, blobs)),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    expected = [
        "same" if other is None or same_structure(ext, other) else "refused" for ext, other in pairs
    ]
    assert proc.stdout.decode().split() == expected


def test_nan_is_the_only_refused_float() -> None:
    for value in (math.inf, -math.inf, -0.0, 5e-324):
        Ext(fresh(), (value,))
