"""The terminal a command prints to may be closed (``| head -1``) or unable to show a
character (``LANG=C``, ``PYTHONIOENCODING=ascii``): neither may cost a run its files.

:func:`forgiving_streams` makes stdout and stderr replace what their encoding cannot show
(``?``), and turns stdout into a :class:`_Forgiving` stream: once its reader has gone, what
is printed goes nowhere (the descriptor is pointed at ``/dev/null``, as the Python docs advise
for ``SIGPIPE``) and the command goes on writing its run folder.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any


class _Forgiving:
    """A text stream that drops what it cannot deliver once its reader has gone."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()

    def _gone(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def forgiving_streams() -> None:
    """stdout and stderr as the module docstring says (a stream that is not a plain text
    file, as under a test's capture, is left alone)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout = _Forgiving(sys.stdout)
