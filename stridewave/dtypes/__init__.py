"""Dtype descriptors: registered, immutable identities of dtype categories and encodings.

Public names: :class:`DType`, :class:`DTypeCategory`, :class:`SimpleDType`,
:class:`CompoundDType`, :class:`ScaledDType` and :data:`Whole`.  The built-in graph is
drawn in :mod:`stridewave.dtypes._builtins`.  The array API standard's other dtypes
(``Int16``, ``Int64``, ``UInt8``-``UInt64``, ``Complex64``, ``Complex128``) are
extensions that :func:`register_standard_dtypes` registers on request
(:mod:`stridewave.dtypes._standard`); importing this package never does.

Spec: ``dtype-descriptors``; open points fixed by CONTRACT section 2.
"""

from __future__ import annotations

from stridewave.dtypes import _model
from stridewave.dtypes._builtins import BUILTIN_NAMES
from stridewave.dtypes._compound import CompoundDType, ScaledDType
from stridewave.dtypes._model import DType, DTypeCategory, SimpleDType
from stridewave.dtypes._standard import register_standard_dtypes, standard_dtypes
from stridewave.dtypes._structure import Structure, Whole, WholeType

_model._seal()

__all__ = [
    "BUILTIN_NAMES",
    "CompoundDType",
    "DType",
    "DTypeCategory",
    "ScaledDType",
    "SimpleDType",
    "Structure",
    "Whole",
    "WholeType",
    "register_standard_dtypes",
    "standard_dtypes",
]
