"""Ownership mechanics of the lifecycle mixin (CONTRACT section 4), tested directly.

Evictable is built on these: claim several tiers all or nothing, open the owner's
access scope to write, move and release them, step versions through the guard.
"""

from __future__ import annotations

import os
import signal
import threading
import traceback
from collections.abc import Callable

import numpy as np
import pytest

from stridewave import CPU, Carrier, DType
from stridewave.carriers import _lifecycle
from stridewave.carriers._lifecycle import fork_epoch

from .conftest import Kind

F32 = DType.Float32

#: The released message's own words; ``match="released"`` alone would also be
#: satisfied by the carrier's repr (``CPU(..., released)``) inside any other message.
RELEASED = "storage was released"


class Owner:
    """Stands in for a composite carrier."""


def _claim(owner: object, *carriers: Carrier) -> None:
    Carrier._claim_all(owner, carriers)


def test_query_an_owned_mutable_tier(kind: Kind) -> None:
    tier = kind.make([1.0, 2.0], F32, True)
    owner = Owner()
    _claim(owner, tier)
    assert tier.is_owned() is True
    assert tier.is_mutable() is False
    assert "owned" in repr(tier)


def test_owned_tier_refuses_outside_writes_release_and_version_steps(kind: Kind) -> None:
    tier = kind.make([1.0, 2.0], F32, True)
    owner = Owner()  # kept alive: tiers hold their owner weakly
    _claim(owner, tier)
    actions: tuple[Callable[[], object], ...] = (
        lambda: tier.__setitem__(0, 5.0),
        lambda: tier.set_value(0, 5.0),
        lambda: tier._advance_version("version step"),
    )
    for action in actions:
        with pytest.raises(RuntimeError, match="belongs to Owner"):
            action()
    with pytest.raises(RuntimeError, match="Release the Owner instead"):
        tier.release()
    with pytest.raises(RuntimeError, match="belongs to Owner"), tier._mutation("scatter"):
        pass
    assert tier.version == 0
    assert list(tier) == [1.0, 2.0]  # reads stay allowed
    assert not tier.is_released()


def test_owner_scope_permits_writes_moves_and_release(kind: Kind) -> None:
    tier = kind.make([1.0, 2.0], F32, True)
    owner = Owner()
    _claim(owner, tier)
    with tier._access(owner):
        assert tier.is_mutable()
        tier[0] = 3.0
        with tier._access(owner):  # re-entrant
            tier.set_value(1, 4.0)
        assert tier.is_mutable()
    assert not tier.is_mutable()
    assert list(tier) == [3.0, 4.0]
    assert tier.version == 2
    with tier._access(owner):
        tier.release()
    assert tier.is_released() and tier.is_owned()
    tier.release()  # idempotent, even from outside


def test_scope_does_not_make_an_immutable_tier_writable(kind: Kind) -> None:
    tier = kind.make([1.0], F32, False)
    owner = Owner()
    _claim(owner, tier)
    with tier._access(owner):
        assert not tier.is_mutable()
        with pytest.raises(RuntimeError, match="mutable=False"):
            tier[0] = 2.0
        tier.release()  # immutability does not pin storage
    assert tier.is_released()


def test_only_the_owner_opens_the_scope(kind: Kind) -> None:
    tier = kind.make([1.0], F32, True)
    _claim(Owner(), tier)
    with pytest.raises(RuntimeError, match="only its owner"):
        tier._access(Owner())
    unowned = kind.make([1.0], F32, True)
    with pytest.raises(RuntimeError, match="only its owner"):
        unowned._access(None)


def test_claim_is_all_or_nothing(kind: Kind) -> None:
    first = kind.make([1.0], F32, True)
    taken = kind.make([1.0], F32, True)
    released = kind.make([1.0], F32, True)
    released.release()
    _claim(Owner(), taken)
    owner = Owner()
    for batch, reason in [
        ((first, taken), "already belongs"),
        ((first, released), "released"),
        ((first, first), "listed twice"),
    ]:
        with pytest.raises(RuntimeError, match=reason):
            _claim(owner, *batch)
        assert not first.is_owned()
        assert first.is_mutable()
    with pytest.raises(TypeError):
        _claim(owner, first, object())  # type: ignore[arg-type]
    assert not first.is_owned()


def test_mutation_guard_steps_version_once_on_success_only(kind: Kind) -> None:
    carrier = kind.make([1.0], F32, True)
    with carrier._mutation("scatter"):
        pass
    assert carrier.version == 1
    with pytest.raises(ValueError), carrier._mutation("scatter"):
        raise ValueError("validation failed")
    assert carrier.version == 1
    carrier._advance_version("touch")
    assert carrier.version == 2


