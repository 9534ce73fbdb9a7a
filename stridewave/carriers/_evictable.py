"""`Evictable`: a two-tier carrier whose values live in a primary or a secondary tier.

CONTRACT section 4 and the Evictable clauses of the carrier-storage spec. The wrapper
claims both tiers (all or nothing) and is the only version authority its users see.
It is written against the ``Carrier`` hooks only, with no kind-specific branch:

* the primary tier is any carrier kind; promotion rebuilds it through its value
  factory ``primary.new_like(values)`` (which works on a released prototype);
* the secondary tier is any kind that implements the ``_raw_load`` move (CPU,
  Generic, FileBacked); eviction loads the values into it in one move and
  promotion returns it to size zero, so the object the caller passed stays the tier.

Residency moves never release anything before the values are safe elsewhere: an
eviction releases the primary only after the secondary reads back the same bits,
and a promotion shrinks the secondary only after the new primary is built and
claimed. A failure on the way leaves the wrapper exactly as it was.
"""

from __future__ import annotations

import os
import queue
import threading
import warnings
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np
import numpy.typing as npt
from typing_extensions import Self, override

from stridewave.carriers import _messages
from stridewave.carriers._base import Carrier, _unpickle_error, check_pickled
from stridewave.carriers._capabilities import Capabilities, ScatterSupport
from stridewave.carriers._mapped import drop_mapped_pages, shared_mapping, spans
from stridewave.dtypes import DType

if TYPE_CHECKING:
    from stridewave.carriers._scatter import ScatterSource
    from stridewave.layout import Layout

__all__ = ["Evictable"]


def _bits(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """View ``array`` as unsigned integers of the same width (NaN-safe equality)."""
    if array.dtype.kind in "fiub" and array.dtype.itemsize in (1, 2, 4, 8):
        return array.view(f"u{array.dtype.itemsize}")
    return array


def _same_values(expected: npt.NDArray[Any], actual: npt.NDArray[Any]) -> bool:
    """Return whether two 1-D arrays hold the same bits (vectorized, 16 MiB chunks).

    Chunked so that the comparison's temporary stays small: a whole-array
    ``array_equal`` would allocate one bool per slot, a quarter of a Float32 tier. A
    tier on a shared file mapping (FileBacked) has each chunk's pages unmapped after
    it is read, so the read-back adds a chunk, not the file, to the resident set.
    """
    if expected.shape != actual.shape:
        return False
    mappings = (shared_mapping(expected), shared_mapping(actual))
    if expected.dtype == actual.dtype:
        expected, actual = _bits(expected), _bits(actual)
    for span in spans(expected):
        same = np.array_equal(expected[span], actual[span])
        for mapping in mappings:
            drop_mapped_pages(mapping)
        if not same:
            return False
    return True


class _Reaper:
    """Drop the last reference to a replaced tier buffer on a background thread.

    Freeing the old secondary storage after a promotion (for FileBacked: unmapping
    an unlinked file, whose page-cache pages the kernel then reclaims) costs about
    as much as reading the values back. It is pure cleanup of storage nothing can
    reach any more, so it runs off the caller's path; CPython releases the GIL
    while it unmaps. One daemon thread per process, started on first use (again in
    a forked child).
    """

    _lock = threading.Lock()
    _queue: queue.SimpleQueue[object] | None = None
    _pid = -1

    @classmethod
    def drop(cls, item: object) -> None:
        with cls._lock:
            if cls._queue is None or cls._pid != os.getpid():
                cls._queue = queue.SimpleQueue()
                cls._pid = os.getpid()
                threading.Thread(
                    target=cls._run, args=(cls._queue,), name="stridewave-reaper", daemon=True
                ).start()
            cls._queue.put(item)

    @classmethod
    def _after_fork_in_child(cls) -> None:
        cls._lock = threading.Lock()  # possibly inherited held; the thread is gone
        cls._queue = None

    @staticmethod
    def _run(items: queue.SimpleQueue[object]) -> None:
        while True:
            item = items.get()
            del item


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_Reaper._after_fork_in_child)


