"""The descriptor model: metaclass, ``DType``, ``DTypeCategory`` and ``SimpleDType``.

The model owns finalization.  Calling a concrete descriptor class runs, in order:

1. ``__new__`` (model-owned) creates the object in the *unfinished* state;
2. ``__init__`` (a subclass may extend it) validates and stores the arguments;
3. the contract structure is computed and ``structure_extension()`` is validated;
4. the registry atomically checks the name and inserts the object under its lock.

Any exception on the way marks the object *rejected* and registers nothing; a rejected
or unfinished object, or one that is not the registered identity of its name
(*noncanonical*), is refused with ``ValueError`` wherever a descriptor is referenced.

Spec: dtype-descriptors, "Every dtype has one registered descriptor identity",
"Descriptor kinds and hierarchy are explicit", "Published descriptors are immutable".
"""

from __future__ import annotations

import difflib
import typing as t
import weakref
from typing import TYPE_CHECKING, ClassVar, Final

import numpy as np
from typing_extensions import Self, override

from stridewave._integers import as_integer
from stridewave.dtypes import _messages, _registry
from stridewave.dtypes._pickle import (
    pickled_by_distributed,
    reconstruct_dtype,
    reconstruct_on_worker,
)
from stridewave.dtypes._structure import Structure, check_extension

__all__ = ["DType", "DTypeCategory", "DTypeMeta", "SimpleDType"]

_T = t.TypeVar("_T")

# Object states.  Only _CANONICAL objects that the registry holds under their name
# may be referenced.
_BUILDING: Final = "unfinished (it is still being constructed)"
_REJECTED: Final = "rejected (its construction failed and registered nothing)"
_CANONICAL: Final = "canonical"
_NONCANONICAL: Final = "noncanonical (it is not the descriptor registered under its name)"

# Classes defined by the model itself.  Open while the package imports, sealed after.
_MODEL_CLASSES: Final[set[type]] = set()
_sealed = False

# Members a subclass may define although a model class defines them too.
_HOOKS: Final = frozenset(
    {
        "__init__",
        "structure_extension",
        "__module__",
        "__qualname__",
        "__doc__",
        "__annotations__",
        "__annotate__",
        "__annotate_func__",
        "__annotations_cache__",
        "__dict__",
        "__weakref__",
        "__slots__",
        "__orig_bases__",
        "__parameters__",
        "__firstlineno__",
        "__static_attributes__",
        "__classcell__",
        "__type_params__",
        "_sw_abstract",
    }
)

# Members the model owns on every descriptor class, whether or not a model class
# defines them (so that e.g. ``simple_types`` cannot be added to a SimpleDType subclass,
# and the removed ``is_opaque_storage`` can never reappear).
_RESERVED: Final = frozenset(
    {
        "name",
        "value",
        "bits",
        "supertype",
        "supertypes",
        "is_subtype_of",
        "is_category",
        "is_simple",
        "is_compound",
        "structure",
        "planes",
        "simple_types",
        "element",
        "scale",
        "block",
        "registered",
        "from_name",
        "dtype",
        "is_opaque_storage",
        "opaque_storage",
        "__new__",
        "__init_subclass__",
        "__setattr__",
        "__delattr__",
        "__getattribute__",
        "__getattr__",
        "__eq__",
        "__ne__",
        "__hash__",
        "__repr__",
        "__str__",
        "__reduce__",
        "__reduce_ex__",
        "__getstate__",
        "__setstate__",
        "__getnewargs__",
        "__getnewargs_ex__",
        "__copy__",
        "__deepcopy__",
        "__class__",
    }
)

#: ``stridewave.interop.to_numpy_dtype``, registered by that module when it loads (the
#: descriptors know nothing of NumPy's dtype table themselves: import contracts).
NUMPY_MAPPING: list[t.Callable[[DType], np.dtype[t.Any]]] = []

_owned_cache: weakref.WeakKeyDictionary[type, frozenset[str]] = weakref.WeakKeyDictionary()


def _owned_names(cls: type) -> frozenset[str]:
    """Return the model-owned member names of descriptor class ``cls``."""
    cached = _owned_cache.get(cls)
    if cached is None:
        names = set(_RESERVED)
        for klass in cls.__mro__:
            if klass in _MODEL_CLASSES:
                names.update(n for n in vars(klass) if not n.startswith("__"))
        cached = frozenset(names - _HOOKS)
        if _sealed:
            _owned_cache[cls] = cached
    return cached


