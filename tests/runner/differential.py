"""The runner's whole runtime against Python's, on one latency table: the runner under
``--simulate`` (its executor, traffic and library policy on a virtual clock, each subgraph
taking its table latency) and the Python runtime (:class:`~harness.runtime.core.Runtime`,
:class:`~harness.runtime.driver.Driver`, :class:`~harness.runtime.traffic.Traffic` on a
:class:`~harness.seams.clocks.SimClock`) over a :class:`TableEngine` that runs subgraphs as
the simulated processors do. Both get the same policy (the header the Python policy writes),
plans, SLOs and arrivals; their subgraph rows (which job, which subgraph, which processor,
start, end, in completion order), request rows (which job, arrival, end or dropped, in end
order) and decision traces (every view the policy read: the queue's prefix and heads, each
processor's idle, available_ns and queued; every decision and completion) must be equal.
The traces are compared without the request id, frame id and stream, which the two number
differently (``runner/src/traffic.h``) and no policy tells apart.

A :class:`Case` is random from a seed (:mod:`tests.fixtures.generated_traces`' plans and
configs): vanilla TFLite (concurrent or one job at a time), Band with any scheduler, ADMS with
random switches or its defaults; or a named baseline (``conf/baseline/<name>.yaml``: every
ADMS and Band variant, vanilla TFLite) on random plans it can run; latencies from a few round
values (ties) or spread; SLOs that make Band and ADMS's shedding drop.
"""

from __future__ import annotations

import io
import json
import subprocess
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import simpy
import yaml
from omegaconf import OmegaConf

from adms.config import AdmsConf
from adms.policy import AdmsPolicy
from baselines.band.config import BandConf, SchedulerName
from baselines.band.policy import NO_FALLBACK, BandPolicy
from baselines.tflite.config import TfliteConf
from baselines.tflite.policy import TflitePolicy
from harness.config.schema import Arrival, ScenarioConf
from harness.replay.record import Recorder
from harness.runtime.core import JobRecord, Runtime
from harness.runtime.driver import Driver
from harness.runtime.sensors import SensorCache
from harness.runtime.traffic import Traffic
from harness.seams.clocks import SimClock
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import Policy
from harness.seams.records import Completion, Request, SensorSample
from harness.seams.units import NS_PER_S
from tests.fixtures.generated_traces import (
    NAMES,
    adms_conf,
    adms_plan,
    band_setup,
    lp_flow,
    tflite_plan,
    whole_plan,
)
from tests.fixtures.paths import REPO

#: a time past every run's end (closed loops stop by count, not by time)
FOREVER_NS = 10**15
FAMILIES = ("tflite", "band", "adms")
ARRIVALS = (Arrival.frames, Arrival.stream, Arrival.periodic, Arrival.poisson)

#: (job, model, subgraph index, processor, start_ns, end_ns), in completion order
JobRow = tuple[int, str, int, str, int, int]
#: (job, model, arrival_ns, end_ns or -1 when dropped), in end order
RequestRow = tuple[int, str, int, int]
#: a decision trace call (harness/replay/trace.py) as compared (:func:`comparable`)
Call = tuple[str, ...]


@dataclass(frozen=True)
class Rows:
    jobs: list[JobRow]
    requests: list[RequestRow]
    calls: list[Call]


@dataclass(frozen=True)
class Case:
    family: str
    seed: int
    arrival: Arrival
    #: frames (frames), requests per model (stream), or about that many per model (open)
    count: int
    #: frames outstanding at once (frames)
    in_flight: int
    #: frames/s: the period of periodic arrivals, the mean gap of Poisson ones, and the wait
    #: of a closed loop after a drop (1/fps)
    fps: float
    #: a named baseline (conf/baseline/<variant>.yaml) of the family; '': a random config
    variant: str = ""


@dataclass
class Setup:
    """One policy prepared on its plans and profile, and the latencies its subgraphs take."""

    name: str
    policy: Policy
    header: str
    processors: tuple[Processor, ...]
    plans: dict[str, ModelPlan]
    latency: dict[tuple[str, int], int]
    slo_ns: dict[str, int]


