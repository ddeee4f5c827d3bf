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
# # Figure 12 and Table VII: thermal stress, failure rate, maximum concurrent models
#
# * **Thermal stress** (`+experiment=thermal_stress`): FRS in a 35 °C room; temperature and
#   frequency per processor over time (Figure 12, first seed) and the time to the first
#   throttled sensor row (Table VII). A baseline that never throttled within the run has no
#   time (shown as "–" with the run's length in the note).
# * **Failure rate**: the share of measured requests that did not finish (dropped, failed, or
#   unfinished when the run ended) in the long FRS run (30 minutes in full mode).
# * **Maximum concurrent models** (`+experiment=concurrency`): N distinct models per frame; a
#   baseline *fails* at N when it could not run (out of memory) or more than 1% of its
#   requests did not finish. Its maximum is the largest N tried without failure (below the
#   smallest failing N).

# %%
import pandas as pd
from IPython.display import Image, Markdown, display

from harness.paper import figures, nb
from harness.reporting import metrics, paper, plots
from harness.reporting.stats import NAN, Interval
from harness.reporting.summary import failures_of

found = nb.runs("fig12")
display(Markdown(nb.heading("Figure 12 and Table VII: robustness", found)))
runs = nb.by_label(found)
thermal = next(r for r in found if r.label.endswith("thermal_35C"))
failure = next(r for r in found if r.label.endswith("/failure"))
concurrent = sorted((r for r in found if "concurrent=" in r.label),
                    key=lambda r: int(r.label.rsplit("=", 1)[1]))

# %%
figures.FOLDER.mkdir(exist_ok=True)
path = plots.thermal_plot(plots.one_seed(thermal.data), thermal.identity,
                          figures.FOLDER / "fig12_thermal.png")
display(Image(filename=str(path)))
thermal_metrics = metrics.compute(thermal.data).scenario
cpu = thermal.data.sensors[thermal.data.sensors["processor"] == "cpu"]
cpu_min = cpu.groupby(["baseline", "seed"])["frequency_hz"].min() / 1e9
thermal_metrics.groupby("baseline")[["time_to_throttle_s", "peak_temperature_c"]].mean()


# %%
def not_finished_pct(run: nb.Run) -> pd.Series:
    """Per (baseline, seed): percent of measured requests that did not finish."""
    models = metrics.compute(run.data).models
    sums = models.groupby(["baseline", "seed"])[["requests", "finished"]].sum()
    return 100 * (1 - sums["finished"] / sums["requests"])


failure_pct = not_finished_pct(failure)
failure_pct.groupby("baseline").mean()


# %%
def fails_at(run: nb.Run) -> dict[str, bool]:
    """Baseline -> whether it failed at this run's N."""
    failed = failures_of(run.data.manifest)
    pct = not_finished_pct(run).groupby("baseline").mean()
    names = run.data.manifest["baselines"]
    return {b: b in failed or bool(pct.get(b, 100.0) > 1.0) for b in names}


def max_concurrent(baseline: str) -> tuple[float, bool]:
    """(largest N without failure below the first failing N, whether every N passed)."""
    best = NAN
    for run in concurrent:
        if fails_at(run).get(baseline, True):
            return best, False
        best = float(run.label.rsplit("=", 1)[1])
    return best, True


tried = [int(r.label.rsplit("=", 1)[1]) for r in concurrent]
pd.DataFrame({r.label: fails_at(r) for r in concurrent})

# %% [markdown]
# ## Beside the paper

# %%
span_s = thermal.data.manifest["config"]["scenario"]["duration_s"]
span = f"{span_s:g} s" if span_s < 60 else f"{span_s / 60:g} min"
rows = []
for baseline, ref in paper.TABLE7.items():
    throttle = thermal_metrics[thermal_metrics["baseline"] == baseline]["time_to_throttle_s"]
    ours = nb.interval(throttle / 60)
    never = throttle.isna().sum()
    rows.append(nb.Row("table7", f"{baseline} time to throttle", ref.time_to_throttle_min,
                       ours, "min", kind=thermal.kind,
                       note=f"{never} of {len(throttle)} seeds never throttled in "
                            f"{span}" if never else ""))
    pct = failure_pct[failure_pct.index.get_level_values(0) == baseline]
    rows.append(nb.Row("table7", f"{baseline} failure rate", ref.failure_rate_pct,
                       nb.interval(pct), "%", kind=failure.kind,
                       note=f"{failure.data.manifest['config']['scenario']['duration_s']:g} s"
                            " measured; unfinished at the end count"))
    best, all_passed = max_concurrent(baseline)
    note = (f"tried N = {tried}" + ("; passed every N" if all_passed else "")
            + "; a threshold over every seed, so no interval")
    paper_note = "paper: 10+" if ref.max_concurrent_at_least else ""
    rows.append(nb.Row("table7", f"{baseline} max concurrent models",
                       ref.max_concurrent_models, Interval(best, NAN, NAN, (best,)),
                       "models", "; ".join(n for n in (note, paper_note) if n),
                       concurrent[0].kind if concurrent else ""))
for baseline, value in paper.FIG12_CPU_MIN_GHZ.items():
    mine = cpu_min[cpu_min.index.get_level_values(0) == baseline]
    if len(mine):
        rows.append(nb.Row("fig12", f"{baseline} lowest CPU frequency", value.value,
                           nb.interval(mine), "GHz", kind=thermal.kind,
                           note=f"{span} at 35 C"))
nb.emit("fig12", rows)
