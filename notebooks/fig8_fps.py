# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Figure 8: FPS of TFLite, Band and ADMS beside the paper
#
# Reads run folders (``requests.parquet`` ...) and derives everything from their rows with
# `harness.reporting.metrics`: a frame counts when **every** model of it finished. Set
# `RESULTS_DIR` to a run folder, or to a folder holding run folders (the newest `MAX_RUNS` are read). Without
# it, the notebook runs the K50 Pro **twin** (a calibrated simulation, not a phone) on FRS and
# ROS for `DURATION_S` simulated seconds each; every table and plot names the device kind.

# %%
import os
import tempfile
from pathlib import Path

import pandas as pd
from IPython.display import Image, Markdown, display

from harness.experiment import session
from harness.reporting import paper, plots, report
from harness.reporting.store import load_run

MAX_RUNS = 6
DURATION_S = float(os.environ.get("DURATION_S", "3"))


# %%
def run_folders(root: Path) -> list[Path]:
    """``root`` itself if it is a run folder, else the newest run folders below it."""
    def is_run(p: Path) -> bool:
        return (p / "requests.parquet").exists() or (p / "requests.jsonl").exists()

    if is_run(root):
        return [root]
    found = {p.parent for p in root.rglob("requests.*") if is_run(p.parent)}
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)[:MAX_RUNS]


def twin_runs(base: Path) -> list[Path]:
    """FRS and ROS on the K50 Pro twin, seed 0, without plots."""
    return [session.run([f"scenario={sc}", f"scenario.duration_s={DURATION_S}",
                         "scenario.warmup_s=0.5", "plots=false"], base / sc)
            for sc in ("frs", "ros")]


# %%
root = os.environ.get("RESULTS_DIR")
folders = run_folders(Path(root)) if root else twin_runs(Path(tempfile.mkdtemp()))
runs = [load_run(f) for f in folders]
print("runs:", *(str(r.folder) for r in runs), sep="\n  ")

# %% [markdown]
# ## The comparison table of each run

# %%
for run in runs:
    table, identity = report.report_table(run)
    display(Markdown(report.markdown(table, identity)))

# %% [markdown]
# ## The paper's Figure 8 values (derived ones marked)

# %%
reference = pd.DataFrame([
    {"device": d, "scenario": s, "baseline": b, "fps": v.value, "derived": v.derived,
     "source": v.source.where, "note": v.note}
    for (d, s), values in paper.FIG8_FPS.items() for b, v in values.items()])
reference

# %% [markdown]
# ## FPS beside the paper

# %%
for run in runs:
    table, identity = report.report_table(run)
    png = plots.fps_plot(table, identity, run.folder / "fps.png")
    display(Image(filename=str(png)))
