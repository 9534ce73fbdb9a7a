"""Error text for the dtype-descriptor model: one wording per situation.

Each message says what was given, what was expected, and how to fix it.
"""

from __future__ import annotations

__all__: list[str] = []


def _show(value: object) -> str:
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{text} ({type(value).__name__})"


def bad_name(cls_name: str, name: object) -> str:
    """Explain: name is not a non-empty ``str``."""
    return (
        f"{cls_name} name must be a non-empty str; got {_show(name)}. "
        "Pass the registry key as a plain string, e.g. 'Float16'."
    )


def duplicate_name(cls_name: str, name: str, existing: object) -> str:
    """Explain: name already registered."""
    return (
        f"cannot register {cls_name} {name!r}: the name is already registered to "
        f"{existing!r}. Names are unique per process and cannot be unregistered; "
        f"reuse DType.from_name({name!r}) or choose another name."
    )


def bad_bits(cls_name: str, name: str, bits: object) -> str:
    """Explain: width is not a positive ``int``."""
    return (
        f"{cls_name} {name!r} needs bits, a positive int (not bool) giving the encoding "
        f"width in bits; got {_show(bits)}. Pass e.g. bits=16."
    )


def bad_block(name: str, block: object) -> str:
    """Explain: block is neither a positive ``int`` nor ``Whole``."""
    return (
        f"ScaledDType {name!r} needs block, a positive int (not bool) counting the "
        f"consecutive elements that share one scale, or Whole for one scale per tensor; "
        f"got {_show(block)}. Pass e.g. block=32 or block=Whole."
    )


def not_a_category(cls_name: str, name: str, role: str, value: object) -> str:
    """Explain: a supertype that is not a ``DTypeCategory``."""
    return (
        f"{cls_name} {name!r} needs {role}, a registered DTypeCategory such as "
        f"DType.Floating; got {_show(value)}. Pass a category, not a simple or "
        "compound dtype."
    )


def not_a_simple(cls_name: str, name: str, role: str, value: object) -> str:
    """Explain: a plane that is not a ``SimpleDType``."""
    return (
        f"{cls_name} {name!r} needs {role}, a registered SimpleDType such as DType.E4M3; "
        f"got {_show(value)}."
    )


def planes_not_tuple(name: str, planes: object) -> str:
    """Explain: planes argument has the wrong type."""
    return (
        f"compound dtype {name!r} needs planes, a tuple of registered SimpleDTypes (one per "
        f"storage plane); got {_show(planes)}. Pass e.g. planes=(DType.E4M3, DType.E8M0)."
    )


def too_few_planes(name: str, count: int) -> str:
    """Explain: fewer than two planes."""
    return (
        f"compound dtype {name!r} needs at least 2 planes; got {count}. A single-plane "
        "representation is a SimpleDType."
    )


def noncanonical(cls_name: str, name: str, role: str, value: object, why: str) -> str:
    """Explain: a referenced descriptor that is unfinished, rejected or not the registered one."""
    return (
        f"{cls_name} {name!r} cannot use {value!r} as its {role}: that object is {why}. "
        "Only registered descriptors may be referenced; look them up with "
        "DType.from_name(name)."
    )


def abstract_class(cls_name: str) -> str:
    """Explain: instantiating an abstract descriptor class."""
    return (
        f"{cls_name} is abstract and cannot be instantiated. Construct DTypeCategory, "
        f"SimpleDType or a concrete CompoundDType such as ScaledDType, or declare "
        f"`class {cls_name}(..., abstract=False)`."
    )


def bad_kind_base(cls_name: str) -> str:
    """Explain: a concrete subclass that is none of the three descriptor kinds."""
    return (
        f"concrete descriptor class {cls_name} must derive from exactly one of "
        "DTypeCategory, SimpleDType or CompoundDType; leave it abstract (the default) "
        "or change its bases."
    )


def shadowed(cls_name: str, members: list[str], where: str) -> str:
    """Explain: a subclass defining model-owned members."""
    shown = ", ".join(sorted(members))
    return (
        f"class {cls_name} cannot define {shown} ({where}): the descriptor model owns "
        "these members (identity, kind, hierarchy, structure, planes, representation). "
        "Contribute extra identity through structure_extension() instead."
    )


def frozen_class(cls_name: str, attr: str) -> str:
    """Explain: setting or deleting an attribute of a frozen or model-owned class member."""
    return (
        f"cannot set or delete {cls_name}.{attr}: the descriptor model owns it. "
        "Extensions are reached through DType.registered() and DType.from_name()."
    )


def frozen_instance(obj: object, attr: str) -> str:
    """Explain: setting or deleting an attribute of a finalized descriptor."""
    return (
        f"cannot set or delete attribute {attr!r} of {obj!r}: descriptors are immutable "
        "once registered. Register a new descriptor under a new name instead."
    )


