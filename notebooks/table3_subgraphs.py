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
# # Table III: how many subgraphs Band's partitioning makes
#
# The paper's Table III counts Band-style subgraphs on the Redmi K50 Pro (unit, merged,
# total). Ours are the plan counts each single-model run recorded in its `manifest.json`
# for the `band` baseline (Band's Model Analyzer at `minimum_subgraph_size` 1, the device's
# op-support rules), with `adms` (windows tuned per processor) beside it. A plan is the same
# on every seed, so a count has no interval. Our models are rebuilt from Keras layers (see
# the `ops` columns): compare the shape of the counts, not the digits.

# %%
import pandas as pd
from IPython.display import Markdown, display

from harness.models.zoo import load_graph
from harness.paper import nb
from harness.reporting import paper

found = nb.runs("table3")
display(Markdown(nb.heading("Table III: subgraph and op counts", found)))


# %%
def plan_counts(run: nb.Run) -> list[dict]:
    """Per baseline and seed, the plan counts of the run's one model (from the manifest)."""
    out = []
    for baseline, by_seed in run.data.manifest["runs"].items():
        for seed, facts in by_seed.items():
            for model, c in facts.get("plans", {}).items():
                out.append({"model": model, "baseline": baseline, "seed": int(seed),
                            "unit": c["unit"], "merged": c["merged"],
                            "total": c["unit_subgraphs"] + c["merged"]})
    return out


counts = pd.DataFrame([c for r in found for c in plan_counts(r)])
ours = counts.groupby(["model", "baseline"])[["unit", "merged", "total"]].mean().unstack()
ours.columns = [f"{what} {baseline}" for what, baseline in ours.columns]
ours["ops"] = [load_graph(m).num_ops for m in ours.index]
ours

# %% [markdown]
# ## Beside the paper (ours: `band`)

# %%
rows = []
for ref in paper.TABLE3:
    if ref.model not in ours.index:
        continue
    mine = counts[(counts["model"] == ref.model) & (counts["baseline"] == "band")]
    for what in ("unit", "merged", "total"):
        rows.append(nb.Row("table3", f"{ref.paper_name} {what} subgraphs", getattr(ref, what),
                           nb.interval(mine[what]), kind=found[0].kind,
                           note=f"ops: paper {ref.operations}, ours "
                                f"{ours.loc[ref.model, 'ops']}"))
nb.emit("table3", rows)
