"""One case of the battery: a command, what it should do, and how to set its folder up."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.cases.outcome import ENDED, Outcome

#: a case's own runner: (its folder, the shared completed run) -> outcome and shown command
Custom = Callable[[Path, Path], tuple[Outcome, str]]
#: a case's setup: (its folder, the shared completed run)
Setup = Callable[[Path, Path], None]


@dataclass
class Case:
    """``argv`` after ``python`` (``{d}``: the case's folder); ``expect`` error | ok | ending."""

    name: str
    argv: list[str] = field(default_factory=list)
    expect: str = "error"
    setup: Callable[[Path, Path], None] | None = None
    run_dir: str = ""  # a run folder (relative) whose ending and rows are judged
    statuses: tuple[str, ...] = ENDED
    codes: tuple[int, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    wrap: list[str] = field(default_factory=list)
    custom: Custom | None = None


def harness(*args: str) -> list[str]:
    return ["-m", "harness", *args]


def module(name: str, *args: str) -> list[str]:
    return ["-m", name, *args]


def console(*args: str) -> list[str]:
    """The ``harness`` console entry (harness/cli/main.py)."""
    return ["-c", "import sys; from harness.cli.main import main; main(sys.argv[1:])", *args]


def copy_ref(name: str = "ref") -> Callable[[Path, Path], None]:
    """A setup: the shared completed run copied into the case's folder as ``name``."""
    def setup(folder: Path, ref: Path) -> None:
        shutil.copytree(ref, folder / name)
    return setup


def write(rel: str, data: bytes | str, also: Callable[[Path, Path], None] | None = None
          ) -> Callable[[Path, Path], None]:
    """A setup: a file ``rel`` with ``data`` in the case's folder (after ``also``)."""
    def setup(folder: Path, ref: Path) -> None:
        if also is not None:
            also(folder, ref)
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)
    return setup