class _PagingStore:
    """Scalar accessors of an evicted wrapper: under its lock, promote, then read or write."""

    __slots__ = ("_ref",)

    def __init__(self, owner: Evictable) -> None:
        self._ref = weakref.ref(owner)  # weak: no reference cycle through the wrapper

    def __getitem__(self, index: int) -> Any:
        owner = self._owner()
        with owner._locked():
            owner._page_in("read")
            return owner._primary._slot_store[index]

    def _owner(self) -> Evictable:
        owner = self._ref()
        if owner is None:  # unreachable through the wrapper's own methods
            raise RuntimeError("the Evictable behind this accessor no longer exists")
        return owner

    def __setitem__(self, index: int, value: Any) -> None:
        owner = self._owner()
        with owner._locked():
            owner._page_in("write")
            owner._primary._slot_store[index] = value


class Evictable(Carrier):
    """Two-tier storage: values live in ``primary`` (promoted) or ``secondary`` (evicted).

    The everyday case is ``Evictable(CPU(...), FileBacked(dtype=...))``: host memory
    that can be spilled to a file and paged back. Any two carrier kinds of one dtype
    work (Generic over CPU, Metal over CPU or FileBacked); the secondary must be able
    to replace its storage in one move (CPU, Generic and FileBacked can).

    Parameters
    ----------
    primary : Carrier
        The fast tier. Live and unowned; it holds the logical values (its ``size()``
        slots, in elements) and the wrapper starts *promoted*. Its intrinsic
        mutability becomes the wrapper's.
    secondary : Carrier
        The spill tier: live, unowned, intrinsically mutable, empty (``size() ==
        0``), of the primary's dtype, a different object than ``primary``.

    Raises
    ------
    TypeError
        If a tier is not a :class:`Carrier`.
    ValueError
        If the tiers hold different dtypes, the secondary is intrinsically immutable,
        is not empty, or its kind cannot replace its storage in one move.
    RuntimeError
        If a tier is released or already owned, or the same carrier is passed twice.
        On every error nothing is claimed: both carriers stay as they were.

    Notes
    -----
    Implements CONTRACT section 4 "Evictable(primary, secondary)" and the Evictable
    clauses of the carrier-storage spec:

    * **Claim.** Both tiers are claimed at construction, all or nothing. The
      caller's own references (aliases) then report ``is_owned() == True`` and
      ``is_mutable() == False``; their writes, scatter, version steps, ``resize`` and
      ``release()`` raise ``RuntimeError`` naming the Evictable.
    * **Residency.** :meth:`evict` loads the values into the secondary, verifies
      them, then releases the primary, so its memory really goes back (once no
      exported NumPy view holds it). :meth:`promote` builds a *new* primary with
      ``primary.new_like(values)`` and claims it, then returns the secondary to size
      zero. The caller's alias of an evicted primary stays released and owned for
      good; the current primary is reachable only through the wrapper.
    * **Transparent promotion.** Element reads, writes, scatter, iteration and
      ``numpy.asarray(e)`` on an evicted wrapper promote first (so an exported
      view is always of the primary and sees later writes, as for every carrier);
      ``size()``, ``len``, ``dtype()``, ``repr`` and the support queries never
      change residency.
    * **Version authority.** ``version`` is the wrapper's own: +1 per successful
      public mutation (``set_value``, indexed assignment, ``scatter``), unchanged
      by :meth:`evict`, :meth:`promote`, construction and ``release()``. The tiers'
      own counters are internal and not meaningful to users.
    * **Release.** ``release()`` releases both tiers (through the access scope);
      :meth:`evict`/:meth:`promote` raise ``RuntimeError`` afterwards.
    * **Dtype support.** ``supports_storage_dtype`` is the identity intersection of
      the tiers' answers; factories accept the intersection of the tiers'
      constructible sets.
    """

    _primary: Carrier
    _secondary: Carrier
    _evicted: bool
    _logical: int

    #: The kind's declaration: an Evictable is never a secondary itself. Each instance
    #: replaces it with the record derived from its primary tier (in ``__init__``).
    capabilities: Capabilities = Capabilities(
        scatter=ScatterSupport.HOST, secondary=False, exports_views=True, host_addressable=True
    )

    def __init__(self, primary: Carrier, secondary: Carrier) -> None:
        for role, tier in (("primary", primary), ("secondary", secondary)):
            if not isinstance(tier, Carrier):
                raise TypeError(_messages.tier_not_a_carrier(role, tier))

        def check() -> None:  # under both tiers' locks: the claim is atomic
            if primary is not secondary and not secondary._released:
                self._check_secondary(secondary, primary)

        dtype = primary._dtype
        Carrier._claim_all(self, (primary, secondary), dtype=dtype, check=check)
        self._primary = primary
        self._secondary = secondary
        self._evicted = False
        self._logical = primary._slots
        declared = type(primary).capabilities
        self.capabilities = Capabilities(
            scatter=declared.scatter,
            secondary=False,
            exports_views=declared.exports_views,
            host_addressable=declared.host_addressable,
        )
        self._init_carrier(dtype, mutable=primary._intrinsic_mutable)

    @staticmethod
    def _check_secondary(secondary: Carrier, primary: Carrier) -> None:
        """Refuse a secondary that could not hold the values later (``ValueError``)."""
        if secondary._dtype is not primary._dtype:
            raise ValueError(_messages.secondary_refused(secondary, "dtype", primary=primary))
        if not secondary._intrinsic_mutable:
            raise ValueError(_messages.secondary_refused(secondary, "immutable"))
        if secondary._slots:
            raise ValueError(_messages.secondary_refused(secondary, "not empty"))
        if not type(secondary).capabilities.secondary:
            raise ValueError(_messages.secondary_refused(secondary, "kind"))

    # -- the tiers and residency ----------------------------------------------------------

    @property
    def primary(self) -> Carrier:
        """The current primary tier (owned; after an eviction, the released one)."""
        return self._primary

    @property
    def secondary(self) -> Carrier:
        """The secondary tier: the carrier passed at construction (owned)."""
        return self._secondary

    def is_evicted(self) -> bool:
        """Return the residency: ``True`` when the values live in the secondary tier.

        Returns
        -------
        bool
            ``False`` when promoted (values in the primary; the secondary has size
            0), ``True`` when evicted (values in the secondary; the primary released).
            A released wrapper reports the residency it had when released.
        """
        return self._evicted

    def _require_transition(self, action: str) -> None:
        """Raise ``RuntimeError`` unless a residency move is allowed now (for this thread)."""
        if self._released:
            raise RuntimeError(
                f"cannot {action} {self!r}: it is released, and a released Evictable makes "
                f"no residency transitions. Build a fresh one with new_like(values)."
            )
        if not self._admitted():
            raise RuntimeError(
                _messages.not_writable(self, action, intrinsic=True, owner=self._owner)
            )

    def evict(self) -> None:
        """Move the values to the secondary tier and release the primary's storage.

        Idempotent (a no-op when already evicted); ``version`` never changes. The
        values (``size()`` elements, ``4 * size()`` bytes for Float32) are loaded
        into the secondary in one move, read back and compared bit for bit, and only
        then is the primary released, so its memory goes back to the system (once
        no exported NumPy view of it remains).

        Raises
        ------
        RuntimeError
            If the wrapper is released, or owned by a composite outside its scope;
            or if the secondary did not read back the values it was given.
        OSError
            If the secondary cannot be provisioned (e.g. a full disk or an
            unwritable directory for FileBacked).

        Notes
        -----
        On any error the wrapper stays promoted with every value and its version
        intact, and the secondary is back at size 0.
        """
        with self._move("evict", guard=False):
            self._require_transition("evict")
            if not self._evicted:
                self._evict()

    def _evict(self) -> None:
        """Evict a promoted wrapper (under its lock, fast path closed, guard passed).

        Writers that read the gate before the move may still land in the primary
        after the copy; they see the gate replaced and write again (under the lock,
        after the eviction, paging in), so the read-back check tolerates them: on a
        mismatch it loads once more from a private snapshot, and only a second
        mismatch (faulty storage) fails.
        """
        primary, secondary = self._primary, self._secondary
        values = original = primary._raw_array()
        with secondary._access(self):
            try:
                secondary._load(values, action="evict into")
                if not _same_values(values, secondary._raw_array()):
                    values = np.array(values, copy=True)  # racing writers redo theirs
                    secondary._load(values, action="evict into")
                    if not _same_values(values, secondary._raw_array()):
                        raise RuntimeError(
                            f"evict: {secondary!r} did not read back the {values.shape[0]} "
                            f"values written to it; nothing was moved and the values stay "
                            f"in the primary tier. The secondary's storage is faulty."
                        )
            except BaseException:
                self._empty_secondary(values[:0])
                raise
            # Commit first, then let the primary go: a fork in between leaves a
            # consistent (evicted) wrapper in the child. Exported views keep the
            # released buffer alive: retained_nbytes() tells.
            self._evicted_buffer = weakref.ref(original)
            self._evicted = True
            self._bind_backend()
            with primary._access(self):
                primary.release()

    _evicted_buffer: weakref.ref[npt.NDArray[Any]] | None = None

    def retained_nbytes(self) -> int:
        """Return how many bytes of the last evicted primary's storage are still in memory.

        ``evict()`` releases the primary's storage, but a NumPy view, DLPack capsule
        or buffer exported from it earlier keeps that buffer alive (it stays valid),
        so the memory goes back to the system only when the last export goes. Drop
        the exports (``del view``) to free it.

        Returns
        -------
        int
            ``0`` when nothing exported holds the last evicted buffer (or nothing was
            evicted, or the primary's exports are copies, as Metal's are); else its
            size in bytes.
        """
        ref = self._evicted_buffer
        buffer = ref() if ref is not None else None
        return 0 if buffer is None else int(buffer.nbytes)

    def promote(self) -> None:
        """Bring the values back into a new primary tier; the secondary returns to size 0.

        Idempotent (a no-op when promoted); ``version`` never changes. The new
        primary comes from the primary tier's value factory
        ``primary.new_like(values)`` (same kind, the wrapper's intrinsic
        mutability) and is claimed by the wrapper; the released original stays
        owned. Only then is the secondary shrunk to size 0.

        Raises
        ------
        RuntimeError
            If the wrapper is released, or owned by a composite outside its scope.
        MemoryError, OSError
            If the primary's factory cannot build the new tier; the wrapper then
            stays evicted with its values in the secondary.
        """
        with self._move("promote", guard=False):
            self._require_transition("promote")
            if self._evicted:
                self._promote_locked()

    def _promote(self) -> None:
        """Promote without the ownership guard (a no-op when promoted); takes the lock."""
        with self._move("promote", guard=False):
            if self._released:  # a release won the race for the lock
                self._require_transition("promote")
            if self._evicted:
                self._promote_locked()

    def _promote_locked(self) -> None:
        secondary = self._secondary
        values = secondary._raw_array()
        fresh = self._primary.new_like(values, mutable=self._intrinsic_mutable)
        Carrier._claim_all(self, (fresh,))
        self._primary = fresh
        self._evicted = False
        self._bind_backend()
        with secondary._access(self):
            self._empty_secondary(values[:0])
        _Reaper.drop(values)

    def _empty_secondary(self, empty: npt.NDArray[Any]) -> None:
        """Return the secondary to size 0 (inside its access scope); never raises."""
        secondary = self._secondary
        if secondary._slots == 0 or secondary._released:
            return
        try:
            secondary._load(empty, action="shrink")
        except (OSError, MemoryError, RuntimeError) as exc:  # values are safe elsewhere
            warnings.warn(
                f"Evictable could not return {secondary!r} to size 0 ({exc}); its stale "
                f"copy stays until the next evict() or release().",
                ResourceWarning,
                stacklevel=3,
            )

    def _page_in(self, action: str) -> None:
        """Promote for an element access on an evicted wrapper (transparent paging).

        Called under the wrapper's lock (the hooks below and ``_PagingStore``).
        """
        if self._evicted:
            if self._released:
                self._require_transition(action)
            # Reads stay allowed for outside callers of an owned wrapper, and paging
            # in changes no value, so it needs no access scope; writes were already
            # refused by the caller's writability check.
            self._promote()

    # -- lifecycle hooks (called under the wrapper's lock) ------------------------------

    @override
    def _fast_path_open(self) -> bool:
        # The fast path writes into the primary's storage directly: it is open only
        # while the primary's own would be (closed for a FileBacked inherited by a
        # forked child until it copied its file).
        return not self._evicted and self._primary._fast_path_open()

    @override
    def _before_mutation(self, action: str) -> None:
        self._page_in(action)
        primary = self._primary
        if not primary._fast_path_open():
            # The write goes to the primary's storage: prepare it as a write to the
            # primary itself would (a FileBacked inherited through fork copies its
            # file first); its re-bound accessors reach us through _tier_changed.
            with primary._access(self):
                primary._before_mutation(action)
            self._refresh()

    @override
    def _refresh(self) -> None:
        if not self._released:
            # Re-bind first: a tier that re-bound on another thread during this
            # wrapper's move (without our lock) may have left a stale accessor.
            self._bind_backend()
        super()._refresh()

    @override
    def _tier_changed(self, tier: Any) -> None:
        # Called by the primary after it re-bound its accessors (a Metal host view
        # dropped for a recorded device read; a FileBacked copied after fork),
        # possibly holding its own lock on another thread: never wait for ours.
        if tier is not getattr(self, "_primary", None) or not hasattr(self, "_lock"):
            return  # (not the primary, or claimed but not yet set up: binds when it is)
        lock = self._locked()
        if lock.acquire(blocking=False):
            try:
                if tier is self._primary and not self._evicted and not self._released:
                    self._slot_store = tier._slot_store
            finally:
                lock.release()
        elif tier is self._primary and not self._evicted and not self._released:
            # Another thread holds our lock: a move it runs re-binds when it ends
            # (_refresh), so this store is only ever superseded, never left stale.
            self._slot_store = tier._slot_store

    @override
    def _before_read(self, action: str) -> None:
        self._page_in(action)

    # -- backend hooks ------------------------------------------------------------------

    @override
    def _bind_backend(self) -> None:
        self._slots = self._logical
        if self._evicted:
            self._slot_store = _PagingStore(self)
        else:  # the primary's own cached accessors: no extra call on the hot path
            self._slot_store = self._primary._slot_store

    @override
    def _raw_size(self) -> int:
        return self._logical

    @override
    def _raw_get(self, index: int) -> Any:
        with self._locked():
            self._page_in("read")
            return self._primary._raw_get(index)

    @override
    def _raw_set(self, index: int, value: Any) -> None:
        with self._locked():
            self._page_in("write")
            self._primary._raw_set(index, value)

    @override
    def _raw_array(self) -> npt.NDArray[Any]:
        tier = self._secondary if self._evicted else self._primary
        return tier._raw_array()

    @override
    def _raw_scatter(self, base: int, mapping: Layout, source: ScatterSource) -> None:
        # The template paged in already: lower to the primary tier (spec), whose own
        # backend path serves (a Metal primary takes device sources on the device).
        # A move of the wrapper too: a Metal primary writes into a new buffer, and the
        # wrapper's scalar fast path (bound to the primary's old view) must not write
        # into the old one meanwhile (such writes would be lost); its
        # writers see the gate replaced and write again under the lock.
        with self._move("scatter", guard=False):
            self._primary._raw_scatter(base, mapping, source)
            self._bind_backend()  # the primary may have re-bound its accessors (Metal)

    @override
    @classmethod
    def _availability(cls) -> tuple[bool, str]:
        return True, "two tiers: a primary of any kind over a secondary kind that may be one"

    @override
    def _backing(self) -> Carrier:
        return self._secondary if self._evicted else self._primary

    @override
    def __array__(
        self, dtype: npt.DTypeLike | None = None, copy: bool | None = None
    ) -> npt.NDArray[Any]:
        """Export to NumPy as the primary tier does, promoting an evicted wrapper first.

        The export is the primary tier's own: for a CPU, Generic or FileBacked
        primary a zero-copy read-only view, which sees later writes through the
        wrapper until the next :meth:`evict` (after which it keeps the values it had:
        the evicted primary's buffer lives on while the view does); for a Metal
        primary a read-only copy (see :class:`~stridewave.Metal`).

        Parameters
        ----------
        dtype : numpy dtype-like, optional
            Requested NumPy dtype, as for :meth:`Carrier.__array__`.
        copy : bool or None, optional
            As for :meth:`Carrier.__array__`.

        Returns
        -------
        numpy.ndarray
            The values, shape ``(size(),)``: a view or a copy as said above.

        Raises
        ------
        RuntimeError
            If the wrapper is released.
        ValueError
            If ``copy=False`` and the primary tier cannot give a view.
        OSError, MemoryError
            If the promotion fails; the wrapper then stays evicted, unchanged.
        """
        with self._locked():
            self._require_live("export to NumPy")
            self._page_in("export to NumPy")
            return self._primary.__array__(dtype, copy)

    @override
    def __iter__(self) -> Iterator[Any]:
        """Iterate over a snapshot of the values, promoting an evicted wrapper first."""
        return super().__iter__()  # pages in under the lock (_before_read)

    @override
    def _raw_release(self) -> None:
        for tier in (self._primary, self._secondary):
            if not tier._released:
                with tier._access(self):
                    tier.release()

    @override
    def _unbind_backend(self) -> None:
        super()._unbind_backend()
        self._logical = 0

    # -- dtype support and factories ------------------------------------------------------

    @override
    def _supported_storage_dtypes(self) -> tuple[DType, ...]:
        other = self._secondary._supported_storage_dtypes()
        return tuple(
            d for d in self._primary._supported_storage_dtypes() if any(d is o for o in other)
        )

    @override
    def _constructible_storage_dtypes(self) -> tuple[DType, ...]:
        other = self._secondary._constructible_storage_dtypes()
        return tuple(
            d for d in self._primary._constructible_storage_dtypes() if any(d is o for o in other)
        )

    @override
    def _raw_new_like(self, values: object, *, mutable: bool, dtype: DType) -> Self:
        primary = self._primary.new_like(values, mutable=mutable, dtype=dtype)
        secondary = self._secondary.allocate_like(0, mutable=True, dtype=dtype)
        return type(self)(primary, secondary)

    @override
    def _raw_allocate_like(self, size: int, *, mutable: bool, dtype: DType, empty: bool) -> Self:
        primary = self._primary.allocate_like(size, mutable=mutable, dtype=dtype, empty=empty)
        secondary = self._secondary.allocate_like(0, mutable=True, dtype=dtype)
        return type(self)(primary, secondary)

    # -- pickling -------------------------------------------------------------------------

    @override
    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        """Pickle as an independent, promoted Evictable with the same tier kinds.

        The values are copied from whichever tier holds them (no promotion). In the
        receiving process the primary is rebuilt by the primary kind's value factory
        and the secondary is a fresh, empty, mutable allocation of the secondary kind,
        as :meth:`new_like` builds them; ownership and ``version`` are not carried
        over.

        Parameters
        ----------
        protocol : int
            The pickle protocol (every protocol gets the same recipe).

        Returns
        -------
        tuple
            ``(rebuild, (primary spec, secondary kind, values, dtype, mutable))``; the
            primary spec is the primary's kind, or for a nested Evictable the tuple
            ``("Evictable", its primary spec, its secondary kind)``.

        Raises
        ------
        RuntimeError
            If the wrapper is released.
        """
        values = self._snapshot("pickle the values")
        return (
            _rebuild_evictable,
            (
                _tier_spec(self._primary),
                type(self._secondary),
                values,
                self._dtype,
                self._intrinsic_mutable,
            ),
        )

    # -- presentation ---------------------------------------------------------------------

    @override
    def _state_words(self) -> list[str]:
        words = super()._state_words()
        words.append("evicted" if self._evicted else "promoted")
        return words

    @override
    def __repr__(self) -> str:
        """Name the dtype, logical size, state, residency and tier kinds.

        E.g. ``Evictable(DType.Float32, size=8, live, evicted; CPU over FileBacked)``.
        """
        return (
            f"Evictable({_messages.dtype_text(self._dtype)}, size={self._slots}, "
            f"{', '.join(self._state_words())}; {type(self._primary).__name__} over "
            f"{type(self._secondary).__name__})"
        )