def removed_opaque_storage(obj: object) -> str:
    """Explain: reading the removed ``is_opaque_storage`` attribute."""
    return (
        f"{obj!r} has no attribute 'is_opaque_storage': the opaque-storage query was "
        "removed. Whether a carrier stores a dtype is answered by the carrier "
        "(carrier-storage: supports_storage_dtype / accepts_storage_dtype)."
    )


def extension_not_tuple(owner: str, value: object) -> str:
    """Explain: ``structure_extension()`` returned a non-tuple."""
    return (
        f"structure_extension() of {owner} must return a tuple; got {_show(value)}. "
        "Return e.g. ('rounding', 'nearest') or () for no extension."
    )


def bad_extension_value(owner: str, path: str, value: object) -> str:
    """Explain: ``structure_extension()`` holds an unsupported value."""
    return (
        f"{path} of {owner} holds {_show(value)}; structures hold only exact str, int, "
        "float, None, Whole and nested tuples of those (bool and subclasses such as "
        "numpy scalars are refused). Convert the value, e.g. int(x) or str(x)."
    )


def nan_in_extension(owner: str, path: str) -> str:
    """Explain: ``structure_extension()`` holds NaN."""
    return (
        f"{path} of {owner} holds NaN; a structure holding NaN never equals itself, so it "
        "could never unpickle. Use a string such as 'nan' instead."
    )


def from_name_not_str(cls_name: str, name: object) -> str:
    """Explain: lookup with a non-string name."""
    return f"{cls_name}.from_name() takes a str; got {_show(name)}."


def unknown_name(cls_name: str, name: str, similar: tuple[str, ...] = ()) -> str:
    """Explain: lookup of an unregistered name (naming same-spelled names of other case)."""
    hint = (
        f"Names are case-sensitive: did you mean {' or '.join(repr(n) for n in similar)}? "
        if similar
        else ""
    )
    numpy_hint = (
        "For a NumPy dtype name use stridewave.from_numpy_dtype(name). " if name.islower() else ""
    )
    return (
        f"no dtype named {name!r} is registered in this process ({cls_name}.from_name). "
        f"{hint}{numpy_hint}Register it first, or list names with DType.registered()."
    )


def wrong_kind(cls_name: str, name: str, found: object) -> str:
    """Explain: lookup that finds a descriptor of another class."""
    return (
        f"{name!r} is registered to {found!r}, a {type(found).__name__}, not a "
        f"{cls_name}; call DType.from_name({name!r}) to accept any kind."
    )


def not_a_dtype(what: str, value: object) -> str:
    """Explain: a non-descriptor argument."""
    return f"{what} takes a DType; got {_show(value)}."


def unfinished(obj_cls: str, why: str) -> str:
    """Explain: using an unfinished or rejected descriptor object."""
    return f"this {obj_cls} object is {why}; it is not a usable descriptor."


def reinit(obj: object) -> str:
    """Explain: calling ``__init__`` again on a finalized descriptor."""
    return f"cannot re-initialize {obj!r}: descriptors are immutable once registered."


def missing_init(cls_name: str) -> str:
    """Explain: a subclass ``__init__`` that did not call the model's ``__init__``."""
    return (
        f"{cls_name}.__init__ did not initialize the descriptor; call "
        "super().__init__(...) with the descriptor's arguments."
    )


def unpickle_unknown(kind: object, name: object, fix: str | None = None) -> str:
    """Explain: unpickling a name the receiving process has not registered."""
    if fix is None:
        fix = "Register the same definition (same name and structure) before unpickling."
    return (
        f"cannot unpickle {kind} dtype {name!r}: no dtype of that name is registered in "
        f"this process. {fix}"
    )


def unpickle_mismatch(name: object, found: object, legacy: bool) -> str:
    """Explain: unpickling a name registered here with a different structure."""
    extra = (
        " The payload carries the removed opaque-storage disposition of an old "
        "category structure; re-create it with this version of StrideWeave."
        if legacy
        else " Register the same width, hierarchy, planes, rule, scale and extension in "
        "both processes."
    )
    return (
        f"cannot unpickle dtype {name!r}: this process registered {found!r} under that "
        f"name with a different structure, so it is not substituted.{extra}"
    )


def cannot_pickle(obj_cls: str, why: str) -> str:
    """Explain: pickling an unfinished or rejected descriptor."""
    return f"cannot pickle this {obj_cls} object: it is {why}, not a registered descriptor."


def no_dtype_attribute(cls_name: str, attr: str, spellings: list[str]) -> str:
    """Explain: a missing descriptor-class attribute, with the registered names meant."""
    hint = (
        f"Did you mean {' or '.join(spellings)}? Descriptor names are case-sensitive. "
        if spellings
        else ""
    )
    return (
        f"type object {cls_name!r} has no attribute {attr!r}. {hint}The built-in dtypes are "
        "attributes of DType (DType.Float32, DType.Int8 ...); every registered one, "
        "extensions included, is DType.from_name(name), and DType.registered() lists them."
    )
