"""The end of a multirun: pool the jobs that differ only in their seeds; say how each ended.

Two Hydra callbacks (``conf/config.yaml``: ``hydra.callbacks``) that run once after every job
of ``harness -m ...``:

* :class:`SeedAggregate` writes the sweep's ``aggregate.csv``
  (:mod:`harness.reporting.seedsweep`). It never fails the sweep: a pooling that cannot be
  done says why in one line.
* :class:`SweepEndings` prints one line per job of this sweep, its ending as its folder's
  manifest records it (:mod:`harness.experiment.sweepjob` records every job's ending), and
  ends the command with exit code 1 when any job did not complete. Hydra calls
  ``on_multirun_end`` callbacks in reverse order: listed first, it runs last.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import yaml
from hydra.experimental.callback import Callback
from omegaconf import DictConfig

#: the exit code of a sweep in which a job did not complete
EXIT_JOB_FAILED = 1


class SeedAggregate(Callback):
    """``on_multirun_end``: :func:`~harness.reporting.seedsweep.aggregate` over the sweep."""

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        from harness.reporting.seedsweep import aggregate

        root = Path(config.hydra.sweep.dir)
        try:
            aggregate(root)
        except (OSError, ValueError, KeyError) as exc:
            print(f"warning: no aggregate of {root}: {exc}")


class SweepEndings(Callback):
    """One line per job of the sweep, then exit code 1 if any job did not complete."""

    def __init__(self) -> None:
        self.started_s = time.time()

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self.started_s = time.time()

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        endings = job_endings(Path(config.hydra.sweep.dir), self.started_s)
        print(f"sweep: {len(endings)} jobs")
        for num, overrides, ending in endings:
            print(f"  job #{num} [{overrides}]: {ending}")
        if any(not ending.startswith("completed") for _, _, ending in endings):
            raise SystemExit(EXIT_JOB_FAILED)


def job_endings(root: Path, since_s: float) -> list[tuple[int, str, str]]:
    """(job number, its overrides, its ending) of every job folder under ``root`` that
    Hydra made since ``since_s`` (a sweep folder given again holds older jobs too)."""
    out = []
    for config in sorted(root.rglob(".hydra/hydra.yaml")):
        if config.stat().st_mtime < since_s - 1:
            continue
        try:
            job = yaml.safe_load(config.read_text())["hydra"]
            num, overrides = int(job["job"]["num"]), " ".join(job["overrides"]["task"])
        except (OSError, ValueError, KeyError, TypeError, yaml.YAMLError):
            continue
        out.append((num, overrides, ending(config.parent.parent)))
    return sorted(out)


def ending(folder: Path) -> str:
    """A job's ending as its folder records it, in a few words."""
    from harness.seams.claim import LOCK, holder

    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except FileNotFoundError:  # a job that ends well recording nothing lets its claim go
        if not (folder / LOCK).exists():
            return f"completed (nothing recorded: a dry run) ({folder})"
        return "no ending recorded (the job's process died before it wrote one)"
    except (OSError, ValueError) as exc:
        return f"manifest unreadable: {exc}"
    status = str(manifest.get("status", "?"))
    if status == "running" and holder(folder) is None:
        return "killed (its manifest still says running)"
    error = manifest.get("error") or manifest.get("signal")
    return f"{status}: {error}" if error else f"{status} ({folder})"
