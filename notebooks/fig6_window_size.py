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
# # Figure 6: window size against latency, FPS and subgraph count (DeepLabV3)
#
# DeepLabV3 runs alone (closed loop) under ADMS with one window size forced on every
# processor (`adms_ws<w>`), and under ADMS with its tuner's own choice (`adms`; the tuner
# picks a window per processor, recorded in the manifest). Latency is the mean per seed,
# FPS the model's completed inferences per second, the subgraph count the plan's total
# (unit subgraphs + merged). The paper's figure marks window size 5 as the best balance.

# %%
from IPython.display import Image, Markdown, display
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from harness.paper import figures, nb
from harness.reporting import layout, metrics, paper

found = nb.runs("fig6")
display(Markdown(nb.heading("Figure 6: window size sweep, DeepLabV3", found)))
run = found[0]


# %%
m = metrics.compute(run.data)
per_seed = m.models.merge(m.scenario[["baseline", "seed", "fps"]], on=["baseline", "seed"])
per_seed["subgraphs"] = [run.folder.plans(b, s)["deeplabv3"].total for b, s in
                         zip(per_seed["baseline"], per_seed["seed"], strict=True)]
per_seed["window"] = [int(b.removeprefix("adms_ws")) if b.startswith("adms_ws") else None
                      for b in per_seed["baseline"]]
tuned = next(iter(run.folder.runs("adms").values())).plan_meta["deeplabv3"]["window_size"]
print("the tuner's windows per processor:", ", ".join(f"{p} {w}" for p, w in tuned.items()))
summary = per_seed.groupby("baseline")[["window", "latency_mean_ms", "fps", "subgraphs"]].mean()
summary

# %%
sweep = per_seed.dropna(subset=["window"])
fig = figures.figure(10, 3.4)
axes = fig.subplots(1, 3)
for ax, (column, label) in zip(axes, (("latency_mean_ms", "latency (ms)"), ("fps", "FPS"),
                                      ("subgraphs", "subgraphs")), strict=True):
    means = sweep.groupby("window")[column].agg(["mean", "sem"]).fillna(0)
    ax.errorbar(means.index, means["mean"], yerr=1.96 * means["sem"], marker="o",
                color=layout.colour("adms"), label="ours, forced window (95% CI)")
    ax.axhline(per_seed[per_seed["baseline"] == "adms"][column].mean(), color="0.3",
               linestyle=":", label="ours, ADMS tuned")
    ax.axvline(paper.FIG6_BEST_WINDOW.value, color="0.3", linestyle="--",
               label=f"paper's best window ({paper.FIG6_BEST_WINDOW.value})")
    ax.set_xlabel("window size (ops)")
    ax.set_ylabel(label)
    windows = [*sweep["window"].unique(), paper.FIG6_BEST_WINDOW.value]
    ax.set_xlim(min(windows) - 0.5, max(windows) + 0.5)  # the paper's line off the frame
axes[2].set_yscale("log")
axes[2].yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
axes[2].yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
axes[2].yaxis.set_minor_formatter(NullFormatter())
figures.legend(fig)
display(Image(filename=str(figures.save(fig, "Figure 6: window size vs latency, FPS and "
                                        "subgraphs (DeepLabV3)", found,
                                        "fig6"))))

# %% [markdown]
# ## Beside the paper: the best window

# %%
# each seed's best window (lowest mean latency), then their mean and interval over seeds
best = sweep.loc[sweep.groupby("seed")["latency_mean_ms"].idxmin()]["window"]
per_processor = {p: w for p, w in tuned.items() if p != "cpu"}
swept = sorted(sweep["window"].unique().astype(int))
rows = [nb.Row("fig6", "best forced window (lowest latency, per seed)",
               paper.FIG6_BEST_WINDOW.value, nb.interval(best), "ops", kind=run.kind,
               note=f"swept {', '.join(str(w) for w in swept)}; tuner's pick "
                    f"{', '.join(f'{p} {w}' for p, w in per_processor.items())}")]
nb.emit("fig6", rows)
