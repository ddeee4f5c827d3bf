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
# # Table V: single-model subgraphs and latency, Band against ADMS
#
# Each model runs **alone** (scenario `single`, closed loop) under Band (its Model Analyzer
# at `minimum_subgraph_size` 1, the setting whose counts match Table III) and under ADMS
# (windows tuned per processor). The subgraph counts come from each run's manifest, the
# latency from its request rows: the mean latency per seed, then the mean over seeds with
# its 95% interval. Our models are rebuilt from Keras layers and our op support is the
# public delegate rules, so compare the direction (ADMS below Band), not the digits.

# %%
import pandas as pd
from IPython.display import Image, Markdown, display

from harness.paper import figures, nb
from harness.reporting import metrics, paper

found = nb.runs("table5")
display(Markdown(nb.heading("Table V: single-model subgraphs and latency", found)))


# %%
def rows_of(run: nb.Run) -> pd.DataFrame:
    models = metrics.compute(run.data).models
    plans = run.data.manifest["runs"]
    models["unit"] = [plans[b][str(s)]["plans"][m]["unit"]
                      for b, s, m in zip(models["baseline"], models["seed"], models["model"],
                                         strict=True)]
    models["merged"] = [plans[b][str(s)]["plans"][m]["merged"]
                        for b, s, m in zip(models["baseline"], models["seed"], models["model"],
                                           strict=True)]
    return models[["model", "baseline", "seed", "unit", "merged", "latency_mean_ms"]]


ours = pd.concat([rows_of(r) for r in found], ignore_index=True)
ours.groupby(["model", "baseline"]).mean(numeric_only=True).drop(columns="seed")

# %% [markdown]
# ## Beside the paper

# %%
rows = []
for ref in paper.TABLE5:
    for baseline in ("band", "adms"):
        mine = ours[(ours["model"] == ref.model) & (ours["baseline"] == baseline)]
        if mine.empty:
            continue
        kind = found[0].kind
        rows += [
            nb.Row("table5", f"{ref.paper_name} {baseline} latency", ref.latency_ms[baseline],
                   nb.interval(mine["latency_mean_ms"]), "ms", kind=kind),
            nb.Row("table5", f"{ref.paper_name} {baseline} unit subgraphs", ref.unit[baseline],
                   nb.interval(mine["unit"]), kind=kind),
            nb.Row("table5", f"{ref.paper_name} {baseline} merged subgraphs",
                   ref.merged[baseline], nb.interval(mine["merged"]), kind=kind)]
nb.emit("table5", rows)

# %%
lat = ours.groupby(["model", "baseline"])["latency_mean_ms"].mean().unstack()
ref = pd.DataFrame({b: {r.model: r.latency_ms[b] for r in paper.TABLE5} for b in ("band", "adms")})
fig = figures.figure(8, 3.6)
ax = fig.subplots()
width = 0.2
for k, model in enumerate(lat.index):
    for j, (label, value) in enumerate((("ours band", lat.loc[model, "band"]),
                                        ("ours adms", lat.loc[model, "adms"]),
                                        ("paper band", ref["band"].get(model)),
                                        ("paper adms", ref["adms"].get(model)))):
        if value is not None and value == value:  # the paper has no value for every model
            ax.bar(k + (j - 1.5) * width, value, width, color=f"C{j}", label=label)
ax.set_xticks(range(len(lat.index)), lat.index)
ax.set_ylabel("mean latency alone (ms)")
handles, labels = ax.get_legend_handles_labels()
unique = dict(zip(labels, handles, strict=True))
ax.legend(unique.values(), unique.keys(), fontsize=7)
display(Image(filename=str(figures.save(fig, "Table V: single-model latency, Band vs ADMS",
                                        nb.kind_line(found), "table5"))))
