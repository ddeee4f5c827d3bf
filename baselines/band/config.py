"""Band's config schema: its scheduler, its analyzer's minimum subgraph size, its estimator."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from hydra.core.config_store import ConfigStore

from harness.config.schema import BaselineConf


class SchedulerName(Enum):
    """Band's schedulers (``band/scheduler/`` in mrsnu/band)."""

    fixed_worker = "fixed_worker"
    round_robin = "round_robin"
    shortest_expected_latency = "shortest_expected_latency"
    least_slack_time_first = "least_slack_time_first"
    heterogeneous_earliest_finish_time = "heterogeneous_earliest_finish_time"
    heterogeneous_earliest_finish_time_reserved = "heterogeneous_earliest_finish_time_reserved"


@dataclass
class BandConf(BaselineConf):
    _target_: str = "baselines.band.BandPolicy"
    scheduler: SchedulerName = SchedulerName.least_slack_time_first
    # Band's minimum_subgraph_size: a run of fewer ops on a non-CPU processor falls back
    minimum_subgraph_size: int = 7
    # moving-average weight of a new latency sample in Band's estimator
    ema_alpha: float = 0.1
    # drop jobs whose expected finish is past their deadline (Band's SLO handling)
    drop_on_slo: bool = True
    # slack (ms) Band's reserved HEFT keeps per worker
    reservation_window_ms: float = 5.0
    # jobs examined from the queue head per decision (Band's schedule_window_size, the same
    # idea as ADMS's loop_call_size); 0 = all
    schedule_window_size: int = 0


def register() -> None:
    ConfigStore.instance().store(group="schema/baseline", name="band", node=BandConf)
