"""Printed tables that fit the terminal, and the per-model latency table.

**Fitting.** A table wider than the console is not squeezed (rich would then cut numbers to
"…" and drop headers): its columns are split into parts that each fit, every part repeating
the first column (the row's name), so no cell is ever shortened and no name is dropped.
Cells are plain text, never rich markup (a variant's name ``band[scheduler=heft]`` would
read as a markup tag and vanish). A
column's width is its widest cell or header; a part takes columns left to right while the
part's width (each column's width plus rich's padding and rule, :data:`PER_COLUMN`) fits.
The first column is at most a third of the console (:func:`name_width`): a longer name (a
variant, ``band[scheduler=heterogeneous_earliest_finish_time]``) folds onto a second line,
whole, rather than leaving room for one column per part.

**Latency per model.** The run's request latencies pool models of very different sizes (a
4 ms detector and a 70 ms recogniser), so a pooled p90 says little about either. The
per-model table gives, per baseline and model, what ``benchmark_model`` users read: the
count of finished requests, mean, standard deviation and p50/p90/p99 latency in ms, over the
finished requests of every seed that completed (seeds pooled).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np
import pandas as pd
from rich.cells import cell_len
from rich.table import Table as RichTable
from rich.text import Text

from harness.reporting import outcomes

#: what one column adds to a table's width besides its cells: a space each side and a rule
PER_COLUMN = 3
#: the per-model table's columns: name -> (header, format)
PER_MODEL: dict[str, tuple[str, str]] = {
    "count": ("count", "{:.0f}"), "mean": ("mean", "{:.1f}"), "std": ("std", "{:.1f}"),
    "p50": ("p50", "{:.1f}"), "p90": ("p90", "{:.1f}"), "p99": ("p99", "{:.1f}")}


def widths(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    """Each column's natural width: its widest line of header or cell."""
    return [max(cell_len(line) for text in (h, *(r[k] for r in rows))
                for line in text.splitlines() or [""])
            for k, h in enumerate(headers)]


def name_width(width: int) -> int:
    """The widest the first column gets in a console ``width`` wide: a third of it (at
    least 16); a longer name folds onto more lines, whole."""
    return max(16, width // 3)


def parts(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int
          ) -> list[list[int]]:
    """Column indices of each part: column 0 first in every part, the others in order, each
    part at most ``width`` wide (a column wider than that alone gets a part of its own)."""
    sizes = [w + PER_COLUMN for w in widths(headers, rows)]
    sizes[0] = min(sizes[0], name_width(width) + PER_COLUMN)
    out: list[list[int]] = []
    for k in range(1, len(headers)):
        if out and 1 + sum(sizes[i] for i in out[-1]) + sizes[k] <= width:
            out[-1].append(k)
        else:
            out.append([0, k])
    return out or [[0]]


def fitted(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int,
           title: str | None = None, caption: str | None = None,
           left: Collection[int] = (0,)) -> list[RichTable]:
    """The table as rich tables that each fit ``width``: the title over the first part,
    the caption under the last; columns in ``left`` are left-justified, the rest right."""
    split = parts(headers, rows, width)
    tables = []
    for n, columns in enumerate(split):
        last = n == len(split) - 1
        table = RichTable(title=Text(title) if title and n == 0 else None,
                          title_justify="left", caption_justify="left",
                          caption=Text(caption) if caption and last else None)
        for k in columns:  # a long name folds; nothing else wraps
            table.add_column(Text(headers[k]), justify="left" if k in left else "right",
                             no_wrap=k != 0, overflow="fold",
                             max_width=name_width(width) if k == 0 else None)
        for row in rows:
            table.add_row(*(Text(row[k]) for k in columns))  # no markup: "band[x=1]"
        tables.append(table)
    return tables


# -- latency per model ----------------------------------------------------------------------


def per_model(requests: pd.DataFrame,
              failed_seeds: Mapping[str, Collection[int]] | None = None) -> pd.DataFrame:
    """One row per (baseline, model), in run order: :data:`PER_MODEL`'s figures over the
    finished requests of the seeds that completed."""
    failed = dict(failed_seeds or {})
    records = []
    models = [str(m) for m in pd.unique(requests["model"])]
    for baseline in outcomes.baselines(requests):
        mine = requests[(requests["baseline"] == baseline)
                        & ~requests["seed"].isin(list(failed.get(baseline, ())))]
        rows = pd.concat([_measured(mine[mine["seed"] == s], baseline)
                          for s in pd.unique(mine["seed"])]) if len(mine) else mine
        for model in [m for m in models if m in set(mine["model"].astype(str))]:
            latency = rows.loc[rows["model"] == model, "latency_ms"].dropna().to_numpy(float)
            records.append({"baseline": baseline, "model": str(model), **_figures(latency)})
    return pd.DataFrame(records, columns=["baseline", "model", *PER_MODEL])


def _measured(requests: pd.DataFrame, baseline: str) -> pd.DataFrame:
    return outcomes.measured_requests(requests, baseline,
                                      outcomes.measured_span(requests, baseline))


def _figures(latency: np.ndarray) -> dict[str, float]:
    if not len(latency):
        return {"count": 0, **{k: float("nan") for k in PER_MODEL if k != "count"}}
    p50, p90, p99 = np.percentile(latency, [50, 90, 99])
    std = float(np.std(latency, ddof=1)) if len(latency) > 1 else float("nan")
    return {"count": len(latency), "mean": float(latency.mean()), "std": std,
            "p50": float(p50), "p90": float(p90), "p99": float(p99)}


def per_model_rows(table: pd.DataFrame, shown: Callable[[str], str] = str
                   ) -> list[list[str]]:
    """The per-model table's cells: a baseline's name on a row of its own, its models
    indented under it (so the first column is as wide as the longest name, not both)."""
    rows: list[list[str]] = []
    blank = [""] * len(PER_MODEL)
    for baseline, mine in table.groupby("baseline", sort=False):
        rows.append([shown(str(baseline)), *blank])
        rows += [[f"  {r['model']}", *(_fmt(r[k], spec) for k, (_, spec) in PER_MODEL.items())]
                 for r in mine.to_dict("records")]
    return rows


def per_model_headers() -> list[str]:
    return ["baseline / model", *(h for h, _ in PER_MODEL.values())]


def _fmt(value: object, spec: str) -> str:
    if not isinstance(value, int | float) or value != value:
        return "–"
    return spec.format(value)


#: the per-model table's title
PER_MODEL_TITLE = ("latency per model, ms (finished requests of every seed, pooled; "
                   "the table above pools models)")


def per_model_tables(requests: pd.DataFrame, failed_seeds: Mapping[str, Collection[int]],
                     shown: Callable[[str], str], width: int) -> list[RichTable]:
    """The latency-per-model table (:func:`per_model`) fitted to ``width``."""
    found = per_model(requests, failed_seeds)
    return fitted(per_model_headers(), per_model_rows(found, shown), width, PER_MODEL_TITLE)
