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
# # Where the verdict turns: every estimated twin constant swept
#
# The twins' constants marked [E] (estimated) or [U] (not found) in `conf/device/*.yaml`
# each carry a plausible range (`conf/sensitivity.yaml`, `docs/sensitivity.md`, with why).
# `python -m harness.sensitivity` runs the rows at both ends of each range, one constant at a
# time, every other constant at its default, and reports ADMS's FPS over Band's and over
# TFLite's (paired 95% intervals over seeds). The tornado shows how far each constant moves
# each ratio; the crossover table gives, for each constant whose range carries a ratio across
# 1 or the paper's stated ratio, the value at which it crosses (interpolated between swept
# values). First, the default configuration the sweep departs from.

# %%
import json

import pandas as pd
from IPython.display import Image, Markdown, display

from harness.paper import nb
from harness.paper.build import SETTINGS_FILE
from harness.reporting import report
from harness.reporting.paper import FIG8_RATIOS
from harness.reporting.stats import NAN, Interval
from harness.sensitivity.__main__ import run as sweep
from harness.sensitivity.analysis import paper_key

found = nb.runs("sensitivity")
display(Markdown(nb.heading("The default configuration (FRS)", found)))
table, identity = report.report_table(found[0].data)
display(Markdown(report.markdown(table, identity)))

# %%
out = nb.out_dir()
settings_path = out / SETTINGS_FILE
settings = json.loads(settings_path.read_text()) if settings_path.exists() else {}
folder = sweep([*settings.get("sensitivity", []), f"out_dir={out / 'sensitivity'}"])
facts = json.loads((folder / "sweep.json").read_text())
display(Markdown(f"Sweep: {facts['cells']} cells, rows {', '.join(facts['rows'])}, "
                 f"{facts['wall_s']} s wall on {facts['jobs']} workers (load "
                 f"{facts['loadavg_before']}), commit `{facts['commit'][:10]}`."))
display(Image(filename=str(folder / "tornado.png")))

# %% [markdown]
# ## Crossovers: where a constant flips a verdict word

# %%
display(Markdown((folder / "crossovers.md").read_text()))

# %% [markdown]
# ## The sweep's ratios at the defaults, beside the paper's
#
# Each ratio at the default configuration (the sweep's own default cells; paired interval over
# seeds), with the paper's stated ratio where it has one; the note names the constants that
# cross a verdict line within their range.

# %%
ratios = pd.read_csv(folder / "ratios.csv")
crossed = pd.read_csv(folder / "crossovers.csv")
rows = []
defaults = ratios[ratios["is_default"]].drop_duplicates(["device", "scenario", "ratio"])
for r in defaults.itertuples():
    den = str(r.ratio).split("/")[1]
    paper_value = FIG8_RATIOS.get((r.device, r.scenario), {}).get(paper_key(den), NAN)
    per_seed = tuple(float(v) for v in str(r.per_seed).split()) if r.per_seed == r.per_seed else ()
    mine = crossed[(crossed["device"] == r.device) & (crossed["scenario"] == r.scenario)
                   & (crossed["ratio"] == r.ratio) & crossed["clear"]]
    note = ("crosses a verdict line: " + ", ".join(
        f"{c.constant} at {c.crosses_at:.3g} (line {c.line:.2f})" for c in mine.itertuples())
        if len(mine) else "no constant crosses a verdict line within its range")
    rows.append(nb.Row("sensitivity", f"{r.ratio} FPS at the defaults ({r.device} {r.scenario})",
                       float(paper_value), Interval(r.mean, r.low, r.high, per_seed), "x", note,
                       found[0].kind))
nb.emit("sensitivity", rows)
