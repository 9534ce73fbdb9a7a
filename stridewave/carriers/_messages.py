"""Error text for the carrier layer: one function per situation.

Every message says what was given, what was expected and how to fix it. The wording
lives here so that each situation reads the same wherever it is raised, and tests can
match on it. Functions return ``str``; raising stays with the caller, which picks the
builtin exception the specification names.
"""

from __future__ import annotations

from collections.abc import Iterable

from stridewave.dtypes import DType

__all__ = [
    "array_refused",
    "bad_flag",
    "bad_index_type",
    "bad_memo",
    "bad_pointer_type",
    "bad_size_type",
    "category_storage",
    "claim_refused",
    "compound_storage",
    "copy_impossible",
    "dtype_positional",
    "dtype_text",
    "duplicate_file",
    "from_numpy_layout",
    "from_numpy_not_an_array",
    "from_numpy_read_only",
    "index_out_of_range",
    "missing_dtype",
    "negative_size",
    "no_load",
    "no_storage_row",
    "non_positive_pointer",
    "not_a_dtype",
    "not_iterable",
    "not_one_dimensional",
    "not_owner",
    "not_writable",
    "owned_release",
    "path_component",
    "released",
    "scatter_compound",
    "scatter_foreign_destination",
    "scatter_negative_offset",
    "scatter_not_a_layout",
    "scatter_not_a_tensor",
    "scatter_out_of_range",
    "scatter_shape_mismatch",
    "scatter_unsupported",
    "secondary_refused",
    "stale_view",
    "tier_not_a_carrier",
    "too_many_items",
    "unknown_device",
    "unsupported_dtype",
    "value_overflow",
    "value_type",
]


def dtype_text(dtype: object) -> str:
    """Spell a descriptor as code: ``DType.Float32`` for a built-in, else its ``repr``."""
    name = getattr(dtype, "name", None)
    if type(name) is str and isinstance(dtype, DType) and getattr(DType, name, None) is dtype:
        return f"DType.{name}"
    return repr(dtype)


def _names(accepted: Iterable[object]) -> str:
    names = [dtype_text(d) for d in accepted]
    if not names:
        return "no dtype"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


def _type_name(value: object) -> str:
    cls = type(value)
    module = cls.__module__
    if module in ("builtins", None):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def _short(value: object) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not hide the real error
        text = f"<{_type_name(value)} object>"
    return text if len(text) <= 60 else text[:57] + "..."


def not_a_dtype(value: object, *, where: str) -> str:
    """Text for a ``dtype`` argument that is not a ``DType`` (raised as ``TypeError``)."""
    return (
        f"{where} expects dtype to be a stridewave DType such as DType.Float32; got "
        f"{_short(value)} of type {_type_name(value)}. Use a DType member, or "
        f"stridewave.from_numpy_dtype(...) to translate a NumPy dtype."
    )


#: The shipped carrier kinds, given by the package once they exist (this module is
#: below them all and imports none of them).
_KINDS: list[type] = []


def register_kinds(kinds: Iterable[type]) -> None:
    """Name the shipped carrier kinds, for messages that point to the kinds storing a dtype."""
    _KINDS[:] = list(kinds)


def _kinds_storing(dtype: object) -> list[str]:
    """Names of the shipped carrier kinds whose storage-dtype table holds ``dtype``."""
    return [
        kind.__name__
        for kind in _KINDS
        if any(d is dtype for d in (getattr(kind, "_CONSTRUCTIBLE_STORAGE", None) or ()))
    ]


