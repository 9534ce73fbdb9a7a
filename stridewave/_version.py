"""The package version, read by the build backend and by ``stridewave.__version__``."""

__version__ = "0.1.0"
