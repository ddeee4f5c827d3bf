"""Speed of the simulated runtime: how fast the twins run, and how long the main job takes.

Kept out of the default test run (``benchmark`` marker); run with::

    .venv/bin/python -m pytest -m benchmark tests/harness/runtime/test_runtime_bench.py \
        --benchmark-enable -s

Nothing here asserts on time. Each benchmark reports its figure (``extra_info`` in
pytest-benchmark's JSON, and a printed line) and checks only that the run did its work, so a
broken run cannot post a fast figure. Goals, for the report: a 30-minute ADMS run in under
30 s of wall time; ``python -m harness`` with its defaults in under 60 s.

* ``sim_s_per_wall_s``: simulated seconds (to the run's end, drain included) per wall second
  of :func:`harness.experiment.baseline.run_baseline` on k50pro FRS (10 s + 1 s warm-up, the
  scenario's defaults), the ADMS tuner's cache warm so planning is not counted; the figure
  printed is the last round's, pytest-benchmark keeps every round.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from harness.config.schema import RunConf
from harness.experiment.baseline import run_baseline
from harness.experiment.models import Models
from harness.experiment.session import scenario_models
from harness.reporting.store import RunRecorder, load_run
from harness.seams.units import NS_PER_S
from tests.fixtures.paths import REPO
from tests.fixtures.runs import compose_run

ROOT = REPO
_COUNTER = itertools.count()


def one_baseline(cfg: RunConf, name: str, models: Models, root: Path, cache: Path
                 ) -> tuple[dict[str, Any], int, float]:
    """Run ``name`` into a fresh folder under ``root``; (facts, ok requests, wall seconds of
    the run itself, recording included)."""
    folder = root / f"run{next(_COUNTER)}"
    recorder = RunRecorder(folder)
    start = time.perf_counter()
    try:
        facts = dict(run_baseline(cfg, name, models, recorder, lambda _ns: None, cache).facts)
    finally:
        recorder.close()
    wall_s = time.perf_counter() - start
    requests = load_run(folder).requests
    return facts, int((requests["status"] == "ok").sum()), wall_s


def report(benchmark: BenchmarkFixture, **figures: float) -> None:
    benchmark.extra_info.update(figures)
    print(" ".join(f"{k}={v:.3f}" for k, v in figures.items()))


@pytest.mark.benchmark(group="sim-speed")
@pytest.mark.parametrize("baseline", ["tflite", "band", "adms"])
def test_simulated_seconds_per_wall_second(benchmark: BenchmarkFixture, baseline: str,
                                           tmp_path: Path) -> None:
    cfg = compose_run("device=k50pro", "scenario=frs")
    models = scenario_models(cfg)
    one_baseline(cfg, baseline, models, tmp_path, tmp_path / "cache")  # warms the tuner cache
    facts, ok, wall_s = benchmark.pedantic(one_baseline, args=(cfg, baseline, models, tmp_path,
                                                               tmp_path / "cache"), rounds=3)
    assert ok > 0
    report(benchmark, sim_s=facts["end_ns"] / NS_PER_S, wall_s=wall_s,
           sim_s_per_wall_s=facts["end_ns"] / NS_PER_S / wall_s)


@pytest.mark.benchmark(group="long")
def test_thirty_simulated_minutes_of_adms(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    """Goal: < 30 s wall (reported, not asserted). Tuning included: a cold first run."""
    cfg = compose_run("device=k50pro", "scenario=frs", "scenario.duration_s=1800", "run=[adms]")
    models = scenario_models(cfg)
    facts, ok, wall_s = benchmark.pedantic(one_baseline, args=(cfg, "adms", models, tmp_path,
                                                               tmp_path / "cache"), rounds=1)
    assert facts["end_ns"] >= 1800 * NS_PER_S and ok > 0
    report(benchmark, sim_s=facts["end_ns"] / NS_PER_S, wall_s=wall_s, goal_wall_s=30.0,
           sim_s_per_wall_s=facts["end_ns"] / NS_PER_S / wall_s)


def main_job(folder: Path) -> float:
    """Wall seconds of ``python -m harness`` with its defaults, results into ``folder``."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "harness", f"hydra.run.dir={folder}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-2000:]
    return elapsed


@pytest.mark.benchmark(group="main-job")
def test_python_m_harness_defaults(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    """Goal: < 60 s wall (reported, not asserted); includes interpreter start and plots."""
    wall_s = benchmark.pedantic(main_job, args=(tmp_path / "run",), rounds=1)
    requests = load_run(tmp_path / "run").requests
    assert set(requests["baseline"]) == {"tflite", "tflite_gpu", "band", "adms", "adms_ef"}
    assert (tmp_path / "run" / "summary.csv").exists()
    report(benchmark, wall_s=wall_s, goal_wall_s=60.0)
