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
# # Figure 8: FPS of TFLite, Band and ADMS on FRS and ROS
#
# Each run is one device and one scenario with the three baselines, every seed; FPS counts
# the frames for which **every** model finished (`harness.reporting.metrics`), a figure is a
# mean over seeds with its 95% interval, and a ratio of two baselines pairs the seeds
# (paired bootstrap, `harness.reporting.stats`). The paper's bars are not printed as numbers:
# its text gives FRS on the K50 Pro, ADMS on the P20 and ADMS's ROS ratios (the other ROS
# values are derived from them, marked in the notes).

# %%
from IPython.display import Image, Markdown, display

from harness.paper import figures, nb
from harness.reporting import metrics, paper, plots, report

found = nb.runs("fig8")
display(Markdown(nb.heading("Figure 8: FPS per baseline", found)))

# %% [markdown]
# ## Each run's comparison table

# %%
tables = {}
for run in found:
    table, identity = report.report_table(run.data)
    tables[run.label] = table
    display(Markdown(report.markdown(table, identity)))

# %% [markdown]
# ## Beside the paper

# %%
rows = []
for run in found:
    device, scenario = run.identity.device, run.identity.paper_scenario
    per_seed = metrics.compute(run.data).scenario
    ran = set(per_seed["baseline"])
    for baseline, value in paper.fig8_values(device, scenario).items():
        if baseline in ran:
            rows.append(nb.Row("fig8", f"{device} {scenario} {baseline} FPS", value.value,
                               nb.seed_interval(per_seed, baseline, "fps"), "frames/s",
                               value.note, run.kind))
    for reference in ("tflite", "band"):
        stated = paper.fig8_ratio(device, scenario, reference)
        if stated is not None and {"adms", reference} <= ran:
            rows.append(nb.Row("fig8", f"{device} {scenario} ADMS / {reference} FPS", stated,
                               nb.ratio(per_seed, "adms", reference), "x",
                               "paired bootstrap over seeds", run.kind))
nb.emit("fig8", rows)

# %%
figures.FOLDER.mkdir(exist_ok=True)
for run in found:
    path = figures.FOLDER / f"fig8_{run.label.replace('/', '_')}.png"
    plots.fps_plot(metrics.compute(run.data).scenario, run.identity, path)
    display(Image(filename=str(path)))
