"""Ownership mechanics of the lifecycle mixin (CONTRACT section 4), tested directly.

Evictable is built on these: claim several tiers all or nothing, open the owner's
access scope to write, move and release them, step versions through the guard.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from stridewave import Carrier, DType

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


# -- messages by their own words (issue 18) ----------------------------------------------


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