def test_unclaim_returns_the_carrier_to_the_outside(kind: Kind) -> None:
    tier = kind.make([1.0], F32, True)
    owner = Owner()
    _claim(owner, tier)
    with pytest.raises(RuntimeError):
        tier._unclaim(Owner())
    tier._unclaim(owner)
    assert not tier.is_owned() and tier.is_mutable()
    tier[0] = 2.0


def test_released_carrier_messages_win_over_ownership(kind: Kind) -> None:
    tier = kind.make([1.0], F32, True)
    owner = Owner()
    _claim(owner, tier)
    with tier._access(owner):
        tier.release()
    with pytest.raises(RuntimeError, match=RELEASED) as info:
        tier[0] = 1.0
    assert "belongs to" not in str(info.value)


def test_claim_refuses_a_wrong_dtype_and_claims_nothing(kind: Kind) -> None:
    first = kind.make([1.0], F32, True)
    other = kind.make([1], DType.Int32, True)
    with pytest.raises(ValueError, match=r"not DType\.Float32"):
        Carrier._claim_all(Owner(), (first, other), dtype=F32)
    assert not first.is_owned() and not other.is_owned()
    Carrier._claim_all(Owner(), (first,), dtype=F32)
    assert first.is_owned()


def test_a_tier_whose_owner_is_gone_says_what_still_works() -> None:
    import gc

    from stridewave import CPU, Evictable, FileBacked

    primary, secondary = CPU(3), FileBacked(dtype=F32)
    owner = Evictable(primary, secondary)
    del owner
    gc.collect()
    assert primary.is_owned() and not primary.is_mutable()
    with pytest.raises(RuntimeError, match=r"no longer exists.*new_like"):
        primary[0] = 1.0
    with pytest.raises(RuntimeError, match=r"no longer exists.*del it"):
        secondary.release()
    assert list(primary) == [0.0, 0.0, 0.0]  # reads and copies still work
    assert list(primary.new_like(np.asarray(primary))) == [0.0, 0.0, 0.0]


# -- messages by their own words ----------------------------------------------


class NamedOwner:
    """An owner whose repr the messages must show."""

    def __repr__(self) -> str:
        return "NamedOwner('tiers-7')"


def _released_actions(carrier: Carrier) -> list[tuple[str, Callable[[], object]]]:
    return [
        ("get_value", lambda: carrier.get_value(0)),
        ("carrier[0]", lambda: carrier[0]),
        ("set_value", lambda: carrier.set_value(0, 1.0)),
        ("carrier[0] = v", lambda: carrier.__setitem__(0, 1.0)),
        ("iter", lambda: iter(carrier)),
        ("numpy.asarray", lambda: np.asarray(carrier)),
        ("version step", lambda: carrier._advance_version("version step")),
    ]


@pytest.mark.parametrize("mutable", [True, False])
def test_a_released_carrier_says_its_storage_was_released(kind: Kind, mutable: bool) -> None:
    carrier = kind.make([1.0, 2.0], F32, mutable)
    carrier.release()
    for name, action in _released_actions(carrier):
        with pytest.raises(RuntimeError) as info:
            action()
        message = str(info.value)
        assert RELEASED in message, (name, message)
        assert "new_like" in message, (name, message)  # how to go on
        assert "mutable=False" not in message, (name, message)  # released wins
    with pytest.raises(RuntimeError, match=RELEASED), carrier._mutation("scatter"):
        pass
    assert carrier.version == 0


def test_the_belongs_to_message_shows_the_live_owner(kind: Kind) -> None:
    tier = kind.make([1.0], F32, True)
    owner = NamedOwner()
    _claim(owner, tier)
    actions: tuple[Callable[[], object], ...] = (
        lambda: tier.__setitem__(0, 5.0),
        lambda: tier.set_value(0, 5.0),
        lambda: tier._advance_version("version step"),
        tier.release,
    )
    for action in actions:
        with pytest.raises(RuntimeError, match="belongs to") as info:
            action()
        message = str(info.value)
        assert "NamedOwner('tiers-7')" in message, message
        assert "no longer" not in message, message
        assert RELEASED not in message, message
        assert repr(tier) in message, message
    assert owner is not None  # alive until here


