"""Does the counted work explain a decision's time? The audit of a policy's count.

A count that matches what the code does leaves little of a decision's time to anything
else. :func:`audit` fits ``ns = a + b x work + c x read + d x started`` (``read``: the jobs
the policy read from the queue; ``started``: what it assigned or dropped) and reports the
share of the time's variance that the counted work alone explains (R² of ``ns`` on
``work``) beside the share all four explain. A large ``c`` or ``d`` means the code pays per
job read or per assignment for something the count does not hold; a low R² for the work
alone means most of a decision's time is not in the count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.decision_cost.bench import Timing


@dataclass(frozen=True, slots=True)
class Audit:
    """One policy's decision time split by what it did (ns), and how much the count explains."""

    per_decision_ns: float
    per_work_ns: float
    per_read_ns: float
    per_started_ns: float
    #: R² of ns on the counted work alone, and on all four terms
    r2_work: float
    r2_all: float


def _r2(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    rest = y - x @ coef
    total = float(((y - y.mean()) ** 2).sum())
    return coef, (1.0 - float((rest ** 2).sum()) / total) if total > 0 else 0.0


def audit(rows: Sequence[Timing]) -> Audit:
    """The least-squares split of ``rows``' minimum times (at least two rows)."""
    ns = np.array([r.min_ns for r in rows], dtype=float)
    ones = np.ones(len(rows))
    work = np.array([r.work for r in rows], dtype=float)
    read = np.array([r.read for r in rows], dtype=float)
    started = np.array([r.assigned + r.dropped for r in rows], dtype=float)
    _, r2_work = _r2(np.column_stack([ones, work]), ns)
    coef, r2_all = _r2(np.column_stack([ones, work, read, started]), ns)
    fixed, per_work, per_read, per_started = (float(c) for c in coef)
    return Audit(fixed, per_work, per_read, per_started, r2_work, r2_all)
