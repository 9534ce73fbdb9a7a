"""The carrier contract as a test suite that a new carrier kind can run.

Subclass :class:`CarrierTests` once per kind (set its ``kind`` to a :class:`Kind`),
with :class:`ScatterTests` too where the kind scatters, and :class:`EvictableTests`
once per pair of tiers, in any pytest test module; the
StrideWeave test suite does exactly that for the built-in kinds
(``tests/carriers/test_contract.py``). The hypothesis strategies live in
:mod:`stridewave.testing.strategies`; the state machines are
:func:`carrier_machine` and :func:`evictable_machine`.

Installing StrideWeave registers a pytest plugin (entry point ``stridewave`` in the
``pytest11`` group, :mod:`stridewave.testing.plugin`): it declares the ``needs_mlx``
marker that Metal's kinds carry and reports the Metal runtime in the session header.

Importing this module needs pytest and hypothesis (``pip install
"stridewave[testing]"``); ``import stridewave`` never imports it.
"""

from stridewave.testing import strategies
from stridewave.testing._base import KindTests
from stridewave.testing._contract import CarrierTests, EvictableTests
from stridewave.testing._extension_kinds import extension_kinds
from stridewave.testing._kinds import (
    BUILTIN_KINDS,
    NPY_FILE_KIND,
    SAMPLE,
    ZERO,
    Kind,
    available_kinds,
    builtin_dtypes,
    fresh_name,
    raw_values,
)
from stridewave.testing._scatter_contract import ScatterTests
from stridewave.testing._stateful import carrier_machine, evictable_machine

__all__ = [
    "BUILTIN_KINDS",
    "NPY_FILE_KIND",
    "SAMPLE",
    "ZERO",
    "CarrierTests",
    "EvictableTests",
    "Kind",
    "KindTests",
    "ScatterTests",
    "available_kinds",
    "builtin_dtypes",
    "carrier_machine",
    "evictable_machine",
    "extension_kinds",
    "fresh_name",
    "raw_values",
    "strategies",
]
