"""A run folder of its own for every run, even for runs started in the same second.

``conf/config.yaml`` names the run folder ``${fresh_dir:results/<device>/<time>_<scenario>}``.
The ``fresh_dir`` resolver creates the folder with an exclusive ``mkdir``; when another run
took that name first (two runs started in the same second on one results root) it takes
``<name>-2``, ``<name>-3``... So Hydra's ``.hydra/`` files of one run never land in another
run's folder. Within one process the same argument resolves to the same folder (Hydra
resolves the run dir more than once).

A folder given explicitly (``hydra.run.dir=X``, read as Hydra's override parser reads it:
``hydra.run.dir='a b'`` is the folder ``a b``) is checked by :func:`check_run_dir` and claimed
by :func:`claim_run_dir` (:mod:`harness.seams.claim`) before Hydra writes anything into it:
a folder that already holds a run, or a path under a regular file, a dangling symlink or a
symlink loop, is refused with one line,
and of two runs started at once into one folder exactly one claims it. A folder ``fresh_dir``
makes is claimed as it is made.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path

from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf

from harness.seams import claim
from harness.seams.errors import UserError

#: files whose presence means a folder holds a run
RUN_FILES = ("manifest.json", "requests.arrows", "requests.jsonl", "requests.parquet")
RUN_DIR_OVERRIDE = "hydra.run.dir="


@functools.cache
def fresh_dir(base: str) -> str:
    """``base``, or ``base-N`` with the smallest N >= 2 that no one has taken, created."""
    _refuse_file_parent(Path(base))
    Path(base).parent.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10_000):
        path = base if n == 1 else f"{base}-{n}"
        try:
            Path(path).mkdir()
        except FileExistsError:
            continue
        claim.claim(Path(path))
        return path
    raise ValueError(f"results folder {base!r}: 10000 runs took its name")


def _refuse_file_parent(path: Path) -> None:
    """Refuse a folder that cannot be made: under a regular file, a dangling symlink or a
    symlink loop (each one line, not an ``mkdir`` traceback)."""
    for parent in (path, *path.parents):
        _refuse_odd_link(path, parent)
        if parent.exists() and not parent.is_dir():
            raise ValueError(f"results folder {str(path)!r} cannot be made: {str(parent)!r} "
                             "is a file, not a folder")


def _refuse_odd_link(path: Path, part: Path) -> None:
    if not part.is_symlink():
        return
    try:
        part.resolve(strict=True)
    except FileNotFoundError:
        raise ValueError(f"results folder {str(path)!r} cannot be made: {str(part)!r} is a "
                         f"symlink to {os.readlink(part)!r}, which does not exist") from None
    except (RuntimeError, OSError):  # RuntimeError: pathlib's word for a loop (Python 3.11)
        raise ValueError(f"results folder {str(path)!r} cannot be made: {str(part)!r} is a "
                         "symlink loop") from None


def run_dir_arg(args: Sequence[str]) -> Path | None:
    """The folder ``hydra.run.dir=X`` names, as Hydra will use it (quotes and escapes
    parsed); None when not given, or for a sweep (``-m``: Hydra uses ``hydra.sweep.dir``)."""
    if "-m" in args or "--multirun" in args:
        return None
    for arg in args:
        key = arg.split("=", 1)[0].lstrip("+~")
        if key != RUN_DIR_OVERRIDE.rstrip("="):
            continue
        try:
            value = OverridesParser.create().parse_override(arg).value()
        except Exception:  # Hydra refuses it in its own words later
            return Path(arg.split("=", 1)[1])
        # (an interpolation is Hydra's to resolve: its run's recorder claims the folder)
        return None if "${" in str(value) else Path(str(value))
    return None


def check_run_dir(args: Sequence[str]) -> None:
    """Refuse ``hydra.run.dir=X`` when X holds a run or lies under a regular file."""
    folder = run_dir_arg(args)
    if folder is None:
        return
    try:
        _refuse_file_parent(folder)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    taken = [f for f in (*RUN_FILES, claim.LOCK) if (folder / f).exists()]
    if taken:
        raise UserError(f"results folder {str(folder)!r} already holds a run "
                        f"({', '.join(taken)}); a run never writes into another: choose "
                        "a new folder (hydra.run.dir=...)")


def claim_run_dir(args: Sequence[str]) -> None:
    """Claim ``hydra.run.dir=X`` for this run, atomically (:func:`harness.seams.claim.claim`),
    and check it again once held (a folder of an older version holds no claim file)."""
    folder = run_dir_arg(args)
    if folder is None:
        return
    check_run_dir(args)
    claim.claim(folder)
    taken = [f for f in RUN_FILES if (folder / f).exists()]
    if taken:
        claim.release(folder, forget=True)
        check_run_dir(args)


def register() -> None:
    """The ``fresh_dir`` resolver (registering again replaces it)."""
    OmegaConf.register_new_resolver("fresh_dir", fresh_dir, replace=True)
