"""A run folder of its own for every run, even for runs started in the same second.

``conf/config.yaml`` names the run folder ``${fresh_dir:results/<device>/<time>_<scenario>}``.
The ``fresh_dir`` resolver creates the folder with an exclusive ``mkdir``; when another run
took that name first (two runs started in the same second on one results root) it takes
``<name>-2``, ``<name>-3``... So Hydra's ``.hydra/`` files of one run never land in another
run's folder. Within one process the same argument resolves to the same folder (Hydra
resolves the run dir more than once).

A folder given explicitly (``hydra.run.dir=X``) is checked by :func:`check_run_dir` before
Hydra writes anything into it: a folder that already holds a run, or a path under a regular
file, is refused with one line.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from omegaconf import OmegaConf

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
        return path
    raise ValueError(f"results folder {base!r}: 10000 runs took its name")


def _refuse_file_parent(path: Path) -> None:
    for parent in (path, *path.parents):
        if parent.exists() and not parent.is_dir():
            raise ValueError(f"results folder {str(path)!r} cannot be made: {str(parent)!r} "
                             "is a file, not a folder")


def check_run_dir(args: Sequence[str]) -> None:
    """Refuse ``hydra.run.dir=X`` when X holds a run or lies under a regular file."""
    for arg in args:
        if not arg.startswith(RUN_DIR_OVERRIDE):
            continue
        folder = Path(arg[len(RUN_DIR_OVERRIDE):])
        try:
            _refuse_file_parent(folder)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        taken = [f for f in RUN_FILES if (folder / f).exists()]
        if taken:
            raise UserError(f"results folder {str(folder)!r} already holds a run "
                            f"({', '.join(taken)}); a run never writes into another: choose "
                            "a new folder (hydra.run.dir=...)")


def register() -> None:
    """The ``fresh_dir`` resolver (registering again replaces it)."""
    OmegaConf.register_new_resolver("fresh_dir", fresh_dir, replace=True)
