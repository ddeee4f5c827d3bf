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
# # Table II: one model's latency with 1, 2 and 4 concurrent copies per processor
#
# MobileNetV1 runs alone in 1, 2 or 4 closed-loop copies, vanilla TFLite with every copy on
# one accelerator (a baseline `tflite_on_<processor>` per accelerator). The latency is the
# mean over the copies' requests, per seed; a figure is the mean over seeds with its 95%
# interval. The paper measured phones; a twin is a simulation calibrated from single-model
# data (Table II included), so Table II is *not* a held-out check on a twin.

# %%
import pandas as pd
from IPython.display import Image, Markdown, display

from harness.paper import figures, nb
from harness.reporting import metrics, paper

found = nb.runs("table2")
display(Markdown(nb.heading("Table II: latency under concurrent copies", found)))


# %%
def copies(label: str) -> int:
    return int(label.rsplit("copies=", 1)[1])


def latencies(run: nb.Run) -> pd.DataFrame:
    """Mean latency of MobileNetV1 per (processor, seed) of one run."""
    models = metrics.compute(run.data).models
    models = models[models["model"] == "mobilenet_v1"]
    return models.assign(processor=models["baseline"].str.removeprefix("tflite_on_"),
                         copies=copies(run.label), device=run.identity.device)[
        ["device", "processor", "copies", "seed", "latency_mean_ms"]]


ours = pd.concat([latencies(r) for r in found], ignore_index=True)
ours.groupby(["device", "processor", "copies"])["latency_mean_ms"].agg(["mean", "count"])

# %% [markdown]
# ## Beside the paper

# %%
rows = []
for ref in paper.TABLE2:
    processor = paper.table2_processor(ref)
    for n, value in ref.latency_ms.items():
        mine = ours[(ours["device"] == ref.device) & (ours["processor"] == processor)
                    & (ours["copies"] == n)]["latency_mean_ms"]
        if len(mine):
            rows.append(nb.Row("table2", f"{ref.device} {ref.accelerator} x{n}", value,
                               nb.interval(mine), "ms", kind=found[0].kind))
nb.emit("table2", rows)

# %%
fig = figures.figure(9, 3.6)
devices = sorted(ours["device"].unique())
axes = fig.subplots(1, len(devices), squeeze=False)[0]
for ax, device in zip(axes, devices, strict=True):
    mine = ours[ours["device"] == device]
    for processor, part in mine.groupby("processor"):
        means = part.groupby("copies")["latency_mean_ms"].agg(["mean", "sem"]).fillna(0)
        ax.errorbar(means.index, means["mean"], yerr=1.96 * means["sem"], marker="o",
                    label=f"ours {processor}")
    for ref in paper.table2(device):
        ax.plot(list(ref.latency_ms), list(ref.latency_ms.values()), "x--",
                label=f"paper {ref.accelerator}")
    ax.set_xlabel("concurrent copies")
    ax.set_ylabel("mean latency (ms)")
    ax.set_yscale("log")
    ax.set_title(device, fontsize=9)
    ax.legend(fontsize=6)
display(Image(filename=str(figures.save(fig, "Table II: MobileNetV1 latency vs concurrent "
                                        "copies", nb.kind_line(found), "table2"))))
