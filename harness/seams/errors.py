"""User errors: bad input that ends a command with a one-line message and exit code 2.

Everything a user can get wrong (a missing file, an unknown processor, a window size below 1)
raises :class:`UserError`. Command-line entry points wrap their body in :func:`cli_guard`,
which prints ``error: <message>`` to stderr and exits with code 2, without a traceback; so
does a path that cannot be used (read-only, not permitted) and a refused command line
(:class:`Parser`).
Programming errors are not ``UserError`` and keep their traceback.
"""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NoReturn, TypeVar

EXIT_USER_ERROR = 2
#: errors of a path the user named (read-only, not permitted, not a folder): one line, not
#: a traceback; a full disk is the run's own ending (harness/__main__.py)
PATH_ERRNOS = (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EISDIR)

T = TypeVar("T")


class UserError(Exception):
    """Bad input: the message names the bad value and what is allowed."""


class NotImplementedYet(UserError):
    """A documented capability that this version does not have yet."""


class RunFailure(Exception):
    """A baseline could not run on a device (it ran out of memory, say): the run records the
    failure for that baseline and seed, and goes on with the others."""


def fail(message: str) -> NoReturn:
    """Print a one-line error and exit with code 2."""
    first_line = " ".join(str(message).split())
    print(f"error: {first_line}", file=sys.stderr)
    raise SystemExit(EXIT_USER_ERROR)


@contextmanager
def cli_guard() -> Iterator[None]:
    """Turn a :class:`UserError` raised inside the block into a one-line exit 2."""
    try:
        yield
    except UserError as exc:
        fail(str(exc))
    except OSError as exc:
        if exc.errno not in PATH_ERRNOS or exc.filename is None:
            raise
        fail(f"cannot use {exc.filename}: {(exc.strerror or '').lower()}")


class Parser(argparse.ArgumentParser):
    """An argument parser whose refusal is one ``error:`` line (no usage block), exit 2."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (--help: usage)")


def run_cli(main: Callable[[], T]) -> T:
    """Call ``main`` under :func:`cli_guard`."""
    with cli_guard():
        return main()
    raise AssertionError("unreachable")  # pragma: no cover


def command(doc: str | None, run: Callable[[list[str]], T],
            argv: Sequence[str] | None = None) -> T | None:
    """A ``key=value`` command's entry point: ``-h``/``--help`` prints ``doc``; otherwise
    ``run(args)`` under :func:`cli_guard` (``argv``: the command line without the program)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        print(doc)
        return None
    return run_cli(lambda: run(args))
