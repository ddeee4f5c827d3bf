"""One baseline on one device and one scenario.

:func:`run_baseline`:

1. opens a fresh device from its config (a twin starts cold, at ambient temperature, with
   its own SimPy environment; the host device is rebuilt so every baseline starts alike);
2. asks the device which ops each processor runs, and the SLO base (:mod:`.slo`) if any;
3. builds the policy from its config, has it plan every model, loads the plans on the device
   and profiles every subgraph alone (the estimates the policies start from);
4. starts the device's clock and drives traffic through the runtime's one loop
   (:class:`~harness.experiment.loop.RunLoop`), recording every subgraph, request and sensor
   sample into the run folder's columns as it goes.

A device that runs whole baselines with its own means (a
:class:`~harness.seams.device.BaselineRunner`) is handed the baseline instead, with that
loop: a phone's tools write their own rows; the host's threads are an engine the loop drives.
A device that runs a prepared policy itself (a :class:`~harness.seams.device.PolicyRunner`:
a phone's native runner) gets it after step 3 instead of the loop
(:mod:`harness.experiment.handover`) and writes the rows itself.

Each repetition has its own seed, split by purpose: traffic, latency noise, input data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from harness.config.schema import RunConf
from harness.experiment.bounds import BoundCache, as_run, work_of
from harness.experiment.bounds import facts as bound_facts
from harness.experiment.components import build_policy, open_device, policy_class
from harness.experiment.handover import hand_over
from harness.experiment.loop import RunLoop
from harness.experiment.models import Models
from harness.experiment.outcome import BaselineOutcome
from harness.experiment.slo import plan_all, profile_all, slo_budgets
from harness.models.bound import frame_rate_bound
from harness.reporting.store import RunRecorder
from harness.seams.device import (
    BaselineRun,
    BaselineRunner,
    DecisionPricing,
    Device,
    DeviceContext,
    PolicyRunner,
)
from harness.seams.plan import ModelPlan
from harness.seams.policy import Policy, PolicyContext
from harness.seams.progress import StartPhase, counted, no_phases, steps

#: (baseline name, its policy) -> the policy the run drives (e.g. a decision trace's recorder)
PolicyWrap = Callable[[str, Policy], Policy]

#: purposes a seed is split into; their order is part of the results' reproducibility
SEED_PURPOSES = ("traffic", "noise", "inputs")


def seeds(base: int) -> dict[str, np.random.Generator]:
    """One generator per purpose, independent of each other and of the purposes' use."""
    children = np.random.SeedSequence(base).spawn(len(SEED_PURPOSES))
    return {p: np.random.default_rng(s) for p, s in zip(SEED_PURPOSES, children, strict=True)}


def device_context(cfg: RunConf, models: Models, rngs: Mapping[str, np.random.Generator],
                   phases: StartPhase = no_phases) -> DeviceContext:
    return DeviceContext(models.graphs, models.paths, rngs["noise"],
                         Path(cfg.zoo_cache) / "slices", phases)


def shares_concurrently(plans: Mapping[str, ModelPlan]) -> bool:
    """Whether two models' concurrent plans (``ModelPlan.concurrent``) use one processor."""
    users: dict[str, int] = {}
    for plan in plans.values():
        if plan.concurrent:
            for proc in {sg.processor for sg in plan.subgraphs}:
                users[proc] = users.get(proc, 0) + 1
    return any(n > 1 for n in users.values())


def run_baseline(
    cfg: RunConf, name: str, models: Models, recorder: RunRecorder,
    progress: Callable[[int], None], cache_dir: Path | None, seed: int | None = None,
    bounds: BoundCache | None = None, wrap: PolicyWrap | None = None,
    phases: StartPhase = no_phases,
) -> BaselineOutcome:
    """Run one baseline with one seed (default ``seed.base``): its facts for the manifest
    (device info, plan counts, the frame-rate bound of its plans) and, on the runtime, its
    plans with their costs (for the run's bound; not for the manifest). ``wrap`` (baseline
    name, policy) -> policy, if given, stands in front of the built policy (a decision
    trace's recorder). The steps before the clock (op support, planning, the device's
    loading, profiling) are phases of ``phases``."""
    seed = cfg.seed.base if seed is None else seed
    rngs = seeds(seed)
    device = open_device(cfg.device, device_context(cfg, models, rngs, phases))
    try:
        runner = policy_class(name, cfg.baselines).runner
        if isinstance(device, BaselineRunner) and device.runs_baseline(runner):
            loop = RunLoop(cfg, name, seed, recorder, rngs, progress)
            run = BaselineRun(name, runner, cfg.baselines[name], cfg.scenario, seed, rngs,
                              progress, loop)
            return BaselineOutcome(dict(device.run_baseline(run, recorder)))
        return _run_on(cfg, name, seed, models, recorder, (progress, phases), cache_dir,
                       device, rngs, bounds or BoundCache(), wrap)
    finally:
        device.close()


def _run_on(
    cfg: RunConf, name: str, seed: int, models: Models, recorder: RunRecorder,
    report: tuple[Callable[[int], None], StartPhase], cache_dir: Path | None, device: Device,
    rngs: Mapping[str, np.random.Generator], bounds: BoundCache, wrap: PolicyWrap | None,
) -> BaselineOutcome:
    progress, phases = report
    info = device.describe()
    graphs = models.graphs
    unsupported = {m: device.op_support(graphs[m]) for m in steps(
        phases, f"op support of {counted(len(graphs), 'model')}", graphs)}
    slo = slo_budgets(cfg, device, info, unsupported, models, cache_dir, phases)
    context = PolicyContext(name, info, device.profile, cache_dir, models.graphs, unsupported,
                            device.handoff_ns)
    policy = build_policy(name, cfg.baselines, context)
    if wrap is not None:
        policy = wrap(name, policy)
    if isinstance(device, DecisionPricing):
        device.price_decisions(name, policy.name)
    plans = plan_all(policy, models, info, unsupported, phases)
    device.load(models.graphs, plans)
    profile = profile_all(device, plans, phases)
    work = work_of(device, plans, profile)
    own = bounds.bound([p.name for p in info.processors], work)
    policy.prepare(plans, profile)
    if isinstance(device, PolicyRunner):
        ran_facts, timings = hand_over(cfg, name, seed, device, recorder, rngs, progress,
                                       (policy, plans, profile), info.processors, slo)
    else:
        loop = RunLoop(cfg, name, seed, recorder, rngs, progress, slo)
        ran_facts = {"end_ns": loop(policy, plans, info.processors, device)}
        assert loop.rows is not None
        timings = loop.rows.timings()
    # (models sharing a processor concurrently have no as-run bound: a measured latency
    # there holds the time shared with the others, not the processor's busy time)
    ran = None if shares_concurrently(plans) else frame_rate_bound(
        [p.name for p in info.processors], as_run(work, timings).models)
    facts = {"device": info, "plans": {m: p.counts() for m, p in plans.items()},
             "plan_meta": {m: dict(p.meta) for m, p in plans.items()},
             "window_sizes": {m: p.window_size for m, p in plans.items()},
             "slo_ns": slo, **ran_facts, "bound": bound_facts(own),
             "as_run_bound": None if ran is None else bound_facts(ran)}
    return BaselineOutcome(facts, work, tuple(p.name for p in info.processors))
