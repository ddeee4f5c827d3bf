"""The fitted prices as a table: one row per baseline, intervals beside each value."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from harness.decision_cost.audit import Audit
from harness.decision_cost.fit import Estimate, Fit


def _columns(name: str, e: Estimate | None) -> dict[str, float | None]:
    if e is None:
        return {name: None, f"{name}_low": None, f"{name}_high": None}
    return {name: e.value, f"{name}_low": e.low, f"{name}_high": e.high}


def fits_frame(fits: Mapping[str, Fit], audits: Mapping[str, Audit]) -> pd.DataFrame:
    """One row per baseline: counts, means, each estimate with its interval, the audit."""
    rows = []
    for baseline, f in fits.items():
        a = audits.get(baseline)
        rows.append({"baseline": baseline, "decisions": f.decisions,
                     "idle_decisions": f.idle_decisions, "idle_mean_ns": f.idle_mean_ns,
                     "idle_mean_work": f.idle_mean_work,
                     "unpriced_decisions": f.unpriced_decisions,
                     "unpriced_mean_ns": f.unpriced_mean_ns, "mean_ns": f.mean_ns,
                     "mean_work": f.mean_work,
                     **_columns("price_ns_per_work", f.counted.price),
                     **_columns("fixed_ns", f.counted.fixed_ns),
                     **_columns("slope_ns", f.counted.slope_ns),
                     "mean_performed": f.mean_performed,
                     **_columns("price_ns_per_performed",
                                f.performed.price if f.performed else None),
                     **_columns("slope_ns_per_performed",
                                f.performed.slope_ns if f.performed else None),
                     **({f"audit_{k}": getattr(a, k) for k in Audit.__slots__} if a else {})})
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
    done = fits[fits["price_ns_per_performed"].notna()]
    if len(done):
        lines += ["", f"{'against work done':<20} {'dec.':>6} {'mean done':>9}  "
                  f"{'ns/done [95%]':<21} {'slope [95%]':<19}"]
        for _, r in done.iterrows():
            lines.append(f"{r['baseline']:<20} {r['decisions']:>6} {r['mean_performed']:>9.1f}  "
                         f"{_ci(r, 'price_ns_per_performed', 2):<21} "
                         f"{_ci(r, 'slope_ns_per_performed', 2)}")
    lines += ["", f"{'audit (ns)':<20} {'decision':>8} {'/work':>7} {'/read':>7} {'/started':>8}"
              f" {'R² work':>8} {'R² all':>7}"]
    for _, r in fits[fits["audit_r2_all"].notna()].iterrows():
        lines.append(f"{r['baseline']:<20} {r['audit_per_decision_ns']:>8.0f} "
                     f"{r['audit_per_work_ns']:>7.2f} {r['audit_per_read_ns']:>7.0f} "
                     f"{r['audit_per_started_ns']:>8.0f} {r['audit_r2_work']:>8.2f} "
                     f"{r['audit_r2_all']:>7.2f}")
    lines.append("(ns per decision: the minimum of repeated replays, the clock's cost")
    lines.append(f" subtracted; {note})")
    return "\n".join(lines)
