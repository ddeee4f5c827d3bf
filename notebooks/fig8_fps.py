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
# Each run is one device and one scenario with the three systems, every seed; FPS counts
# the frames for which **every** model finished (`harness.reporting.metrics`), a figure is a
# mean over seeds with its 95% interval, and a ratio of two baselines pairs the seeds
# (paired bootstrap, `harness.reporting.stats`). The paper's bars are not printed as numbers:
# its text gives FRS on the K50 Pro, ADMS on the P20 and ADMS's ROS ratios (the other ROS
# values are derived from them, marked in the notes).
#
# Band runs twice over: `band`, the paper's configuration (minimum subgraph size 1), and
# `band_best`, Band at its strongest: the best, by mean FPS, of `band`, its five other
# schedulers and `band7` (minimum subgraph size 7) among those that completed every seed.
# A seed that failed (out of memory: the twin's interpreters and arenas outgrow the phone's
# RAM) is no measurement; a baseline that failed on every seed shows as *failed*, with why.
# The ratio "ADMS / Band" is over the strongest Band that completed, named in its row.

# %%
from IPython.display import Image, Markdown, display

from harness.paper import figures, nb
from harness.reporting import paper, plots, report
from harness.reporting.stats import NAN

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
def fps_row(run: nb.Run, quantity: str, baseline: str, value: float, note: str) -> nb.Row:
    """A baseline's FPS (the seeds that completed), or why it has none."""
    partial = run.failure(baseline) if nb.per_seed(run.scenario(), baseline, "fps") else ""
    return nb.Row("fig8", quantity, value, nb.seed_interval(run.scenario(), baseline, "fps"),
                  "frames/s", "; ".join(n for n in (note, partial and f"failed: {partial}") if n),
                  run.kind, failed="" if partial else run.failure(baseline))


def ratio_row(run: nb.Run, quantity: str, reference: str, stated: float, note: str) -> nb.Row:
    failed = run.failure(reference) if not nb.per_seed(run.scenario(), reference, "fps") else ""
    return nb.Row("fig8", quantity, stated, nb.ratio(run.scenario(), "adms", reference), "x",
                  note, run.kind, failed=failed)


rows = []
for run in found:
    device, scenario = run.identity.device, run.identity.paper_scenario
    where, ran = f"{device} {scenario}", set(run.baselines())
    values = paper.fig8_values(device, scenario)
    for baseline in [b for b in ("tflite", "band", "adms") if b in ran]:
        value = values.get(baseline)
        rows.append(fps_row(run, f"{where} {baseline} FPS", baseline,
                            value.value if value else NAN,
                            value.note if value else "the paper's text gives no number"))
    band = nb.strongest(run.scenario(), nb.members(run, "band_best"), run.failed_seeds)
    if band is not None:
        rows.append(fps_row(run, f"{where} band_best FPS (= {band})", band,
                            values["band"].value if "band" in values else NAN,
                            "Band at its strongest that completed every seed; the paper's "
                            "value is Band in its configuration (band)"))
    stated = paper.fig8_ratio(device, scenario, "tflite")
    if stated is not None and {"adms", "tflite"} <= ran:
        rows.append(ratio_row(run, f"{where} ADMS / tflite FPS", "tflite", stated,
                              "paired bootstrap over seeds"))
    stated = paper.fig8_ratio(device, scenario, "band")
    if stated is not None and "adms" in ran and band is not None:
        rows.append(ratio_row(run, f"{where} ADMS / Band FPS (Band = {band})", band, stated,
                              f"the strongest Band that completed: {band}; paired bootstrap"))
    if stated is not None and {"adms", "band"} <= ran and band != "band":
        rows.append(ratio_row(run, f"{where} ADMS / band FPS (the paper's configuration)",
                              "band", stated, "paired bootstrap over seeds"))
nb.emit("fig8", rows)

# %%
figures.FOLDER.mkdir(exist_ok=True)
for run in found:
    path = figures.FOLDER / f"fig8_{run.label.replace('/', '_')}.png"
    plots.fps_plot(run.scenario(), run.identity, path,
                   {b: run.failure(b) for b in run.failed_seeds})
    display(Image(filename=str(path)))
