"""One experiment: every requested baseline on one device and one scenario.

For each baseline, in order, :func:`run_baseline`:

1. builds a fresh device (a twin starts cold, at ambient temperature, with its own SimPy
   environment; the host device is rebuilt so every baseline starts alike);
2. asks the policy to plan every model of the scenario from the device's op support;
3. loads the plans on the device and profiles every subgraph alone (the estimates the
   policies start from, and the SLO base);
4. drives traffic through the shared runtime on the device's clock, recording every subgraph,
   request and sensor sample into the run folder as it goes.

Seeds are split by purpose from ``seed.base``: traffic, latency noise, input data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from adms.monitor import ProcessorMonitor
from baselines.registry import make_policy
from devices.base import Device
from harness.config import DeviceBackend, RunConf
from harness.errors import NotImplementedYet, UserError
from harness.graph import ModelGraph
from harness.plan import ModelPlan, Processor
from harness.results import RunRecorder
from harness.runtime.api import NS_PER_MS, NS_PER_S, Completion, Policy, Request, SensorSample
from harness.runtime.core import JobRecord, Runtime
from harness.traffic import Traffic

#: purposes a seed is split into; their order is part of the results' reproducibility
SEED_PURPOSES = ("traffic", "noise", "inputs")
#: how long a run may go on after the last request was issued, to finish jobs in flight
DRAIN_NS = 5 * NS_PER_S


def seeds(base: int) -> dict[str, np.random.Generator]:
    """One generator per purpose, independent of each other and of the purposes' use."""
    children = np.random.SeedSequence(base).spawn(len(SEED_PURPOSES))
    return {p: np.random.default_rng(s) for p, s in zip(SEED_PURPOSES, children, strict=True)}


@dataclass(frozen=True)
class Models:
    """The scenario's models: graphs, and the .tflite files where the device needs them."""

    graphs: Mapping[str, ModelGraph]
    paths: Mapping[str, Path]


def load_models(cfg: RunConf) -> Models:
    from harness import zoo

    if cfg.device.backend is DeviceBackend.adb:
        raise _adb_not_implemented()
    names = list(cfg.scenario.models)
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise UserError(
            f"scenario {cfg.scenario.name!r} lists {', '.join(twice)} more than once; list each "
            f"model once (to run copies of a model, use scenario.streams_per_model with "
            f"arrival=stream)"
        )
    known = set(zoo.names())
    for name in names:
        if name not in known:
            raise UserError(
                f"scenario {cfg.scenario.name!r} names model {name!r}, which the zoo lacks; "
                f"known models: {', '.join(sorted(known))}"
            )
    if cfg.device.backend is DeviceBackend.twin:
        return Models({n: zoo.load_graph(n) for n in names}, {})
    return _real_models(cfg, names)


def _real_models(cfg: RunConf, names: list[str]) -> Models:
    from harness import zoo
    from harness.tflite_io import read_tflite

    cache = Path(cfg.zoo_cache)
    paths = {n: zoo.tflite_path(n, cache) for n in names}
    missing = [n for n, p in paths.items() if not p.exists()]
    if missing:
        raise UserError(
            f"the host device runs real .tflite files; build them first: "
            f"python -m harness.zoo build {' '.join(missing)} --cache {cache}"
        )
    return Models({n: read_tflite(p, n) for n, p in paths.items()}, paths)


# -- devices ------------------------------------------------------------------------------


@dataclass
class DeviceSession:
    """A device plus how to drive it."""

    device: Any
    unsupported: Mapping[str, Mapping[str, frozenset[int]]]
    drive: Callable[[Runtime, Traffic, ProcessorMonitor, Callable[[int], None]], int]


def open_device(
    cfg: RunConf, models: Models, rngs: Mapping[str, np.random.Generator]
) -> DeviceSession:
    backend = cfg.device.backend
    if backend is DeviceBackend.twin:
        return _open_twin(cfg, models, rngs["noise"])
    if backend is DeviceBackend.host:
        return _open_host(cfg, models)
    raise _adb_not_implemented()


