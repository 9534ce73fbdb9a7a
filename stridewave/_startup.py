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


def _module_run(argv: list[str]) -> tuple[str, list[str]] | None:
    """Return ``(module, its arguments)`` of ``python [options] -m module ...``, else None.

    Reads the interpreter's own options as Python does: single letters may be grouped
    (``-Im``), ``-m``'s module may be attached (``-mstridewave``), ``-X``/``-W`` take
    an argument (attached or next), ``-c`` or a script means no module.
    """
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--check-hash-based-pycs":
            i += 2
            continue
        if not arg.startswith("-") or arg in ("-", "--"):
            return None
        if arg.startswith("--"):
            i += 1
            continue
        for k, letter in enumerate(arg[1:], start=1):
            if letter == "m":
                if arg[k + 1 :]:
                    return arg[k + 1 :], argv[i + 1 :]
                return (argv[i + 1], argv[i + 2 :]) if i + 1 < len(argv) else None
            if letter == "c":
                return None
            if letter in "XW":
                i += 0 if arg[k + 1 :] else 1  # its argument: the rest, or the next one
                break
        i += 1
    return None


def _command_line_arguments() -> list[str] | None:
    """Return the command's arguments if runpy imports this package for it, else None."""
    if sys.argv[:1] != ["-m"] or threading.current_thread() is not threading.main_thread():
        return None
    run = _module_run(list(getattr(sys, "orig_argv", ())))
    if run is None or run[0] not in ("stridewave", "stridewave.__main__"):
        return None
    return run[1]


def _interrupted(signum: int, frame: FrameType | None) -> None:
    os.write(2, _LINE[0])
    os._exit(130)


def install() -> None:
    """Install the import-time handler where this is ``python -m stridewave`` (see above)."""
    arguments = _command_line_arguments()
    if arguments is not None and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        command = next((a for a in arguments if not a.startswith("-")), "")
        if command in ("demo", "info"):
            _LINE[0] = f"python -m stridewave {command}: interrupted\n".encode()
        _PREVIOUS.append(signal.signal(signal.SIGINT, _interrupted))


def restore() -> None:
    """Put back the handler :func:`install` replaced (no-op if it replaced none)."""
    while _PREVIOUS:
        signal.signal(signal.SIGINT, _PREVIOUS.pop())


install()  # on import: the package imports this module before anything else
