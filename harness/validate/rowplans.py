"""The op sets the compared rows will run, so the twin measures them instead of guessing.

The twin prices an op set it has a measurement for by that measurement and any other one by
its fitted roofline, which can be far off for a slice nobody timed. Band's slices at minimum
size 1 cover the unit ranges its analyzer cuts; a row with another analyzer (vanilla
TFLite's delegate partitions, a variant's windows, a model the analyzers cut differently)
may plan op sets outside them. So each row is planned here as a run plans it (its policy
built for this device; ADMS's window tuner profiles its candidates on the host), and every
op set of those plans is measured alone like the rest: structure from the planners, timings
only from slices alone, nothing from a multi-model run. (On FRS every op set the default
rows plan is among Band's.)
"""

from __future__ import annotations

from collections.abc import Sequence

from devices.host.device import HostDevice
from harness.experiment.components import build_policy, policy_class
from harness.experiment.models import Models
from harness.experiment.session import compose_run
from harness.experiment.slo import plan_all
from harness.seams.device import BaselineRunner
from harness.seams.policy import PolicyContext

Slice = tuple[str, str, frozenset[int]]


def row_slices(run_args: Sequence[str], device: HostDevice, models: Models) -> list[Slice]:
    """Every distinct (model, processor, op set) the rows of ``run_args`` (a ``python -m
    harness`` command line) plan on ``device``; a row the device runs by its own means
    (the host's plain threads) has no plan and adds none."""
    cfg, _ = compose_run(list(run_args))
    info = device.describe()
    unsupported = {m: device.op_support(g) for m, g in models.graphs.items()}
    found: dict[Slice, None] = {}
    for name in cfg.run:
        if isinstance(device, BaselineRunner) and device.runs_baseline(
                policy_class(name, cfg.baselines).runner):
            continue
        context = PolicyContext(name, info, device.profile, device.cache_dir, models.graphs,
                                unsupported, device.handoff_ns)
        policy = build_policy(name, cfg.baselines, context)
        for model, plan in plan_all(policy, models, info, unsupported).items():
            found.update({(model, sg.processor, sg.ops): None for sg in plan.subgraphs})
    return list(found)