def unsupported_dtype(dtype: object, *, carrier: str, accepted: Iterable[object]) -> str:
    """Text for a valid simple descriptor outside a carrier's accepted set (``ValueError``).

    The fix names the carrier kinds that do store the dtype, or says that none does.
    """
    others = [name for name in _kinds_storing(dtype) if name != carrier]
    if others:
        fix = f"Pick one of the accepted dtypes, or a carrier kind that stores it: {', '.join(others)}."
    else:
        fix = (
            f"Pick one of the accepted dtypes, converting the values first (e.g. "
            f"array.astype(numpy.float32)): no spec carrier kind stores {dtype_text(dtype)}."
            f"{_standard_storage(dtype, carrier)}"
        )
    return f"{carrier} storage accepts {_names(accepted)}; got {dtype_text(dtype)}. {fix}"


def _standard_storage(dtype: object, carrier: str) -> str:
    """Where an array API standard dtype no spec carrier stores is stored, or ``""``."""
    from stridewave.dtypes._standard import numpy_dtype_of

    if not isinstance(dtype, DType):
        return ""
    np_dtype = numpy_dtype_of(dtype)
    if np_dtype is None:
        return ""
    extension = (
        f"{carrier}Extension"
        if carrier in ("Generic", "CPU", "FileBacked", "Metal")
        else "CPUExtension"
    )
    return (
        f" To keep {dtype_text(dtype)}, use stridewave.array_api.asarray(values, "
        f"dtype=stridewave.array_api.{np_dtype.name}) (an Array that stores it), or the "
        f"extension carrier {extension}(..., dtype={dtype_text(dtype)}) from "
        f"stridewave.carriers._extension."
    )


def unknown_device(given: object, known: Iterable[str], aliases: dict[str, str]) -> str:
    """Text for a device name that names no device (``ValueError``), with a did-you-mean.

    Parameters
    ----------
    given : object
        What the caller passed as the device.
    known : iterable of str
        The canonical device names (e.g. ``"CPU"``, ``"Metal"``).
    aliases : dict of str to str
        Lower-case spellings understood, each to its canonical name.
    """
    import difflib

    names = list(known)
    guess: str | None = None
    if isinstance(given, str):
        word = given.strip().lower()
        if word in _ACCELERATOR_WORDS:
            guess = "Metal"
        else:
            close = difflib.get_close_matches(word, [*aliases, *(n.lower() for n in names)], 1)
            guess = aliases.get(close[0], close[0]) if close else None
            guess = next((n for n in names if n.lower() == (guess or "").lower()), guess)
    quoted = ", ".join(repr(n) for n in names[:-1]) + f" or {names[-1]!r}" if names else "none"
    hint = (
        f" Did you mean {guess!r}?"
        + (
            " Accelerators are reached through MLX as the 'Metal' device (Apple's Metal, "
            "or MLX's CUDA backend; STRIDEWAVE_METAL_DEVICE=cpu runs it on MLX's CPU device)."
            if guess == "Metal"
            else ""
        )
        if guess
        else ""
    )
    return f"unknown stridewave.array_api device {_short(given)}; expected {quoted}.{hint}"


#: Words people use for an accelerator; StrideWeave's accelerator device is Metal.
_ACCELERATOR_WORDS = frozenset({"gpu", "cuda", "mps", "accelerator", "device", "apple", "nvidia"})


def category_storage(dtype: object, *, carrier: str, accepted: Iterable[object]) -> str:
    """Text for a category given where a storage dtype is needed (``ValueError``)."""
    return (
        f"{carrier} storage accepts {_names(accepted)}; got {dtype_text(dtype)}, a category with no "
        f"storage encoding. Pass a simple dtype instead."
    )


def compound_storage(dtype: object, *, carrier: str, accepted: Iterable[object]) -> str:
    """Text for a compound dtype given to homogeneous storage (``ValueError``)."""
    return (
        f"{carrier} storage accepts {_names(accepted)}; got {dtype_text(dtype)}, a compound dtype whose "
        f"values live in several simple-dtype planes. Homogeneous carrier storage holds one "
        f"simple dtype and cannot hold multiple planes (multi-plane storage is deferred): "
        f"allocate one carrier per plane and combine them with Tensor.compound."
    )


