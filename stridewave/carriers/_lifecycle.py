"""The shared lifecycle mixin: version, intrinsic mutability, ownership, scope, release.

`_Lifecycle` is the only place that decides whether a public write, a move (a resize
or an eviction step) or a release is allowed. Every carrier inherits it, and every
public write path in :mod:`stridewave.carriers._base` goes through one of its guards:

* the scalar hot path (``set_value``/``__setitem__``) reads one cached flag,
  ``_writable``, then calls ``_refuse`` only when it is false, and steps ``_version``
  after the backend write returns;
* bulk writes (scatter) use ``with self._mutation("scatter"):`` which checks on entry
  and advances the version once, only when the body did not raise;
* moves use ``_require_writable``; ``release`` uses ``_require_releasable``.

Ownership (CONTRACT section 4): a composite carrier (Evictable) claims its tiers with
``_Lifecycle._claim_all(owner, tiers)``, all or nothing. While owned a tier refuses
every outside write, move, version step and release; the owner opens
``with tier._access(owner):`` to do those itself. The scope is a plain counter, so it
nests and is cheap; it does not tell threads apart (the owner's code runs in it).

Hook for subclasses: call ``_init_lifecycle(mutable=...)`` once, at the end of
construction, after every validation and allocation succeeded.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from types import TracebackType
from typing import NoReturn

from stridewave.carriers import _messages

__all__ = ["_AccessScope", "_Lifecycle", "_Mutation", "_OwnerRef"]


class _Mutation:
    """Context manager for one bulk mutation: guard on entry, one version step on success."""

    __slots__ = ("_action", "_target")

    def __init__(self, target: _Lifecycle, action: str) -> None:
        self._target = target
        self._action = action

    def __enter__(self) -> None:
        target = self._target
        if not target._writable:
            target._refuse(self._action)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self._target._version += 1


class _AccessScope:
    """The owner's access scope over one claimed carrier (re-entrant)."""

    __slots__ = ("_target",)

    def __init__(self, target: _Lifecycle) -> None:
        self._target = target

    def __enter__(self) -> None:
        target = self._target
        target._scope_depth += 1
        target._refresh()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        target = self._target
        target._scope_depth -= 1
        target._refresh()


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

    State (all private; read it through the public queries):

    ``_version`` : int
        Visible version, starts at 0, +1 per successful public value mutation.
    ``_intrinsic_mutable`` : bool
        The ``mutable=`` the carrier was built with; never changes.
    ``_owner`` : _OwnerRef or None
        The composite that claimed this carrier, if any.
    ``_scope_depth`` : int
        How many access scopes the owner holds open right now.
    ``_released`` : bool
        Terminal: storage is gone.
    ``_writable`` : bool
        Cached ``is_mutable()``: intrinsic, live, and unowned or inside the owner's
        scope. Recomputed by ``_refresh`` on every state change so that the scalar
        write path costs one attribute read.
    """

    _version: int
    _intrinsic_mutable: bool
    _owner: _OwnerRef | None
    _scope_depth: int
    _released: bool
    _writable: bool

    def _init_lifecycle(self, *, mutable: bool) -> None:
        self._version = 0
        self._intrinsic_mutable = mutable
        self._owner = None
        self._scope_depth = 0
        self._released = False
        self._writable = mutable

    def _refresh(self) -> None:
        self._writable = (
            self._intrinsic_mutable
            and not self._released
            and (self._owner is None or self._scope_depth > 0)
        )

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
            released, or while another carrier owns it outside the owner's access
            scope; ``True`` otherwise. Every public write path consults this answer.
        """
        return self._writable

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

    def _require_writable(self, action: str) -> None:
        """Raise ``RuntimeError`` unless a write or move is allowed now (see is_mutable)."""
        if not self._writable:
            self._refuse(action)

    def _require_releasable(self) -> None:
        """Raise ``RuntimeError`` if an owner holds this carrier outside its scope.

        Immutability does not pin storage (CONTRACT section 3): only ownership refuses.
        """
        if self._owner is not None and self._scope_depth == 0:
            raise RuntimeError(_messages.owned_release(self, self._owner))

    # -- mutation and state steps ---------------------------------------------------

    def _mutation(self, action: str) -> _Mutation:
        """Return a guard for one bulk mutation (scatter and the like).

        ``with self._mutation("scatter"): ...`` raises the refusal on entry, runs the
        body (validate everything first, then write), and advances ``version`` by one
        when the body returns normally; an exception leaves the version unchanged.
        """
        return _Mutation(self, action)

    def _advance_version(self, action: str) -> None:
        """Step the version once, as a public mutation would (guarded like a write)."""
        if not self._writable:
            self._refuse(action)
        self._version += 1

    def _mark_released(self) -> None:
        """Enter the terminal released state (call after the backend let go)."""
        self._released = True
        self._refresh()

    # -- ownership ------------------------------------------------------------------

    @staticmethod
    def _claim_all(owner: object, carriers: Iterable[_Lifecycle], *, dtype: object = None) -> None:
        """Give ``owner`` exclusive ownership of every carrier, or of none.

        Parameters
        ----------
        owner : object
            The composite carrier taking ownership.
        carriers : iterable of _Lifecycle
            The tiers to claim; checked all before any is claimed.
        dtype : DType or None, optional
            When given, every carrier must hold exactly this storage dtype.

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
        seen: set[int] = set()
        for carrier in batch:
            if not isinstance(carrier, _Lifecycle):
                raise TypeError(
                    f"cannot claim {carrier!r}: expected a stridewave Carrier, got "
                    f"{type(carrier).__name__}. Nothing was claimed."
                )
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
                        f"it holds {_messages.dtype_text(held)}, not {_messages.dtype_text(dtype)}",
                    )
                )
            if id(carrier) in seen:
                raise RuntimeError(_messages.claim_refused(carrier, "it is listed twice"))
            seen.add(id(carrier))
        for carrier in batch:
            carrier._owner = _OwnerRef(owner)
            carrier._scope_depth = 0
            carrier._refresh()

    def _unclaim(self, owner: object) -> None:
        """Give up ownership (only the current owner may); the carrier is outside again."""
        if self._owner is None or self._owner.target() is not owner:
            raise RuntimeError(_messages.not_owner(self, owner))
        self._owner = None
        self._scope_depth = 0
        self._refresh()

    def _access(self, owner: object) -> _AccessScope:
        """Return the owner's access scope: writes, moves and release allowed inside.

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