def _adb_not_implemented() -> NotImplementedYet:
    return NotImplementedYet(
        "device backend 'adb' (real phones) is not implemented yet; use a twin "
        "(device=k50pro|p20|mi6) or device=host"
    )


def _open_twin(cfg: RunConf, models: Models, rng: np.random.Generator) -> DeviceSession:
    import simpy

    from devices.twin import TwinDevice
    from harness.opsupport import support_table
    from harness.runtime.sim import SimDriver

    env = simpy.Environment()
    device = TwinDevice(cfg.device, env, rng, models.graphs)
    unsupported = {m: support_table(g, cfg.device.processors) for m, g in models.graphs.items()}
    interval = int(cfg.sensor_interval_ms * NS_PER_MS)

    def drive(runtime: Runtime, traffic: Traffic, monitor: ProcessorMonitor,
              progress: Callable[[int], None]) -> int:
        driver = SimDriver(env, device, runtime, traffic, monitor, interval, progress)
        return driver.run(DRAIN_NS)

    return DeviceSession(device, unsupported, drive)


def _open_host(cfg: RunConf, models: Models) -> DeviceSession:
    from devices.host.device import HostDevice
    from harness.runtime.wall import WallDriver

    device = HostDevice(cfg.device, models.paths, Path(cfg.zoo_cache) / "slices")
    try:
        unsupported = {m: device.unsupported_ops(m) for m in models.graphs}
    except BaseException:
        device.close()  # its worker threads; run_baseline closes it only once opened
        raise
    interval = int(cfg.sensor_interval_ms * NS_PER_MS)

    def drive(runtime: Runtime, traffic: Traffic, monitor: ProcessorMonitor,
              progress: Callable[[int], None]) -> int:
        device.start_clock()  # time 0 = now, after loading and profiling
        clock = device.now_ns
        driver = WallDriver(device, runtime, traffic, monitor, interval, clock, progress)
        return driver.run(DRAIN_NS)

    return DeviceSession(device, unsupported, drive)


# -- one baseline -------------------------------------------------------------------------


def plan_all(
    policy: Policy, models: Models, processors: tuple[Processor, ...],
    unsupported: Mapping[str, Mapping[str, frozenset[int]]],
) -> dict[str, ModelPlan]:
    return {m: policy.plan(g, processors, unsupported[m]) for m, g in models.graphs.items()}


def profile_all(device: Device, plans: Mapping[str, ModelPlan]) -> dict[tuple[str, int], int]:
    return {
        (m, sg.index): device.profile(plan, sg)
        for m, plan in plans.items()
        for sg in plan.subgraphs
    }


def prepare_plans(
    policy: Policy, session: DeviceSession, models: Models
) -> tuple[dict[str, ModelPlan], dict[tuple[str, int], int]]:
    """Plan every model with ``policy``, load the plans on the device, profile each subgraph.
    The device runs the plans it loaded last."""
    processors = session.device.describe().processors
    plans = plan_all(policy, models, processors, session.unsupported)
    session.device.load(models.graphs, plans)
    return plans, profile_all(session.device, plans)


def slo_budgets(cfg: RunConf, session: DeviceSession, models: Models) -> dict[str, int]:
    """SLO per model = ``slo_multiplier`` x the model's latency alone under vanilla TFLite
    on its configured processor (the paper's Section 4.5 uses the worst single-inference
    latency as the base; a lone TFLite run is that base here)."""
    mult = cfg.scenario.slo_multiplier
    if mult < 0:
        raise UserError(f"scenario.slo_multiplier must be >= 0, got {mult}")
    if mult == 0:
        return {}
    tflite = make_policy("tflite", cfg.baselines, session.device.profile, cfg.device.name,
                         device=cfg.device)
    plans, profile = prepare_plans(tflite, session, models)
    alone = {m: sum(profile[(m, sg.index)] for sg in p.subgraphs) for m, p in plans.items()}
    return {m: int(mult * ns) for m, ns in alone.items()}