def _is_owned(cls: type, attr: str) -> bool:
    return attr not in _HOOKS and (attr.startswith("_sw_") or attr in _owned_names(cls))


def _slot_names(klass: type) -> tuple[str, ...]:
    slots = vars(klass).get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _seal() -> None:
    """Close the set of model classes once the package has defined them all."""
    global _sealed
    _sealed = True
    _owned_cache.clear()


class DTypeMeta(type):
    """Metaclass of every descriptor class: owns construction and class immutability.

    - Calling a class constructs, validates, records the structure and registers the
      descriptor atomically (see the module docstring); an abstract class refuses.
    - Creating a subclass that defines a model-owned member, directly or through a
      non-descriptor base class, fails with ``TypeError``.
    - Assigning or deleting a model-owned class member fails with ``AttributeError``;
      the classes of the model itself (``DType`` first of all) are frozen entirely.
    """

    def __init__(
        cls, name: str, bases: tuple[type, ...], namespace: dict[str, object], **kwargs: object
    ) -> None:
        super().__init__(name, bases, namespace)
        if cls in _MODEL_CLASSES or not _MODEL_CLASSES:
            return
        owned = _owned_names(cls)
        for klass in cls.__mro__:
            if klass in _MODEL_CLASSES or klass is object:
                continue
            defined = set(vars(klass)) | set(_slot_names(klass))
            clash = sorted(
                n for n in defined if n not in _HOOKS and (n in owned or n.startswith("_sw_"))
            )
            if clash:
                where = "directly" if klass is cls else f"through base class {klass.__qualname__}"
                raise TypeError(_messages.shadowed(cls.__qualname__, clash, where))
        if not vars(cls)["_sw_abstract"]:
            kinds = [k for k in _KIND_ROOTS if issubclass(cls, k)]
            if len(kinds) != 1:
                raise TypeError(_messages.bad_kind_base(cls.__qualname__))

    def __call__(cls: type[_T], *args: t.Any, **kwargs: t.Any) -> _T:
        """Construct, validate, structure and register one descriptor, atomically."""
        if vars(cls).get("_sw_abstract", True):
            raise TypeError(_messages.abstract_class(cls.__qualname__))
        obj = cls.__new__(cls)
        try:
            obj.__init__(*args, **kwargs)  # type: ignore[misc]
            t.cast("DType", obj)._sw_finalize()
        except BaseException:
            object.__setattr__(obj, "_sw_state", _REJECTED)
            raise
        return obj

    def __setattr__(cls, attr: str, value: object) -> None:
        if cls in _MODEL_CLASSES or _is_owned(cls, attr):
            raise AttributeError(_messages.frozen_class(cls.__qualname__, attr))
        super().__setattr__(attr, value)

    def __delattr__(cls, attr: str) -> None:
        if cls in _MODEL_CLASSES or _is_owned(cls, attr):
            raise AttributeError(_messages.frozen_class(cls.__qualname__, attr))
        super().__delattr__(attr)

    if not TYPE_CHECKING:  # (type checkers keep flagging unknown DType attributes)

        def __getattr__(cls, attr: str) -> object:
            # Only a missing class attribute gets here: suggest the registered name meant
            # (``DType.float32`` -> ``DType.Float32``). Private names (lookups with a
            # default, protocol probes) fail plainly, at no cost.
            if attr.startswith("_"):
                raise AttributeError(
                    f"type object {cls.__name__!r} has no attribute {attr!r}", name=attr, obj=cls
                )
            names = {d.name: d for d in _registry.snapshot()}
            lowered = {n.lower(): n for n in names}
            close = (
                [attr.lower()]
                if attr.lower() in lowered  # the same name in another case: that one alone
                else difflib.get_close_matches(attr.lower(), list(lowered), n=2, cutoff=0.75)
            )
            spellings = []
            for low in close:
                name = lowered[low]
                in_namespace = type.__getattribute__(DType, "__dict__").get(name) is names[name]
                spellings.append(f"DType.{name}" if in_namespace else f"DType.from_name({name!r})")
            raise AttributeError(_messages.no_dtype_attribute(cls.__name__, attr, spellings))


