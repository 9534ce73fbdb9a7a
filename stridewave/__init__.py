"""StrideWeave: typed 1-D storage and dtype descriptors over NumPy, ml_dtypes and MLX.

The stable public surface is the names in ``__all__``; importing this package never
imports ``mlx`` (the Metal carrier loads it on first construction).
"""

from stridewave._version import __version__

__all__ = ["__version__"]