def _tier_spec(tier: Carrier) -> object:
    """Return what rebuilds ``tier``'s kind: its class, or a nested Evictable's recipe."""
    if isinstance(tier, Evictable):
        return ("Evictable", _tier_spec(tier._primary), type(tier._secondary))
    return type(tier)


def _build_tier(spec: object, values: npt.NDArray[Any], dtype: DType, mutable: bool) -> Carrier:
    """Build a primary tier from its pickled spec (validated first: ``ValueError``)."""
    if isinstance(spec, tuple):
        if len(spec) != 3 or spec[0] != "Evictable":
            raise _unpickle_error("primary tier", spec, "a carrier kind or a nested Evictable")
        return _rebuild_evictable(spec[1], spec[2], values, dtype, mutable)
    check_pickled(spec, values, dtype, mutable)
    assert isinstance(spec, type)  # checked above
    assert issubclass(spec, Carrier)
    built: Carrier = spec._unpickling_prototype()._raw_new_like(
        values, mutable=mutable, dtype=dtype
    )
    return built


def _rebuild_evictable(
    primary_spec: object,
    secondary_kind: object,
    values: npt.NDArray[Any],
    dtype: DType,
    mutable: bool,
) -> Evictable:
    """Unpickle an Evictable: a fresh promoted pair of the recorded tier kinds.

    Every part is validated before anything is built, and the pair goes through the
    constructor's own checks: ``ValueError`` for anything a pickle made by
    :meth:`Evictable.__reduce_ex__` cannot hold.
    """
    check_pickled(secondary_kind, values, dtype, True, composite=True)
    assert isinstance(secondary_kind, type)  # checked above
    assert issubclass(secondary_kind, Carrier)
    if secondary_kind._raw_load is Carrier._raw_load or issubclass(secondary_kind, Evictable):
        raise _unpickle_error("secondary tier", secondary_kind, "CPU, Generic or FileBacked")
    primary = _build_tier(primary_spec, values, dtype, mutable)
    secondary = secondary_kind._unpickling_prototype()._raw_allocate_like(
        0, mutable=True, dtype=dtype, empty=False
    )
    try:
        return Evictable(primary, secondary)
    except (TypeError, RuntimeError) as exc:
        raise _unpickle_error(
            "tier pair", (primary, secondary), f"a valid Evictable ({exc})"
        ) from None
