"""The command-line application (``python -m stridewave``): ``info`` and the ``demo`` job.

This subpackage sits on top of the library and is never imported by it.
"""

from __future__ import annotations

from stridewave.cli._main import main

__all__ = ["main"]
