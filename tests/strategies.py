"""Hypothesis strategies shared by the layout, tensor and scatter tests.

They ship in :mod:`stridewave.testing.strategies`, for other carrier kinds' tests too.
"""

from __future__ import annotations

from stridewave.testing.strategies import injective_layouts, layouts

__all__ = ["injective_layouts", "layouts"]
