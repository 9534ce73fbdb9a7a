"""Command-line entry point: ``python -m stridewave``."""

from __future__ import annotations

import sys

from stridewave.cli._main import main

if __name__ == "__main__":
    sys.exit(main())