def test_a_real_owner_is_named_by_its_repr() -> None:
    from stridewave import CPU, Evictable

    primary = CPU(2)
    owner = Evictable(primary, CPU(0))
    with pytest.raises(RuntimeError, match="belongs to Evictable") as info:
        primary[0] = 1.0
    message = str(info.value)
    assert repr(owner)[:40] in message, (repr(owner), message)
    assert "no longer" not in message, message


def test_refusals_name_the_action_and_the_carrier(kind: Kind) -> None:
    released = kind.make([1.0], F32, True)
    released.release()
    immutable = kind.make([1.0], F32, False)
    owned = kind.make([1.0], F32, True)
    owner = NamedOwner()
    _claim(owner, owned)
    for carrier in (released, immutable, owned):
        for action in ("touch-the-version", "scatter-the-values"):
            with pytest.raises(RuntimeError) as info:
                if action.startswith("touch"):
                    carrier._advance_version(action)
                else:
                    with carrier._mutation(action):
                        pass
            message = str(info.value)
            assert f"cannot {action} on {carrier!r}" in message, message
        with pytest.raises(RuntimeError) as info:
            carrier.set_value(0, 2.0)
        assert "set_value" in str(info.value) and repr(carrier) in str(info.value)
        assert carrier.version == 0


def test_each_successful_bulk_mutation_steps_the_version(kind: Kind) -> None:
    carrier = kind.make([1.0], F32, True)
    for expected in (1, 2, 3):
        with carrier._mutation("scatter"):
            pass
        assert carrier.version == expected


def test_only_the_owner_is_named_in_scope_and_unclaim_refusals(kind: Kind) -> None:
    tier = kind.make([1.0], F32, True)
    stranger = NamedOwner()
    for attempt in (lambda: tier._access(stranger), lambda: tier._unclaim(stranger)):
        # unowned: nobody may open a scope or give ownership back
        with pytest.raises(RuntimeError, match="only its owner") as info:
            attempt()
        assert repr(tier) in str(info.value) and "NamedOwner('tiers-7')" in str(info.value)
    owner = Owner()
    _claim(owner, tier)
    for attempt in (lambda: tier._access(stranger), lambda: tier._unclaim(stranger)):
        with pytest.raises(RuntimeError, match="only its owner") as info:
            attempt()
        assert repr(tier) in str(info.value) and "NamedOwner('tiers-7')" in str(info.value)
    assert tier.is_owned() and not tier.is_mutable()


def test_an_owner_reference_names_a_dead_owner_by_kind() -> None:
    import gc

    from stridewave.carriers._lifecycle import _OwnerRef

    owner = NamedOwner()
    ref = _OwnerRef(owner)
    assert repr(ref) == "NamedOwner('tiers-7')" and ref.target() is owner
    del owner
    gc.collect()
    assert ref.target() is None
    assert repr(ref) == "<NamedOwner, no longer alive>"


def test_a_read_of_a_released_carrier_names_the_carrier_and_the_read(kind: Kind) -> None:
    carrier = kind.make([1.0], F32, True)
    carrier.release()
    for action in (lambda: iter(carrier), lambda: np.asarray(carrier)):
        with pytest.raises(RuntimeError, match=RELEASED) as info:
            action()
        message = str(info.value)
        assert f"on {carrier!r}" in message and "cannot None" not in message, message


def test_a_refused_move_names_the_move() -> None:
    from stridewave import FileBacked

    carrier = FileBacked(dtype=F32, mutable=False)
    with pytest.raises(RuntimeError, match="mutable=False") as info:
        carrier.resize(3)
    assert f"cannot resize on {carrier!r}" in str(info.value)
    assert carrier.size() == 0


def _state_words(carrier: Carrier) -> set[str]:
    inside = repr(carrier).split("(", 1)[1].rsplit(")", 1)[0]
    return {word.strip() for part in inside.split(";")[0].split(",") for word in part.split()}


def test_the_repr_names_the_lifecycle_state_in_plain_words(kind: Kind) -> None:
    live = kind.make([1.0], F32, True)
    assert "live" in _state_words(live) and "released" not in _state_words(live)
    frozen = kind.make([1.0], F32, False)
    assert {"live", "immutable"} <= _state_words(frozen)
    owned = kind.make([1.0], F32, True)
    owner = Owner()
    _claim(owner, owned)
    assert {"live", "owned"} <= _state_words(owned)
    live.release()
    assert "released" in _state_words(live) and "live" not in _state_words(live)


