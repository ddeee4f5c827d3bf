"""ADMS's config schema: the window tuner, the priority weights, the queue head, the monitor."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from hydra.core.config_store import ConfigStore

from harness.config.schema import BaselineConf
from harness.seams.fields import FRACTION, NONNEG, OPEN_FRACTION, at_least, spec


class SloReading(Enum):
    #: T_SLO = the request's latency budget (SLO); eq. (1) is the job's slack against it
    budget = "budget"
    #: T_SLO = deadline - now, the time left
    time_left = "time_left"


class Pairing(Enum):
    """How eq. (4) picks a (job, processor) pair at a decision (the paper's Figure 7 shows
    processors requesting tasks and a priority queue, and leaves the pairing open)."""

    #: each idle processor in turn (``idle_order``) takes the lowest-scoring job it can run
    processor_asks = "processor_asks"
    #: the lowest-scoring job goes first, to the idle processor where its model would finish
    #: first (each job scored there); then the next job
    job_first = "job_first"


class IdleOrder(Enum):
    """The order idle processors are offered work in (``processor_asks``) or break ties in
    (``job_first``)."""

    #: the device's listing order
    device = "device"
    #: the device's listing order reversed
    reverse = "reverse"
    #: not near throttling, less loaded, cooler, then device order (adms/monitor.py)
    load = "load"


class LatencyReading(Enum):
    """What ``T_latency`` of eq. (1) ("the estimated execution latency") is."""

    #: from now until the job's model is finished if its next subgraph runs on this
    #: processor: the work waiting there, the subgraph, the fastest rest on a free device
    on_processor = "on_processor"
    #: the model's remaining latency on a free device (the same on every processor)
    free_device = "free_device"
    #: the time since the request arrived (eq. (1) is then the SLO's time left)
    since_arrival = "since_arrival"


class ScoreOrder(Enum):
    """The sign convention of eq. (4)."""

    #: the lowest score runs first (waiting lowers the score: eq. (2) prevents starvation)
    lowest_first = "lowest_first"
    #: the highest score runs first (eq. (2) would then starve long waits: not defensible,
    #: kept so the reading can be shown)
    highest_first = "highest_first"


class TunerKind(Enum):
    #: every model's per-processor windows chosen together, by the frame-rate bound of the
    #: scenario's plans on the whole device (adms/mix.py)
    mix = "mix"
    #: each model alone by its single-run latency (adms/tuner.py; the ablation)
    per_model = "per_model"


@dataclass
class AdmsConf(BaselineConf):
    _target_: str = "adms.AdmsPolicy"
    # cut models into subgraphs (the paper's ADMS); false: the paper's ablation without
    # subgraph partitioning, each model whole on any processor that runs all its ops
    # (conf/baseline/adms_no_partition.yaml); the window settings are then unused
    partition: bool = True
    # window size for every model, or 0 to let the tuner choose per model and device
    window_size: int = field(default=0, metadata=spec(
        "ops", NONNEG, "window size for every model; 0: tuned per model"))
    window_candidates: list[int] = field(
        default_factory=lambda: [1, 2, 3, 4, 5, 6, 8, 10, 12, 16],
        metadata=spec("ops", at_least(1), "window sizes the tuner tries", non_empty=True))
    # the tuner takes the largest window whose estimated single-run latency is within this
    # fraction of the fastest: every extra subgraph costs scheduling and memory that a
    # single-run estimate does not see (paper Section 2.2: up to 28% of latency)
    window_tie_tolerance: float = field(default=0.05, metadata=spec(
        "fraction", FRACTION, "largest window within this of the fastest wins"))
    # tune a window per processor (paper Section 3.2: "for each model-processor combination"),
    # each on that processor with the CPU as fallback; false: one window per model
    window_per_processor: bool = True
    # how windows are tuned: `mix` (the scenario's models together, by the LP frame-rate
    # bound; window_tie_tolerance and window_per_processor unused) or `per_model` (each
    # model by its single-run latency: window_tie_tolerance, window_per_processor)
    tuner: TunerKind = TunerKind.mix
    # the mix tuner takes the assignment with the fewest subgraphs among those whose bound is
    # within this fraction of the best bound tried (what the bound leaves unpriced: the
    # scheduler's work and memory per subgraph)
    window_mix_tolerance: float = field(default=0.02, metadata=spec(
        "fraction", FRACTION, "fewest subgraphs within this of the best bound wins"))
    # re-derive a model's cached remaining-latency table when a subgraph's estimate moves by
    # more than this fraction (the estimates are moving averages)
    estimate_refresh: float = field(default=0.05, metadata=spec(
        "fraction", FRACTION, "estimate change that re-derives tables"))
    # moving-average weight of a new latency sample (Band's profile_smoothing_factor: ADMS is
    # built on Band's runtime and estimator)
    ema_alpha: float = field(default=0.1, metadata=spec(
        "", OPEN_FRACTION, "moving-average weight of a new latency sample"))
    alpha: float = field(default=1.0, metadata=spec(
        "", NONNEG, "weight of waiting fairness, eq. (2)"))
    gamma: float = field(default=1.0, metadata=spec(
        "1/ms", NONNEG, "weight of deadline urgency, eq. (1)"))
    delta: float = field(default=1.0, metadata=spec(
        "1/ms", NONNEG, "weight of resource efficiency, eq. (3)"))
    loop_call_size: int = field(default=4, metadata=spec(
        "jobs", at_least(1), "jobs examined from the queue head"))
    # keep new work off a processor this close to its throttling temperature, degrees C
    thermal_margin_c: float = field(default=3.0, metadata=spec(
        "°C", NONNEG, "keep work off a processor this near throttling"))
    # what T_SLO of eq. (1) is: the request's SLO budget (the paper's words: "the expected
    # response time") or the time left to its deadline (elapsed time then counts in eq. (1)
    # as well as in eq. (2))
    slo_reading: SloReading = SloReading.budget
    # a request without an SLO is given T_SLO = implicit_slo_factor x T_avg; 0 drops eq. (1)
    # for it
    implicit_slo_factor: float = field(default=1.0, metadata=spec(
        "x", NONNEG, "T_SLO = this x T_avg without an SLO"))
    # The project's additions (docs/adms-as-built.md); all off here, the paper's rule
    # (conf/baseline/adms.yaml); all on in `adms_ef`, ADMS as the project built it
    # (conf/baseline/adms_ef.yaml). Each is one switch for ablation.
    # earliest-finish filter: an idle processor takes only the jobs for which it is the
    # earliest-finishing choice, counting the work waiting on busy processors (HEFT-like);
    # false: eqs. (1)-(4) alone pick the job
    earliest_finish: bool = False
    # (with earliest_finish) the earliest-finish rule counts, on each processor, the next
    # subgraphs of the jobs ahead in the examined head (each where it would end first) besides
    # the work already running there; false: only the running work
    queue_aware: bool = False
    # on a processor that another examined job can run nowhere else, a job takes the extent
    # (how many units its subgraph covers) minimising its model's finish plus the time it
    # holds that processor from each such job (the sum of their finishing times), and the
    # earliest-finish projection counts those jobs first; false: the extent that finishes its
    # own model first, which on equal processors keeps a model whole on the one that also runs
    # the others' CPU-only ops
    exclusive_aware: bool = False
    # Readings of the paper's rule where its words leave a choice (docs/adms-as-built.md,
    # "Readings of the paper's rule"; conf/baseline/adms_r_*.yaml name the combinations)
    # how eq. (4) pairs jobs and processors: `processor_asks` (each idle processor takes its
    # lowest-scoring job) or `job_first` (the lowest-scoring job goes first, to the idle
    # processor where its model would finish first)
    pairing: Pairing = Pairing.job_first
    # the order idle processors are offered work in (processor_asks) or break ties in
    # (job_first): `device`, `reverse` (device order reversed) or `load` (not near
    # throttling, less loaded, cooler, then device order: adms/monitor.py `preference`)
    idle_order: IdleOrder = IdleOrder.device
    # what T_latency of eq. (1) is: `on_processor` (until the model is done via this
    # processor), `free_device` (the model's remaining latency on a free device) or
    # `since_arrival` (time since the request arrived)
    t_latency: LatencyReading = LatencyReading.free_device
    # the sign convention of eq. (4): `lowest_first` or `highest_first`
    score_order: ScoreOrder = ScoreOrder.lowest_first
    # the project's addition: split each model's work over the processors as the frame-rate
    # bound's linear program does (harness/models/bound.py, solved once per run from the
    # profiles): at each unit boundary a job runs the subgraph the LP's optimum uses that is
    # furthest behind its share of the LP's flow there (a deficit count), so a model the LP
    # splits between processors alternates in the LP's proportions; false: the
    # earliest-finish choice alone picks the processor and extent
    lp_split: bool = False
    # literal work conservation (conf/baseline/adms_work_conserving.yaml): a processor that
    # is no job's earliest-finishing choice still takes the best-scoring job it can run;
    # false (the default): it stays idle until some job ends there first
    work_conserving: bool = False
    # read the Processor Monitor (temperature, throttling, load); false (an ablation): no
    # thermal steering, and load is 0 for an idle processor and 1 for a busy one
    use_monitor: bool = True
    # the project's addition (overload): drop a queue-head job whose request cannot meet its
    # SLO even if its next subgraph started now on a free device (now + the fastest way to
    # finish its model > arrival + SLO); false (the default, the paper's ADMS): never drop
    shed: bool = False


def register() -> None:
    ConfigStore.instance().store(group="schema/baseline", name="adms", node=AdmsConf)
