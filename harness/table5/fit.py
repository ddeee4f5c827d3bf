"""The fit: non-negative constants minimising the squared log ratios of the twin's latencies
to the paper's, by Gauss-Newton steps on finite differences.

A twin's latency is not linear in its constants everywhere (a larger fixed cost can change
which subgraphs a policy chooses), so each step linearises around the current point: the
Jacobian from one run per constant with that constant raised by its ``step``, then the
non-negative least-squares solution of the linear model (``scipy.optimize.lsq_linear``).
The point with the lowest cost among all evaluated is the answer. Residuals are
``log(twin / paper)``: a latency twice too high weighs as much as one half too low.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import lsq_linear

#: constants -> the twin's latencies (ms), one per target
Evaluate = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True, slots=True)
class Param:
    """A fitted constant: its override key, its step for the finite difference, its bound."""

    key: str
    step: float
    upper: float


@dataclass(frozen=True, slots=True)
class Point:
    """Constants, the latencies they gave, and the cost (sum of squared log ratios)."""

    theta: tuple[float, ...]
    latency_ms: tuple[float, ...]
    cost: float


def residuals(latency_ms: np.ndarray, paper_ms: np.ndarray) -> np.ndarray:
    """``log(twin / paper)`` per target (a missing latency, NaN, counts as a factor 10)."""
    out = np.log(np.asarray(latency_ms, dtype=float) / paper_ms)
    return np.where(np.isfinite(out), out, np.log(10.0))


def point(theta: np.ndarray, evaluate: Evaluate, paper_ms: np.ndarray) -> Point:
    got = evaluate(theta)
    r = residuals(got, paper_ms)
    return Point(tuple(float(x) for x in theta), tuple(float(x) for x in got), float(r @ r))


def step(params: Sequence[Param], here: Point, evaluate: Evaluate, paper_ms: np.ndarray,
         tried: list[Point]) -> np.ndarray:
    """The next constants: the bounded least-squares optimum of the model linearised at
    ``here`` (every run it made is appended to ``tried``)."""
    theta = np.array(here.theta)
    r0 = residuals(np.array(here.latency_ms), paper_ms)
    jac = np.empty((len(r0), len(params)))
    for k, p in enumerate(params):
        moved = theta.copy()
        up = theta[k] + p.step
        moved[k] = up if up <= p.upper else theta[k] - p.step
        probe = point(moved, evaluate, paper_ms)
        tried.append(probe)
        jac[:, k] = (residuals(np.array(probe.latency_ms), paper_ms) - r0) / (moved[k] - theta[k])
    upper = np.array([p.upper for p in params])
    return np.asarray(lsq_linear(jac, jac @ theta - r0, bounds=(np.zeros(len(params)), upper)).x)


def fit(params: Sequence[Param], start: Sequence[float], evaluate: Evaluate,
        paper_ms: Sequence[float], iterations: int = 3,
        progress: Callable[[Point], None] | None = None) -> tuple[Point, list[Point]]:
    """The best point found from ``start`` after at most ``iterations`` Gauss-Newton steps
    (a step that does not lower the cost is halved once, then the search stops), and every
    point evaluated (in order)."""
    paper = np.asarray(paper_ms, dtype=float)
    here = point(np.asarray(start, dtype=float), evaluate, paper)
    tried = [here]
    for _ in range(iterations):
        nxt = point(step(params, here, evaluate, paper, tried), evaluate, paper)
        tried.append(nxt)
        if progress is not None:
            progress(nxt)
        if nxt.cost >= here.cost:
            # (the linear model's optimum is no better: halfway there once, then stop)
            half = point((np.array(here.theta) + np.array(nxt.theta)) / 2, evaluate, paper)
            tried.append(half)
            if half.cost >= here.cost:
                break
            nxt = half
        here = nxt
    return min(tried, key=lambda p: p.cost), tried