def _state(obj: object) -> str | None:
    try:
        state: str = object.__getattribute__(obj, "_sw_state")
    except AttributeError:
        return None
    return state


def _why_unusable(obj: DType) -> str | None:
    """Return why ``obj`` may not be referenced, or ``None`` if it is canonical."""
    state = _state(obj)
    if state is _BUILDING or state is _REJECTED:
        return state
    name = getattr(obj, "_sw_name", None)
    if state is _CANONICAL and type(name) is str and _registry.lookup(name) is obj:
        return None
    return _NONCANONICAL


def _mark_canonical(obj: DType) -> None:
    """Mark ``obj`` registered; called by the registry under its lock."""
    object.__setattr__(obj, "_sw_state", _CANONICAL)


def _check_name(cls_name: str, name: object) -> str:
    if type(name) is not str or not name:
        raise ValueError(_messages.bad_name(cls_name, name))
    existing = _registry.lookup(name)
    if existing is not None:
        raise ValueError(_messages.duplicate_name(cls_name, name, existing))
    return name


def _check_positive_int(value: object) -> int | None:
    """Return ``value`` as an ``int`` if it is a positive non-bool integer, else ``None``."""
    try:
        number = as_integer(value, repr)
    except TypeError:  # a bool or a non-integer: the caller words the refusal
        return None
    return number if number > 0 else None


def _require_category(owner: DType, name: str, role: str, value: object) -> DTypeCategory:
    """Check that ``value`` is a canonical category (TypeError, then ValueError)."""
    if not isinstance(value, DTypeCategory):
        raise TypeError(_messages.not_a_category(type(owner).__name__, name, role, value))
    _require_canonical(owner, name, role, value)
    return value


def _require_canonical(owner: DType, name: str, role: str, value: DType) -> None:
    """Check that ``value`` is the registered identity of its name (ValueError)."""
    why = _why_unusable(value)
    if why is not None:
        cls_name = type(owner).__name__
        raise ValueError(_messages.noncanonical(cls_name, name, role, value, why))


