"""Running a case's process: the environment, the command, mounts and signals.

Every case runs ``python`` (this interpreter) with the repository on ``PYTHONPATH`` in a
folder of its own, so ``results/`` and any path it writes land there. Mounts need root: a
read-only tmpfs gives a real ``EROFS``, a small tmpfs a real ``ENOSPC``; permissions are
taken from a process by dropping its capabilities (root reads any file otherwise).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.cases.outcome import Outcome

REPO = Path(__file__).resolve().parents[2]
#: a process taking longer than this is stopped and judged unclean
TIMEOUT_S = 300
#: the short run every run case starts from
QUICK = ["scenario.duration_s=0.5", "seed.count=1", "plots=false"]
#: drops the capabilities that let root read and write any file
NO_ROOT = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), HARNESS_NATIVE="0", COLUMNS="100")
    return {**env, **(extra or {})}


def command(argv: list[str], folder: Path, wrap: list[str] | None = None) -> list[str]:
    """The full command line: ``wrap`` + this python + ``argv`` with ``{d}`` as the folder."""
    return [*(wrap or []), sys.executable, *(a.replace("{d}", str(folder)) for a in argv)]


def shown(argv: list[str], wrap: list[str] | None = None, env: dict[str, str] | None = None
          ) -> str:
    """The command as the table shows it (``$D``: the case's folder)."""
    pre = [f"{k}={v}" for k, v in (env or {}).items()] + (wrap or [])[:1]
    return " ".join([*pre, "python", *(shlex.quote(a).replace("{d}", "$D") for a in argv)])


def start(argv: list[str], folder: Path, env: dict[str, str] | None = None,
          wrap: list[str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(command(argv, folder, wrap), cwd=folder, env=environment(env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace")


def finish(proc: subprocess.Popen[str], timeout: float = TIMEOUT_S) -> Outcome:
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        return Outcome(proc.returncode, err, notes=["timed out"])
    return Outcome(proc.returncode, err)


def run(argv: list[str], folder: Path, env: dict[str, str] | None = None,
        wrap: list[str] | None = None) -> Outcome:
    return finish(start(argv, folder, env, wrap))


def head_one(argv: list[str], folder: Path) -> Outcome:
    """``python ... | head -1``: read one line of stdout, then close it."""
    proc = start(argv, folder)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read() if proc.stderr else ""
    try:
        proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        return Outcome(proc.wait(), err, notes=["timed out"])
    return Outcome(proc.returncode, err)


def wait_for(path: Path, timeout: float = 120) -> bool:
    """Wait until ``path`` exists."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.05)
    return False


def signalled(argv: list[str], folder: Path, signals: list[tuple[float, int]],
              after: Path | None = None) -> Outcome:
    """Run, and send each ``(delay, signal)`` in turn (delays from ``after`` appearing)."""
    proc = start(argv, folder)
    if after is not None and not wait_for(after):
        proc.kill()
        return finish(proc)
    for delay, sig in signals:
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(sig)
    return finish(proc)


@contextmanager
def mounted(where: Path, options: str) -> Iterator[Path]:
    """A tmpfs at ``where`` with mount ``options`` (``ro``; ``size=64k``) while inside."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@contextmanager
def read_only_copy(source: Path, where: Path) -> Iterator[Path]:
    """``source`` bind-mounted read-only at ``where`` while inside."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "--bind", str(source), str(where)], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


SIGINT, SIGTERM, SIGKILL = signal.SIGINT, signal.SIGTERM, signal.SIGKILL
