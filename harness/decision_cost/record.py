"""Decision traces recorded from short twin runs, one file per baseline and run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.experiment.baseline import run_baseline
from harness.experiment.session import compose_run, scenario_models
from harness.replay.record import Recorder, record_to
from harness.reporting.store import RunRecorder
from harness.seams.errors import RunFailure
from harness.seams.policy import Policy


def record_twin(device: str, scenario: str, baselines: Sequence[str], seed: int,
                duration_s: float, folder: Path) -> dict[str, Path]:
    """Each of ``baselines`` run on the twin ``device`` for ``duration_s``; baseline -> its
    trace ``<folder>/<device>_<scenario>_<baseline>.jsonl`` (a baseline the twin cannot run,
    e.g. out of memory, is left out)."""
    folder.mkdir(parents=True, exist_ok=True)
    cfg, _ = compose_run([f"device={device}", f"scenario={scenario}", f"seed.base={seed}",
                          f"scenario.duration_s={duration_s}", "scenario.warmup_s=0"])
    models = scenario_models(cfg)
    recorders: list[Recorder] = []
    out: dict[str, Path] = {}

    def wrap(name: str, policy: Policy) -> Policy:
        recorders.append(record_to(policy, out[name], name))
        return recorders[-1]

    rows = RunRecorder(folder / f"run_{device}_{scenario}")
    try:
        for name in baselines:
            out[name] = folder / f"{device}_{scenario}_{name}.jsonl"
            try:
                run_baseline(cfg, name, models, rows, lambda _ns: None, folder / "cache",
                             wrap=wrap)
            except RunFailure:
                out.pop(name).unlink(missing_ok=True)
            finally:
                for recorder in recorders:
                    recorder.close()
                recorders.clear()
    finally:
        rows.close()
    return out
