"""Declared capability records: what each kind can do, read, never inferred."""

from __future__ import annotations

import dataclasses

import pytest

from stridewave import CPU, Carrier, Evictable, FileBacked, Generic, Metal
from stridewave.carriers import KINDS, Capabilities, NpyFile, ScatterSupport
from stridewave.cli._main import carrier_availability

from .conftest import ALL_KINDS, Kind


def test_every_shipped_kind_declares_its_record() -> None:
    for kind in KINDS:
        assert isinstance(kind.capabilities, Capabilities), kind
    assert FileBacked.capabilities.scatter is ScatterSupport.NONE
    assert Metal.capabilities.scatter is ScatterSupport.DEVICE
    assert CPU.capabilities.scatter is Generic.capabilities.scatter is ScatterSupport.HOST
    assert [k.__name__ for k in KINDS if k.capabilities.secondary] == [
        "Generic",
        "CPU",
        "FileBacked",
    ]
    assert NpyFile.capabilities.secondary is False  # a user's file is never swapped out
    assert not Metal.capabilities.exports_views and not Metal.capabilities.host_addressable
    assert ScatterSupport.NONE < ScatterSupport.HOST < ScatterSupport.DEVICE  # ordered


def test_records_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        CPU.capabilities.secondary = False  # type: ignore[misc]


def test_the_kind_table_agrees_with_the_records(kind: Kind) -> None:
    carrier = kind.make([1.0], kind.dtypes[0], True)
    caps = carrier.capabilities
    assert (caps.scatter is not ScatterSupport.NONE) is kind.scatters
    assert caps.exports_views is kind.exports_views


def test_an_evictable_derives_its_record_from_its_primary() -> None:
    e = Evictable(FileBacked(dtype=CPU(0).dtype()), CPU(0))
    assert e.capabilities.scatter is ScatterSupport.NONE
    assert e.capabilities.secondary is False
    assert Evictable(CPU(1), CPU(0)).capabilities.scatter is ScatterSupport.HOST
    assert Evictable.capabilities.secondary is False


def test_a_custom_kind_without_a_record_is_no_secondary() -> None:
    assert Carrier.capabilities.secondary is False


def test_info_lists_every_kind_with_its_record() -> None:
    lines = carrier_availability()
    assert [line.split()[0] for line in lines] == [k.__name__ for k in KINDS]
    by_name = dict(zip([k.__name__ for k in KINDS], lines, strict=True))
    assert "[scatter: no (NotImplementedError); secondary: yes" in by_name["FileBacked"]
    assert "[scatter: device; secondary: no; numpy.asarray: snapshot]" in by_name["Metal"]
    assert "(Generic, CPU, FileBacked)" in by_name["Evictable"]


def test_all_kinds_of_the_test_table_are_shipped_kinds() -> None:
    assert {k.cls for k in ALL_KINDS} <= set(KINDS)