def bad_flag(name: str, value: object, *, where: str) -> str:
    """Text for a boolean keyword such as ``mutable`` or ``empty`` given a non-bool."""
    return (
        f"{where} expects {name} to be True or False; got {_short(value)} of type "
        f"{_type_name(value)}. Pass {name}=bool(...) if you mean its truth value."
    )


def bad_size_type(value: object, *, where: str) -> str:
    """Text for a size that is not an integer (``TypeError``)."""
    return (
        f"{where} expects size to be a non-negative integer number of slots; got "
        f"{_short(value)} of type {_type_name(value)}. Pass an int (use int(...) or "
        f"round(...) for a float)."
    )


def negative_size(value: int, *, where: str) -> str:
    """Text for a negative size (``ValueError``)."""
    return f"{where} expects a non-negative number of slots; got size={value}. Pass size >= 0."


class DTypeIsAMethod:
    """What an array library finds when it reads a carrier's ``dtype`` as a NumPy dtype.

    ``numpy.dtype(carrier.dtype)`` looks for a ``dtype`` attribute on the bound method
    and, failing to convert this object, shows its text: the fix.
    """

    def __repr__(self) -> str:
        """Return the fix, as NumPy's conversion error shows it."""
        return (
            "carrier.dtype is a method returning a stridewave DType, and a carrier is "
            "storage, not an array: to hand it to an array library (Dask, matplotlib, "
            "...), pass numpy.asarray(carrier), or wrap it in a Tensor "
            "(stridewave.Tensor(carrier, stridewave.Layout((len(carrier),))))"
        )


def bad_index_type(value: object, *, where: str) -> str:
    """Text for an index without ``__index__`` (``TypeError``)."""
    return (
        f"{where} expects a physical slot index supporting the integer-index protocol "
        f"(int, numpy.integer); got {_short(value)} of type {_type_name(value)}. Slices and "
        f"floats are not slot indices: use numpy.asarray(carrier)[...] to read ranges. A "
        f"carrier is storage, not an array: to hand it to an array library (matplotlib, "
        f"Dask, ...), pass numpy.asarray(carrier), or wrap it in a Tensor "
        f"(stridewave.Tensor(carrier, stridewave.Layout((len(carrier),))))."
    )


def index_out_of_range(index: int, size: int, *, where: str, carrier: object) -> str:
    """Text for a physical index outside ``[0, size)`` (``IndexError``)."""
    hint = (
        (
            "negative indices do not count from the end here (physical slots are "
            f"absolute): write len(carrier) - {-index} for slot {size + index}"
            if size + index >= 0
            else "negative indices do not count from the end here (physical slots are absolute)"
        )
        if index < 0
        else f"the last slot is {size - 1}"
        if size
        else "the carrier has no slots"
    )
    return (
        f"{where} got physical index {index} but {carrier!r} has {size} slot"
        f"{'' if size == 1 else 's'}, so valid indices are [0, {size}); {hint}."
    )


def bad_pointer_type(value: object) -> str:
    """Text for a ``pointer`` that is not an integer address (``TypeError``)."""
    return (
        f"CPU expects pointer to be a positive integer memory address or None; got "
        f"{_short(value)} of type {_type_name(value)}. Use CPU.from_numpy(array) to wrap a "
        f"NumPy array, or pass array.ctypes.data."
    )


def non_positive_pointer(value: int) -> str:
    """Text for a zero or negative ``pointer`` (``ValueError``)."""
    return (
        f"CPU expects pointer to be a positive memory address; got {value}. Pass None to "
        f"allocate owned storage instead."
    )


def not_iterable(value: object, *, where: str) -> str:
    """Text for ``values`` that cannot be iterated (``TypeError``)."""
    return (
        f"{where} expects values to be an iterable of slot values (list, tuple, 1-D "
        f"numpy.ndarray, buffer); got {_short(value)} of type {_type_name(value)}. Wrap a "
        f"single value in a list: [value]."
    )


