"""``validation.md``: the twin's prediction beside the host's measurement, with the load."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.validate.compare import RowError, ordering, table
from harness.validate.config import ValidateConf
from harness.validate.runs import BothSides


def write(path: Path, conf: ValidateConf, rows: Sequence[RowError], notes: Sequence[str],
          both: BothSides, commit: str) -> Path:
    """The report: what was calibrated, the table, the ordering, the load of the host run."""
    load = both.host_load
    within = [r for r in rows if r.metric == "fps" and r.within(conf.bound_pct)]
    n_rows = len(both.baselines)
    lines = [
        f"# {conf.device.name} against its twin ({conf.scenario.name})", "",
        f"Commit `{commit[:7]}`; {conf.seeds} seeds x {conf.duration_s:g} s after "
        f"{conf.warmup_s:g} s warm-up on each side. Host run at load {load.get('load_before')}"
        f" -> {load.get('load_after')}; other processes used {load.get('foreign_cores')} "
        "cores on average during it.", "",
        "## Calibration (single-model runs on this machine)", "",
        *[f"- {n}" for n in notes], "",
        "## Host and twin, row by row", "",
        *table(rows, conf.bound_pct), "",
        f"{len(within)} of {n_rows} rows within ±{conf.bound_pct:g}% on FPS (the whole "
        "interval inside the bound). " + ordering(rows)[0], "",
        f"Twin overrides: {', '.join(conf.twin_overrides) or 'none'}.", ""]
    path.write_text("\n".join(lines))
    return path