def variant_values(name: str) -> dict[str, Any]:
    """A baseline's YAML values, its ``defaults`` chain of siblings merged first."""
    raw = yaml.safe_load((REPO / "conf" / "baseline" / f"{name}.yaml").read_text()) or {}
    values: dict[str, Any] = {}
    for parent in raw.pop("defaults", []):
        if isinstance(parent, str) and not parent.startswith("/") and parent != "_self_":
            values.update(variant_values(parent))
    values.update({k: v for k, v in raw.items() if not k.startswith("_")})
    return values


def variant_conf(name: str, schema: type[Any]) -> Any:
    """The typed config of baseline ``name`` (enums by name, as Hydra reads them)."""
    return OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(schema),
                                               variant_values(name)))


def variant_policy(rng: np.random.Generator, family: str, variant: str,
                   procs: list[Processor], models: list[str]
                   ) -> tuple[Policy, dict[str, ModelPlan]]:
    """Baseline ``variant`` as configured, on random plans of the shape it runs."""
    if family == "tflite":
        tconf = variant_conf(variant, TfliteConf)
        plans = {m: tflite_plan(rng, m, procs, tconf.concurrent) for m in models}
        return TflitePolicy.from_trace(tconf, {"name": variant}), plans
    if family == "band":
        bconf = variant_conf(variant, BandConf)
        whole = bconf.scheduler in NO_FALLBACK
        plans = {m: (whole_plan if whole else adms_plan)(rng, m, procs) for m in models}
        return BandPolicy.from_trace(bconf, {"name": variant, "facts": {}}), plans
    plans = {m: adms_plan(rng, m, procs) for m in models}
    aconf = variant_conf(variant, AdmsConf)
    facts = {"lp_flow": lp_flow(rng, plans)} if aconf.lp_split else {}
    return AdmsPolicy.from_trace(aconf, {"name": variant, "facts": facts}), plans


def make_policy(rng: np.random.Generator, family: str, procs: list[Processor],
                models: list[str]) -> tuple[Policy, dict[str, ModelPlan]]:
    """A policy of ``family`` with a random config, and random plans it can run."""
    if family == "tflite":
        concurrent = bool(rng.random() < 0.5)
        plans = {m: tflite_plan(rng, m, procs, concurrent) for m in models}
        return TflitePolicy.from_trace(TfliteConf(concurrent=concurrent), {"name": "t"}), plans
    if family == "band":
        scheduler = list(SchedulerName)[int(rng.integers(len(SchedulerName)))]
        bconf, plans, facts = band_setup(rng, models, procs, scheduler)
        return BandPolicy.from_trace(bconf, {"name": "band", "facts": facts}), plans
    plans = {m: adms_plan(rng, m, procs) for m in models}
    conf = adms_conf(rng) if rng.random() < 0.7 else AdmsConf()
    facts = {"lp_flow": lp_flow(rng, plans)} if conf.lp_split else {}
    return AdmsPolicy.from_trace(conf, {"name": "adms", "facts": facts}), plans


def make_setup(case: Case) -> Setup:
    rng = np.random.default_rng(case.seed)
    procs = [Processor(n, k) for n, k in NAMES[:int(rng.integers(2, 5))]]
    models = [f"m{k}" for k in range(int(rng.integers(1, 4)))]
    policy, plans = (variant_policy(rng, case.family, case.variant, procs, models)
                     if case.variant else make_policy(rng, case.family, procs, models))
    few = rng.random() < 0.5  # round latencies: ties everywhere
    keys = [(m, sg.index) for m, p in plans.items() for sg in p.subgraphs]
    latency = {k: int(rng.choice([10**6, 2 * 10**6, 3 * 10**6]) if few
                      else rng.integers(10**5, 5 * 10**6)) for k in keys}
    # the profile the policy starts from: the table, off by up to 2x for some subgraphs, or
    # missing a few (its estimates then move as completions come in)
    profile = {k: v if rng.random() < 0.6 else int(v * rng.uniform(0.5, 2.0))
               for k, v in latency.items() if rng.random() < 0.97}
    slo_ns = {m: int(rng.choice([0, 1, 2, 4])) * 4 * 10**6 for m in models}
    out = io.StringIO()
    recorder = Recorder(policy, out, f"differential_{case.family}_{case.seed}", procs)
    recorder.prepare(plans, profile)
    return Setup(f"{case.family}_{case.seed}", policy, out.getvalue(), tuple(procs), plans,
                 latency, slo_ns)


