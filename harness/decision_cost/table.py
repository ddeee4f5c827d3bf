"""The fitted prices as a table: one row per baseline, intervals beside each value."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from harness.decision_cost.fit import Estimate, Fit


def _columns(name: str, e: Estimate | None) -> dict[str, float | None]:
    if e is None:
        return {name: None, f"{name}_low": None, f"{name}_high": None}
    return {name: e.value, f"{name}_low": e.low, f"{name}_high": e.high}


def fits_frame(fits: Mapping[str, Fit]) -> pd.DataFrame:
    """One row per baseline: counts, means, and each estimate with its interval."""
    rows = []
    for baseline, f in fits.items():
        rows.append({"baseline": baseline, "decisions": f.decisions,
                     "idle_decisions": f.idle_decisions, "idle_mean_ns": f.idle_mean_ns,
                     "idle_mean_work": f.idle_mean_work,
                     "unpriced_decisions": f.unpriced_decisions,
                     "unpriced_mean_ns": f.unpriced_mean_ns, "mean_ns": f.mean_ns,
                     "mean_work": f.mean_work,
                     **_columns("price_ns_per_work", f.price),
                     **_columns("fixed_ns", f.fixed_ns), **_columns("slope_ns", f.slope_ns)})
    return pd.DataFrame(rows)


def _ci(row: pd.Series, name: str, digits: int) -> str:
    if pd.isna(row[name]):
        return "-"
    return (f"{row[name]:.{digits}f} [{row[f'{name}_low']:.{digits}f}, "
            f"{row[f'{name}_high']:.{digits}f}]")


def render(fits: pd.DataFrame, note: str) -> str:
    """A plain 80-column table (ns; 95% intervals) with ``note`` under it."""
    head = (f"{'baseline':<20} {'dec.':>6} {'mean work':>9}  {'ns/work [95%]':<21}"
            f" {'fixed ns [95%]':<19}")
    lines = [head, "-" * len(head)]
    for _, r in fits.iterrows():
        lines.append(f"{r['baseline']:<20} {r['decisions']:>6} {r['mean_work']:>9.1f}  "
                     f"{_ci(r, 'price_ns_per_work', 2):<21} {_ci(r, 'fixed_ns', 0)}")
    lines.append("(ns per decision: the minimum of repeated replays, the clock's cost")
    lines.append(f" subtracted; {note})")
    return "\n".join(lines)
