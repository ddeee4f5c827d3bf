"""The whole sweep of every estimated twin constant, timed (``make bench``; about 15 minutes
on 2 cores, kept out of the default run by the ``benchmark`` marker).

Every swept constant of ``conf/sensitivity.yaml``, k50pro and p20, FRS and ROS, 5 seeds,
the five default rows: the figure is its wall time, beside the cells it ran and the
machine's load before and after. Nothing asserts on time: the run checks only that every
cell ran and the outputs were written.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from harness.sensitivity.__main__ import run
from tests.harness.runtime.test_runtime_bench import report


@pytest.mark.benchmark(group="sensitivity")
def test_the_whole_sweep(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    def whole() -> Path:
        return run([f"out_dir={tmp_path}", "reuse=false"])

    start = time.perf_counter()
    out = benchmark.pedantic(whole, rounds=1)
    wall_s = time.perf_counter() - start
    facts = json.loads((out / "sweep.json").read_text())
    cells = pd.read_csv(out / "cells.csv")
    assert len(cells) == facts["cells"] * len(facts["rows"])
    assert (out / "tornado.png").stat().st_size > 0
    print(f"load before {facts['loadavg_before']}, after {facts['loadavg_after']}")
    report(benchmark, wall_s=wall_s, cells=float(facts["cells"]), jobs=float(facts["jobs"]))
