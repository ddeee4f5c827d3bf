"""``python -m harness.sensitivity [key=value ...]`` (also ``harness sensitivity``): every
estimated twin constant swept over its range (``conf/sensitivity.yaml``), one at a time.

Writes into ``out_dir`` (default ``results/sensitivity``): ``cells.csv`` (FPS of every row,
cell and seed), ``ratios.csv`` (each ratio with its paired 95% interval at every point),
``tornado.png`` and ``tornado.csv`` (how far each constant moves each ratio),
``crossovers.csv`` and ``crossovers.md`` (where a ratio crosses 1 or the paper's ratio) and
``sweep.json`` (the setup, the wall time, the machine's load). Bad input ends with one
``error:`` line and exit code 2.

    python -m harness.sensitivity
    harness sensitivity seeds=2 'devices=[k50pro]' 'scenarios=[frs]' 'only=[scheduler_ns_per_op]'
    harness sensitivity anchors=measured.yaml out_dir=results/sensitivity/mine
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from harness.config.compose import compose, to_object
from harness.experiment.components import register
from harness.experiment.provenance import git_commit
from harness.seams.errors import command
from harness.sensitivity import analysis, cells, config, execute, outputs
from harness.sensitivity.config import SensitivityConf

DEFAULT_OUT = "results/sensitivity"


def load_conf(overrides: Sequence[str]) -> SensitivityConf:
    """``conf/sensitivity.yaml`` with ``overrides``, typed."""
    register()
    config.register()
    cfg: SensitivityConf = to_object(compose("sensitivity", list(overrides)), SensitivityConf)
    return cfg


def load() -> str:
    """The machine's load averages (``/proc/loadavg``'s first three), or "unknown"."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def run(overrides: Sequence[str], console: Console | None = None) -> Path:
    """The sweep (see the module); returns its folder."""
    console = console or Console(stderr=True)
    cfg = load_conf(overrides)
    constants = config.selected(cfg)
    anchors = outputs.load_anchors(cfg.anchors, constants)
    out = Path(cfg.out_dir or DEFAULT_OUT)
    todo = cells.cells(cfg, constants)
    start, load_before = time.monotonic(), load()
    console.print(f"sensitivity: {len(constants)} constants, {len(todo)} cells "
                  f"({len(cfg.devices)} devices x {len(cfg.scenarios)} scenarios x "
                  f"{cfg.seeds} seeds) into {out}")
    ran, world = execute.sweep(cfg, constants, todo, out)
    wanted = {(c.device, c.scenario, c.constant, execute.cell_key(c.value), c.seed)
              for c in todo}
    lines = ran.lines[[(r.device, r.scenario, r.constant, execute.cell_key(r.value),
                        int(r.seed)) in wanted for r in ran.lines.itertuples()]]
    table = analysis.ratios(lines, cfg.ratios, constants, world.runs)
    seconds = time.monotonic() - start
    commit = git_commit()
    facts = {"commit": commit, "wall_s": round(seconds, 1), "cells": len(todo),
             "cells_run": ran.run,
             "rows": world.rows, "jobs": cfg.jobs or os.cpu_count(),
             "loadavg_before": load_before, "loadavg_after": load(),
             "setup": world.setup, "errors": int((lines["error"] != "").sum())}
    (out / "sweep.json").write_text(json.dumps(facts, indent=1) + "\n")
    provenance = (f"twin sweep · {cfg.seeds} seeds x {cfg.duration_s:g} s · "
                  f"commit {commit[:10]} · {len(todo)} cells, {ran.run} run now in "
                  f"{seconds:.0f} s wall")
    paths = outputs.write(out, table, constants, anchors, provenance)
    console.print(f"took {seconds:.0f} s (load {load_before} -> {facts['loadavg_after']})")
    console.print(f"figure: {paths['figure']}\ncrossovers: {paths['crossovers_md']}")
    return out


def main(argv: Sequence[str] | None = None) -> None:
    command(__doc__, lambda args: run(args), argv)


if __name__ == "__main__":
    main()