class DType(metaclass=DTypeMeta):
    """Abstract base of every dtype descriptor: a registered, immutable singleton.

    A descriptor is the process-local identity of one dtype category or representation.
    It compares and hashes by identity, is registered under a unique name, and is
    reached as ``DType.<name>`` (built-ins only), through :meth:`from_name` or through
    :meth:`registered`.

    Concrete kinds are :class:`DTypeCategory`, :class:`SimpleDType` and the concrete
    subclasses of :class:`~stridewave.CompoundDType` (such as
    :class:`~stridewave.ScaledDType`).  A subclass stays abstract unless declared with
    ``abstract=False``::

        class Posit16(SimpleDType, abstract=False):
            def structure_extension(self) -> tuple[object, ...]:
                return (("es", 1),)

    Instantiating an abstract class raises ``TypeError``.  The class namespace of
    ``DType`` is frozen: it holds the built-ins only.

    Spec: "Every dtype has one registered descriptor identity", "Descriptor kinds and
    hierarchy are explicit", "The DType class namespace contains only built-ins".

    Parameters
    ----------
    name : str
        The descriptor's unique registered name (through a concrete subclass; see
        each kind for its further parameters).
    """

    __slots__ = ("__weakref__", "_sw_name", "_sw_state", "_sw_structure", "_sw_supertype")

    _sw_kind: ClassVar[str] = ""

    if TYPE_CHECKING:
        _sw_state: str
        _sw_name: str
        _sw_structure: Structure
        _sw_supertype: DTypeCategory | None
        _sw_abstract: ClassVar[bool]
        # The built-in graph, installed by stridewave.dtypes._builtins.
        Any: ClassVar[DTypeCategory]
        Floating: ClassVar[DTypeCategory]
        Integer: ClassVar[DTypeCategory]
        Bool: ClassVar[SimpleDType]
        Int32: ClassVar[SimpleDType]
        Int8: ClassVar[SimpleDType]
        Float32: ClassVar[SimpleDType]
        Float64: ClassVar[SimpleDType]
        E8M0: ClassVar[SimpleDType]
        E5M2: ClassVar[SimpleDType]
        E4M3: ClassVar[SimpleDType]
        E3M2: ClassVar[SimpleDType]
        E2M3: ClassVar[SimpleDType]
        E2M1: ClassVar[SimpleDType]

    def __init_subclass__(
        cls, *, abstract: bool = True, _sw_model: bool = False, **kwargs: object
    ) -> None:
        """Record whether a descriptor subclass is abstract.

        Parameters
        ----------
        abstract : bool, default True
            ``False`` declares the subclass concrete (constructible); a subclass that
            does not say so stays abstract.

        Raises
        ------
        TypeError
            If ``abstract`` is not a ``bool``.
        """
        super().__init_subclass__(**kwargs)
        if type(abstract) is not bool:
            raise TypeError(
                f"class {cls.__qualname__}: abstract must be True or False; got {abstract!r}"
            )
        if _sw_model:
            if _sealed:
                raise TypeError("_sw_model is reserved for the descriptor model itself")
            _MODEL_CLASSES.add(cls)
        type.__setattr__(cls, "_sw_abstract", abstract)

    def __new__(cls, *args: object, **kwargs: object) -> Self:
        obj = object.__new__(cls)
        object.__setattr__(obj, "_sw_state", _BUILDING)
        return obj

    def __init__(self, name: str) -> None:
        """Validate and store the registered name; every concrete kind calls this first.

        Parameters
        ----------
        name : str
            The unique, non-empty registry key.

        Raises
        ------
        ValueError
            If ``name`` is not a non-empty exact ``str`` or is already registered.
        AttributeError
            If the descriptor is already finalized (descriptors are immutable).
        """
        self._sw_require_building()
        object.__setattr__(self, "_sw_name", _check_name(type(self).__name__, name))

    # -- finalization (model-owned) ---------------------------------------------------

    def _sw_require_building(self) -> None:
        if _state(self) is not _BUILDING:
            raise AttributeError(_messages.reinit(self))

    def _sw_contract(self) -> Structure:
        raise NotImplementedError  # pragma: no cover - every concrete kind overrides

    def _sw_finalize(self) -> None:
        self._sw_require_building()
        try:
            name = self._sw_name
            contract = self._sw_contract()
        except AttributeError:
            raise TypeError(_messages.missing_init(type(self).__qualname__)) from None
        owner = f"{type(self).__qualname__} {name!r}"
        extension = check_extension(self.structure_extension(), owner)
        object.__setattr__(self, "_sw_structure", (*contract, extension))
        _registry.insert(
            self,
            name,
            lambda existing: _messages.duplicate_name(type(self).__name__, name, existing),
            on_insert=_mark_canonical,
        )

    # -- identity ---------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The registered name: the unique registry key of this descriptor.

        Spec: "Every dtype has one registered descriptor identity".
        """
        return self._sw_name

    @property
    def value(self) -> str:
        """The registered name again (read-only compatibility alias of :attr:`name`)."""
        return self._sw_name

    @property
    def dtype(self) -> np.dtype[t.Any]:
        """The NumPy dtype of a built-in simple descriptor, so NumPy takes it as a dtype.

        NumPy reads an object's ``dtype`` attribute wherever it takes a dtype:
        ``numpy.dtype(DType.Float32)`` is ``float32``, ``numpy.zeros(3, DType.E4M3)``
        holds ``ml_dtypes.float8_e4m3fn`` (the table of :func:`stridewave.to_numpy_dtype`).
        CONTRACT section 8, "Descriptors as NumPy dtypes".

        Raises
        ------
        TypeError
            For a category, a compound dtype or a simple extension without a NumPy
            counterpart (``numpy.dtype(d)`` then raises ``TypeError`` too).
        """
        if not NUMPY_MAPPING:
            raise TypeError(f"{self!r}: the NumPy mapping is not loaded; import stridewave")
        try:
            return NUMPY_MAPPING[0](self)
        except ValueError as exc:
            raise TypeError(str(exc)) from None

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    # Identity hash as the C slot itself: descriptors key hot dictionaries (dtype
    # tables, the array API's backend maps), and a Python-level __hash__ costs a call.
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        """Name the descriptor kind and registered name, e.g. ``SimpleDType('Float32')``.

        Built-ins included (spec: "repr(descriptor) SHALL identify its descriptor kind
        and registered name"; CONTRACT section 2). A rejected or noncanonical object
        says so: ``<rejected SimpleDType('X')>``.
        """
        name = getattr(self, "_sw_name", None)
        why = _why_unusable(self)
        text = f"{type(self).__name__}({name!r})"
        return text if why is None else f"<{why.split(' ')[0]} {text}>"

    def __str__(self) -> str:
        """Name the storage dtype as NumPy does (``str(xp.int64) == "int64"``).

        The NumPy name of the dtype's storage where it has one (NumPy's
        ``str(numpy.dtype)``, which array-API clients read: ``"int" in str(dtype)``);
        else the ``repr`` (categories, compound dtypes). The spec fixes only ``repr``
        ("repr(descriptor) SHALL identify its descriptor kind and registered name").
        """
        if NUMPY_MAPPING and getattr(self, "_sw_name", None) is not None and self.is_simple():
            try:
                return str(NUMPY_MAPPING[0](self))
            except (TypeError, ValueError):
                pass
        return repr(self)

    # -- kind -------------------------------------------------------------------------

    def is_category(self) -> bool:
        """Tell whether this is a :class:`DTypeCategory` (a relationship-only identity).

        Returns
        -------
        bool
            True for a category, False for a simple or compound dtype.
        """
        return self._sw_kind == "category"

    def is_simple(self) -> bool:
        """Tell whether this is a :class:`SimpleDType` (one fixed-width scalar encoding).

        Being simple says nothing about which carriers can store the encoding.

        Returns
        -------
        bool
            True for a simple dtype, False for a category or compound dtype.
        """
        return self._sw_kind == "simple"

    def is_compound(self) -> bool:
        """Tell whether this is a :class:`~stridewave.CompoundDType` (several planes).

        Returns
        -------
        bool
            True for a compound dtype, False for a category or simple dtype.
        """
        return self._sw_kind == "compound"

    # -- hierarchy --------------------------------------------------------------------

    @property
    def supertype(self) -> DTypeCategory | None:
        """The immediately enclosing category, or ``None`` for a root category.

        Spec: "Descriptor kinds and hierarchy are explicit".
        """
        return self._sw_supertype

    def supertypes(self) -> tuple[DTypeCategory, ...]:
        """Return every enclosing category, nearest first.

        Returns
        -------
        tuple of DTypeCategory
            E.g. ``(DType.Floating, DType.Any)`` for ``DType.Float32``; ``()`` for
            ``DType.Any``.
        """
        chain: list[DTypeCategory] = []
        current = self._sw_supertype
        while current is not None:
            chain.append(current)
            current = current._sw_supertype
        return tuple(chain)

    def is_subtype_of(self, other: DType) -> bool:
        """Tell whether this descriptor is ``other`` or lies beneath it.

        Parameters
        ----------
        other : DType
            Usually a category such as ``DType.Floating``.

        Returns
        -------
        bool
            ``True`` if ``self is other`` or ``other`` is in :meth:`supertypes`.

        Raises
        ------
        TypeError
            If ``other`` is not a ``DType``.
        """
        if not isinstance(other, DType):
            raise TypeError(_messages.not_a_dtype("is_subtype_of()", other))
        return self is other or any(c is other for c in self.supertypes())

    # -- structure --------------------------------------------------------------------

    def structure(self) -> Structure:
        """Return the canonical structure recorded when this descriptor was registered.

        Returns
        -------
        Structure
            A nested tuple of exact ``str``, ``int``, ``float``, ``None`` and ``Whole``:
            ``(kind, name, <kind fields>, <supertype structure>, ..., extension)``, e.g.
            ``("simple", "Float32", 32, ("category", "Floating", ("category", "Any",
            None, ()), ()), ())``.  It decides pickle compatibility.

        Raises
        ------
        ValueError
            If this object is unfinished or rejected (it was never registered).

        Notes
        -----
        Spec: "Descriptor structure is canonical and extensible".
        """
        if _state(self) is not _CANONICAL:
            raise ValueError(_messages.unfinished(type(self).__name__, _why_unusable(self) or ""))
        return self._sw_structure

    def structure_extension(self) -> tuple[object, ...]:
        """Return this descriptor's extra identity; the hook a subclass may override.

        Called once, during construction, after ``__init__``.  The result becomes the
        last element of :meth:`structure`, so it takes part in pickle compatibility.

        Returns
        -------
        tuple
            ``()`` by default.  An override returns a tuple of exact ``str``, ``int``,
            ``float`` (not NaN), ``None``, ``Whole`` and nested tuples of those.

        Raises
        ------
        TypeError
            Raised by the model (and the construction registers nothing) when an
            override returns a non-tuple or an unsupported value.
        """
        return ()

    # -- registry ---------------------------------------------------------------------

    @classmethod
    def registered(cls) -> tuple[Self, ...]:
        """Return an immutable snapshot of the registered descriptors of this class.

        Returns
        -------
        tuple of DType
            In registration order; ``DType.registered()`` holds all of them,
            ``SimpleDType.registered()`` only the simple ones, and so on.

        Notes
        -----
        Spec: "Registry discovery is class-narrowed".
        """
        return tuple(d for d in _registry.snapshot() if isinstance(d, cls))

    @classmethod
    def from_name(cls, name: str) -> Self:
        """Return the registered descriptor called ``name``.

        Parameters
        ----------
        name : str
            The exact registered name, e.g. ``"Float32"``.

        Returns
        -------
        DType
            The registered identity, an instance of the class this is called on.

        Raises
        ------
        TypeError
            If ``name`` is not a ``str``.
        LookupError
            If no descriptor has that name, or (called on a subclass) the descriptor
            registered under it is not an instance of that subclass.
        """
        if not isinstance(name, str):
            raise TypeError(_messages.from_name_not_str(cls.__name__, name))
        found = _registry.lookup(name)
        if found is None:
            similar = tuple(d.name for d in DType.registered() if d.name.lower() == name.lower())
            raise LookupError(_messages.unknown_name(cls.__name__, name, similar))
        if not isinstance(found, cls):
            raise LookupError(_messages.wrong_kind(cls.__name__, name, found))  # noqa: TRY004
        return found

    # -- immutability and pickling ----------------------------------------------------

    def __setattr__(self, attr: str, value: object) -> None:
        if _state(self) is _BUILDING and not _is_owned(type(self), attr):
            object.__setattr__(self, attr, value)  # a subclass __init__ storing its fields
            return
        raise AttributeError(_messages.frozen_instance(self, attr))

    def __delattr__(self, attr: str) -> None:
        if _state(self) is _BUILDING and not _is_owned(type(self), attr):
            object.__delattr__(self, attr)
            return
        raise AttributeError(_messages.frozen_instance(self, attr))

    if not TYPE_CHECKING:  # hidden from mypy, so that typos stay type errors

        def __getattr__(self, attr: str) -> object:
            if attr == "is_opaque_storage":
                raise AttributeError(_messages.removed_opaque_storage(self), name=attr, obj=self)
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {attr!r}", name=attr, obj=self
            )

    def __copy__(self) -> Self:
        """Return ``self``: a descriptor is an identity (spec: "Preserve identity through copying").

        Returns
        -------
        DType
            The same registered object.
        """
        return self

    def __deepcopy__(self, memo: object) -> Self:
        """Return ``self``, whatever ``memo`` holds (see :meth:`__copy__`).

        Parameters
        ----------
        memo : dict
            ``copy.deepcopy``'s memo; unused.

        Returns
        -------
        DType
            The same registered object.
        """
        return self

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle by ``(kind, name, structure)``, never by a new definition.

        Returns
        -------
        tuple
            ``(reconstruct_dtype, (kind, name, structure))``; unpickling returns the
            receiving process's registered identity (spec: "Pickle reconstruction
            preserves receiving-process identity").

        Raises
        ------
        TypeError
            If the object is rejected or unfinished (it has no registered identity).
        """
        why = _why_unusable(self)
        if why is not None:
            raise TypeError(_messages.cannot_pickle(type(self).__name__, why))
        args = (self._sw_kind, self._sw_name, self._sw_structure)
        if pickled_by_distributed():  # a Dask worker resolves it at first use
            return (reconstruct_on_worker, args)
        return (reconstruct_dtype, args)

    def __reduce_ex__(self, protocol: t.SupportsIndex) -> tuple[object, ...]:
        """Return :meth:`__reduce__`'s recipe for every pickle protocol.

        Parameters
        ----------
        protocol : int
            The pickle protocol; every protocol gets the same recipe.

        Returns
        -------
        tuple
            See :meth:`__reduce__`.
        """
        return self.__reduce__()


