"""Carrier.scatter: the implementation pins of the built-in kinds' scatter path.

The scatter contract itself (the carrier-storage Scatter requirement) ships in
stridewave.testing.ScatterTests and runs once per scattering built-in kind in
tests/carriers/test_contract.py. These tests pin how the built-in kinds meet it: no
index array for an injective mapping, no per-element normalizer on the bulk path,
and FileBacked's NotImplementedError.
"""

from __future__ import annotations

from typing import NoReturn
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from stridewave import DType, FileBacked, Layout, Tensor
from stridewave.carriers import _normalize
from stridewave.testing._scatter_contract import Case, cases, model, whole
from tests.carriers.conftest import KINDS, Kind
from tests.strategies import injective_layouts

SCATTER_KINDS = [k for k in KINDS if k.scatters]


@pytest.fixture(params=SCATTER_KINDS, ids=[k.name for k in SCATTER_KINDS])
def kind(request: pytest.FixtureRequest) -> Kind:
    k: Kind = request.param
    return k


def test_injective_scatter_builds_no_index_array(kind: Kind) -> None:
    receiver = kind.make([0] * 12, DType.Int32, True)
    source = kind.make(list(range(12)), DType.Int32, True)

    def forbidden(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("an index array was built for an injective mapping")

    with mock.patch.object(Layout, "indices", forbidden):
        receiver.scatter(whole(source, (3, 4)), whole(receiver), Layout((3, 4), (1, 3)))
    assert np.asarray(receiver).reshape(4, 3).T.ravel().tolist() == list(range(12))


def test_bulk_path_never_calls_the_scalar_normalizer(kind: Kind) -> None:
    receiver = kind.make([0.0] * 4, DType.Float32, True)
    source = kind.make([1, 2, 3, 4], DType.Int32, True)

    def refuse(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("scalar normalizer called on the bulk path")

    with mock.patch.object(_normalize, "scalar_normalizer", refuse):
        receiver.scatter(whole(source), whole(receiver), Layout((4,), (-1,)), 3)
    assert list(receiver) == [4.0, 3.0, 2.0, 1.0]


def test_file_backed_scatter_raises_not_implemented_error() -> None:
    receiver = FileBacked(dtype=DType.Float32)
    try:
        with pytest.raises(NotImplementedError, match="FileBacked"):
            receiver.scatter(whole(receiver), whole(receiver), Layout((0,)))
    finally:
        receiver.release()


@given(cases(injective_layouts()), st.sampled_from(SCATTER_KINDS))
def test_injective_scatter_matches_model_without_index_arrays(case: Case, kind: Kind) -> None:
    mapping, onto_offset, mapping_offset, size, _ = case
    initial = [-1.0] * size
    values = [float(v) for v in range(mapping.size)]
    receiver = kind.make(initial, DType.Float32, True)
    source = Tensor(kind.make(values, DType.Float32, True), Layout(mapping.shape))
    onto = Tensor(receiver, Layout((0,)), offset=onto_offset)

    def forbidden(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("index array on the fast path")

    with mock.patch.object(Layout, "indices", forbidden):
        receiver.scatter(source, onto, mapping, mapping_offset)
    assert list(receiver) == model(initial, onto_offset + mapping_offset, mapping, values)
