"""ADMS's config schema: the window tuner, the priority weights, the queue head, the monitor."""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore

from harness.config.schema import BaselineConf


@dataclass
class AdmsConf(BaselineConf):
    _target_: str = "adms.AdmsPolicy"
    # window size for every model, or 0 to let the tuner choose per model and device
    window_size: int = 0
    # window sizes the tuner tries
    window_candidates: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 5, 6, 8, 10, 12, 16])
    # the tuner takes the largest window whose estimated single-run latency is within this
    # fraction of the fastest: every extra subgraph costs scheduling and memory that a
    # single-run estimate does not see (paper Section 2.2: up to 28% of latency)
    window_tie_tolerance: float = 0.05
    # tune a window per processor (paper Section 3.2: "for each model-processor combination"),
    # each on that processor with the CPU as fallback; false: one window per model
    window_per_processor: bool = True
    # re-derive a model's cached remaining-latency table when a subgraph's estimate moves by
    # more than this fraction (the estimates are moving averages)
    estimate_refresh: float = 0.05
    # moving-average weight of a new latency sample (Band's profile_smoothing_factor: ADMS is
    # built on Band's runtime and estimator)
    ema_alpha: float = 0.1
    # weight of waiting fairness, eq. (2)
    alpha: float = 1.0
    # weight of deadline urgency, eq. (1) (per ms)
    gamma: float = 1.0
    # weight of resource efficiency, eq. (3)
    delta: float = 1.0
    # jobs examined from the queue head per decision
    loop_call_size: int = 4
    # keep new work off a processor this close to its throttling temperature, degrees C
    thermal_margin_c: float = 3.0
    # a request without an SLO gets the deadline arrival + implicit_slo_factor x T_avg
    implicit_slo_factor: float = 1.0


def register() -> None:
    ConfigStore.instance().store(group="schema/baseline", name="adms", node=AdmsConf)
