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
# # Table VI and Figure 11: power, FPS and frames per joule; the power trace
#
# FRS with TFLite, Band and ADMS (60 measured seconds in full mode, the paper's trace
# length). Power is the time-weighted mean of the device's power samples over the measured
# span: on a twin the whole-phone model (`device.twin.mechanisms.phone_power`: SoC, display,
# rest of the phone), on a phone a Monsoon. Frames per joule is FPS over mean power (the
# paper's Table VI). The trace is the first seed's.

# %%
import pandas as pd
from IPython.display import Image, Markdown, display

from harness.paper import figures, nb
from harness.reporting import metrics, paper, plots, report

found = nb.runs("table6")
display(Markdown(nb.heading("Table VI and Figure 11: power and energy efficiency", found)))
run = found[0]
table, identity = report.report_table(run.data)
table.set_index("baseline")[["mean_power_w", "fps", "frames_per_joule"]]

# %%
figures.FOLDER.mkdir(exist_ok=True)
path = plots.power_plot(plots.one_seed(run.data), identity, figures.FOLDER / "fig11_power.png")
display(Image(filename=str(path)))


# %%
def trace_stats(data) -> pd.DataFrame:
    """Per baseline and seed: min and max of the device power inside the measured span."""
    out = []
    for (baseline, seed), sensors in data.sensors.groupby(["baseline", "seed"]):
        requests = data.requests[data.requests["seed"] == seed]
        start, end = metrics.measured_span(requests, str(baseline))
        series = metrics.power_series(sensors[sensors["t_ns"].between(start, end)])
        out.append({"baseline": str(baseline), "seed": int(seed), "min": series.min(),
                    "max": series.max()})
    return pd.DataFrame(out)


trace = trace_stats(run.data)
completed = [seed not in run.failed_seeds.get(b, {}) for b, seed in
             zip(trace["baseline"], trace["seed"], strict=True)]
trace = trace[completed]  # a failed seed's trace stops at the failure
trace.groupby("baseline")[["min", "max"]].mean()

# %% [markdown]
# ## Beside the paper

# %%
rows = []
per_seed = run.scenario()  # the seeds that completed
columns = (("power_w", "mean_power_w", "W"), ("fps", "fps", "frames/s"),
           ("frames_per_joule", "frames_per_joule", "frames/J"))
for baseline, ref in paper.TABLE6.items():
    if baseline not in run.baselines():
        continue
    failed = "" if nb.per_seed(per_seed, baseline, "fps") else run.failure(baseline)
    for attr, column, unit in columns:
        rows.append(nb.Row("table6", f"{baseline} {attr}", getattr(ref, attr),
                           nb.seed_interval(per_seed, baseline, column), unit, kind=run.kind,
                           failed=failed))
for baseline, stats in paper.FIG11_POWER_W.items():
    for stat, value in stats.items():
        mine = trace[trace["baseline"] == baseline][stat]
        if len(mine):
            rows.append(nb.Row("fig11", f"{baseline} {stat} power in trace", value.value,
                               nb.interval(mine), "W", kind=run.kind))
nb.emit("table6", rows)
