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
import numpy as np
import pandas as pd
from IPython.display import Image, Markdown, display

from harness.paper import figures, nb
from harness.reporting import metrics, paper

found = nb.runs("fig9")
display(Markdown(nb.heading("Figure 9: SLO satisfaction vs SLO multiplier", found)))


# %%
def slo_rows(run: nb.Run) -> pd.DataFrame:
    models = metrics.compute(run.data).models
    multiplier = run.folder.scenario_config["slo_multiplier"]
    return models.assign(multiplier=float(multiplier),
                         slo_pct=100 * models["slo_satisfaction"])[
        ["multiplier", "baseline", "model", "seed", "slo_pct"]]


ours = pd.concat([slo_rows(r) for r in found], ignore_index=True)
ours.pivot_table(index=["model", "baseline"], columns="multiplier", values="slo_pct")

# %%
fig = figures.figure(3.2 * ours["model"].nunique(), 3.4)
figures.slo_panels(fig, ours)  # (each baseline shifted a little sideways, its own marker)
figures.legend(fig)
display(Image(filename=str(figures.save(fig, "Figure 9: SLO satisfaction vs SLO multiplier",
                                        found, "fig9"))))

# %% [markdown]
# ## Where ours and the paper disagree
#
# *An SLO of 1.0 x the lone latency leaves no room.* A model's SLO at multiplier 1.0 is its
# latency alone under vanilla TFLite, so a request meets it only if nothing slows it down.
# Two things do in the twin, and the table below measures both per model at 1.0: the *wait*
# (latency minus the request's own subgraph time: a processor runs one subgraph at a time,
# so a request waits while another model's subgraph holds it), and its own subgraphs
# running longer than alone: while other processors are busy they share the DRAM bandwidth
# (`devices/twin/latency.py` `effective_bandwidth`: each gets at most the total over the
# number busy), which slows memory-bound ops; the column `others_busy` is the mean number of
# other processors busy when the model's subgraphs start. Throttling is shown too (the
# share of sensor samples throttled). A model whose median latency is above 1.0 x its SLO
# misses most requests; one right at 1.00 x meets about half, since the twin's latency noise
# (`noise_sigma` in the device YAML, lognormal) puts half its requests above the median. How much of a slower own time is the bandwidth split and how much the
# other per-subgraph costs (boundary and delegate I/O copies, the scheduler's fixed cost per
# dispatch) this split does not separate; the contention state is taken at each subgraph's
# start (`devices/twin/device.py`), and the count above is at its recorded start. The paper
# reports ~100% at 1.0 for the big models under ADMS; why its phone lost no time to the
# other models running beside them is not explained by our runs.

# %%
def others_busy(sg: pd.DataFrame) -> pd.Series:
    """Per subgraph row: how many other processors run a subgraph at its start."""
    out = pd.Series(0, index=sg.index, dtype=float)
    for _, part in sg.groupby(["baseline", "seed"]):
        for proc, on in part.groupby("processor"):
            on = on.sort_values("start_ns")
            starts, ends = on["start_ns"].to_numpy(), on["end_ns"].to_numpy()
            rest = part[part["processor"] != proc]
            k = np.searchsorted(starts, rest["start_ns"].to_numpy(), side="right") - 1
            hit = (k >= 0) & (ends[np.maximum(k, 0)] > rest["start_ns"].to_numpy())
            out.loc[rest.index] += hit
    return out


def latency_split(run: nb.Run) -> pd.DataFrame:
    """Per baseline and model: medians of latency / SLO, own subgraph time / SLO and wait,
    the SLO, mean other processors busy, and where it ran."""
    req = run.data.requests
    req = req[~req["warmup"].astype(bool) & req["end_ns"].notna()]
    sg = run.data.subgraphs
    sg = sg.assign(own_ns=sg["end_ns"] - sg["start_ns"], others=others_busy(sg))
    own = sg.groupby(["baseline", "seed", "request_id"]).agg(own_ns=("own_ns", "sum"),
                                                             others=("others", "mean"))
    req = req.join(own, on=["baseline", "seed", "request_id"])
    req = req.assign(latency_ms=(req["end_ns"] - req["arrival_ns"]) / 1e6,
                     slo_ms=req["slo_ns"] / 1e6)
    req = req.assign(over_slo=req["latency_ms"] / req["slo_ms"],
                     own_over_slo=req["own_ns"] / 1e6 / req["slo_ms"],
                     wait_ms=req["latency_ms"] - req["own_ns"] / 1e6)
    return req.groupby(["baseline", "model"]).agg(
        over_slo=("over_slo", "median"), own_over_slo=("own_over_slo", "median"),
        wait_ms=("wait_ms", "median"), slo_ms=("slo_ms", "median"),
        others_busy=("others", "mean"),
        processors=("processors", lambda x: x.value_counts().index[0]))


def throttled(run: nb.Run) -> pd.Series:
    """Per baseline: share of processor sensor samples that were throttled."""
    s = run.data.sensors.dropna(subset=["throttled"])
    return s.groupby("baseline")["throttled"].mean() if len(s) else pd.Series(dtype=float)


at_one_runs = [r for r in found
               if float(r.folder.scenario_config["slo_multiplier"]) == 1.0]
split = latency_split(at_one_runs[0]) if at_one_runs else pd.DataFrame()
throttle = throttled(at_one_runs[0]) if at_one_runs else pd.Series(dtype=float)
display(split, throttle.rename("throttled share of samples").to_frame())


def why_slo(baseline: str, model: str) -> str:
    if split.empty or (baseline, model) not in split.index:
        return ""
    f = split.loc[(baseline, model)]
    hot = throttle.get(baseline)
    return (f"median latency {f['over_slo']:.2f} x SLO: own subgraphs {f['own_over_slo']:.2f}"
            f" x (on {f['processors']}, {f['others_busy']:.1f} other processors busy) + wait "
            f"{f['wait_ms']:.1f} ms" + (f"; throttled {hot:.0%}" if hot else ""))


# %% [markdown]
# ## Beside the paper (multiplier 1.0)

# %%
rows = []
at_one = ours[ours["multiplier"] == 1.0]
for baseline in ("adms", "tflite"):
    for model, stated in paper.fig9_slo_pct(baseline).items():
        mine = at_one[(at_one["baseline"] == baseline) & (at_one["model"] == model)]
        if len(mine):
            rows.append(nb.why(nb.Row("fig9", f"{model} {baseline} SLO @1.0", stated,
                                      nb.interval(mine["slo_pct"]), "%", kind=found[0].kind),
                               why_slo(baseline, model)))
nb.emit("fig9", rows)
