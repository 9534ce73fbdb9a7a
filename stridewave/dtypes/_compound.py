"""Compound dtypes: one value stored across two or more simple-dtype planes.

``CompoundDType`` is abstract; ``ScaledDType`` is the shipped concrete kind, modelling
the OCP Microscaling formats (e.g. MXFP8: E4M3 elements with one E8M0 scale per 32).
No compound dtype is registered at import.

See CONTRACT section 2, "Compound dtypes".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from typing_extensions import override

from stridewave.dtypes import _messages
from stridewave.dtypes._model import (
    _KIND_ROOTS,
    DType,
    DTypeCategory,
    SimpleDType,
    _check_name,
    _check_positive_int,
    _require_canonical,
    _require_category,
)
from stridewave.dtypes._structure import Structure, Whole, WholeType

__all__ = ["CompoundDType", "ScaledDType"]


class CompoundDType(DType, _sw_model=True):
    """Abstract base of compound dtypes: one logical value over several storage planes.

    A concrete subclass is declared with ``abstract=False`` and constructed as
    ``Sub(name, *, planes, supertype)``; :class:`ScaledDType` is the shipped one.

    Parameters
    ----------
    name : str
        The unique, non-empty registry key.
    planes : tuple of SimpleDType, keyword-only
        Two or more registered simple dtypes, one per storage plane, in plane order.
        The same simple dtype may appear in several planes.
    supertype : DTypeCategory, keyword-only
        The registered category immediately enclosing the representation.

    Raises
    ------
    TypeError
        If the class is abstract, ``planes`` is not a tuple, a plane is not a
        ``SimpleDType``, or ``supertype`` is not a ``DTypeCategory``.
    ValueError
        If ``name`` is invalid or taken, fewer than two planes are given, or a plane or
        the supertype is unfinished, rejected or noncanonical.  Nothing is registered
        in any failure.

    Notes
    -----
    Structure: ``("compound", name, (<plane structures>...), <supertype structure>,
    <rule>, extension)``; ``rule`` is ``()`` here and set by concrete model kinds.
    """

    __slots__ = ("_sw_planes",)
    _sw_kind: ClassVar[str] = "compound"

    if TYPE_CHECKING:
        _sw_planes: tuple[SimpleDType, ...]

    def __init__(
        self, name: str, *, planes: tuple[SimpleDType, ...], supertype: DTypeCategory
    ) -> None:
        super().__init__(name)
        if not isinstance(planes, tuple):
            raise TypeError(_messages.planes_not_tuple(name, planes))
        if len(planes) < 2:
            raise ValueError(_messages.too_few_planes(name, len(planes)))
        for i, plane in enumerate(planes):
            role = f"planes[{i}]"
            if not isinstance(plane, SimpleDType):
                raise TypeError(_messages.not_a_simple(type(self).__name__, name, role, plane))
            _require_canonical(self, name, role, plane)
        object.__setattr__(self, "_sw_planes", tuple(planes))
        object.__setattr__(
            self, "_sw_supertype", _require_category(self, name, "supertype", supertype)
        )

    @property
    def planes(self) -> tuple[SimpleDType, ...]:
        """The simple dtype of each storage plane, in plane order (two or more)."""
        return self._sw_planes

    @property
    def simple_types(self) -> tuple[SimpleDType, ...]:
        """The distinct simple dtypes among :attr:`planes`, in first-plane order."""
        return tuple(dict.fromkeys(self._sw_planes))

    def _sw_rule(self) -> Structure:
        return ()

    @override
    def _sw_contract(self) -> Structure:
        sup = self._sw_supertype
        assert sup is not None
        return (
            "compound",
            self._sw_name,
            tuple(p._sw_structure for p in self._sw_planes),
            sup._sw_structure,
            self._sw_rule(),
        )


_KIND_ROOTS.append(CompoundDType)


class ScaledDType(CompoundDType, abstract=False, _sw_model=True):
    """A block-scaled dtype: ``value = element * scale``, one scale per ``block`` elements.

    Models the OCP Microscaling (MX) formats: MXFP8 is
    ``ScaledDType("MXFP8", element=DType.E4M3, scale=DType.E8M0, block=32)``.

    Parameters
    ----------
    name : str
        The unique, non-empty registry key.
    element : SimpleDType, keyword-only
        Encoding of the element plane (plane 0).
    scale : SimpleDType, keyword-only
        Encoding of the scale plane (plane 1).
    block : int or Whole, keyword-only
        How many consecutive elements share one scale: a positive ``int`` (not
        ``bool``), or :data:`~stridewave.Whole` for one scale for the whole tensor.
    supertype : DTypeCategory, keyword-only, default DType.Floating
        The registered category immediately enclosing the representation.

    Raises
    ------
    TypeError
        If ``element`` or ``scale`` is not a ``SimpleDType`` or ``supertype`` is not a
        ``DTypeCategory``.
    ValueError
        If ``name`` is invalid or taken; if ``block`` is not a positive non-bool
        integer or ``Whole`` (like ``bits``, every invalid count is a ``ValueError``);
        if a referenced descriptor is unfinished, rejected or noncanonical.  Nothing is
        registered in any failure.

    Notes
    -----
    ``planes == (element, scale)``.  Structure: ``("compound", name, (<element>,
    <scale>), <supertype>, (("element", <element>), ("scale", <scale>), ("block",
    block)), extension)``.

    Examples
    --------
    >>> from stridewave import DType, ScaledDType
    >>> mx = ScaledDType("MXFP8Doc", element=DType.E4M3, scale=DType.E8M0, block=32)
    >>> mx.planes == (DType.E4M3, DType.E8M0), mx.block
    (True, 32)
    """

    __slots__ = ("_sw_block",)

    if TYPE_CHECKING:
        _sw_block: int | WholeType

    def __init__(
        self,
        name: str,
        *,
        element: SimpleDType,
        scale: SimpleDType,
        block: int | WholeType,
        supertype: DTypeCategory = DType.Floating,
    ) -> None:
        _check_name(type(self).__name__, name)
        for role, plane in (("element", element), ("scale", scale)):
            if not isinstance(plane, SimpleDType):
                raise TypeError(_messages.not_a_simple(type(self).__name__, name, role, plane))
            _require_canonical(self, name, role, plane)
        size: int | WholeType | None = block if block is Whole else _check_positive_int(block)
        if size is None:
            raise ValueError(_messages.bad_block(name, block))
        super().__init__(name, planes=(element, scale), supertype=supertype)
        object.__setattr__(self, "_sw_block", size)

    @property
    def element(self) -> SimpleDType:
        """The simple dtype of the element plane (plane 0)."""
        return self._sw_planes[0]

    @property
    def scale(self) -> SimpleDType:
        """The simple dtype of the scale plane (plane 1)."""
        return self._sw_planes[1]

    @property
    def block(self) -> int | WholeType:
        """Consecutive elements per scale: a positive ``int``, or ``Whole``."""
        return self._sw_block

    @override
    def _sw_rule(self) -> Structure:
        return (
            ("element", self.element._sw_structure),
            ("scale", self.scale._sw_structure),
            ("block", self._sw_block),
        )
