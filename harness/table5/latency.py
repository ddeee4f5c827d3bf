"""One model alone on a twin under one baseline: its mean latency (Table V's measure)."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from harness.experiment.baseline import run_baseline
from harness.experiment.session import compose_run, scenario_models
from harness.reporting.store import RunRecorder, load_run
from harness.seams.units import NS_PER_MS


def single_latency_ms(device: str, model: str, baseline: str, overrides: Sequence[str],
                      duration_s: float, cache: Path) -> float:
    """Mean latency (ms, arrival to end, finished requests after the warm-up) of ``model``
    alone in a closed loop (``scenario=single``) under ``baseline`` on the twin ``device``
    with ``overrides``, its latency noise off (deterministic)."""
    cfg, _ = compose_run([f"device={device}", "scenario=single", f"scenario.models=[{model}]",
                          f"scenario.duration_s={duration_s}", "scenario.warmup_s=0.2",
                          "device.twin.noise_sigma=0", *overrides])
    with tempfile.TemporaryDirectory(prefix="table5_") as tmp:
        rows = RunRecorder(Path(tmp))
        try:
            run_baseline(cfg, baseline, scenario_models(cfg), rows, lambda _ns: None, cache)
        finally:
            rows.close()
        requests = load_run(tmp).requests
    done = requests[(requests["status"] == "ok") & ~requests["warmup"].astype(bool)]
    if done.empty:
        return float("nan")
    return float(((done["end_ns"] - done["arrival_ns"]) / NS_PER_MS).mean())
