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
# # Figure 8: FPS of TFLite, Band and ADMS beside the paper
#
# Reads run folders (``requests.parquet`` ...) and derives everything from their rows with
# `harness.metrics`: a frame counts when **every** model of it finished. Set `RESULTS_DIR` to
# a run folder, or to a folder holding run folders (the newest `MAX_RUNS` are read). Without
# it, a tiny **synthetic** run is written with `RunRecorder` so the notebook still runs; its
# numbers are made up and every table and plot says so.

# %%
import os
import tempfile
from pathlib import Path

import pandas as pd
from IPython.display import Image, Markdown, display

from harness import paper, plots, report
from harness.results import RunData, RunRecorder, load_run

MAX_RUNS = 6


# %%
def run_folders(root: Path) -> list[Path]:
    """``root`` itself if it is a run folder, else the newest run folders below it."""
    def is_run(p: Path) -> bool:
        return (p / "requests.parquet").exists() or (p / "requests.jsonl").exists()

    if is_run(root):
        return [root]
    found = {p.parent for p in root.rglob("requests.*") if is_run(p.parent)}
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)[:MAX_RUNS]


def synthetic_run(folder: Path) -> RunData:
    """SYNTHETIC: two models per frame every 40 ms for 2 s; each baseline a fixed latency."""
    recorder = RunRecorder(folder)
    for baseline, latency_ms in (("tflite", 90.0), ("band", 30.0), ("adms", 24.0)):
        for frame in range(50):
            for i, model in enumerate(("retinaface", "arcface_mobilenet")):
                arrival = frame * 40_000_000
                end = arrival + int(latency_ms * (1 + i) / 2 * 1e6)
                recorder.requests.append({
                    "baseline": baseline, "request_id": 2 * frame + i, "model": model,
                    "frame_id": frame, "stream": i, "arrival_ns": arrival, "start_ns": arrival,
                    "end_ns": end, "slo_ns": 0, "status": "ok", "processors": "gpu",
                    "n_subgraphs": 1, "warmup": frame < 5})
    recorder.write_manifest({"device": "k50pro", "device_kind": "synthetic",
                             "scenario": "frs", "seed": 0})
    recorder.close()
    return load_run(folder)


# %%
root = os.environ.get("RESULTS_DIR")
folders = run_folders(Path(root)) if root else []
runs = [load_run(f) for f in folders] or [synthetic_run(Path(tempfile.mkdtemp()) / "synthetic")]
print("runs:", *(str(r.folder) for r in runs), sep="\n  ")

# %% [markdown]
# ## The comparison table of each run

# %%
for run in runs:
    table, identity = report.report_table(run)
    display(Markdown(report.markdown(table, identity)))

# %% [markdown]
# ## The paper's Figure 8 values (derived ones marked)

# %%
reference = pd.DataFrame([
    {"device": d, "scenario": s, "baseline": b, "fps": v.value, "derived": v.derived,
     "source": v.source.where, "note": v.note}
    for (d, s), values in paper.FIG8_FPS.items() for b, v in values.items()])
reference

# %% [markdown]
# ## FPS beside the paper

# %%
for run in runs:
    table, identity = report.report_table(run)
    png = plots.fps_plot(table, identity, run.folder / "fps.png")
    display(Image(filename=str(png)))
