"""Hostile input: every public constructor, method and helper, found by
introspecting ``stridewave.__all__`` and the Kind table, fed arbitrary objects.

Only the documented exceptions come out (TypeError, ValueError, IndexError,
OverflowError, RuntimeError, LookupError, NotImplementedError, OSError), plus the
caller's own exception when one of its objects raises (``Hostile`` here: it
propagates unchanged), and a failed call leaves values, version, files and the dtype
registry as they were.
"""

from __future__ import annotations

import inspect
import itertools
import math
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stridewave
from stridewave import Carrier, DType
from stridewave.carriers import _normalize
from stridewave.carriers._file_backed import session_directory

from ..conftest import KINDS, Kind  # noqa: TID252  (the shared Kind table)

DOCUMENTED = (
    TypeError,
    ValueError,
    IndexError,
    OverflowError,
    RuntimeError,
    LookupError,
    NotImplementedError,
    OSError,
    MemoryError,  # CONTRACT section 7: a size the machine cannot hold, before allocating
)


class Hostile(Exception):
    """Raised by the caller's own objects; must propagate unchanged."""


class RaisingIndex:
    def __index__(self) -> int:
        raise Hostile("__index__")


class LyingIndex:
    def __init__(self, value: object) -> None:
        self.value = value

    def __index__(self) -> Any:
        return self.value


class RaisingFloat:
    def __float__(self) -> float:
        raise Hostile("__float__")


class LyingFloat:
    def __float__(self) -> Any:
        return "1.5"


class IntSub(int):
    pass


class FloatSub(float):
    pass


class RaisingIterable:
    def __iter__(self) -> Iterator[float]:
        yield 1.0
        yield 2.0
        raise Hostile("midway")


class LyingLength:
    def __len__(self) -> int:
        return 2

    def __iter__(self) -> Iterator[float]:
        return (float(i) for i in itertools.count())


class RaisingArray:
    def __array__(self, *args: object, **kwargs: object) -> Any:
        raise Hostile("__array__")


scalars = st.one_of(
    st.none(),
    st.booleans(),
    # Sizes stay small (a huge but valid size would really allocate memory or
    # disk); the extremes below fail fast on every path.
    st.integers(min_value=-(2**20), max_value=2**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [math.nan, -0.0, -(2**31) - 1, 2**64, 2**200, -(2**200), 1e39, IntSub(3), FloatSub(2.5)]
    ),
    st.text(max_size=5),
    st.binary(max_size=8),
    st.builds(LyingIndex, st.sampled_from([-1, 2**70, "3", 2.0, None])),
    st.just(RaisingIndex()),
    st.just(RaisingFloat()),
    st.just(LyingFloat()),
    st.sampled_from([np.float64(1.5), np.int64(-7), np.bool_(True), np.float32("nan")]),
    st.sampled_from([DType.Float32, DType.Int32, DType.Bool, DType.Any, DType.E4M3]),
)
iterables = st.one_of(
    st.lists(scalars, max_size=4),
    st.lists(scalars, max_size=4).map(tuple),
    st.builds(RaisingIterable),
    st.builds(LyingLength),
    st.just(itertools.count()),
    st.just(RaisingArray()),
    st.sampled_from([np.zeros((2, 2)), np.array(["a"]), np.array([1, None], dtype=object)]),
    st.sampled_from([range(3), range(-5), b"\x01\x02", bytearray(8), {1.0: 2}, {1, 2}]),
)
anything = st.one_of(scalars, iterables)
arguments = st.lists(anything, max_size=4)
keywords = st.dictionaries(
    st.sampled_from(["dtype", "mutable", "empty", "pointer", "size", "filename", "protocol"]),
    anything,
    max_size=2,
)


def _state(carrier: Carrier) -> tuple[Any, ...]:
    values = None if carrier.is_released() else np.array(carrier, copy=True).tolist()
    return (carrier.is_released(), carrier.size(), carrier.version, values)


def _files() -> list[str]:
    return sorted(os.listdir(session_directory()))


