"""The carrier contract as a base class: subclass it once per carrier kind.

The model is zarr-python's ``StoreTests``: a class that pytest does not collect by
itself (its name does not start with ``Test``), whose test methods exercise one kind
through the :class:`~stridewave.testing.Kind` set as the subclass's ``kind``::

    from stridewave.testing import CarrierTests, Kind

    class TestMyCarrier(CarrierTests):
        kind = Kind(name="MyCarrier", cls=MyCarrier, make=..., raw_values=..., ...)

Every test named after a spec Scenario checks that Scenario; the others pin the
CONTRACT's decisions. A test that needs a storage dtype runs once per entry of
``kind.dtypes``.
"""

from __future__ import annotations

import copy
import gc
import pickle
import weakref
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from stridewave.carriers import Carrier, storage_zero
from stridewave.carriers._scatter import ScatterSource
from stridewave.dtypes import DType
from stridewave.layout import Layout
from stridewave.tensor import Tensor
from stridewave.testing._base import KindTests
from stridewave.testing._kinds import (
    SAMPLE,
    ZERO,
    available_kinds,
    builtin_dtypes,
)
from stridewave.testing._stateful import carrier_machine, evictable_machine

__all__ = ["CarrierTests", "EvictableTests"]

F32 = DType.Float32


class CarrierTests(KindTests):
    """The shared carrier contract, for the kind in the subclass's ``kind``.

    Attributes
    ----------
    kind : Kind
        The kind under test: set it in each subclass. Its ``marks`` mark every test
        of the class, and a kind whose ``available()`` is false skips them all.
    stateful_settings : hypothesis.settings
        The budget of the stateful test (examples and steps per example).

    Notes
    -----
    What every kind-parametrized suite shares (the ``dtype`` parametrization, the
    availability skip, the ``compound`` and ``extension_category`` fixtures) is
    described in :class:`~stridewave.testing.KindTests`.
    """

    # (the machine's rule choice filters out the rules whose preconditions fail, and
    # on a rare seed most draws: a property of the draw, not of the carrier, so the
    # filtering health check stays off here)
    stateful_settings: ClassVar[settings] = settings(
        max_examples=40,
        stateful_step_count=20,
        deadline=None,
        suppress_health_check=[HealthCheck.filter_too_much],
    )

    # -- Carrier exposes one homogeneous storage sequence -----------------------------------

    def test_read_and_write_one_slot(self, dtype: DType) -> None:
        kind = self.kind
        a, b = SAMPLE[dtype]
        carrier = kind.make([a, b, a], dtype, True)
        assert carrier.size() == 3
        assert carrier.dtype() is dtype
        assert [carrier.get_value(i) for i in range(3)] == [a, b, a]
        assert [carrier[i] for i in range(3)] == [a, b, a]
        assert carrier.set_value(1, a) is None  # type: ignore[func-returns-value]
        carrier[2] = b
        assert kind.raw_values(carrier) == [a, a, b]
        assert type(carrier[0]) is type(a)

    @pytest.mark.parametrize("index", [-1, -3, 3, 4, 2**70])
    def test_reject_an_invalid_physical_index(self, dtype: DType, index: int) -> None:
        kind = self.kind
        a, b = SAMPLE[dtype]
        carrier = kind.make([a, a, a], dtype, True)
        with pytest.raises(IndexError, match="valid indices are"):
            carrier.get_value(index)
        with pytest.raises(IndexError):
            carrier[index]
        with pytest.raises(IndexError):
            carrier.set_value(index, b)
        with pytest.raises(IndexError):
            carrier[index] = b
        assert carrier.version == 0
        assert kind.raw_values(carrier) == [a, a, a]

    @pytest.mark.parametrize("index", [1.0, "1", None, slice(0, 1), [0]])
    def test_index_without_index_protocol_raises_type_error(self, index: object) -> None:
        kind = self.kind
        carrier = kind.make([SAMPLE[F32][0]] * 2, F32, True)
        with pytest.raises(TypeError, match="integer-index protocol"):
            carrier.get_value(index)
        with pytest.raises(TypeError):
            carrier[index] = 1.0
        assert carrier.version == 0

    def test_numpy_integer_index_is_accepted(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, 2.0], F32, True)
        assert carrier[np.int64(1)] == 2.0
        carrier[np.uint8(0)] = 3.0
        assert carrier.get_value(np.intp(0)) == 3.0

    # -- Storage support is exact, structural and allocation-free ---------------------------

    def test_query_support_independently_of_current_storage(
        self, compound: DType, extension_category: DType
    ) -> None:
        kind = self.kind
        for held in kind.dtypes:
            carrier = kind.make([SAMPLE[held][0]], held, True)
            before = (carrier.size(), carrier.version, kind.raw_values(carrier))
            for candidate in [*builtin_dtypes(), compound, extension_category]:
                expected = any(candidate is s for s in kind.supported)
                assert carrier.supports_storage_dtype(candidate) is expected, candidate
            assert (carrier.size(), carrier.version, kind.raw_values(carrier)) == before
            carrier.release()
            for candidate in builtin_dtypes():
                expected = any(candidate is s for s in kind.supported)
                assert carrier.supports_storage_dtype(candidate) is expected

    def test_query_a_valid_unsupported_descriptor(self, compound: DType) -> None:
        kind = self.kind
        carrier = kind.make([], kind.dtypes[0], False)
        assert carrier.supports_storage_dtype(compound) is False
        assert carrier.supports_storage_dtype(DType.Integer) is False
        # Float64: outside every spec carrier's row, inside an extension carrier's
        widened = any(DType.Float64 is s for s in kind.supported)
        assert carrier.supports_storage_dtype(DType.Float64) is widened

    @pytest.mark.parametrize("junk", [None, "Float32", np.float32, np.dtype("f4"), 32])
    def test_supports_storage_dtype_refuses_non_dtype(self, junk: object) -> None:
        kind = self.kind
        carrier = kind.make([], kind.dtypes[0], True)
        with pytest.raises(TypeError, match="stridewave DType"):
            carrier.supports_storage_dtype(junk)  # type: ignore[arg-type]

    # -- Unsupported construction fails before storage is exposed ---------------------------

    def test_reject_compound_homogeneous_storage(self, compound: DType) -> None:
        kind = self.kind
        carrier = kind.make([], kind.dtypes[0], True)
        with pytest.raises(ValueError, match="cannot hold multiple planes"):
            carrier.new_like([], dtype=compound)
        with pytest.raises(ValueError, match="multi-plane storage is deferred"):
            carrier.allocate_like(2, dtype=compound)

    @pytest.mark.parametrize("junk", ["Float32", np.float32, 1])
    def test_factory_refuses_non_dtype_with_type_error(self, junk: object) -> None:
        kind = self.kind
        carrier = kind.make([], kind.dtypes[0], True)
        with pytest.raises(TypeError):
            carrier.new_like([], dtype=junk)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            carrier.allocate_like(1, dtype=junk)  # type: ignore[arg-type]

    # -- new_like ---------------------------------------------------------------------------

    def test_preserve_dtype_by_default(self, dtype: DType) -> None:
        kind = self.kind
        a, b = SAMPLE[dtype]
        carrier = kind.make([a], dtype, True)
        fresh = carrier.new_like([b, a, b])
        assert type(fresh) is type(carrier)
        assert fresh.dtype() is dtype
        assert list(fresh) == [b, a, b]
        assert fresh.version == 0
        assert fresh.is_mutable()

    def test_override_factory_dtype(self) -> None:
        kind = self.kind
        carrier = kind.make([1.5], F32, True)
        fresh = carrier.new_like([1, 2, 3], dtype=DType.Int32)
        assert fresh.dtype() is DType.Int32
        assert list(fresh) == [1, 2, 3]
        assert all(type(v) is int for v in fresh)
        back = fresh.new_like([1, 2], dtype=F32)
        assert list(back) == [1.0, 2.0]
        assert all(type(v) is float for v in back)

    def test_new_like_none_hole_reads_as_zero(self, dtype: DType) -> None:
        kind = self.kind
        a, _ = SAMPLE[dtype]
        fresh = kind.make([a], dtype, True).new_like([None, a, None])
        assert list(fresh) == [ZERO[dtype], a, ZERO[dtype]]

    def test_new_like_is_independent_of_receiver_and_input(self) -> None:
        kind = self.kind
        source = [1.0, 2.0]
        carrier = kind.make([5.0], F32, True)
        fresh = carrier.new_like(source)
        source[0] = 9.0
        carrier[0] = 6.0
        assert list(fresh) == [1.0, 2.0]
        array = np.array([1.0, 2.0], dtype=np.float32)
        from_array = carrier.new_like(array)
        array[0] = 7.0
        assert list(from_array) == [1.0, 2.0]

    def test_new_like_immutable_result(self) -> None:
        kind = self.kind
        fresh = kind.make([1.0], F32, True).new_like([1.0, 2.0], mutable=False)
        assert not fresh.is_mutable()
        with pytest.raises(RuntimeError, match="mutable=False"):
            fresh[0] = 3.0

    def test_new_like_refuses_non_iterable_and_bad_values(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0], F32, True)
        with pytest.raises(TypeError, match="iterable"):
            carrier.new_like(3.0)
        with pytest.raises(TypeError):
            carrier.new_like([1.0, "x"])
        with pytest.raises(OverflowError):
            carrier.new_like([1.0, 1e39])
        with pytest.raises(TypeError, match="mutable"):
            carrier.new_like([1.0], mutable=1)  # type: ignore[arg-type]

    # -- allocate_like ----------------------------------------------------------------------

    def test_allocate_initialized_storage(self, dtype: DType) -> None:
        kind = self.kind
        a, _ = SAMPLE[dtype]
        carrier = kind.make([a, a], dtype, True)
        fresh = carrier.allocate_like(3)
        assert type(fresh) is type(carrier)
        assert fresh.dtype() is dtype
        assert fresh.size() == 3
        spec_zero = storage_zero(dtype)  # the spec helper names the spec rows' zeros only
        assert list(fresh) == [ZERO[dtype] if spec_zero is None else spec_zero] * 3
        assert kind.raw_values(fresh) == [ZERO[dtype]] * 3
        fresh[0] = a
        assert list(carrier) == [a, a]

    def test_request_an_empty_allocation(self, dtype: DType) -> None:
        kind = self.kind
        fresh = kind.make([], dtype, True).allocate_like(4, empty=True)
        assert fresh.size() == 4
        assert fresh.is_mutable()
        if kind.initializes_empty:
            assert list(fresh) == [ZERO[dtype]] * 4
        a, _ = SAMPLE[dtype]
        for i in range(4):
            fresh[i] = a
        assert list(fresh) == [a] * 4

    def test_allocate_like_dtype_override_and_immutable(self) -> None:
        kind = self.kind
        fresh = kind.make([], F32, True).allocate_like(2, dtype=DType.Int32, mutable=False)
        assert fresh.dtype() is DType.Int32
        assert list(fresh) == [0, 0]
        assert not fresh.is_mutable()

    @pytest.mark.parametrize(
        ("size", "error"), [(1.0, TypeError), ("2", TypeError), (-1, ValueError)]
    )
    def test_allocate_like_refuses_bad_size(self, size: object, error: type) -> None:
        kind = self.kind
        with pytest.raises(error, match="size"):
            kind.make([], F32, True).allocate_like(size)  # type: ignore[arg-type]

    def test_reject_a_category_override(self, extension_category: DType) -> None:
        kind = self.kind
        carrier = kind.make([], F32, True)
        for category in (DType.Any, DType.Floating, DType.Integer, extension_category):
            with pytest.raises(ValueError, match="category with no storage encoding"):
                carrier.new_like([], dtype=category)
            with pytest.raises(ValueError, match="category"):
                carrier.allocate_like(1, dtype=category)

    # -- mutability, version ----------------------------------------------------------------

    def test_query_an_immutable_carrier(self, dtype: DType) -> None:
        kind = self.kind
        a, b = SAMPLE[dtype]
        carrier = kind.make([a, a], dtype, False)
        assert carrier.is_mutable() is False
        assert carrier.is_owned() is False
        with pytest.raises(RuntimeError, match="mutable=False"):
            carrier.set_value(0, b)
        with pytest.raises(RuntimeError, match="mutable=False"):
            carrier[1] = b
        assert carrier.version == 0
        assert kind.raw_values(carrier) == [a, a]

    def test_version_an_indexed_write(self, dtype: DType) -> None:
        kind = self.kind
        a, b = SAMPLE[dtype]
        carrier = kind.make([a, a], dtype, True)
        before = carrier.version
        carrier[0] = b
        assert carrier.version == before + 1
        carrier.set_value(1, b)
        assert carrier.version == before + 2
        carrier[1] = b  # same value: still a successful mutation
        assert carrier.version == before + 3

    def test_version_is_a_read_only_property(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0], F32, True)
        assert isinstance(carrier.version, int)
        with pytest.raises(AttributeError):
            carrier.version = 5  # type: ignore[misc]

    def test_failed_writes_leave_value_and_version(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, 2.0], F32, True)
        for index, value, error in [
            (0, "x", TypeError),
            (0, True, TypeError),
            (0, 1e39, OverflowError),
            (5, 1.0, IndexError),
            ("a", 1.0, TypeError),
        ]:
            with pytest.raises(error):
                carrier[index] = value
            with pytest.raises(error):
                carrier.set_value(index, value)
        assert carrier.version == 0
        assert kind.raw_values(carrier) == [1.0, 2.0]

    def test_allocation_and_construction_do_not_count_as_mutation(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, 2.0], F32, True)
        assert carrier.version == 0
        assert carrier.allocate_like(3).version == 0
        assert carrier.new_like([1.0]).version == 0
        carrier.release()
        assert carrier.version == 0

    # -- release ----------------------------------------------------------------------------

    def test_release_a_carrier_twice(self, dtype: DType) -> None:
        kind = self.kind
        a, b = SAMPLE[dtype]
        carrier = kind.make([a, b], dtype, True)
        assert carrier.is_released() is False
        assert carrier.release() is None  # type: ignore[func-returns-value]
        assert carrier.is_released() is True
        assert carrier.release() is None  # type: ignore[func-returns-value]
        assert carrier.is_released() is True
        assert carrier.size() == 0
        assert len(carrier) == 0
        assert carrier.dtype() is dtype
        assert carrier.is_mutable() is False
        for action in (
            lambda: carrier.get_value(0),
            lambda: carrier[0],
            lambda: carrier.set_value(0, a),
            lambda: carrier.__setitem__(0, a),
            lambda: iter(carrier),
            lambda: np.asarray(carrier),
        ):
            with pytest.raises(RuntimeError, match="released"):
                action()
        assert "released" in repr(carrier)

    def test_create_fresh_storage_from_a_released_prototype(self, dtype: DType) -> None:
        kind = self.kind
        a, b = SAMPLE[dtype]
        carrier = kind.make([a], dtype, True)
        carrier.release()
        fresh = carrier.new_like([b, a])
        assert list(fresh) == [b, a]
        assert fresh.is_mutable()
        assert not fresh.is_released()
        allocated = carrier.allocate_like(2)
        assert list(allocated) == [ZERO[dtype]] * 2

    def test_release_of_an_immutable_carrier_is_allowed(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0], F32, False)
        carrier.release()
        assert carrier.is_released()

    # -- extras: len, iter, repr, NumPy interop ---------------------------------------------

    def test_len_iter_repr(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, 2.0, 3.0], F32, True)
        assert len(carrier) == 3
        assert list(carrier) == [1.0, 2.0, 3.0]
        text = repr(carrier)
        assert kind.cls.__name__ in text
        assert "DType.Float32" in text
        assert "size=3" in text
        assert "live" in text
        assert "immutable" in repr(kind.make([], F32, False))

    def test_numpy_asarray_is_read_only_and_a_view_where_the_kind_exports_views(
        self, dtype: DType
    ) -> None:
        kind = self.kind
        a, b = SAMPLE[dtype]
        carrier = kind.make([a, b], dtype, True)
        view = np.asarray(carrier)
        assert view.shape == (2,)
        assert view.tolist() == [a, b]
        assert not view.flags.writeable
        with pytest.raises(ValueError):
            view[0] = b
        carrier[0] = b
        if kind.exports_views:
            with pytest.raises(ValueError):
                view.setflags(write=True)  # a read-only buffer: cannot be turned back on
            assert view[0] == b  # zero-copy: the view sees the carrier's writes
            assert np.asarray(carrier, copy=False).tolist() == [b, b]
        else:
            assert view[0] == a  # a snapshot of the values at export time
            with pytest.raises(ValueError, match="never exports a view"):
                np.asarray(carrier, copy=False)
            assert np.asarray(carrier).tolist() == [b, b]

    def test_numpy_copy_is_writable_and_independent(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, 2.0], F32, True)
        copied = np.array(carrier, copy=True)
        assert copied.flags.writeable
        copied[0] = 9.0
        assert carrier[0] == 1.0
        assert carrier.version == 0

    def test_numpy_dtype_conversion(self) -> None:
        kind = self.kind
        carrier = kind.make([1.5, 2.0], F32, True)
        assert np.asarray(carrier, dtype=np.float64).tolist() == [1.5, 2.0]
        with pytest.raises(ValueError, match="copy=False"):
            np.asarray(carrier, dtype=np.float64, copy=False)
        assert carrier.__array__(np.float64, copy=True).dtype == np.float64

    @pytest.mark.parametrize("junk", [",", "(", "not-a-dtype", object()])
    def test_numpy_export_refuses_an_unreadable_dtype_with_type_error(self, junk: object) -> None:
        # NumPy parses "," as a field list and raises SyntaxError; the export says TypeError.
        carrier = self.kind.make([1.5, 2.0], F32, True)
        with pytest.raises(TypeError, match=r"cannot read .* as a dtype"):
            carrier.__array__(junk)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"cannot read .* as a dtype"):
            Tensor(carrier, Layout((2,))).__array__(junk)

    def test_view_exported_before_release_stays_valid(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, 2.0, 3.0], F32, True)
        view = np.asarray(carrier)
        carrier.release()
        gc.collect()
        assert view.tolist() == [1.0, 2.0, 3.0]

    def test_release_drops_every_reference_to_the_buffer(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, 2.0], F32, True)
        raw = carrier._raw_array()
        ref = weakref.ref(raw)
        del raw
        carrier.release()
        gc.collect()
        assert ref() is None

    def test_new_like_from_another_carrier_is_vectorized(self) -> None:
        kind = self.kind
        source = kind.make([1.0, 2.0], F32, True)
        for other in available_kinds():
            target = other.make([], F32, True)
            assert list(target.new_like(source)) == [1.0, 2.0]
        source.release()
        with pytest.raises(RuntimeError, match="released"):
            kind.make([], F32, True).new_like(source)

    def test_copy_and_pickle_give_independent_carriers(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, -2.5], F32, True)
        carrier[0] = 3.0
        for clone, shares in (
            (copy.copy(carrier), False),
            (copy.deepcopy(carrier), False),
            (pickle.loads(pickle.dumps(carrier)), kind.pickles_by_reference),
        ):
            assert type(clone) is type(carrier)
            assert clone.dtype() is F32
            assert list(clone) == [3.0, -2.5]
            assert clone.version == 0
            assert clone.is_mutable()
            clone[1] = 9.0
            if shares:  # a user's opened file pickles by reference (CONTRACT section 8)
                assert list(carrier) == [3.0, 9.0]
                carrier[1] = -2.5
            else:
                assert list(carrier) == [3.0, -2.5]  # independent storage
            clone.release()
        carrier.release()
        for action in (
            lambda: copy.copy(carrier),
            lambda: copy.deepcopy(carrier),
            lambda: pickle.dumps(carrier),
        ):
            with pytest.raises(RuntimeError, match="released"):
                action()

    def test_scatter_capability_flag_matches_the_kind_table(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, 2.0], F32, True)
        # the kind's declaration: its capability record where it has one,
        # else the _SCATTERS flag that the record replaces
        caps = getattr(carrier, "capabilities", None)
        declared = (
            bool(caps.scatter) if caps is not None else getattr(type(carrier), "_SCATTERS", True)
        )
        assert declared is kind.scatters
        if not kind.scatters:
            source = ScatterSource(Tensor(carrier, Layout((1,))), carrier.dtype())
            with pytest.raises(NotImplementedError):
                carrier._raw_scatter(0, Layout((1,)), source)
            whole = Tensor(carrier, Layout((2,)))
            with pytest.raises(NotImplementedError, match="does not implement scatter"):
                carrier.scatter(whole, whole, Layout((2,)))

    def test_a_bool_is_neither_a_size_nor_a_slot_index(self) -> None:
        kind = self.kind
        carrier = kind.make([1.0, 2.0], F32, True)
        with pytest.raises(TypeError, match="bool"):
            carrier[True]
        with pytest.raises(TypeError, match="bool"):
            carrier.set_value(False, 3.0)
        with pytest.raises(TypeError, match="bool"):
            carrier.allocate_like(True)
        assert carrier.version == 0
        assert list(carrier) == [1.0, 2.0]

    # -- the kind against a plain-Python model (hypothesis state machine) --------------------

    def test_carrier_agrees_with_model(self, dtype: DType) -> None:
        run_state_machine_as_test(
            carrier_machine(self.kind, dtype), settings=self.stateful_settings
        )


