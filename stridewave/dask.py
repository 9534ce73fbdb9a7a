"""Dask helpers: descriptors on ``distributed`` workers (CONTRACT section 8, "Dask").

Arrays need nothing from this module: ``dask.array.from_array(tensor, chunks=...)``
works for any single-subtensor :class:`~stridewave.Tensor` (see ``docs/dask.md``).
What does need help is the descriptor registry. A descriptor pickles by name and
structure (spec: "Pickle reconstruction preserves receiving-process identity"), so a
worker can only unpickle the compound or extension dtypes it has registered itself.

* :func:`register_dtypes` ``(client)`` is the one call that registers every extension
  descriptor of the client process on every worker, current and future (a
  ``distributed`` worker plugin); run it again after registering more.
* Without it, a task that carries an unknown descriptor fails with a ``LookupError``
  that names the descriptor and this function. (Left to itself, ``distributed``
  unpickles task arguments in its network layer, where the spec's ``LookupError``
  broke the worker's connection and the client's future waited forever.) To get
  that, a descriptor pickled *by distributed* travels as a deferred reference that
  the worker resolves when the task first uses it; anywhere else a descriptor
  pickles exactly as the spec says.

Importing this module imports neither ``dask`` nor ``distributed``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn

from stridewave.dtypes import CompoundDType, DType, DTypeCategory, ScaledDType, SimpleDType, _model
from stridewave.dtypes._pickle import reconstruct_dtype
from stridewave.dtypes._structure import same_structure

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType

__all__ = ["dtype_recipes", "register_dtypes", "register_recipes"]

#: One recipe: (descriptor class, name, constructor arguments with descriptors given by
#: name, recorded structure).
Recipe = tuple[type, str, dict[str, Any], tuple[Any, ...]]

_PLUGIN_NAME = "stridewave-dtypes"
_DISTRIBUTED_PICKLE = "distributed.protocol.pickle"


def _builtins() -> set[int]:
    return {id(v) for v in vars(DType).values() if isinstance(v, DType)}


def _with_dependencies(chosen: Sequence[DType]) -> set[int]:
    wanted: set[int] = set()
    stack = list(chosen)
    while stack:
        d = stack.pop()
        if not isinstance(d, DType):
            raise TypeError(f"register_dtypes expects descriptors; got {type(d).__name__} {d!r}")
        if id(d) in wanted:
            continue
        wanted.add(id(d))
        if d.supertype is not None:
            stack.append(d.supertype)
        if isinstance(d, CompoundDType):
            stack.extend(d.planes)
    return wanted


def dtype_recipes(dtypes: Sequence[DType] | None = None) -> list[Recipe]:
    """Return how to rebuild extension descriptors of this process, in order.

    Parameters
    ----------
    dtypes : sequence of DType or None, optional
        The descriptors to describe, with everything they reference (supertypes,
        planes); ``None`` (default) describes every registered extension descriptor.

    Returns
    -------
    list of tuple
        ``(class, name, arguments, structure)`` per registered non-built-in descriptor,
        dependencies first; referenced descriptors appear by name. Plain data: it
        pickles without the descriptors themselves.

    Raises
    ------
    TypeError
        If a descriptor's class is not one whose constructor this module knows
        (``DTypeCategory``, ``SimpleDType``, ``ScaledDType``, ``CompoundDType`` and
        subclasses keeping their base's constructor).
    """
    builtin = _builtins()
    wanted = None if dtypes is None else _with_dependencies(dtypes)
    recipes: list[Recipe] = []
    for d in DType.registered():
        if id(d) in builtin or (wanted is not None and id(d) not in wanted):
            continue
        supertype = d.supertype.name if d.supertype is not None else None
        args: dict[str, Any]
        if isinstance(d, DTypeCategory):
            args = {"supertype": supertype}
        elif isinstance(d, SimpleDType):
            args = {"bits": d.bits, "supertype": supertype}
        elif isinstance(d, ScaledDType):
            args = {
                "element": d.element.name,
                "scale": d.scale.name,
                "block": d.block,
                "supertype": supertype,
            }
        elif isinstance(d, CompoundDType):
            args = {"planes": tuple(p.name for p in d.planes), "supertype": supertype}
        else:  # pragma: no cover - every concrete descriptor is one of the above
            raise TypeError(f"cannot describe {d!r} ({type(d).__name__}) for a worker")
        recipes.append((type(d), d.name, args, d.structure()))
    return recipes


def _resolve(args: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key in ("supertype", "element", "scale") and isinstance(value, str):
            out[key] = DType.from_name(value)
        elif key == "planes":
            out[key] = tuple(DType.from_name(n) for n in value)
        else:
            out[key] = value
    return out


def register_recipes(recipes: Sequence[Recipe]) -> list[str]:
    """Register the descriptors of :func:`dtype_recipes` in this process (a worker).

    Parameters
    ----------
    recipes : sequence of tuple
        As returned by :func:`dtype_recipes` in the client.

    Returns
    -------
    list of str
        The names newly registered (those already registered with the same structure
        are skipped).

    Raises
    ------
    ValueError
        If a name is already registered here with another structure, or a rebuilt
        descriptor's structure differs from the recorded one (an extension whose
        ``structure_extension`` depends on more than its constructor arguments).
    """
    added: list[str] = []
    for cls, name, args, structure in recipes:
        try:
            found = DType.from_name(name)
        except LookupError:
            found = None
        if found is not None:
            if not same_structure(found.structure(), structure):
                raise ValueError(
                    f"this worker already registers {name!r} with another structure "
                    f"({found!r}); the client's definition differs. Use one definition "
                    f"everywhere."
                )
            continue
        made = cls(name, **_resolve(args))
        if not same_structure(made.structure(), structure):
            raise ValueError(
                f"rebuilding {name!r} on this worker gave another structure than the "
                f"client's; register it on the workers by hand (client.run)."
            )
        added.append(name)
    return added


def register_dtypes(client: Any, dtypes: Sequence[DType] | None = None) -> list[str]:
    """Register the client's extension descriptors on every ``distributed`` worker.

    One call, for the workers that exist and those that join later (a
    ``distributed.WorkerPlugin``). Call it again after registering more descriptors.

    Parameters
    ----------
    client : distributed.Client
        A connected client.
    dtypes : sequence of DType or None, optional
        Send only these descriptors (and what they reference); ``None`` (default)
        sends every registered extension descriptor.

    Returns
    -------
    list of str
        The names of the descriptors sent (every non-built-in descriptor).

    Raises
    ------
    TypeError
        If ``dtypes`` holds a non-descriptor.
    ImportError
        If ``distributed`` is not installed.
    ValueError
        If a worker already registers one of the names with another structure (raised
        by ``client.register_plugin``).
    """
    recipes = dtype_recipes(dtypes)
    plugin = _plugin_class()(recipes)
    client.register_plugin(plugin, name=_PLUGIN_NAME)
    return [name for _cls, name, _args, _structure in recipes]


_PLUGIN: list[type] = []


def _plugin_class() -> type:
    """Return the worker plugin class (built on first use: distributed is optional)."""
    if _PLUGIN:
        return _PLUGIN[0]
    from distributed import WorkerPlugin  # type: ignore[import-untyped,unused-ignore]

    class _RegisterDTypes(WorkerPlugin):  # type: ignore[misc,unused-ignore]
        """Registers the client's descriptors on each worker at its start."""

        name = _PLUGIN_NAME

        def __init__(self, recipes: list[Recipe]) -> None:
            self.recipes = recipes

        def setup(self, worker: Any) -> None:
            register_recipes(self.recipes)

    _RegisterDTypes.__module__ = __name__
    _PLUGIN.append(_RegisterDTypes)
    return _RegisterDTypes


