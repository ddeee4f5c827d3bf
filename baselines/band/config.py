"""Band's config schema: its scheduler, its analyzer's minimum subgraph size, its estimator."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from hydra.core.config_store import ConfigStore

from harness.config.schema import BaselineConf
from harness.seams.fields import NONNEG, OPEN_FRACTION, at_least, spec


class SloCheck(Enum):
    """How Band's planner decides a job handed to a worker has violated its SLO."""

    #: as Band runs: ``Planner::IsSLOViolated`` reads the job's subgraph key and expected
    #: time before ``UpdateJobScheduleStatus`` sets them (worker -1, 0 us), so in effect only
    #: jobs already past their deadline are dropped (band/planner.cc, mrsnu/band 8600d49)
    executed = "executed"
    #: as the code reads: the worker's waiting time plus the subgraph's expected time beyond
    #: the time left to the deadline
    written = "written"


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
    """Defaults: Band's sample configs (script/config_samples/benchmark_*.json in mrsnu/band,
    8600d49), which are also what the paper's Band subgraph counts (Tables III, V) imply."""

    _target_: str = "baselines.band.BandPolicy"
    scheduler: SchedulerName = SchedulerName.least_slack_time_first
    # Band's minimum_subgraph_size: a run of fewer ops on a non-CPU processor falls back
    # (1 in every sample config; Band's code default is 7: the band7 variant)
    minimum_subgraph_size: int = field(default=1, metadata=spec(
        "ops", at_least(1), "Band's minimum_subgraph_size"))
    # moving-average weight of a new latency sample in Band's estimator
    # (profile_smoothing_factor)
    ema_alpha: float = field(default=0.1, metadata=spec(
        "", OPEN_FRACTION, "moving-average weight of a new latency sample"))
    # drop jobs that violate their SLO when handed to a worker (Band's SLO handling)
    drop_on_slo: bool = True
    # how that violation is judged (executed: as Band runs; written: as its code reads)
    slo_check: SloCheck = SloCheck.executed
    # jobs examined from the queue head per decision (Band's schedule_window_size, the same
    # idea as ADMS's loop_call_size; 10 in the sample configs); 0 = all (Band's code default)
    schedule_window_size: int = field(default=10, metadata=spec(
        "jobs", NONNEG, "jobs examined per decision; 0: all"))


def register() -> None:
    ConfigStore.instance().store(group="schema/baseline", name="band", node=BandConf)
