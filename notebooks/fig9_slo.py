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
# # Figure 9: SLO satisfaction against the SLO multiplier, ADMS and TFLite
#
# MobileNetV1, EfficientNet-B4, InceptionV4 and ArcFace-ResNet50 run together, one request
# of each per frame, one frame at a time (`+experiment=slo_sweep`: the paper sends the
# requests "simultaneously"; with two frames in flight every request would also wait for
# the other frame's, and no big model meets 1.0 under either system). A model's SLO is the
# multiplier times its latency alone under vanilla TFLite (`harness.experiment.slo`). SLO
# satisfaction is the share of measured requests that finished within their SLO (dropped
# and unfinished ones miss), per model and seed; a point is the mean over seeds with its 95%
# interval. The paper prints the values at multiplier 1.0 only.

# %%
import pandas as pd
from IPython.display import Image, Markdown, display

from harness.paper import figures, nb
from harness.reporting import metrics, paper

found = nb.runs("fig9")
display(Markdown(nb.heading("Figure 9: SLO satisfaction vs SLO multiplier", found)))


# %%
def slo_rows(run: nb.Run) -> pd.DataFrame:
    models = metrics.compute(run.data).models
    multiplier = run.data.manifest["config"]["scenario"]["slo_multiplier"]
    return models.assign(multiplier=float(multiplier),
                         slo_pct=100 * models["slo_satisfaction"])[
        ["multiplier", "baseline", "model", "seed", "slo_pct"]]


ours = pd.concat([slo_rows(r) for r in found], ignore_index=True)
ours.pivot_table(index=["model", "baseline"], columns="multiplier", values="slo_pct")

# %%
models = sorted(ours["model"].unique())
fig = figures.figure(3.2 * len(models), 3.4)
axes = fig.subplots(1, len(models), squeeze=False, sharey=True)[0]
for ax, model in zip(axes, models, strict=True):
    for baseline, part in ours[ours["model"] == model].groupby("baseline"):
        means = part.groupby("multiplier")["slo_pct"].agg(["mean", "sem"]).fillna(0)
        ax.errorbar(means.index, means["mean"], yerr=1.96 * means["sem"], marker="o",
                    label=f"ours {baseline}")
        stated = paper.fig9_slo_pct(str(baseline)).get(model)
        if stated is not None:
            ax.plot([1.0], [stated], "x", markersize=9, label=f"paper {baseline} @1.0")
    ax.set_title(model, fontsize=9)
    ax.set_xlabel("SLO multiplier")
    ax.legend(fontsize=6)
axes[0].set_ylabel("SLO satisfaction (%)")
display(Image(filename=str(figures.save(fig, "Figure 9: SLO satisfaction vs SLO multiplier",
                                        nb.kind_line(found), "fig9"))))

# %% [markdown]
# ## Beside the paper (multiplier 1.0)

# %%
rows = []
at_one = ours[ours["multiplier"] == 1.0]
for baseline in ("adms", "tflite"):
    for model, stated in paper.fig9_slo_pct(baseline).items():
        mine = at_one[(at_one["baseline"] == baseline) & (at_one["model"] == model)]
        if len(mine):
            rows.append(nb.Row("fig9", f"{model} {baseline} SLO @1.0", stated,
                               nb.interval(mine["slo_pct"]), "%", kind=found[0].kind))
nb.emit("fig9", rows)
