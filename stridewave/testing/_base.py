"""What every kind-parametrized test class of the contract suite shares."""

from __future__ import annotations

import functools
from typing import ClassVar

import pytest

from stridewave.dtypes import DType, DTypeCategory, ScaledDType
from stridewave.testing._kinds import Kind, fresh_name

__all__ = ["KindTests"]


@functools.cache
def _shared_dtypes() -> tuple[DType, DType]:
    """Register, once per process, the compound dtype and the category the tests use."""
    compound = ScaledDType(fresh_name("MX"), element=DType.E4M3, scale=DType.E8M0, block=32)
    category = DTypeCategory(fresh_name("Cat"), supertype=DType.Floating)
    return compound, category


class KindTests:
    """Base of the test classes that run against one carrier kind, set as ``kind``.

    Attributes
    ----------
    kind : Kind
        The kind under test: set it in each subclass. Its ``marks`` mark every test
        of the class, and a kind whose ``available()`` is false skips them all.

    Notes
    -----
    Test methods take a ``dtype`` argument where the behaviour depends on the storage
    dtype; :meth:`pytest_generate_tests` runs them once per ``kind.dtypes`` entry.
    The fixtures ``compound`` and ``extension_category`` give a compound dtype
    (MXFP8-like) and an extension category, each registered once per process.
    """

    kind: ClassVar[Kind]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        kind = getattr(cls, "kind", None)
        if kind is not None:
            cls.pytestmark = [*getattr(cls, "pytestmark", []), *kind.marks]  # type: ignore[attr-defined]

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """Run each test that takes ``dtype`` once per storage dtype of the kind.

        Parameters
        ----------
        metafunc : pytest.Metafunc
            The pytest view of the test function being collected.
        """
        if "dtype" in metafunc.fixturenames:
            dtypes = self.kind.dtypes
            metafunc.parametrize("dtype", dtypes, ids=[d.name for d in dtypes])

    @pytest.fixture(autouse=True)
    def _kind_available(self) -> None:
        self.kind.require()

    @pytest.fixture
    def compound(self) -> DType:
        """Return a compound dtype (MXFP8-like), registered once per process."""
        return _shared_dtypes()[0]

    @pytest.fixture
    def extension_category(self) -> DType:
        """Return an extension category under ``Floating``, registered once per process."""
        return _shared_dtypes()[1]
