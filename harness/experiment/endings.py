"""How a run ends: stop signals, and an ending recorded for every run folder claimed.

Signals. Inside :func:`stop_on_signals` SIGINT and SIGTERM raise :class:`Interrupted`. The
first one is obeyed; from then on, until the block ends, a further one is noted on stderr and
not obeyed (:func:`_note_only`): the shutdown that follows closes the journals and writes the
manifest, and a second Ctrl-C must not cut it. :func:`signals_ignored` notes every signal.
``python -m harness`` holds :func:`stop_on_signals` from its first line, so a SIGTERM during
start-up (composition, model loading) is an interruption too, not a silent death.

Endings. :func:`endings_recorded` wraps a command that may claim run folders
(:mod:`harness.seams.claim`): however it ends, every folder this process still holds gets a
manifest saying so (``interrupted`` with the signal, ``failed`` with the error's one line),
unless its recorder already wrote one; a folder nothing was recorded into and whose command
ended well (a dry run) is let go without a trace of the claim.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from harness.reporting.store import write_manifest
from harness.seams import claim
from harness.seams.errors import UserError

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: the handler blocks open, innermost last (a signal noted in an inner one is kept for the
#: outer ones until the outermost ends)
_DEPTH: list[Callable[[int, object], None]] = []
#: stop signals received inside :func:`stop_on_signals` and not yet obeyed
_PENDING: list[int] = []


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal (SIGINT or SIGTERM)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name


def one_line(exc: BaseException) -> str:
    """An error as the manifest and the terminal give it: one line; a user error's message
    alone, anything else with its type."""
    text = " ".join(str(exc).split())
    return text if isinstance(exc, UserError) else f"{type(exc).__name__}: {text}"


def _raise_interrupted(signum: int, _frame: object) -> None:
    _PENDING.append(signum)
    for s in STOP_SIGNALS:  # the shutdown this starts is not cut by a second signal
        signal.signal(s, _note_only)
    raise Interrupted(signum)


def obey_pending_signal() -> None:
    """Raise :class:`Interrupted` for a stop signal whose handler's exception was lost.
    Python runs a handler at the main thread's next bytecode, which may be inside a
    ``__del__`` or a finaliser, where an exception is printed and dropped; the run's
    progress callback calls this, so such a signal still ends the run."""
    if _PENDING:
        raise Interrupted(_PENDING[0])


def _note_only(signum: int, _frame: object) -> None:
    """During shutdown a further signal is noted, not obeyed: the journals must close."""
    with suppress(OSError, ValueError):  # (stderr closed: the shutdown goes on regardless)
        print(f"{signal.Signals(signum).name} during shutdown: closing the run first",
              file=sys.stderr, flush=True)


@contextmanager
def _handlers(handler: Callable[[int, object], None]) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach only the main thread; a run on another thread keeps defaults
        return
    before = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    _DEPTH.append(handler)
    try:
        yield
    finally:
        _DEPTH.pop()
        came = bool(_PENDING)
        for s, h in before.items():
            # once a stop signal came, the shutdown it started is not cut by a later one,
            # in this block's callers too (the outermost caller decides what then happens)
            signal.signal(s, _note_only if came else h)
        if not _DEPTH:
            _PENDING.clear()


def stop_on_signals() -> Any:
    """SIGINT and SIGTERM raise :class:`Interrupted` inside the block (the first one; later
    ones are noted)."""
    return _handlers(_raise_interrupted)


def signals_ignored() -> Any:
    """SIGINT and SIGTERM are noted and otherwise ignored inside the block."""
    return _handlers(_note_only)


def note_signals() -> None:
    """From now on, until the process ends, a stop signal is noted and not obeyed (a command
    reporting how its run ended)."""
    if threading.current_thread() is threading.main_thread():
        for s in STOP_SIGNALS:
            signal.signal(s, _note_only)


@contextmanager
def endings_recorded() -> Iterator[None]:
    """Every folder this process claimed gets its ending recorded, however the block ends
    (module docstring)."""
    try:
        yield
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        _end_held({"status": "interrupted", "signal": signal.Signals(signum).name})
        raise
    except SystemExit as exc:
        _end_held(None if exc.code in (0, None) else {"status": "failed",
                                                      "error": f"exit code {exc.code}"})
        raise
    except BaseException as exc:
        _end_held({"status": "failed", "error": one_line(exc)})
        raise
    _end_held(None)


def _end_held(ending: dict[str, Any] | None) -> None:
    for folder in claim.held():
        _end(folder, ending)


def _end(folder: Path, ending: dict[str, Any] | None) -> None:
    recorded = (folder / "manifest.json").exists()
    try:
        if ending is not None and not recorded:
            write_manifest(folder, ending)
    except OSError as exc:
        print(f"error: {folder}: the run's ending ({ending}) could not be recorded: {exc}",
              file=sys.stderr)
    finally:
        claim.release(folder, forget=ending is None and not recorded)