class DTypeCategory(DType, abstract=False, _sw_model=True):
    """A category: a relationship-only identity in the supertype hierarchy.

    A category defines neither a scalar encoding nor a compound representation; it
    only organizes descriptors (``DType.Any``, ``DType.Floating``, ``DType.Integer`` and
    extension categories alike).  Whether a carrier accepts it as storage is decided by
    carrier-storage, not here: there is no opaque-storage disposition.

    Parameters
    ----------
    name : str
        The unique, non-empty registry key.
    supertype : DTypeCategory or None, keyword-only, default None
        The immediately enclosing registered category; ``None`` makes a root category.

    Raises
    ------
    ValueError
        If ``name`` is empty, not a ``str`` or already registered; if ``supertype`` is
        an unfinished, rejected or noncanonical category.
    TypeError
        If ``supertype`` is neither ``None`` nor a ``DTypeCategory``, or an unexpected
        keyword (such as the removed ``opaque_storage``) is given.  Nothing is
        registered in any failure.

    Notes
    -----
    Spec: "Categories describe hierarchy relationships".  Structure:
    ``("category", name, <supertype structure or None>, extension)``.

    Examples
    --------
    >>> from stridewave import DType, DTypeCategory
    >>> Posit = DTypeCategory("PositDoc", supertype=DType.Floating)
    >>> Posit.supertypes() == (DType.Floating, DType.Any)
    True
    """

    __slots__ = ()
    _sw_kind: ClassVar[str] = "category"

    def __init__(self, name: str, *, supertype: DTypeCategory | None = None) -> None:
        super().__init__(name)
        if supertype is not None:
            _require_category(self, name, "supertype", supertype)
        object.__setattr__(self, "_sw_supertype", supertype)

    @override
    def _sw_contract(self) -> Structure:
        sup = self._sw_supertype
        return ("category", self._sw_name, None if sup is None else sup._sw_structure)