def value_type(value: object, *, dtype: object, expected: str, fix: str) -> str:
    """Text for a value whose type the dtype's normalization refuses (``TypeError``)."""
    if value is None:
        fix = (
            "None is a hole only in new_like input (it reads as the dtype's zero there); "
            "write the value, or the dtype's zero, explicitly."
        )
    return (
        f"{dtype_text(dtype)} storage accepts {expected}; got {_short(value)} of type "
        f"{_type_name(value)}. {fix}"
    )


def array_refused(array_dtype: object, *, dtype: object, expected: str) -> str:
    """Text for a NumPy array whose dtype the vectorized rule refuses (``TypeError``)."""
    return (
        f"{dtype_text(dtype)} storage accepts arrays of {expected}; got a numpy.ndarray of dtype "
        f"{array_dtype}. Convert it explicitly with array.astype(...) first."
    )


def no_storage_row(dtype: object, known: Iterable[object]) -> str:
    """Text for a descriptor with no row in the storage-dtype table (``ValueError``)."""
    return (
        f"{dtype_text(dtype)} has no storage encoding: the spec carriers store {_names(known)}, "
        f"and the extension carriers the array API standard's other dtypes. Pick one of those "
        f"dtypes, or keep the values in a NumPy array (ml_dtypes) instead."
    )


def not_one_dimensional(shape: tuple[int, ...], *, where: str) -> str:
    """Text for an array of values that is not 1-D (``TypeError``)."""
    return (
        f"{where} expects values to be one-dimensional; got an array of shape {shape}. "
        f"Flatten it first with numpy.ravel(values)."
    )


def too_many_items(where: str, limit: int) -> str:
    """Text for an iterable without a trustworthy length that is too long (``ValueError``)."""
    return (
        f"{where} stopped consuming values after {limit} items: the iterable has no "
        f"trustworthy length and may be infinite (e.g. itertools.count()). Pass a NumPy "
        f"array, a buffer or a list instead (no limit), or bound it with "
        f"itertools.islice(values, n). Nothing was allocated."
    )


def dtype_positional(dtype: object, *, where: str) -> str:
    """Text for a DType passed positionally where ``dtype`` is keyword-only (``TypeError``)."""
    return (
        f"{where} got the descriptor {dtype_text(dtype)} as a positional argument, but dtype is "
        f"keyword-only: write {where}(..., dtype={dtype_text(dtype)})."
    )


def missing_dtype(*, where: str, accepted: Iterable[object]) -> str:
    """Text for a required keyword-only ``dtype`` left out (``TypeError``)."""
    return (
        f"{where}() missing 1 required keyword-only argument: 'dtype'. Pass "
        f"dtype= one of {_names(accepted)}."
    )


def value_overflow(value: object, *, dtype: object, limits: str) -> str:
    """Text for a value outside the dtype's finite range (``OverflowError``)."""
    return (
        f"{dtype_text(dtype)} storage holds {limits}; got {_short(value)}, which does not fit. "
        f"Clip or rescale the value, or use a wider storage dtype."
    )


def released(carrier: object, action: str) -> str:
    """Text for storage access on a released carrier (``RuntimeError``).

    A released tier of a composite (an Evictable's former primary after ``evict()``)
    names its owner: the values live on there.
    """
    owner = getattr(carrier, "_owner", None)
    target = getattr(owner, "target", None)
    live_owner = target() if callable(target) else None
    if live_owner is not None and not getattr(live_owner, "_released", True):
        kind = getattr(owner, "owner_kind", type(owner).__name__)
        return (
            f"cannot {action} on {carrier!r}: it is a tier of {kind} {_short(owner)}, which "
            f"moved the values out of it and released it. Read and write through the "
            f"{kind}; it pages the values back in."
        )
    return (
        f"cannot {action} on {carrier!r}: its storage was released and is gone for good. "
        f"dtype(), supports_storage_dtype() and new_like() still work: build fresh storage "
        f"with carrier.new_like(values)."
    )


