"""ADMS's priority score (paper Section 3.4, equations 1-4): what one queued job scores on one
processor it could run on next. Pure functions; :mod:`adms.scheduler` decides with them.

    S = S_deadline + S_wait + S_resource
    S_deadline = γ (T_SLO − T_latency)                        (1)
    S_wait     = −α (T_now − T_enqueue) / T_avg               (2)
    S_resource = δ ((2 B_cur − B_max) / B_max) · C_remaining  (3)

Units: times in **milliseconds** (γ and δ are per ms; α is dimensionless).

* ``T_latency`` — estimated time from now until the job's *model is finished* if its next
  subgraph runs on this processor: the work waiting there, that subgraph's expected latency
  and the fastest way to run the rest of the model (:func:`~adms.chains.remaining_latency`,
  processors assumed free).
* ``T_SLO`` — the request's SLO budget (``slo_reading: budget``, the paper's "expected
  response time"), or the time left to its deadline (``slo_reading: time_left``). A request
  without an SLO is given ``implicit_slo_factor × T_avg`` as its budget (0: no eq. (1)).
* ``T_avg`` — the model's expected single-run latency (fastest chain, idle device, current
  moving-average estimates); ``T_enqueue`` — when the job (re-)entered the queue.
* ``B_cur / B_max`` — the processor's utilisation from the Processor Monitor (``load`` in
  [0, 1], ``B_max = 1``); without a load sensor, 0 for an idle processor and 1 for a busy one.
* ``C_remaining`` — the job's remaining work: expected ms to finish its model on a free device.

**Sign convention: the lowest score runs first.** ``S_deadline`` is the job's slack, so a job
close to (or past) its deadline scores low; ``S_wait`` falls the longer a job has waited, so
waiting raises its priority; ``S_resource`` is positive on a processor more than half loaded,
so a loaded processor takes small jobs first and a lightly loaded one takes big jobs first
(the paper: "allocates less computationally intensive tasks" to loaded processors).
"""

from __future__ import annotations

from typing import Final

from adms.config import AdmsConf
from harness.seams.units import NS_PER_MS

#: a request without an SLO is treated as if its budget were this many times T_avg
IMPLICIT_SLO_FACTOR: Final = 1.0
#: smallest T_avg used in eq. (2), ms (guards a zero-latency profile)
MIN_AVG_MS: Final = 1e-6


def slo_ms(slo_ns: int, arrival_ns: int, avg_ns: int, now_ns: int, implicit_factor: float,
           by_budget: bool) -> float | None:
    """T_SLO of eq. (1), ms: the request's budget (``by_budget``) or the time left to its
    deadline at ``now_ns``; a request without an SLO (``slo_ns <= 0``) has
    ``implicit_factor × T_avg`` as its budget, or None (the term is dropped) when the factor
    is 0."""
    budget = slo_ns
    if budget <= 0:
        if implicit_factor <= 0:
            return None
        budget = int(implicit_factor * avg_ns)
    if by_budget:
        return budget / NS_PER_MS
    return (arrival_ns + budget - now_ns) / NS_PER_MS


def deadline_term(gamma: float, slo_ms: float, latency_ms: float) -> float:
    """Eq. (1): ``γ (T_SLO − T_latency)``, the job's weighted slack."""
    return gamma * (slo_ms - latency_ms)


def wait_term(alpha: float, now_ms: float, enqueue_ms: float, avg_ms: float) -> float:
    """Eq. (2): ``−α (T_now − T_enqueue) / T_avg``."""
    return -alpha * (now_ms - enqueue_ms) / max(avg_ms, MIN_AVG_MS)


def resource_term(delta: float, load: float, capacity: float, remaining_ms: float) -> float:
    """Eq. (3): ``δ ((2 B_cur − B_max) / B_max) · C_remaining``."""
    return delta * ((2.0 * load - capacity) / capacity) * remaining_ms


def priority(
    conf: AdmsConf, *, slo_ms: float, latency_ms: float, now_ms: float, enqueue_ms: float,
    avg_ms: float, load: float, capacity: float, remaining_ms: float,
) -> float:
    """Eq. (4): the sum of the three terms; lower runs first."""
    return (deadline_term(conf.gamma, slo_ms, latency_ms)
            + wait_term(conf.alpha, now_ms, enqueue_ms, avg_ms)
            + resource_term(conf.delta, load, capacity, remaining_ms))
