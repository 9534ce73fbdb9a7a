"""Data sets shipped with StrideWeave for ``python -m stridewave demo`` (see docs/demo.md)."""