def not_writable(carrier: object, action: str, *, intrinsic: bool, owner: object) -> str:
    """Text for a write, move or version step the carrier refuses (``RuntimeError``)."""
    if not intrinsic:
        if getattr(carrier, "mode", None) == "r":
            return (
                f"cannot {action} on {carrier!r}: the file was opened read-only "
                f"(mode='r', so mutable=False). Open it for writing with FileBacked.open(path, mode='r+'), "
                f"or copy it into mutable storage with carrier.new_like(numpy.asarray(carrier))."
            )
        return (
            f"cannot {action} on {carrier!r}: it was constructed with mutable=False. "
            f"Copy it into mutable storage with carrier.new_like(numpy.asarray(carrier))."
        )
    kind = getattr(owner, "owner_kind", type(owner).__name__)
    if _owner_gone(owner):
        return (
            f"cannot {action} on {carrier!r}: it belonged to a {kind} that no longer exists, "
            f"and ownership is never given back. Read or copy it: "
            f"carrier.new_like(numpy.asarray(carrier)) gives fresh, unowned storage."
        )
    return (
        f"cannot {action} on {carrier!r}: it belongs to {kind} {_short(owner)}; "
        f"write through the {kind}."
    )


def _owner_gone(owner: object) -> bool:
    target = getattr(owner, "target", None)
    return callable(target) and target() is None


def owned_release(carrier: object, owner: object) -> str:
    """Text for a direct ``release()`` of an owned carrier (``RuntimeError``)."""
    kind = getattr(owner, "owner_kind", type(owner).__name__)
    if _owner_gone(owner):
        return (
            f"cannot release {carrier!r}: it belonged to a {kind} that no longer exists, and "
            f"ownership is never given back; its storage goes when the last reference to it "
            f"does (del it)."
        )
    return (
        f"cannot release {carrier!r}: it belongs to {kind} {_short(owner)}, which releases "
        f"it. Release the {kind} instead."
    )


def not_owner(carrier: object, caller: object) -> str:
    """Text for an access scope opened by something that does not own the carrier."""
    return (
        f"cannot open an access scope on {carrier!r} for {_short(caller)}: only its owner "
        f"may do so. Claim the carrier first, or write to it directly if it is unowned."
    )


def claim_refused(carrier: object, reason: str) -> str:
    """Text for a claim that fails; nothing was claimed (``RuntimeError``)."""
    return f"cannot claim {carrier!r}: {reason}. Nothing was claimed."


def copy_impossible(carrier: object, requested: object) -> str:
    """Text for ``numpy.asarray(carrier, dtype=..., copy=False)`` needing a copy."""
    return (
        f"numpy.asarray({carrier!r}, copy=False) with dtype {requested} needs a conversion, "
        f"which cannot be a zero-copy view. Drop copy=False, or omit dtype."
    )


def path_component(filename: str) -> str:
    """Text for a FileBacked filename that is not a bare file name (``ValueError``)."""
    return (
        f"FileBacked expects filename to be a bare file name inside its session directory; "
        f"got {filename!r}, which has path components. Pass a name like 'weights.f32', or "
        f"None for a generated one."
    )


def duplicate_file(filename: str, directory: str) -> str:
    """Text for a FileBacked filename that already exists (``FileExistsError``)."""
    return (
        f"FileBacked cannot create {filename!r}: a file of that name already exists in "
        f"{directory}, and it was left untouched. Pick another name, or None for a "
        f"generated one."
    )


def scatter_unsupported(carrier: object) -> str:
    """Text for scatter on a kind that does not implement it (``NotImplementedError``)."""
    return (
        f"cannot scatter into {carrier!r}: its storage kind does not implement scatter "
        f"(spec: carrier-storage; FileBacked raises NotImplementedError). Scatter into a "
        f"CPU or Generic carrier, e.g. target = CPU(n, dtype=...); target.scatter(...), then "
        f"copy the result with carrier.new_like(numpy.asarray(target))."
    )


