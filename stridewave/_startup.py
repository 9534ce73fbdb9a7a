"""``python -m stridewave``: Ctrl-C while the package imports is one line and status 130.

Python imports the package (NumPy and ml_dtypes: over a second on a slow machine)
before it runs ``stridewave.__main__``, so the command line's own handling of Ctrl-C
(:func:`stridewave.cli._main.main`) starts late; an interrupt before it printed
Python's traceback from inside ml_dtypes. This module is imported first by the
package. Only in a process started as ``python -m stridewave`` (``sys.orig_argv``)
while runpy is still importing the package (``sys.argv[0] == "-m"``), and only where
SIGINT has Python's default handler (not ignored, as in a background job), it
installs a handler that writes that one line and leaves with status 130: nothing
exists yet that needs cleaning up. ``main`` puts the previous handler back first
thing (:func:`restore`). Imported as a library, the package never touches signals.
The handler is installed on import (:func:`install`).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType
from typing import Any

#: The handler this module replaced (empty: it installed none).
_PREVIOUS: list[Any] = []

#: The line it writes: the command's name as the command line's own handler writes it.
_LINE: list[bytes] = [b"python -m stridewave: interrupted\n"]


def _started_as_the_command_line() -> bool:
    """Whether runpy is importing this package for ``python -m stridewave``."""
    if sys.argv[:1] != ["-m"] or threading.current_thread() is not threading.main_thread():
        return False
    argv = list(getattr(sys, "orig_argv", ()))
    return "-m" in argv and argv[argv.index("-m") + 1 : argv.index("-m") + 2] == ["stridewave"]


def _interrupted(signum: int, frame: FrameType | None) -> None:
    os.write(2, _LINE[0])
    os._exit(130)


def install() -> None:
    """Install the import-time handler where this is ``python -m stridewave`` (see above)."""
    if (
        _started_as_the_command_line()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        argv = list(sys.orig_argv)
        command = argv[argv.index("-m") + 2 : argv.index("-m") + 3]
        if command and command[0] in ("demo", "info"):
            _LINE[0] = f"python -m stridewave {command[0]}: interrupted\n".encode()
        _PREVIOUS.append(signal.signal(signal.SIGINT, _interrupted))


def restore() -> None:
    """Put back the handler :func:`install` replaced (no-op if it replaced none)."""
    while _PREVIOUS:
        signal.signal(signal.SIGINT, _PREVIOUS.pop())


install()  # on import: the package imports this module before anything else
