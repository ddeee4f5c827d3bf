"""``python -m harness.decision_cost``: every policy's decision timed against its counted work.

    python -m harness.decision_cost                       # k50pro, p20 x FRS, ROS; every policy
    python -m harness.decision_cost devices=[k50pro] scenarios=[frs] baselines=[band,adms]
    python -m harness.decision_cost duration_s=2 repeats=21 out=results/decision_cost

Records each baseline's decision trace from a twin run per (device, scenario), times every
decision in the runner's C++ library (``runner/build/decision_bench``: ``make runner``),
fits ns per unit of counted work per baseline and prints the table; writes
``timings.csv`` (every decision) and ``fits.csv`` (the fits and the audit of each count,
:mod:`harness.decision_cost.audit`) into ``out``. Time it on a quiet machine:
the load average is printed and written beside the table (docs/decision-cost.md).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException
from rich.console import Console

from harness.decision_cost.audit import audit
from harness.decision_cost.bench import Timing, timings
from harness.decision_cost.fit import fit
from harness.decision_cost.record import record_twin
from harness.decision_cost.table import fits_frame, render
from harness.seams.errors import UserError, command

#: every baseline the twin runs with a policy of the decision library
BASELINES = ["tflite", "tflite_gpu", "band", "band7", "band_fixed_worker", "band_round_robin",
             "band_sel", "band_heft", "band_heft_reserved", "adms", "adms_ef",
             "adms_eqs_only", "adms_strict", "adms_work_conserving", "adms_window1",
             "adms_no_monitor", "adms_no_priority", "adms_no_partition", "adms_selfish",
             "adms_per_model", "adms_lp_split", "adms_shed"]


@dataclass
class DecisionCostConf:
    # twins whose runs give the traces
    devices: list[str] = field(default_factory=lambda: ["k50pro", "p20"])
    # scenarios run on each
    scenarios: list[str] = field(default_factory=lambda: ["frs", "ros"])
    # baselines recorded (each must run on the twin with a decision-library policy)
    baselines: list[str] = field(default_factory=lambda: list(BASELINES))
    # simulated seconds of each recorded run (no warm-up: the first decisions count too)
    duration_s: float = 2.0
    # seed of the recorded runs
    seed: int = 0
    # replays of every trace; each decision's time is its minimum over them
    repeats: int = 21
    # output folder (traces, timings.csv, fits.csv)
    out: str = "results/decision_cost"


def parse_conf(args: Sequence[str]) -> DecisionCostConf:
    """``key=value`` arguments over the defaults; a bad key or value is one error."""
    try:
        merged = OmegaConf.merge(OmegaConf.structured(DecisionCostConf),
                                 OmegaConf.from_dotlist(list(args)))
    except (OmegaConfBaseException, ValueError) as e:
        raise UserError(f"decision_cost: {str(e).splitlines()[0]} (keys: "
                        f"{', '.join(f.name for f in dataclasses.fields(DecisionCostConf))})"
                        ) from None
    conf: DecisionCostConf = OmegaConf.to_object(merged)  # type: ignore[assignment]
    if conf.repeats < 1 or conf.duration_s <= 0:
        raise UserError(f"decision_cost: repeats must be >= 1 (got {conf.repeats}) and "
                        f"duration_s > 0 (got {conf.duration_s})")
    return conf


def measure(conf: DecisionCostConf, console: Console) -> pd.DataFrame:
    """Every decision of every recorded trace, timed: one row each."""
    out = Path(conf.out)
    frames: list[pd.DataFrame] = []
    for device in conf.devices:
        for scenario in conf.scenarios:
            console.print(f"recording {device} {scenario} ({len(conf.baselines)} baselines)")
            traces = record_twin(device, scenario, conf.baselines, conf.seed, conf.duration_s,
                                 out / "traces")
            for baseline, path in traces.items():
                rows = pd.DataFrame([dataclasses.asdict(t) for t in
                                     timings(path, conf.repeats)])
                frames.append(rows.assign(device=device, scenario=scenario, baseline=baseline))
            console.print(f"timed {device} {scenario}: {', '.join(traces)}")
    return pd.concat(frames, ignore_index=True)


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages (``unknown`` off Linux)."""
    path = Path("/proc/loadavg")
    return " ".join(path.read_text().split()[:3]) if path.exists() else "unknown"


def run(args: list[str]) -> int:
    conf = parse_conf(args)
    console = Console()
    load = loadavg()
    rows = measure(conf, console)
    out = Path(conf.out)
    out.mkdir(parents=True, exist_ok=True)
    rows.to_csv(out / "timings.csv", index=False)
    by_baseline = {b: [_timing(r) for r in g.itertuples()]
                   for b, g in rows.groupby("baseline", sort=False)}
    fits = fits_frame({b: fit(t) for b, t in by_baseline.items()},
                      {b: audit(t) for b, t in by_baseline.items() if len(t) > 1})
    fits.to_csv(out / "fits.csv", index=False)
    end_load = loadavg()
    print(render(fits, f"load average before {load}, after {end_load}"))
    (out / "load.txt").write_text(f"before {load}\nafter {end_load}\n")
    return 0


def _timing(row: object) -> Timing:
    return Timing(*(getattr(row, f.name) for f in dataclasses.fields(Timing)))


def main(argv: Sequence[str] | None = None) -> None:
    command(__doc__, run, argv)


if __name__ == "__main__":
    main(sys.argv[1:])
