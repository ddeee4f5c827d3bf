"""A small sweep end to end on the k50pro twin: real runs on forked workers, the outputs
written, the decision cost's direction, and a rerun that reuses every cell (``slow``: about
15 s with the compiled core on an idle machine)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harness.sensitivity.__main__ import run


@pytest.mark.slow
def test_a_small_sweep_writes_its_outputs_and_reuses_its_cells(tmp_path: Path) -> None:
    args = ["devices=[k50pro]", "scenarios=[frs]", "seeds=2", "duration_s=1",
            "warmup_s=0.2", "rows=[band,adms_ef]", "ratios=[[adms_ef,band]]",
            "only=[scheduler_ns_per_op]", "jobs=2", f"out_dir={tmp_path}"]
    anchors = tmp_path / "anchors.yaml"
    anchors.write_text("scheduler_ns_per_op: {value: 100, source: test}\n")
    out = run([*args, f"anchors={anchors}"])
    for name in ("cells.csv", "ratios.csv", "tornado.csv", "tornado.png", "crossovers.csv",
                 "crossovers.md", "sweep.json"):
        assert (out / name).stat().st_size > 0, name
    cells = pd.read_csv(out / "cells.csv")
    assert len(cells) == 3 * 2 * 2  # (default, low, high) x seeds x rows
    ratios = pd.read_csv(out / "ratios.csv").set_index("value")
    # Band's planner weighs every candidate of its window, ADMS few: a dearer decision
    # costs Band more (the paired per-seed ratios are kept)
    assert ratios.loc[1000.0, "mean"] > ratios.loc[1.0, "mean"]
    assert len(str(ratios.loc[10.0, "per_seed"]).split()) == 2
    run(args)  # every cell reused: no new line
    assert len(pd.read_csv(out / "cells.csv")) == len(cells)
