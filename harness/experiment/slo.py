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
from harness.seams.plan import ModelPlan
from harness.seams.policy import Policy, PolicyContext
from harness.seams.records import DeviceInfo

#: the baseline whose lone latency is the SLO base
SLO_BASE = "tflite"


def plan_all(
    policy: Policy, models: Models, info: DeviceInfo,
    unsupported: Mapping[str, Mapping[str, frozenset[int]]],
) -> dict[str, ModelPlan]:
    return {m: policy.plan(g, info.processors, unsupported[m]) for m, g in models.graphs.items()}


def profile_all(device: Device, plans: Mapping[str, ModelPlan]) -> dict[tuple[str, int], int]:
    return {
        (m, sg.index): device.profile(plan, sg)
        for m, plan in plans.items()
        for sg in plan.subgraphs
    }


def slo_budgets(
    cfg: RunConf, device: Device, info: DeviceInfo,
    unsupported: Mapping[str, Mapping[str, frozenset[int]]], models: Models,
    cache_dir: Path | None,
) -> dict[str, int]:
    """Model -> SLO in ns; empty when ``slo_multiplier`` is 0."""
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
    plans = plan_all(base, models, info, unsupported)
    profile = profile_all(device, plans)
    alone = {m: sum(profile[(m, sg.index)] for sg in p.subgraphs) for m, p in plans.items()}
    return {m: int(mult * ns) for m, ns in alone.items()}