def scatter_not_a_tensor(name: str, value: object) -> str:
    """Text for a scatter view argument that is not a Tensor (``TypeError``)."""
    return (
        f"scatter {name} must be a stridewave Tensor, got {type(value).__name__} "
        f"{_short(value)}; wrap storage first: Tensor(carrier, Layout(shape))."
    )


def scatter_not_a_layout(mapping: object) -> str:
    """Text for a scatter mapping that is not a Layout (``TypeError``)."""
    return (
        f"scatter mapping must be a stridewave Layout, got {type(mapping).__name__} "
        f"{_short(mapping)}; pass Layout(shape, strides) with strides in elements."
    )


def scatter_compound(name: str, dtype: object, planes: int) -> str:
    """Text for a multi-subtensor scatter argument (``ValueError``)."""
    return (
        f"scatter {name} is a compound Tensor of {dtype_text(dtype)} with {planes} "
        f"subtensors; carrier scatter moves one plane at a time: pass {name}.subtensors[k]."
    )


def scatter_foreign_destination(viewed: object, receiver: object) -> str:
    """Text for ``scatter_onto`` viewing another carrier than the receiver (``ValueError``)."""
    return (
        f"scatter_onto views {viewed!r}, not the receiver {receiver!r}; call scatter on the "
        f"destination's carrier: scatter_onto.carrier.scatter(to_scatter, scatter_onto, "
        f"mapping)."
    )


def scatter_shape_mismatch(mapping_shape: object, source_shape: object) -> str:
    """Text for a mapping whose shape is not the source's (``ValueError``)."""
    return (
        f"scatter mapping has shape {mapping_shape} but to_scatter has shape {source_shape}; "
        f"the mapping needs one destination offset per source element, so pass a Layout "
        f"with the source's shape."
    )


def scatter_negative_offset(offset: int) -> str:
    """Text for a negative ``mapping_offset`` (``ValueError``)."""
    return (
        f"scatter mapping_offset must be >= 0 (elements), got {offset}; move the "
        f"destination with scatter_onto's offset or the mapping strides instead."
    )


def scatter_out_of_range(
    slot: int,
    element: int,
    size: int,
    *,
    onto_offset: int,
    mapping_offset: int,
    strides: object,
    span: tuple[int, int],
) -> str:
    """Text for a scatter destination outside the receiver (``IndexError``)."""
    return (
        f"scatter targets physical index {slot} (source element {element}) but the receiver "
        f"has {size} slots; check scatter_onto.offset={onto_offset}, "
        f"mapping_offset={mapping_offset} and the mapping strides {strides} (destinations "
        f"span [{span[0]}, {span[1]}])."
    )


def tier_not_a_carrier(role: str, tier: object) -> str:
    """Text for an Evictable tier that is not a carrier (``TypeError``)."""
    return (
        f"Evictable expects the {role} tier to be a stridewave Carrier; got "
        f"{_type_name(tier)}. Pass e.g. Evictable(CPU(n, dtype=DType.Float32), "
        f"FileBacked(dtype=DType.Float32)). Nothing was claimed."
    )


