"""``python -m harness.paper``: runs, notebooks, one report.

1. compose ``conf/paper.yaml`` (:mod:`harness.paper.config`) with the command line;
2. collect the runs of every selected artifact (:mod:`harness.paper.plan`) and run each
   distinct one once, reusing complete folders (:mod:`harness.paper.runner`);
3. execute each artifact's notebook (:mod:`harness.paper.execute`);
4. write ``report/paper.html`` (self-contained) and ``report/paper.md`` (the summary table),
   both opened by Figure 8's verdicts (:mod:`harness.paper.verdicts`)
   (:mod:`harness.reporting.html`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from harness.config.compose import compose, to_object
from harness.experiment.components import register
from harness.paper import config, plan, runner, verdicts
from harness.paper.config import PaperConf

#: what a notebook needs of the paper's config beyond its runs (the sweep's overrides)
SETTINGS_FILE = "settings.json"


def load_conf(overrides: Sequence[str]) -> PaperConf:
    """``conf/paper.yaml`` with ``overrides``, validated (mode and artifact names too)."""
    register()  # the device schemas `device=` composes
    config.register()
    cfg: PaperConf = to_object(compose("paper", list(overrides)), PaperConf)
    plan.mode_of(cfg)
    plan.selected(cfg)
    return cfg


def out_of(cfg: PaperConf) -> Path:
    return Path(cfg.out_dir or f"results/paper/{cfg.device_name}/{cfg.mode}")


def build_runs(overrides: Sequence[str], console: Console | None = None
               ) -> tuple[PaperConf, dict[str, runner.Outcome]]:
    """Steps 1 and 2: every run the selected artifacts need, and ``index.json``."""
    cfg = load_conf(overrides)
    out = out_of(cfg)
    out.mkdir(parents=True, exist_ok=True)
    specs = [s for a in plan.selected(cfg) for s in plan.specs_of(cfg, a)]
    outcomes = runner.run_all(specs, out, cfg.reuse, console)
    runner.write_index(specs, outcomes, out)
    settings = {"device": cfg.device_name, "mode": cfg.mode,
                "sensitivity": list(plan.mode_of(cfg).sensitivity)}
    (out / SETTINGS_FILE).write_text(json.dumps(settings, indent=1) + "\n")
    return cfg, outcomes


@dataclass(frozen=True)
class Built:
    html: Path
    markdown: Path
    seconds: float
    errors: dict[str, str]


def build(overrides: Sequence[str], console: Console | None = None) -> Built:
    """Steps 1 to 4; notebook errors are kept in the report and returned."""
    from harness.paper.execute import execute
    from harness.reporting import html

    console = console or Console(stderr=True)
    start = time.monotonic()
    cfg, outcomes = build_runs(overrides, console)
    out = out_of(cfg)
    executed = []
    for artifact in plan.selected(cfg):
        name = plan.ARTIFACTS[artifact][0]
        console.print(f"notebook {name}")
        executed.append((artifact, execute(artifact, name, out, cfg.notebook_timeout_s)))
    seconds = time.monotonic() - start
    facts = {"device": cfg.device_name, "mode": cfg.mode, "seconds": round(seconds, 1),
             "runs": {s: sum(o.status == s for o in outcomes.values())
                      for s in ("ran", "reused", "failed")}}
    index = json.loads((out / runner.INDEX_FILE).read_text())
    fig8 = verdicts.fig8_runs(index, out)
    judged = verdicts.paper_verdicts(fig8)
    facts["adms_reading"] = verdicts.adms_reading(fig8)
    paths = html.write_report(out / "report", executed, facts, judged)
    errors = {a: e.error for a, e in executed if e.error}
    return Built(paths[0], paths[1], seconds, errors)