class SimpleDType(DType, abstract=False, _sw_model=True):
    """A simple dtype: one fixed-width scalar encoding.

    Being simple classifies the encoding; it does not promise that any carrier can
    store or compute with it.

    Parameters
    ----------
    name : str
        The unique, non-empty registry key.
    bits : int, keyword-only
        The encoding width in bits: an integer (not ``bool``) greater than zero.
    supertype : DTypeCategory, keyword-only
        The registered category immediately enclosing the encoding.

    Raises
    ------
    ValueError
        If ``name`` is empty, not a ``str`` or already registered; if ``bits`` is a
        ``bool``, not an integer, zero or negative; if ``supertype`` is an unfinished,
        rejected or noncanonical category.
    TypeError
        If ``supertype`` is not a ``DTypeCategory``.  Nothing is registered in any
        failure.

    Notes
    -----
    Spec: "Simple dtypes declare one exact positive width".  Structure:
    ``("simple", name, bits, <supertype structure>, extension)``.

    Examples
    --------
    >>> from stridewave import DType, SimpleDType
    >>> f16 = SimpleDType("Float16Doc", bits=16, supertype=DType.Floating)
    >>> f16.bits, f16.supertypes() == (DType.Floating, DType.Any)
    (16, True)
    """

    __slots__ = ("_sw_bits",)
    _sw_kind: ClassVar[str] = "simple"

    if TYPE_CHECKING:
        _sw_bits: int

    def __init__(self, name: str, *, bits: int, supertype: DTypeCategory) -> None:
        super().__init__(name)
        width = _check_positive_int(bits)
        if width is None:
            raise ValueError(_messages.bad_bits(type(self).__name__, name, bits))
        object.__setattr__(self, "_sw_bits", width)
        object.__setattr__(
            self, "_sw_supertype", _require_category(self, name, "supertype", supertype)
        )

    @property
    def bits(self) -> int:
        """The exact encoding width in bits (e.g. 32 for ``DType.Float32``)."""
        return self._sw_bits

    @override
    def _sw_contract(self) -> Structure:
        sup = self._sw_supertype
        assert sup is not None
        return ("simple", self._sw_name, self._sw_bits, sup._sw_structure)


_MODEL_CLASSES.add(DType)
type.__setattr__(DType, "_sw_abstract", True)

_KIND_ROOTS: Final[list[type]] = [DTypeCategory, SimpleDType]
"""The constructible kinds; ``_compound`` appends ``CompoundDType``."""
