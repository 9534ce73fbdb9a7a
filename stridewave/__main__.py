"""Command-line entry point: ``python -m stridewave``."""

from __future__ import annotations

import sys

try:
    from stridewave.cli._main import main
except KeyboardInterrupt:  # Ctrl-C while importing: the same quiet exit as later
    sys.exit(130)

if __name__ == "__main__":
    sys.exit(main())
