"""Frames: which measured requests form a frame, and which frames are complete.

A frame is one request of every model of the scenario; FPS (:mod:`harness.reporting.metrics`)
counts, per second of span, the frames whose every request finished (measured requests and
their outcomes: :mod:`harness.reporting.outcomes`). Which requests form a frame:

* when requests with the same ``frame_id`` arrived together (periodic or open-loop traffic
  that issues a frame at once), the frame is the ``frame_id``;
* otherwise (closed-loop streams, where ``frame_id`` is each stream's own counter and the
  streams drift apart), frame *k* is the *k*-th measured request, in arrival order, of each
  model's stream, so a frame is complete when each model's *k*-th request finished.

With several streams per model, the *j*-th stream (by id) of each model forms lane *j*;
frames are counted per lane.
"""

from __future__ import annotations

import pandas as pd

from harness.reporting.outcomes import Span, measured_requests, span_of


def _lanes(rows: pd.DataFrame) -> pd.Series:
    return rows.groupby("model")["stream"].rank(method="dense").astype("int64") - 1


def _frame_ids_shared(rows: pd.DataFrame, lane: pd.Series) -> bool:
    if (rows["frame_id"] < 0).any():
        return False
    spread = rows.groupby([lane, rows["frame_id"]])["arrival_ns"].nunique()
    return bool((spread <= 1).all())


def frame_keys(rows: pd.DataFrame) -> pd.DataFrame:
    """``lane`` and ``frame`` of each measured request (rule in the module docstring)."""
    lane = _lanes(rows)
    if _frame_ids_shared(rows, lane):
        frame = rows["frame_id"].astype("int64")
    else:
        ordered = rows.sort_values(["arrival_ns", "request_id"])
        frame = ordered.groupby(["model", "stream"]).cumcount().reindex(rows.index)
    return pd.DataFrame({"lane": lane, "frame": frame.astype("int64")}, index=rows.index)


def frames(requests: pd.DataFrame, baseline: str, span: Span | None = None) -> pd.DataFrame:
    """One row per frame of ``baseline``: lane, frame, complete, end_ns (last end, or -1)."""
    w = span_of(requests, baseline, span)
    n_models = requests.loc[requests["baseline"] == baseline, "model"].nunique()
    return frames_of(measured_requests(requests, baseline, w), n_models)


def frames_of(rows: pd.DataFrame, n_models: int) -> pd.DataFrame:
    """:func:`frames` of a baseline's measured requests, whose scenario has ``n_models``."""
    if rows.empty:
        return pd.DataFrame(columns=["lane", "frame", "complete", "end_ns"])
    rows = rows.join(frame_keys(rows))
    rows["done"] = rows["outcome"] == "finished"
    grouped = rows.groupby(["lane", "frame"])
    table = grouped.agg(models=("model", "nunique"), done=("done", "all"), end_ns=("end_ns", "max"))
    table["complete"] = table["done"] & (table["models"] == n_models)
    table["end_ns"] = table["end_ns"].where(table["complete"], -1)
    return table.reset_index()[["lane", "frame", "complete", "end_ns"]]
