"""The shared lifecycle mixin: version, mutability, ownership, scope, release, and the lock.

`_Lifecycle` is the only place that decides whether a public write, a move (a resize,
a residency step, an adoption after fork) or a release is allowed, and the only place
that holds a carrier's lock (with the composition code in ``_evictable``). The model
is written down in ``docs/threads-and-processes.md``; in short:

* **One re-entrant lock per carrier** (``_lock``, reached through ``_locked()``, which
  replaces it with a fresh one in a forked child). It serializes every *state change*:
  release, moves (``_move``), claiming, opening the owner's access scope, bulk writes
  (``_mutation``) and the slow scalar paths. Lock order: a composite before its tiers;
  two unrelated carriers are never locked together except by ``_claim_all``, which
  takes them in ``id()`` order.
* **The scalar fast path takes no lock.** It reads the *gate* ``_gate``: ``None``
  while the fast path is closed (immutable, released, owned, a move in progress, an
  evicted Evictable, a FileBacked inherited through fork), else a token object that
  every state change replaces. A writer reads the gate before the write and checks it
  is the same object afterwards; if not, a move overlapped the write, and it writes
  again under the lock (``_set_slow``) so that no acknowledged write is lost.
* **Ownership is per thread.** The owner's access scope admits only the thread that
  opened it, and holds the tier's lock while open.

Hook for subclasses: call ``_init_lifecycle(mutable=...)`` once, at the end of
construction, after every validation and allocation succeeded; override
``_fast_path_open()`` to close the fast path for a kind-specific state, and
``_before_mutation()`` for work a mutation or move needs first (adopting inherited
storage, paging in).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from types import TracebackType
from typing import Any, NoReturn

from stridewave.carriers import _messages

__all__ = ["_AccessScope", "_Lifecycle", "_Mutation", "_OwnerRef", "fork_epoch"]

_get_ident = threading.get_ident

#: Incremented in every forked child (``os.register_at_fork``): a carrier whose
#: ``_lock_epoch`` differs replaces its lock (possibly inherited held) on next use.
_epoch = [0]


def fork_epoch() -> int:
    """Return how many forks separate this process from the first import (0 in the parent)."""
    return _epoch[0]


def _after_fork_in_child() -> None:
    _epoch[0] += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class _Mutation:
    """Context manager for one bulk mutation: lock, guard, prepare; one version step on success."""

    __slots__ = ("_action", "_lock", "_target")

    def __init__(self, target: _Lifecycle, action: str) -> None:
        self._target = target
        self._action = action
        self._lock = target._locked()

    def __enter__(self) -> None:
        self._lock.acquire()
        try:
            target = self._target
            target._require_admitted(self._action)
            target._before_mutation(self._action)
        except BaseException:
            self._lock.release()
            raise

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None:
                self._target._version += 1
        finally:
            self._lock.release()


class _AccessScope:
    """The owner's access scope over one claimed carrier (re-entrant, one thread).

    Entering takes the carrier's lock and admits the entering thread until the
    outermost exit; other threads calling through an alias are refused meanwhile.
    """

    __slots__ = ("_lock", "_target")

    def __init__(self, target: _Lifecycle) -> None:
        self._target = target
        self._lock = target._locked()

    def __enter__(self) -> None:
        self._lock.acquire()
        target = self._target
        target._scope_depth += 1
        target._scope_thread = _get_ident()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        target = self._target
        try:
            target._scope_depth -= 1
            if target._scope_depth <= 0:
                target._scope_depth = 0
                target._scope_thread = None
        finally:
            self._lock.release()


class _OwnerRef:
    """A carrier's owner, held weakly.

    The owner holds its tiers strongly; a strong reference back would make every
    composite a reference cycle whose buffers wait for the cyclic garbage collector.
    Ownership itself is never given back implicitly: a tier whose owner is gone still
    reports ``is_owned()``.
    """

    __slots__ = ("_ref", "owner_kind")

    def __init__(self, owner: object) -> None:
        self._ref = weakref.ref(owner)
        self.owner_kind = type(owner).__name__

    def target(self) -> object | None:
        """Return the owner, or None once it no longer exists."""
        return self._ref()

    def __repr__(self) -> str:
        owner = self._ref()
        return repr(owner) if owner is not None else f"<{self.owner_kind}, no longer alive>"


class _Lifecycle:
    """Version counter, intrinsic mutability, exclusive owner, access scope, release flag.

    State (all private; read it through the public queries). Every field below is
    changed only while holding ``_lock``, except ``_version``, which the lock-free
    scalar path steps (see the module notes and docs/threads-and-processes.md):

    ``_version`` : int
        Visible version, starts at 0, +1 per successful public value mutation.
    ``_intrinsic_mutable`` : bool
        The ``mutable=`` the carrier was built with; never changes.
    ``_owner`` : _OwnerRef or None
        The composite that claimed this carrier, if any.
    ``_scope_depth``, ``_scope_thread`` : int, int or None
        How deep the owner's access scope is open, and by which thread.
    ``_released`` : bool
        Terminal: storage is gone.
    ``_moving``, ``_mover`` : int, int or None
        Depth of the move in progress, and the thread running it.
    ``_gate`` : object or None
        The scalar fast path's gate (see the module notes).
    ``_lock``, ``_lock_epoch`` : RLock, int
        The carrier's lock and the fork epoch it was made in.
    """

    _version: int
    _intrinsic_mutable: bool
    _owner: _OwnerRef | None
    _scope_depth: int
    _scope_thread: int | None
    _released: bool
    _moving: int
    _mover: int | None
    _gate: object | None
    _lock: threading.RLock
    _lock_epoch: int

    def _init_lifecycle(self, *, mutable: bool) -> None:
        self._lock = threading.RLock()
        self._lock_epoch = _epoch[0]
        self._version = 0
        self._intrinsic_mutable = mutable
        self._owner = None
        self._scope_depth = 0
        self._scope_thread = None
        self._released = False
        self._moving = 0
        self._mover = None
        self._gate = None
        self._refresh()

    # -- the lock and the gate ---------------------------------------------------------

    def _locked(self) -> threading.RLock:
        """Return the carrier's lock, replaced by a fresh one after a fork.

        A lock inherited by a forked child may be held by a thread that does not
        exist there; the child starts over with a free lock, drops the scope and the
        move of threads that are gone, and recomputes the gate.
        """
        if self._lock_epoch != _epoch[0]:
            self._lock = threading.RLock()
            self._lock_epoch = _epoch[0]
            me = _get_ident()
            if self._scope_thread is not None and self._scope_thread != me:
                self._scope_depth = 0
                self._scope_thread = None
            if self._mover is not None and self._mover != me:
                self._moving = 0
                self._mover = None
            self._after_fork()
            self._refresh()
        return self._lock

    def _after_fork(self) -> None:
        """Repair kind-specific state in a forked child, under the fresh lock (a hook)."""

    def _close_fast_path(self) -> None:
        """Close the scalar fast path here and in every owner above, without locks.

        For a forked child (single-threaded then): a kind whose storage the child must
        not write in place (an inherited FileBacked) closes its gate, and so does each
        composite that claimed it, since a composite's fast path writes into its
        tier's storage directly. Each then takes the locked path, whose
        ``_before_mutation`` prepares the tier (copies it) first.
        """
        carrier: _Lifecycle | None = self
        while carrier is not None:
            carrier._gate = None
            owner = carrier._owner
            target = owner.target() if owner is not None else None
            carrier = target if isinstance(target, _Lifecycle) else None

    def _tell_owner(self) -> None:
        """Tell the composite that claimed this carrier that its accessors changed.

        Called after every ``_bind_backend`` (``Carrier`` wraps each kind's), so a
        composite that caches this tier's scalar accessor never keeps a stale one.
        """
        owner = self._owner
        target = owner.target() if owner is not None else None
        if isinstance(target, _Lifecycle):
            target._tier_changed(self)

    def _tier_changed(self, tier: _Lifecycle) -> None:
        """React to a claimed tier re-binding its scalar accessors (a hook for composites).

        May be called on any thread, holding the tier's lock (so it must not wait
        for this carrier's lock: the lock order is the composite's first).
        """

    def _fast_path_open(self) -> bool:
        """Return whether the kind lets the lock-free scalar path run now (a hook)."""
        return True

    def _before_mutation(self, action: str) -> None:
        """Prepare a mutation or move, under the lock (a hook: adopt, page in)."""

    def _refresh(self) -> None:
        """Recompute the gate after a state change (a new token even when it stays open)."""
        if (
            self._intrinsic_mutable
            and not self._released
            and self._owner is None
            and not self._moving
            and self._fast_path_open()
        ):
            self._gate = object()
        else:
            self._gate = None

    def _admitted(self) -> bool:
        """Whether the calling thread may write or move now (unowned or in the scope)."""
        owner = self._owner
        return owner is None or (self._scope_depth > 0 and self._scope_thread == _get_ident())

    # -- public queries --------------------------------------------------------------

    @property
    def version(self) -> int:
        """Non-negative monotonic count of successful public value mutations.

        A read-only property (spec: "version SHALL expose a non-negative monotonic
        integer"). Each successful ``set_value``/indexed assignment adds exactly one; a
        scatter adds at least one. Construction, allocation, ``resize``, ``release``
        and residency moves never change it; a refused write leaves it unchanged.
        """
        return self._version

    def is_mutable(self) -> bool:
        """Return whether public interfaces may modify the carrier right now.

        Returns
        -------
        bool
            ``False`` when the carrier was built with ``mutable=False``, when it is
            released, or while another carrier owns it (except for the thread running
            the owner's operation inside its access scope); ``True`` otherwise. Every
            public write path consults this answer. A move in progress on another
            thread does not make it ``False``: writes then wait for the move.
        """
        return self._intrinsic_mutable and not self._released and self._admitted()

    def is_owned(self) -> bool:
        """Return whether a composite carrier holds exclusive ownership of this one.

        Returns
        -------
        bool
            ``True`` from a successful claim on; ownership is never given back
            implicitly (releasing an owned carrier keeps it owned).
        """
        return self._owner is not None

    def is_released(self) -> bool:
        """Return whether ``release()`` has completed (``False`` before, ``True`` after).

        Returns
        -------
        bool
            The terminal released state.
        """
        return self._released

    # -- guards (verbs that raise) --------------------------------------------------

    def _refuse(self, action: str) -> NoReturn:
        """Raise the ``RuntimeError`` explaining why ``action`` may not write now."""
        if self._released:
            raise RuntimeError(_messages.released(self, action))
        raise RuntimeError(
            _messages.not_writable(
                self, action, intrinsic=self._intrinsic_mutable, owner=self._owner
            )
        )

    def _require_live(self, action: str) -> None:
        """Raise ``RuntimeError`` if the carrier is released."""
        if self._released:
            raise RuntimeError(_messages.released(self, action))

    def _require_admitted(self, action: str) -> None:
        """Raise ``RuntimeError`` unless this thread may write or move now (is_mutable)."""
        if not (self._intrinsic_mutable and not self._released and self._admitted()):
            self._refuse(action)

    # Kept for callers written before the lock model: the same guard.
    _require_writable = _require_admitted

    def _require_releasable(self) -> None:
        """Raise ``RuntimeError`` if an owner holds this carrier outside its scope.

        Immutability does not pin storage (CONTRACT section 3): only ownership refuses
        (and only for threads other than the one in the owner's scope).
        """
        if not self._admitted():
            raise RuntimeError(_messages.owned_release(self, self._owner))

    # -- mutation and state steps ---------------------------------------------------

    def _mutation(self, action: str) -> _Mutation:
        """Return a guard for one bulk mutation (scatter and the like).

        ``with self._mutation("scatter"): ...`` takes the lock, raises the refusal on
        entry, runs ``_before_mutation``, runs the body (validate everything first,
        then write), and advances ``version`` by one when the body returns normally;
        an exception leaves the version unchanged.
        """
        return _Mutation(self, action)

    @contextmanager
    def _move(self, action: str, *, guard: bool = True) -> Iterator[None]:
        """Hold the lock and close the scalar fast path for one move of the storage.

        Parameters
        ----------
        action : str
            Verb for messages (``"resize"``, ``"evict"``...).
        guard : bool, optional
            Check first that this thread may write or move (``_require_admitted``)
            and run ``_before_mutation``; ``False`` for callers that guard themselves.

        Writers that read the gate before the move see it replaced afterwards and
        write again under the lock, into the storage the move left behind.
        """
        lock = self._locked()
        with lock:
            if guard:
                self._require_admitted(action)
                self._before_mutation(action)
            outer = self._moving == 0
            self._moving += 1
            self._mover = _get_ident()
            self._gate = None
            try:
                yield
            finally:
                self._moving -= 1
                if outer:
                    self._moving = 0
                    self._mover = None
                self._refresh()

    def _advance_version(self, action: str) -> None:
        """Step the version once, as a public mutation would (guarded like a write)."""
        with self._locked():
            self._require_admitted(action)
            self._version += 1

    def _mark_released(self) -> None:
        """Enter the terminal released state (call after the backend let go)."""
        self._released = True
        self._refresh()

    # -- ownership ------------------------------------------------------------------

    @staticmethod
    def _claim_all(
        owner: object,
        carriers: Iterable[_Lifecycle],
        *,
        dtype: object = None,
        check: Any = None,
    ) -> None:
        """Give ``owner`` exclusive ownership of every carrier, or of none (atomically).

        Every carrier's lock is taken (in ``id()`` order, so two claims never
        deadlock) before any is checked, so of two threads claiming one carrier
        exactly one wins.

        Parameters
        ----------
        owner : object
            The composite carrier taking ownership.
        carriers : iterable of _Lifecycle
            The tiers to claim; checked all before any is claimed.
        dtype : DType or None, optional
            When given, every carrier must hold exactly this storage dtype.
        check : callable or None, optional
            Called with no argument under the locks, before the common checks; it
            raises to refuse the claim (e.g. Evictable's secondary checks).

        Raises
        ------
        TypeError
            If an item is not a carrier.
        RuntimeError
            If a carrier is released, already owned, or listed twice.
        ValueError
            If a carrier's dtype is not ``dtype``. Nothing is claimed on any error.
        """
        batch = list(carriers)
        for carrier in batch:
            if not isinstance(carrier, _Lifecycle):
                raise TypeError(
                    f"cannot claim {carrier!r}: expected a stridewave Carrier, got "
                    f"{type(carrier).__name__}. Nothing was claimed."
                )
        with ExitStack() as stack:
            for carrier in sorted({id(c): c for c in batch}.values(), key=id):
                stack.enter_context(carrier._locked())
            if check is not None:
                check()
            seen: set[int] = set()
            for carrier in batch:
                if carrier._released:
                    raise RuntimeError(_messages.claim_refused(carrier, "it is released"))
                if carrier._owner is not None:
                    raise RuntimeError(
                        _messages.claim_refused(
                            carrier, f"it already belongs to {carrier._owner.owner_kind}"
                        )
                    )
                held = getattr(carrier, "_dtype", None)
                if dtype is not None and held is not dtype:
                    raise ValueError(
                        _messages.claim_refused(
                            carrier,
                            f"it holds {_messages.dtype_text(held)}, "
                            f"not {_messages.dtype_text(dtype)}",
                        )
                    )
                if id(carrier) in seen:
                    raise RuntimeError(_messages.claim_refused(carrier, "it is listed twice"))
                seen.add(id(carrier))
            for carrier in batch:
                carrier._owner = _OwnerRef(owner)
                carrier._scope_depth = 0
                carrier._scope_thread = None
                carrier._refresh()

    def _unclaim(self, owner: object) -> None:
        """Give up ownership (only the current owner may); the carrier is outside again."""
        with self._locked():
            if self._owner is None or self._owner.target() is not owner:
                raise RuntimeError(_messages.not_owner(self, owner))
            self._owner = None
            self._scope_depth = 0
            self._scope_thread = None
            self._refresh()

    def _access(self, owner: object) -> _AccessScope:
        """Return the owner's access scope: writes, moves and release allowed inside.

        The scope admits only the thread that enters it, and holds the carrier's
        lock while open (lock order: the owner's lock first, then the tier's).

        Raises
        ------
        RuntimeError
            If ``owner`` is not this carrier's owner.
        """
        if owner is None or self._owner is None or self._owner.target() is not owner:
            raise RuntimeError(_messages.not_owner(self, owner))
        return _AccessScope(self)

    def _state_words(self) -> list[str]:
        """Words for ``repr``: live/released, immutable, owned (subclasses may extend)."""
        words = ["released" if self._released else "live"]
        if not self._intrinsic_mutable:
            words.append("immutable")
        if self._owner is not None:
            words.append("owned")
        return words