def _call(target: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> bool:
    """Call; return whether it raised an allowed exception (anything else fails)."""
    try:
        with warnings.catch_warnings():
            # NumPy's own deprecation notices for junk it is handed (e.g. the dtype
            # alias b"a" passed on to numpy.dtype) are NumPy's word to the caller.
            warnings.simplefilter("ignore", DeprecationWarning)
            result = target(*args, **kwargs)
    except (Hostile, *DOCUMENTED):
        return True
    if isinstance(result, Carrier) and not result.is_released():
        result.release()  # keep the session directory clean
    return False


@pytest.fixture(autouse=True)
def _private_cwd(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # carrier.save(path) and FileBacked.open(path) take fuzzed relative paths: keep
    # whatever a successful call writes out of the repository.
    monkeypatch.chdir(tmp_path_factory.mktemp("fuzz-cwd"))


@pytest.fixture(autouse=True)
def _small_iteration_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # An infinite iterator stops after this many items instead of 2**22.
    monkeypatch.setattr(_normalize, "ITERATION_LIMIT", 1000)


# A fifth of the profile's examples for each of the ~400 (kind, method) cases: the
# default run stays within minutes; ``nox -s soak`` runs them under the nightly profile.
FUZZ = settings(
    max_examples=max(10, settings().max_examples // 5),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    deadline=None,
)


def _public_methods(carrier: Carrier) -> list[str]:
    names = [n for n in dir(carrier) if not n.startswith("_")]
    names += ["__getitem__", "__setitem__", "__array__", "__reduce_ex__", "__deepcopy__"]
    return sorted(n for n in names if callable(getattr(carrier, n, None)))


METHODS = sorted({m for k in KINDS for m in _public_methods(k.make([1.0], DType.Float32, True))})


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
@FUZZ
@given(args=arguments, kwargs=keywords)
def test_methods_raise_only_documented_errors_and_change_nothing_on_failure(
    kind: Kind, method: str, args: list[Any], kwargs: dict[str, Any]
) -> None:
    carrier = kind.make([1.0, 2.0, 3.0], DType.Float32, True)
    target = getattr(carrier, method, None)
    if target is None:
        return
    before, files, registry = _state(carrier), _files(), DType.registered()
    failed = _call(target, args, kwargs)
    if failed:
        assert _state(carrier) == before
        assert _files() == files
        assert DType.registered() == registry
    if not carrier.is_released():
        carrier.release()


def _entry_points() -> list[tuple[str, Callable[..., Any]]]:
    points = []
    for name in stridewave.__all__:
        obj = getattr(stridewave, name)
        if callable(obj) and not name.startswith("_"):
            points.append((name, obj))
            for attr, member in vars(obj).items() if inspect.isclass(obj) else ():
                if isinstance(member, (classmethod, staticmethod)) and not attr.startswith("_"):
                    points.append((f"{name}.{attr}", getattr(obj, attr)))
    return points


ENTRY_POINTS = _entry_points()


@pytest.mark.parametrize(("name", "target"), ENTRY_POINTS, ids=[n for n, _ in ENTRY_POINTS])
@FUZZ
@given(args=arguments, kwargs=keywords)
def test_entry_points_raise_only_documented_errors(
    name: str, target: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]
) -> None:
    if isinstance(target, type) and issubclass(target, DType):
        # A successful call would register a descriptor for the whole run: give it a
        # name no other test uses when the fuzz drew a plain string.
        args = [f"Fuzz_{id(args)}_{a}" if isinstance(a, str) else a for a in args]
    files, registry = _files(), DType.registered()
    if _call(target, args, kwargs):
        assert _files() == files
        assert DType.registered() == registry


def test_an_infinite_iterator_is_refused_not_consumed_forever(kind: Kind) -> None:
    carrier = kind.make([1.0], DType.Float32, True)
    files = _files()
    with pytest.raises(ValueError, match="no trustworthy length"):
        carrier.new_like(float(i) for i in itertools.count())
    with pytest.raises(ValueError, match="islice"):
        carrier.new_like(LyingLength())
    assert _files() == files
    assert list(carrier.new_like(itertools.islice(itertools.count(), 5))) == [0, 1, 2, 3, 4]