def test_claim_refusals_name_the_carrier_and_the_reason(kind: Kind) -> None:
    owner = Owner()
    taken = kind.make([1.0], F32, True)
    _claim(Owner(), taken)
    released = kind.make([1.0], F32, True)
    released.release()
    first = kind.make([1.0], F32, True)
    other = kind.make([1], DType.Int32, True)
    cases: list[tuple[tuple[Carrier, ...], Carrier, str]] = [
        ((first, taken), taken, "it already belongs to Owner"),
        ((first, released), released, "it is released"),
        ((first, first), first, "it is listed twice"),
    ]
    for batch, culprit, reason in cases:
        with pytest.raises(RuntimeError) as info:
            _claim(owner, *batch)
        message = str(info.value)
        assert f"cannot claim {culprit!r}: {reason}" in message, message
        assert "Nothing was claimed" in message
    with pytest.raises(ValueError) as value_info:
        Carrier._claim_all(owner, (first, other), dtype=F32)
    assert f"cannot claim {other!r}: it holds DType.Int32, not DType.Float32" in str(
        value_info.value
    )
    with pytest.raises(TypeError) as type_info:
        _claim(owner, first, 3.5)  # type: ignore[arg-type]
    message = str(type_info.value)
    assert "cannot claim 3.5" in message and "got float" in message, message
    assert "Nothing was claimed" in message
    assert not first.is_owned()


def test_giving_ownership_back_inside_the_scope_leaves_the_carrier_writable(kind: Kind) -> None:
    tier = kind.make([1.0], F32, True)
    owner = Owner()
    _claim(owner, tier)
    with tier._access(owner):
        tier._unclaim(owner)
    assert not tier.is_owned() and tier.is_mutable()
    tier[0] = 2.0
    _claim(owner, tier)  # and it can be claimed again, outside the scope
    assert not tier.is_mutable()


# -- tests that catch slips: lifecycle survivors (docs/testing.md) ---------------


def test_each_owner_scope_closes_on_its_outermost_exit(kind: Kind) -> None:
    # Kills _AccessScope.__exit__ 8 (depth left at 1): the second scope would stay
    # open after its exit, admitting writes from outside.
    tier = kind.make([1.0, 2.0], F32, True)
    owner = Owner()
    _claim(owner, tier)
    for value in (3.0, 4.0, 5.0):
        with tier._access(owner):
            tier[0] = value
        assert not tier.is_mutable()
        with pytest.raises(RuntimeError, match="belongs to"):
            tier[1] = value
    assert list(tier) == [5.0, 2.0]