def run_baseline(
    cfg: RunConf, name: str, models: Models, recorder: RunRecorder,
    progress: Callable[[int], None], cache_dir: Path | None,
) -> dict[str, Any]:
    """Run one baseline; returns facts for the manifest (device info, plan counts)."""
    rngs = seeds(cfg.seed.base)
    session = open_device(cfg, models, rngs)
    try:
        return _run_on(cfg, name, models, recorder, progress, cache_dir, session, rngs)
    finally:
        session.device.close()


def _run_on(
    cfg: RunConf, name: str, models: Models, recorder: RunRecorder,
    progress: Callable[[int], None], cache_dir: Path | None, session: DeviceSession,
    rngs: Mapping[str, np.random.Generator],
) -> dict[str, Any]:
    device = session.device
    info = device.describe()
    slo = slo_budgets(cfg, session, models)  # before the baseline's plans: they load last
    policy = make_policy(name, cfg.baselines, device.profile, cfg.device.name, cache_dir,
                         device=cfg.device)
    plans, profile = prepare_plans(policy, session, models)
    policy.prepare(plans, profile)
    traffic = Traffic(cfg.scenario, slo, rngs["traffic"])
    monitor = ProcessorMonitor(
        device.read_sensors, int(cfg.baselines.adms.monitor_interval_ms * NS_PER_MS),
        on_sample=lambda s: recorder.sensors.append(sensor_row(name, s)),
    )
    runtime = Runtime(
        policy, plans, info.processors, profile,
        record_request=lambda r, st, rec: recorder.requests.append(
            request_row(name, r, st, rec, traffic.is_warmup(r))),
        record_subgraph=lambda c: recorder.subgraphs.append(subgraph_row(name, c)),
        sensors=monitor.get,
    )
    end_ns = session.drive(runtime, traffic, monitor, progress)
    return {"device": info, "plans": {m: p.counts() for m, p in plans.items()},
            "plan_meta": {m: dict(p.meta) for m, p in plans.items()},
            "window_sizes": {m: p.window_size for m, p in plans.items()},
            "slo_ns": slo, "end_ns": end_ns}


# -- rows ---------------------------------------------------------------------------------


def request_row(
    baseline: str, r: Request, status: str, rec: JobRecord, warmup: bool
) -> dict[str, Any]:
    return {
        "baseline": baseline, "request_id": r.request_id, "model": r.model,
        "frame_id": r.frame_id, "stream": r.stream, "arrival_ns": r.arrival_ns,
        "start_ns": rec.start_ns, "end_ns": rec.end_ns, "slo_ns": r.slo_ns, "status": status,
        "processors": rec.processors, "n_subgraphs": rec.n_subgraphs, "warmup": warmup,
    }


def subgraph_row(baseline: str, c: Completion) -> dict[str, Any]:
    sg = c.subgraph
    return {
        "baseline": baseline, "request_id": c.request.request_id, "job_id": c.job_id,
        "model": sg.model, "subgraph": sg.index, "processor": sg.processor,
        "first_unit": sg.first_unit, "last_unit": sg.last_unit, "n_ops": len(sg.ops),
        "start_ns": c.start_ns, "end_ns": c.end_ns, "ok": c.ok,
    }


def sensor_row(baseline: str, s: SensorSample) -> dict[str, Any]:
    return {
        "baseline": baseline, "t_ns": s.t_ns, "processor": s.processor,
        "temperature_c": s.temperature_c, "frequency_hz": s.frequency_hz,
        "max_frequency_hz": s.max_frequency_hz, "load": s.load, "power_w": s.power_w,
        "throttled": s.throttled,
    }
