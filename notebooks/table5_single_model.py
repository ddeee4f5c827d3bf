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
    counts = [run.folder.plans(b, s)[m]
              for b, s, m in zip(models["baseline"], models["seed"], models["model"], strict=True)]
    models["unit"] = [c.unit for c in counts]
    models["merged"] = [c.merged for c in counts]
    return models[["model", "baseline", "seed", "unit", "merged", "latency_mean_ms"]]


ours = pd.concat([rows_of(r) for r in found], ignore_index=True)
ours.groupby(["model", "baseline"]).mean(numeric_only=True).drop(columns="seed")

# %% [markdown]
# ## Where ours and the paper disagree
#
# *Latency.* The twin's costs are roofline costs whose efficiency is calibrated to one number
# per processor: MobileNetV1 alone, paper Table II (1.88 ms on the K50 Pro NPU). Our
# MobileNetV1 spends that on the NPU (computed below), but the paper's Table V gives the same
# model on the same phone 17.35 ms under Band and 12.19 ms under ADMS, about 6-9 x its own
# Table II: the two tables of the paper do not agree under one cost model, and the twin
# follows Table II. The other models' latencies have no single-model target of their own on
# this phone, so their gaps (MobileNetV2 as far off as MobileNetV1; YoloV3 above the paper)
# are not explained beyond where the time goes.
#
# *Subgraph counts.* Band's counts are the plans of Table III (see that notebook for the
# op-support reasons); where the paper's Table V differs from its own Table III for the same
# model (YoloV3: 2 unit subgraphs in Table III, 65 in Table V) the note quotes Table III.
# ADMS's counts follow the windows its tuner chose per processor (in the run's manifest): an
# accelerator run shorter than its window is left to the CPU, so a window of 16 on every
# accelerator leaves ICN_quant one unit.

# %%
TABLE3 = {r.model: r for r in paper.TABLE3}


split = pd.concat([nb.request_time(r, ["model", "baseline"]).drop(columns="subgraphs")
                   for r in found], ignore_index=True)  # ms of subgraphs per request
windows: dict[tuple[str, str], dict[str, int]] = {}
for run in found:
    for baseline in run.baselines():
        for ran in run.folder.runs(baseline).values():
            for model, meta in ran.plan_meta.items():
                windows[(model, baseline)] = meta.get("windows", {})


def where(model: str, baseline: str) -> str:
    part = split[(split["model"] == model) & (split["baseline"] == baseline)]
    return " + ".join(f"{r.processor} {r.ms:.2f}" for r in part.itertuples()) + " ms"


def why_latency(ref: paper.Table5Row, baseline: str) -> str:
    ran = f"per request {where(ref.model, baseline)}"
    t2 = [r.latency_ms[1] for r in paper.table2(found[0].identity.device) if "NPU" in r.accelerator]
    if ref.model == "mobilenet_v1" and t2:
        return (f"{ran}; twin calibrated to paper Table II NPU {t2[0]} ms; paper Table V is "
                f"{ref.latency_ms[baseline] / t2[0]:.1f} x that")
    return nb.not_explained(f"{ran}; twin calibrated only to Table II's MobileNetV1")


def why_count(ref: paper.Table5Row, baseline: str, what: str) -> str:
    mine = ours[(ours["model"] == ref.model) & (ours["baseline"] == baseline)]["unit"]
    if baseline == "adms":
        if what == "merged" and len(mine) and float(mine.mean()) == ref.unit[baseline]:
            return nb.not_explained(f"{ref.unit[baseline]} unit subgraphs as in the paper")
        w = windows.get((ref.model, baseline), {})
        return ("tuned windows " + ", ".join(f"{p} {n}" for p, n in w.items() if p != "cpu")
                + ": shorter accelerator runs go to the CPU")
    t3 = TABLE3.get(ref.model)
    return (f"our Table III plan (see there); paper Table III: {getattr(t3, what)} {what} "
            "for this model" if t3 else "")


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
            nb.why(nb.Row("table5", f"{ref.paper_name} {baseline} latency",
                          ref.latency_ms[baseline], nb.interval(mine["latency_mean_ms"]),
                          "ms", kind=kind), why_latency(ref, baseline)),
            nb.why(nb.Row("table5", f"{ref.paper_name} {baseline} unit subgraphs",
                          ref.unit[baseline], nb.interval(mine["unit"]), kind=kind),
                   why_count(ref, baseline, "unit")),
            nb.why(nb.Row("table5", f"{ref.paper_name} {baseline} merged subgraphs",
                          ref.merged[baseline], nb.interval(mine["merged"]), kind=kind),
                   why_count(ref, baseline, "merged"))]
nb.emit("table5", rows)

# %%
lat = ours.groupby(["model", "baseline"])["latency_mean_ms"].mean().unstack()
ref = pd.DataFrame({b: {r.model: r.latency_ms[b] for r in paper.TABLE5} for b in ("band", "adms")})
fig = figures.figure(8, 3.6)
figures.latency_bars(fig.subplots(), lat, ref)
figures.legend(fig)
display(Image(filename=str(figures.save(fig, "Table V: single-model latency, Band vs ADMS",
                                        found, "table5"))))
