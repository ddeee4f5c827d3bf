"""The end of a multirun: pool the jobs that differ only in their seeds.

A Hydra callback (``conf/config.yaml``: ``hydra.callbacks``) that runs once after every job
of ``harness -m ...`` and writes the sweep's ``aggregate.csv``
(:mod:`harness.reporting.seedsweep`). It never fails the sweep: a pooling that cannot be
done says why in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig


class SeedAggregate(Callback):
    """``on_multirun_end``: :func:`~harness.reporting.seedsweep.aggregate` over the sweep."""

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        from harness.reporting.seedsweep import aggregate

        root = Path(config.hydra.sweep.dir)
        try:
            aggregate(root)
        except (OSError, ValueError, KeyError) as exc:
            print(f"warning: no aggregate of {root}: {exc}")