# -- Python ---------------------------------------------------------------------------------


class TableEngine:
    """Subgraphs take their table latency on a SimPy clock; each processor runs what it is
    sent one at a time in order (a concurrent policy's jobs in turn), as the runner's workers
    do. A processor's next job starts when the last ends, before that end is reported."""

    def __init__(self, latency: dict[tuple[str, int], int]) -> None:
        self.env = simpy.Environment()
        self.clock = SimClock(self.env)
        self._latency = latency
        self._fifo: dict[str, deque[tuple[int, Request, Subgraph, Callable[..., None]]]] = {}

    def decision_ns(self, work: int) -> int:
        return 0

    def start_clock(self) -> SimClock:
        return self.clock

    def start(self, job_id: int, request: Request, subgraph: Subgraph, now_ns: int,
              on_done: Callable[[Completion], None]) -> None:
        fifo = self._fifo.setdefault(subgraph.processor, deque())
        fifo.append((job_id, request, subgraph, on_done))
        if len(fifo) == 1:
            self._begin(subgraph.processor)

    def _begin(self, processor: str) -> None:
        _, _, subgraph, _ = self._fifo[processor][0]
        start = self.clock.now_ns()
        done = self.env.timeout(self._latency[(subgraph.model, subgraph.index)])
        done.callbacks.append(lambda _: self._end(processor, start))

    def _end(self, processor: str, start_ns: int) -> None:
        job_id, request, subgraph, on_done = self._fifo[processor].popleft()
        if self._fifo[processor]:
            self._begin(processor)
        on_done(Completion(job_id, request, subgraph, start_ns, self.clock.now_ns(), True))

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        return ()


def scenario_of(case: Case, models: list[str]) -> ScenarioConf:
    closed = case.arrival in (Arrival.frames, Arrival.stream)
    return ScenarioConf(name="differential", models=models, arrival=case.arrival, fps=case.fps,
                        duration_s=FOREVER_NS / NS_PER_S if closed else case.count / case.fps,
                        warmup_s=0.0, frames_in_flight=case.in_flight, streams_per_model=1)


def traffic_of(case: Case, setup: Setup) -> Traffic:
    scenario = scenario_of(case, list(setup.plans))
    if case.arrival in (Arrival.frames, Arrival.stream):
        # (closed loops stopped by count, as the runner's --frames N / --streams N)
        return Traffic(scenario, setup.slo_ns, np.random.default_rng(0), cap=case.count)
    return Traffic(scenario, setup.slo_ns, np.random.default_rng(case.seed))


def comparable(line: str) -> Call:
    """A trace call without the ids the two runtimes number differently: a job row keeps
    job, next unit, enqueue, executed, model, arrival, SLO; a request row model, arrival, SLO."""
    obj = json.loads(line)

    def job(row: list[Any]) -> list[Any]:
        return [*row[:4], row[5], row[7], row[8]]

    if obj["call"] == "observe":
        r = obj["request"]
        obj["request"] = [r[1], r[3], r[4]]
    else:
        obj["queue"] = [job(row) for row in obj["queue"]]
        if "heads" in obj:
            obj["heads"] = [job(row) for row in obj["heads"]]
    return (json.dumps(obj, sort_keys=True),)


def run_python(case: Case, setup: Setup) -> Rows:
    jobs: list[JobRow] = []
    requests: list[RequestRow] = []

    def on_subgraph(c: Completion) -> None:
        sg = c.subgraph
        jobs.append((c.job_id, sg.model, sg.index, sg.processor, c.start_ns, c.end_ns))

    def on_request(r: Request, status: str, rec: JobRecord) -> None:
        assert status in ("ok", "dropped"), status
        requests.append((rec.job.job_id, r.model, r.arrival_ns,
                         rec.end_ns if status == "ok" else -1))

    engine = TableEngine(setup.latency)
    trace = io.StringIO()
    recorder = Recorder(setup.policy, trace, setup.name, setup.processors)
    runtime = Runtime(recorder, setup.plans, setup.processors, on_request, on_subgraph)
    sensors = SensorCache(engine.read_sensors, FOREVER_NS)
    Driver(engine.start_clock(), engine, runtime, traffic_of(case, setup), sensors,
           FOREVER_NS).run(FOREVER_NS)
    return Rows(jobs, requests, [comparable(line) for line in trace.getvalue().splitlines()])