def secondary_refused(secondary: object, reason: str, *, primary: object = None) -> str:
    """Text for an Evictable secondary that could not hold the values (``ValueError``).

    ``reason`` is ``"dtype"`` (needs ``primary``), ``"immutable"``, ``"not empty"`` or
    ``"kind"`` (its capability record says it may not be a secondary).
    """
    dtype = getattr(secondary, "_dtype", None)
    kind = type(secondary).__name__
    why = {
        "dtype": (
            f"Evictable needs tiers of one dtype; given primary {primary!r} and secondary "
            f"{secondary!r}. Make the secondary with "
            f"dtype={dtype_text(getattr(primary, '_dtype', None))}."
        ),
        "immutable": (
            f"Evictable needs an intrinsically mutable secondary (eviction writes into it); "
            f"given {secondary!r}, built with mutable=False. Pass a mutable one, e.g. "
            f"FileBacked(dtype={dtype_text(dtype)})."
        ),
        "not empty": (
            f"Evictable needs an empty secondary (size 0), so that no data of yours is "
            f"overwritten by evict(); given {secondary!r} with {getattr(secondary, '_slots', 0)} slots. "
            f"Pass secondary.allocate_like(0)."
        ),
        "kind": (
            f"Evictable cannot use {kind} as its secondary: its capability record says it "
            f"may not be one ({kind}.capabilities.secondary is False: it cannot replace its "
            f"storage in one move on the host). Use a kind that may, such as CPU, Generic "
            f"or FileBacked."
        ),
    }[reason]
    return f"{why} Nothing was claimed."


def from_numpy_not_an_array(value: object) -> str:
    """Text for ``CPU.from_numpy`` given something else than an ndarray (``TypeError``)."""
    return (
        f"CPU.from_numpy expects a numpy.ndarray; got {_type_name(value)}. Convert with "
        f"numpy.ascontiguousarray(values, dtype=numpy.float32)."
    )


def from_numpy_layout(
    shape: tuple[int, ...], dtype: object, *, contiguous: bool, stored: Iterable[object]
) -> str:
    """Text for an array ``CPU.from_numpy`` cannot wrap as it is (``ValueError``)."""
    names = ", ".join(str(d) for d in stored)
    return (
        f"CPU.from_numpy expects a 1-D C-contiguous array of {names} (native byte order); "
        f"got shape {shape}, dtype {dtype}, c_contiguous={contiguous}. Use "
        f"numpy.ascontiguousarray(array.ravel(), dtype=numpy.float32) (a copy)."
    )


def from_numpy_read_only() -> str:
    """Text for a read-only array wrapped with ``mutable=True`` (``ValueError``)."""
    return (
        "CPU.from_numpy got a read-only array with mutable=True; pass mutable=False or a "
        "writeable array."
    )


def no_load(carrier: object) -> str:
    """Text for a one-move load asked of a kind that has none (``NotImplementedError``)."""
    kind = type(carrier).__name__
    return (
        f"{kind} cannot replace its storage in one move, so it cannot serve as an Evictable "
        f"secondary; use a kind whose capabilities.secondary is True (CPU, Generic or "
        f"FileBacked) there."
    )


def bad_memo(memo: object) -> str:
    """Text for ``__deepcopy__`` given a memo that is not a dict (``TypeError``)."""
    return (
        f"__deepcopy__ expects the memo dict that copy.deepcopy passes, or None; got "
        f"{_type_name(memo)}. Call copy.deepcopy(carrier) instead."
    )


def stale_view(
    layout: object, base: int, span: tuple[int, int], held: int, contiguous: bool
) -> str:
    """Text for a view that no longer fits its carrier's storage (``IndexError``)."""
    return (
        f"the view {layout!r} at offset {base} addresses elements [{span[0]}, {span[1]}] but "
        f"the storage now holds {held} (C-contiguous: {contiguous}); the carrier shrank "
        f"(resize) or was replaced since the Tensor was made. Build a new Tensor on it."
    )


def mlx_after_fork(action: str) -> str:
    """MLX work in a process forked after MLX started in its parent."""
    return (
        f"cannot {action}: this process was forked after MLX started in its parent, and "
        f"MLX's worker threads do not survive fork, so any MLX work here would hang for "
        f"ever. Start worker processes with the 'spawn' start method instead, e.g. "
        f"multiprocessing.get_context('spawn') or ProcessPoolExecutor(mp_context="
        f"multiprocessing.get_context('spawn')), or fork before the first Metal work. "
        f"Other carrier kinds (CPU, FileBacked, Generic), and host reads and writes of a "
        f"Metal carrier whose values were already read on the host, keep working here."
    )