class _Overlap:
    """Counts how many claim checks run at once (each waits briefly for company)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._company = threading.Event()
        self.inside = 0
        self.peak = 0

    def check(self) -> None:
        with self._lock:
            self.inside += 1
            self.peak = max(self.peak, self.inside)
            if self.inside > 1:
                self._company.set()
        self._company.wait(0.1)
        with self._lock:
            self.inside -= 1


def _claim_racing(shared: Carrier, own: Carrier, overlap: _Overlap, won: list[object]) -> None:
    owner = Owner()
    try:
        Carrier._claim_all(owner, (shared, own), check=overlap.check)
    except RuntimeError:  # "it already belongs to Owner"
        return
    won.append(owner)


def test_claims_sharing_a_carrier_check_one_at_a_time() -> None:
    # A claim runs its check and its tests under the lock of every carrier it claims,
    # so two claims sharing one carrier never check at once, and exactly one wins.
    # Kills _claim_all 10 (only one carrier of the batch locked: the checks overlap).
    for _ in range(2):
        shared = CPU(1)
        overlap = _Overlap()
        won: list[object] = []
        threads = [
            threading.Thread(target=_claim_racing, args=(shared, CPU(1), overlap, won))
            for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert overlap.peak == 1
        assert len(won) == 1
        assert shared._owner is not None and shared._owner.target() is won[0]
        with pytest.raises(RuntimeError, match="already belongs to Owner"):
            _claim(Owner(), shared)


def test_the_fork_hook_steps_the_epoch_by_one_each_time() -> None:
    # os.register_at_fork runs _after_fork_in_child in every child; called here in
    # this process (where the mutation run can see it), then undone. Kills
    # _after_fork_in_child 1 to 4 (the fork test below exercises it in a child).
    before = fork_epoch()
    try:
        _lifecycle._after_fork_in_child()
        assert fork_epoch() == before + 1
        _lifecycle._after_fork_in_child()
        assert fork_epoch() == before + 2
    finally:
        _lifecycle._epoch[0] = before
    carrier = CPU(1)
    carrier[0] = 1.0  # carriers work as before
    assert carrier._locked() is carrier._locked()


def _in_child(body: Callable[[], None], timeout: int = 20) -> int:
    """Run ``body()`` in a forked child of this process; return its wait status (0: ok).

    In-process on purpose: the mutation run switches mutants inside this process, so
    a fresh interpreter (tests/carriers/hardening/test_processes.py) would not see them.
    The child touches CPU carriers only (no files) and leaves with ``os._exit``.
    """
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            signal.alarm(timeout)  # a deadlocked child dies instead of hanging the test
            body()
            code = 0
        except BaseException:  # noqa: BLE001 - any failure is the child's exit status
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_starts_over_from_what_other_threads_held() -> None:
    # At the fork another thread holds one carrier's lock, has an owner scope open on
    # a second and a move in progress on a third, while this thread has a scope open on
    # a fourth. The child gets free locks, closed scopes and no move for the threads
    # that are gone, and keeps its own thread's scope. Kills _after_fork_in_child 1 to 4,
    # fork_epoch 1, and _locked 1, 3 to 11, 14 to 17 (docs/testing.md).
    owner = Owner()
    held, scoped, moving, mine = CPU(2), CPU(2), CPU(2), CPU(2)
    _claim(owner, scoped)
    _claim(owner, mine)
    ready, done = threading.Event(), threading.Event()

    def other_thread() -> None:
        with held._locked(), scoped._access(owner), moving._move("resize", guard=False):
            ready.set()
            done.wait(30)

    thread = threading.Thread(target=other_thread)
    thread.start()
    assert ready.wait(30)
    parent_epoch = fork_epoch()

    def grandchild() -> None:
        assert fork_epoch() == parent_epoch + 2

    def child() -> None:
        assert fork_epoch() == parent_epoch + 1
        # one fresh lock per carrier, free although another thread held the old one
        assert held._locked() is held._locked()
        held.release()
        assert held.is_released()
        # the other thread's scope is closed: outside writes are refused ...
        with pytest.raises(RuntimeError, match="belongs to"):
            scoped[0] = 1.0
        # ... and the owner opens and closes its own
        for value in (2.0, 3.0):
            with scoped._access(owner):
                scoped[0] = value
            with pytest.raises(RuntimeError, match="belongs to"):
                scoped[1] = value
        # the other thread's move is over: once the lock is repaired (its first use
        # here) the lock-free path is open again, and this thread moves and writes
        with moving._locked():
            pass
        assert moving._gate is not None
        with moving._move("resize", guard=False):
            pass
        moving[0] = 4.0
        assert moving[0] == 4.0 and moving.version == 1
        # the scope this thread had open at the fork stays open
        mine[0] = 5.0
        assert mine[0] == 5.0
        assert _in_child(grandchild) == 0

    try:
        with mine._access(owner):
            status = _in_child(child)
    finally:
        done.set()
        thread.join(30)
    assert status == 0
    # the parent is untouched by what the child did
    assert not held.is_released() and scoped[0] == 0.0 and mine[0] == 0.0


# The lock model's invariants, read directly (docs/threads-and-processes.md): breaking
# one of them only shows as a race between threads at one exact moment.


def test_a_carriers_lock_is_the_one_made_at_birth() -> None:
    # Two threads making their first locked call at once must get the same lock.
    # Kills _init_lifecycle 2 (the lock replaced at its first use).
    carrier = CPU(2)
    lock = carrier._lock
    assert carrier._locked() is lock
    carrier[0] = 1.0
    with carrier._mutation("scatter"):
        pass
    assert carrier._locked() is lock


def test_the_fast_path_stays_closed_for_the_whole_of_a_move() -> None:
    # An inner move's end must not reopen the lock-free path while the outer move
    # runs. Kills _refresh 7 (the gate open only while moving).
    carrier = CPU(2)
    assert carrier._gate is not None  # idle: open
    with carrier._move("resize", guard=False):
        assert carrier._gate is None
        with carrier._move("resize", guard=False):
            assert carrier._gate is None
        assert carrier._gate is None
    assert carrier._gate is not None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_inside_its_own_move_is_still_moving() -> None:
    # The thread that forks keeps its move in the child. Kills _locked 13 (the move
    # of the forking thread forgotten, reopening the fast path inside it).
    carrier = CPU(2)

    def child() -> None:
        assert carrier._locked() is carrier._locked()
        assert carrier._gate is None and carrier._moving == 1

    with carrier._move("resize", guard=False):
        status = _in_child(child)
    assert status == 0
    assert carrier._gate is not None