# -- the runner -----------------------------------------------------------------------------


def plan_text(setup: Setup) -> str:
    """The plan file: every model as alternatives (units=); subgraph ``[a, b]`` reads tensor
    ``a`` and makes tensor ``b + 1`` (tensor 0 the model's input)."""
    lines = [f"processor {p.name} accelerator=cpu" for p in setup.processors]
    for m, plan in setup.plans.items():
        lines.append(f"model {m} inputs=0 outputs={plan.num_units} slo_ns={setup.slo_ns[m]}")
        for sg in plan.subgraphs:
            lines.append(f"subgraph {m} {sg.index} processor={sg.processor} "
                         f"units={sg.first_unit}-{sg.last_unit} slice=none/{m}_{sg.index}.tflite "
                         f"inputs={sg.first_unit} outputs={sg.last_unit + 1}")
    return "\n".join(lines) + "\n"


def arrivals_text(case: Case, setup: Setup) -> str:
    """Python's open-loop arrivals (the same seeded traffic), as the host ships them."""
    traffic = traffic_of(case, setup)
    lines = []
    while (t := traffic.next_arrival_ns()) is not None:
        lines += [f"{r.arrival_ns} {r.model} {r.stream}" for r in traffic.pop_due(t)]
    return "\n".join(lines) + "\n"


def traffic_args(case: Case, folder: Path, setup: Setup) -> list[str]:
    wait = ["--drop-wait-ns", str(int(NS_PER_S / case.fps))]
    if case.arrival is Arrival.frames:
        return ["--frames", str(case.count), "--in-flight", str(case.in_flight), *wait]
    if case.arrival is Arrival.stream:
        return ["--streams", str(case.count), *wait]
    (folder / "arrivals.txt").write_text(arrivals_text(case, setup))
    return ["--arrivals", str(folder / "arrivals.txt")]


def run_runner(binary: Path, case: Case, setup: Setup, folder: Path) -> Rows:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plan.txt").write_text(plan_text(setup))
    (folder / "header.json").write_text(setup.header)
    (folder / "latency.txt").write_text(
        "".join(f"{m} {i} {ns}\n" for (m, i), ns in setup.latency.items()))
    cmd = [str(binary), "--plan", str(folder / "plan.txt"), "--simulate",
           str(folder / "latency.txt"), "--log", str(folder / "jobs.tsv"),
           "--requests", str(folder / "requests.tsv"), "--policy", str(folder / "header.json"),
           "--decisions", str(folder / "decisions.jsonl"), *traffic_args(case, folder, setup)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{' '.join(cmd)}\n{result.stderr}"
    jobs = [(int(w[0]), w[1], int(w[2]), w[3], int(w[4]), int(w[5]))
            for w in rows(folder / "jobs.tsv")]
    requests = [(int(w[0]), w[1], int(w[2]), int(w[3])) for w in rows(folder / "requests.tsv")]
    calls = (folder / "decisions.jsonl").read_text().splitlines()[1:]
    return Rows(jobs, requests, [comparable(line) for line in calls])


def rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()[1:]]


def difference(python: Rows, cpp: Rows) -> str:
    """Where the runs first differ: subgraph rows, request rows, then trace calls; or ''."""
    for what in ("jobs", "requests", "calls"):
        found = first_difference(getattr(python, what), getattr(cpp, what))
        if found:
            return f"{what}: {found}"
    return ""


def first_difference(python: Sequence[tuple[object, ...]], cpp: Sequence[tuple[object, ...]]
                     ) -> str:
    """The first row where they differ, or ''."""
    for k, (p, c) in enumerate(zip(python, cpp, strict=False)):
        if p != c:
            return f"row {k}: python {p} != runner {c}"
    if len(python) != len(cpp):
        return f"python has {len(python)} rows, the runner {len(cpp)}"
    return ""
