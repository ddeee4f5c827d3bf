"""SLO budgets: each model's latency budget for a run.

SLO per model = ``slo_multiplier`` x the model's latency alone under vanilla TFLite on its
configured processor (the paper's Section 4.5 uses the worst single-inference latency as the
base; a lone TFLite run is that base here). The TFLite plans are profiled on the device, not
loaded: the device runs only the baseline's own plans.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.config.schema import RunConf
from harness.experiment.components import build_policy
from harness.experiment.models import Models
from harness.seams.device import Device
from harness.seams.errors import UserError
from harness.seams.fields import MAX_TIME_S
from harness.seams.plan import ModelPlan
from harness.seams.policy import Policy, PolicyContext
from harness.seams.progress import Advance, StartPhase, counted, no_phases, steps
from harness.seams.records import DeviceInfo
from harness.seams.units import NS_PER_MS, NS_PER_S

#: the baseline whose lone latency is the SLO base
SLO_BASE = "tflite"


def plan_all(
    policy: Policy, models: Models, info: DeviceInfo,
    unsupported: Mapping[str, Mapping[str, frozenset[int]]], phases: StartPhase = no_phases,
) -> dict[str, ModelPlan]:
    """Each model's plan by ``policy``: a phase, a step per model (a window tuner profiles
    its candidates here)."""
    graphs = models.graphs
    return {m: policy.plan(graphs[m], info.processors, unsupported[m])
            for m in steps(phases, f"planning {counted(len(graphs), 'model')}", graphs)}


def profile_all(device: Device, plans: Mapping[str, ModelPlan],
                phases: StartPhase = no_phases) -> dict[tuple[str, int], int]:
    """Each subgraph's time alone on its processor: a phase, a step per subgraph."""
    todo = [(m, plan, sg) for m, plan in plans.items() for sg in plan.subgraphs]
    return {(m, sg.index): device.profile(plan, sg)
            for m, plan, sg in steps(phases, f"profiling {counted(len(todo), 'subgraph')}",
                                     todo)}


def slo_budgets(
    cfg: RunConf, device: Device, info: DeviceInfo,
    unsupported: Mapping[str, Mapping[str, frozenset[int]]], models: Models,
    cache_dir: Path | None, phases: StartPhase = no_phases,
) -> dict[str, int]:
    """Model -> SLO in ns; empty when ``slo_multiplier`` is 0 (the base's planning and
    profiling are phases of ``phases``, named "SLO base: ...")."""
    mult = cfg.scenario.slo_multiplier
    if mult < 0:
        raise UserError(f"scenario.slo_multiplier must be >= 0, got {mult}")
    if mult == 0:
        return {}
    if SLO_BASE not in cfg.baselines:
        raise UserError(f"SLOs are multiples of the {SLO_BASE} latency alone: the run needs "
                        f"a baselines.{SLO_BASE} config")
    base = build_policy(SLO_BASE, cfg.baselines, PolicyContext(
        SLO_BASE, info, device.profile, cache_dir, models.graphs, unsupported))
    def base_phases(name: str, total: int) -> Advance:
        return phases(f"SLO base: {name}", total)

    plans = plan_all(base, models, info, unsupported, base_phases)
    profile = profile_all(device, plans, base_phases)
    alone = {m: sum(profile[(m, sg.index)] for sg in p.subgraphs) for m, p in plans.items()}
    return {m: slo_ns(m, mult, ns) for m, ns in alone.items()}


def slo_ns(model: str, mult: float, alone_ns: int) -> int:
    """``mult`` x ``alone_ns``, bounded where it becomes nanoseconds: an SLO beyond
    :data:`~harness.seams.fields.MAX_TIME_S` is refused in one line (it would overflow the
    journals' 64-bit nanoseconds further on and lose their rows)."""
    slo_s = mult * alone_ns / NS_PER_S
    if not slo_s <= MAX_TIME_S:
        raise UserError(f"scenario.slo_multiplier={mult:g} makes {model}'s SLO {slo_s:.3g} s "
                        f"({mult:g} x its {alone_ns / NS_PER_MS:.3g} ms alone); an SLO may be "
                        f"at most {MAX_TIME_S:g} s")
    return int(mult * alone_ns)
