"""Build the optional C accelerator (everything else is in pyproject.toml).

``stridewave.carriers._speedups`` is compiled against the limited API of Python 3.11
(abi3: one build serves CPython 3.11 and later) and is optional: where it cannot be
built (no compiler) the install goes on without it, and the pure-Python scalar paths
and the CPU device's Python closures run. It is not built on Python 3.10, on
free-threaded builds (they load no abi3 module), on other interpreters, or when
``STRIDEWAVE_NO_SPEEDUPS_BUILD=1``.
"""

from __future__ import annotations

import os
import sys
import sysconfig

from setuptools import Extension, setup

LIMITED_API = 0x030B0000  # Python 3.11: the first limited API with the buffer protocol


def _want_extension() -> bool:
    return (
        sys.implementation.name == "cpython"
        and sys.version_info >= (3, 11)
        and not sysconfig.get_config_var("Py_GIL_DISABLED")
        and os.environ.get("STRIDEWAVE_NO_SPEEDUPS_BUILD", "") in ("", "0")
    )


if _want_extension():
    setup(
        ext_modules=[
            Extension(
                "stridewave.carriers._speedups",
                sources=["stridewave/carriers/_speedups.c"],
                define_macros=[("Py_LIMITED_API", hex(LIMITED_API))],
                py_limited_api=True,
                optional=True,
            )
        ],
        options={"bdist_wheel": {"py_limited_api": "cp311"}},
    )
else:
    setup()