def __getattr__(attr: str) -> Any:
    # Unpickling the plugin on a worker looks the class up here (PEP 562).
    if attr == "_RegisterDTypes":
        return _plugin_class()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


# -- descriptors pickled by distributed ------------------------------------------------


def pickled_by_distributed() -> bool:
    """Return whether the current pickling runs inside ``distributed``'s serializer."""
    frame: FrameType | None = sys._getframe(1)
    for _ in range(40):
        if frame is None:
            return False
        if frame.f_globals.get("__name__") == _DISTRIBUTED_PICKLE:
            return True
        frame = frame.f_back
    return False


class UnresolvedDType:
    """A descriptor a worker could not resolve; every use raises the resolution error.

    Stands in for a descriptor unpickled inside ``distributed``'s network layer, so
    the task that uses it fails (and the client's future raises) instead of the
    worker's connection breaking.
    """

    __slots__ = ("_error",)

    def __init__(self, error: Exception) -> None:
        object.__setattr__(self, "_error", error)

    def _raise(self) -> NoReturn:
        error: Exception = object.__getattribute__(self, "_error")
        raise type(error)(str(error)) from None

    def __getattr__(self, attr: str) -> NoReturn:
        self._raise()

    def __repr__(self) -> str:
        return f"<unresolved descriptor: {object.__getattribute__(self, '_error')}>"

    def __reduce__(self) -> NoReturn:
        self._raise()


def reconstruct_on_worker(kind: object, name: object, structure: object) -> DType | UnresolvedDType:
    """Unpickle a descriptor sent by ``distributed``: the registered one, or a stand-in.

    Parameters
    ----------
    kind, name, structure
        As for :func:`stridewave.dtypes._pickle.reconstruct_dtype`.

    Returns
    -------
    DType or UnresolvedDType
        The registered identity; otherwise a stand-in whose every use raises the
        ``LookupError``/``ValueError`` that ``reconstruct_dtype`` raised, with a hint
        to call :func:`register_dtypes`.
    """
    try:
        found: DType = reconstruct_dtype(kind, name, structure)  # typed Any: no model import
        return found
    except (LookupError, ValueError) as exc:
        hint = (
            " On Dask workers, register the client's descriptors with "
            "stridewave.dask.register_dtypes(client) before submitting work."
        )
        return UnresolvedDType(type(exc)(f"{exc}{hint}"))


def _reduce_for_workers(args: tuple[object, ...]) -> tuple[object, ...] | None:
    """Pickle recipe of a descriptor inside ``distributed``: resolved lazily on a worker."""
    if "distributed" in sys.modules and pickled_by_distributed():
        return (reconstruct_on_worker, args)
    return None


# Descriptors pickled while this module is loaded (register_dtypes loads it) consult it.
_model.add_reduce_hook(_reduce_for_workers)
