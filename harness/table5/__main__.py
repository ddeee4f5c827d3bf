"""``python -m harness.table5``: the K50 Pro twin's fragmentation constants fitted to Table V.

    python -m harness.table5                          # k50pro, 1 s per run, 3 steps
    python -m harness.table5 duration_s=2 iterations=4 out=results/table5

Runs each of Table V's five models alone under ``band`` and ``adms`` on the twin (latency
noise off), fits the constants of :data:`PARAMS` (``harness.table5.fit``), prints the fitted
values and every model's latency beside the paper's, and writes ``points.csv`` (every point
evaluated) into ``out``. The fitted values are ``conf/device/k50pro_table5.yaml``'s.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from harness.experiment.session import compose_run
from harness.reporting.paper import TABLE5
from harness.seams.errors import UserError, command
from harness.table5.fit import Evaluate, Param, Point, fit
from harness.table5.latency import single_latency_ms

#: the fragmentation constants fitted (device.twin.*), each with its step and upper bound:
#: the planner's wake-up per dispatched subgraph, the fixed cost of moving a tensor between
#: processors, the bookkeeping of a tensor copied between interpreters (µs)
PARAMS = (Param("device.twin.scheduler_fixed_us", 500.0, 20_000.0),
          Param("device.twin.transfer_fixed_us", 500.0, 20_000.0),
          Param("device.twin.copy_fixed_us", 100.0, 20_000.0))
#: the systems of Table V, by their baseline names
SYSTEMS = ("band", "adms")


@dataclass
class Table5Conf:
    # the twin fitted (its constants of PARAMS are the starting point)
    device: str = "k50pro"
    # simulated seconds of each single-model run
    duration_s: float = 1.0
    # Gauss-Newton steps at most
    iterations: int = 3
    # output folder (points.csv)
    out: str = "results/table5"


def parse_conf(args: Sequence[str]) -> Table5Conf:
    try:
        merged = OmegaConf.merge(OmegaConf.structured(Table5Conf),
                                 OmegaConf.from_dotlist(list(args)))
    except (OmegaConfBaseException, ValueError) as e:
        keys = ", ".join(f.name for f in dataclasses.fields(Table5Conf))
        raise UserError(f"table5: {str(e).splitlines()[0]} (keys: {keys})") from None
    conf: Table5Conf = OmegaConf.to_object(merged)  # type: ignore[assignment]
    if conf.duration_s <= 0 or conf.iterations < 0:
        raise UserError(f"table5: duration_s must be > 0 (got {conf.duration_s}) and "
                        f"iterations >= 0 (got {conf.iterations})")
    return conf


def targets() -> list[tuple[str, str, float]]:
    """(model, baseline, paper ms) of every Table V latency."""
    return [(r.model, s, r.latency_ms[s]) for r in TABLE5 for s in SYSTEMS]


def evaluator(conf: Table5Conf, cache: Path) -> Evaluate:
    """The twin's ten latencies (ms) at given values of :data:`PARAMS`."""

    def evaluate(theta: np.ndarray) -> np.ndarray:
        overrides = [f"{p.key}={float(v)!r}" for p, v in zip(PARAMS, theta, strict=True)]
        return np.array([single_latency_ms(conf.device, model, baseline, overrides,
                                           conf.duration_s, cache)
                         for model, baseline, _ in targets()])
    return evaluate


def start(device: str) -> list[float]:
    """The device's own values of :data:`PARAMS`."""
    raw = compose_run([f"device={device}"])[1]
    return [float(OmegaConf.select(raw, p.key)) for p in PARAMS]


def report(best: Point) -> str:
    """The fitted values and each target's latency beside the paper's."""
    lines = [f"{p.key} = {v:.1f}" for p, v in zip(PARAMS, best.theta, strict=True)]
    lines.append(f"{'model':<14} {'system':<6} {'paper ms':>9} {'twin ms':>9} {'twin/paper':>10}")
    for (model, baseline, paper), got in zip(targets(), best.latency_ms, strict=True):
        lines.append(f"{model:<14} {baseline:<6} {paper:>9.2f} {got:>9.2f} {got / paper:>10.2f}")
    lines.append(f"cost (sum of squared log ratios) {best.cost:.3f}")
    return "\n".join(lines)


def run(args: list[str]) -> int:
    conf = parse_conf(args)
    out = Path(conf.out)
    out.mkdir(parents=True, exist_ok=True)
    evaluate = evaluator(conf, out / "cache")
    paper = [t[2] for t in targets()]
    best, tried = fit(PARAMS, start(conf.device), evaluate, paper, conf.iterations,
                      progress=lambda p: print(f"step: {p.theta} cost {p.cost:.3f}",
                                               flush=True))
    rows = [{**{p.key: v for p, v in zip(PARAMS, pt.theta, strict=True)}, "cost": pt.cost,
             **{f"{m}/{b}": ms for (m, b, _), ms in zip(targets(), pt.latency_ms, strict=True)}}
            for pt in tried]
    pd.DataFrame(rows).to_csv(out / "points.csv", index=False)
    print(report(best))
    return 0


def main(argv: Sequence[str] | None = None) -> None:
    command(__doc__, run, argv)


if __name__ == "__main__":
    main(sys.argv[1:])
