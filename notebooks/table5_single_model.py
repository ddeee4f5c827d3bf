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
# Each of Table V's models runs **alone** (scenario `single`, closed loop) on the K50 Pro
# **twin** (a calibrated simulation, not a phone) under Band (Model Analyzer at
# `minimum_subgraph_size=1`, the setting whose counts match Table III) and under ADMS (windows
# tuned per processor). The subgraph counts come from each run's manifest, the latency from
# its request rows. Our models are rebuilt from Keras layers and our op-support table is the
# public delegate rules narrowed to fit Table III, so compare the direction, not the digits.

# %%
import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from harness.experiment import session
from harness.reporting import metrics, paper
from harness.reporting.store import load_run

DURATION_S = float(os.environ.get("DURATION_S", "2"))
MODELS = [r.model for r in paper.TABLE5]
base = Path(tempfile.mkdtemp())


# %%
def single(model: str) -> Path:
    return session.run(["scenario=single", f"scenario.models=[{model}]",
                        f"scenario.duration_s={DURATION_S}", "scenario.warmup_s=0.2",
                        "run=[band,adms]", "seed.count=2", "plots=false"], base / model)


def rows(folder: Path) -> list[dict]:
    run = load_run(folder)
    latency = metrics.model_metrics(run.requests).set_index("baseline")
    facts = json.loads((folder / "manifest.json").read_text())["runs"]
    out = []
    for baseline in ("band", "adms"):
        model = run.requests["model"].iloc[0]
        first_seed = next(iter(facts[baseline].values()))  # plans are the same every seed
        counts = first_seed["plans"][model]
        out.append({"model": model, "baseline": baseline, "unit": counts["unit"],
                    "merged": counts["merged"],
                    "p50 ms": latency.loc[baseline, "latency_p50_ms"]})
    return out


ours = pd.DataFrame([r for m in MODELS for r in rows(single(m))])
ours

# %% [markdown]
# ## Beside the paper

# %%
ref = pd.DataFrame([{"model": r.model, "baseline": b, "paper unit": r.unit[b],
                     "paper merged": r.merged[b], "paper ms": r.latency_ms[b]}
                    for r in paper.TABLE5 for b in ("band", "adms")])
table5 = ref.merge(ours, on=["model", "baseline"], how="left")
table5