class EvictableTests:
    """The Evictable contract over one pair of tiers: subclass it per pair.

    A new kind that may serve as an :class:`~stridewave.Evictable` tier passes this
    suite with its carriers as the primary, the secondary, or both::

        class TestEvictableOverMine(EvictableTests):
            def make_tiers(self, values):
                return CPU(0).new_like(values), MyCarrier(0)

    Attributes
    ----------
    stateful_settings : hypothesis.settings
        The budget of the stateful test (examples and steps per example).
    """

    stateful_settings: ClassVar[settings] = settings(
        max_examples=60, stateful_step_count=30, deadline=None
    )

    def make_tiers(self, values: list[float]) -> tuple[Carrier, Carrier]:
        """Return a fresh ``(primary, secondary)`` pair: override in each subclass.

        Parameters
        ----------
        values : list of float
            What the primary holds; binary32-exact floats.

        Returns
        -------
        (Carrier, Carrier)
            A Float32 primary holding ``values`` and an empty Float32 secondary.

        Raises
        ------
        NotImplementedError
            Always, in this base class.
        """
        raise NotImplementedError("subclasses of EvictableTests define make_tiers(values)")

    def test_evictable_agrees_with_model(self) -> None:
        name = f"{type(self).__name__}Evictable"
        run_state_machine_as_test(
            evictable_machine(self.make_tiers, name), settings=self.stateful_settings
        )
