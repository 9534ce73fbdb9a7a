"""Validate the numpydoc docstrings of StrideWeave's public surface (a CI gate).

"Public" is what a user can reach by name: every entry of ``__all__`` in the public
modules listed in ``PUBLIC_MODULES``, and every public method, property and
documented special method of the classes among them (inherited ones included, each
object checked once). Private helpers in ``_``-modules are out of scope: their
docstrings are for maintainers and ruff's pydocstyle rules already cover their form.

The checks come from ``[tool.numpydoc_validation]`` in ``pyproject.toml``, the same
table numpydoc's own ``numpydoc lint`` hook reads (``checks``, ``exclude``), so one
place says which numpydoc rules the project holds itself to and why.

Usage: ``python tools/check_docstrings.py`` (exit 1 and one line per problem when a
docstring fails a selected check).
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from numpydoc.docscrape import get_doc_object
from numpydoc.hooks.validate_docstrings import parse_config
from numpydoc.validate import Validator, get_validation_checks, validate

ROOT = Path(__file__).resolve().parent.parent

#: the modules whose ``__all__`` is the public surface
PUBLIC_MODULES = (
    "stridewave",
    "stridewave.carriers",
    "stridewave.dtypes",
    "stridewave.interop",
    "stridewave.layout",
    "stridewave.mx",
    "stridewave.dask",
    "stridewave.array_api",
    "stridewave.array_api.linalg",
    "stridewave.array_api.fft",
    "stridewave.tensor",
    "stridewave.testing",
    "stridewave.testing.strategies",
    "stridewave.testing.plugin",
    "stridewave.array_api",
    "stridewave.array_api.linalg",
    "stridewave.array_api.fft",
)

#: special methods that are part of the documented surface (the others, like
#: ``__repr__`` or ``__len__``, say what Python says they do)
DOCUMENTED_DUNDERS = frozenset(
    {
        "__array__",
        "__array_namespace__",
        "__dlpack__",
        "__dlpack_device__",
        "__reduce__",
        "__reduce_ex__",
        "__copy__",
        "__deepcopy__",
        "__getitem__",
        "__setitem__",
    }
)


class _ConstructorAwareValidator(Validator):  # type: ignore[misc]
    """numpydoc's validator, reading a class's parameters from ``__init__``.

    The descriptor classes are built by their metaclass's ``__call__`` (which
    validates and registers atomically), so ``inspect.signature(SimpleDType)`` sees
    ``(*args, **kwargs)``; the parameters the class docstring documents are those of
    ``__init__``.
    """

    def __init__(self, obj_name: str) -> None:
        super().__init__(get_doc_object(Validator._load_obj(obj_name)))

    @property
    def signature_parameters(self) -> tuple[str, ...]:
        obj = self.obj
        if inspect.isclass(obj) and type(obj).__call__ is not type.__call__:
            names = tuple(inspect.signature(obj.__init__).parameters)
            return names[1:]  # drop self
        params: tuple[str, ...] = super().signature_parameters
        return params


def _public_names() -> Iterator[str]:
    """Yield the dotted name of every public object, classes' members included."""
    seen: set[int] = set()
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isroutine(obj)) or id(obj) in seen:
                continue
            seen.add(id(obj))
            yield f"{module_name}.{name}"
            if not inspect.isclass(obj):
                continue
            for member, value in inspect.getmembers(obj):
                if member.startswith("_") and member not in DOCUMENTED_DUNDERS:
                    continue
                if member in getattr(obj, "__dataclass_fields__", {}):
                    continue  # a field (a callable default, say): documented as a parameter
                raw = inspect.getattr_static(obj, member)
                owner = next((k for k in obj.__mro__ if member in vars(k)), None)
                if owner is None or owner.__module__.split(".")[0] != "stridewave":
                    continue  # inherited from object, enum or typing: not ours to document
                target = raw.fget if isinstance(raw, property) else value
                if not (inspect.isroutine(target) or isinstance(raw, property)):
                    continue  # data attributes: documented in the class docstring
                key = id(getattr(target, "__func__", target))
                if key in seen:
                    continue
                seen.add(key)
                yield f"{module_name}.{name}.{member}"


def main() -> int:
    """Validate every public docstring; print one line per problem; 1 if any."""
    config = parse_config(ROOT)
    checks = get_validation_checks(config["checks"])
    exclude: re.Pattern[str] | None = config["exclude"]
    problems = 0
    count = 0
    for name in _public_names():
        if exclude is not None and exclude.search(name):
            continue
        count += 1
        report = validate(name, validator_cls=_ConstructorAwareValidator)
        for code, message in report["errors"]:
            if code in checks:
                problems += 1
                where = f"{report['file']}:{report['file_line']}"
                print(f"{where}: {name}: {code} {message}")
    print(f"numpydoc: {count} public docstrings checked, {problems} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
