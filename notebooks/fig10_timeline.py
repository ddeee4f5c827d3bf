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
# # Figure 10: model-level against subgraph-level scheduling (two ArcFace-ResNet50)
#
# Two closed-loop streams of ArcFace-ResNet50 run together on the Huawei P20 (by default),
# under vanilla TFLite (each copy whole on one processor: model-level) and ADMS
# (subgraph-level). The *pair time* is the slower stream's mean latency (the paper's "total
# execution time", bound by the slowest processor under TFLite); utilisation is each
# processor's busy share of the measured span, and their mean (idle processors count).
# The timeline shows the first 60 ms of the measured span of the first seed.

# %%
import pandas as pd
from IPython.display import Image, Markdown, display

from harness.paper import figures, nb
from harness.reporting import metrics, paper, plots

found = nb.runs("fig10")
display(Markdown(nb.heading("Figure 10: model-level vs subgraph-level timeline", found)))
run = found[0]
m = metrics.compute(run.data)


# %%
def pair_ms(requests: pd.DataFrame) -> pd.DataFrame:
    """Per baseline and seed: the slower stream's mean latency."""
    out = []
    for (baseline, seed), rows in requests.groupby(["baseline", "seed"]):
        done = metrics.measured_requests(rows, str(baseline),
                                         metrics.measured_span(rows, str(baseline)))
        slowest = done.groupby("stream")["latency_ms"].mean().max()
        out.append({"baseline": str(baseline), "seed": int(seed), "pair_ms": slowest})
    return pd.DataFrame(out)


pairs = pair_ms(run.data.requests)
util = m.processors.pivot_table(index=["baseline", "seed"], columns="processor",
                                values="utilization") * 100
util["mean"] = util.mean(axis=1)
pairs.groupby("baseline")["pair_ms"].mean(), util.groupby("baseline").mean()

# %%
figures.FOLDER.mkdir(exist_ok=True)
path = plots.timeline_plot(plots.one_seed(run.data), run.identity,
                           figures.FOLDER / "fig10_timeline.png", first_ms=60)
display(Image(filename=str(path)))
fig = figures.figure(7, 3.2)
ax = fig.subplots()
per_processor = util.drop(columns="mean").groupby("baseline").mean()
per_processor.T.plot.bar(ax=ax)
ax.set_ylabel("utilisation (% of the measured span)")
display(Image(filename=str(figures.save(fig, "Figure 10: utilisation per processor",
                                        nb.kind_line(found), "fig10_util"))))

# %% [markdown]
# ## Beside the paper

# %%
rows = []
for baseline, values in paper.FIG10_VALUES.items():
    mine = pairs[pairs["baseline"] == baseline]["pair_ms"]
    mean_util = util.loc[baseline, "mean"] if baseline in util.index.get_level_values(0) else []
    if len(mine):
        rows += [nb.Row("fig10", f"{baseline} pair time", values["pair_ms"].value,
                        nb.interval(mine), "ms", kind=run.kind,
                        note=f"device {run.identity.device}"),
                 nb.Row("fig10", f"{baseline} mean utilisation",
                        values["utilization_pct"].value, nb.interval(mean_util), "%",
                        kind=run.kind)]
nb.emit("fig10", rows)
