"""No processor of the host idles while work it can run waits under ``adms_work_conserving``
(ADMS with ``work_conserving``), counted on real LiteRT runs of tiny models.

The real ADMS policy runs on the real host device (two workers pinned to two cores: core 0
with built-in kernels, core 1 with XNNPACK, as ``conf/device/host.yaml``) through the real
runtime; :class:`IdleWhileRunnable` wraps the policy and, after every decision, notes each
processor that stays idle although a queued job could start a subgraph of its plan there.
Until the next decision (the only moment a processor can become busy) that processor counts
as *idle while runnable*. With one frame in flight the queue never holds more than the
three models' jobs, fewer than ADMS's ``loop_call_size`` (4), so every job is examined.

``adms_work_conserving`` counts zero such time; ``adms_strict`` (a job waits for the busy
XNNPACK core when that finishes it sooner) counts some, which shows the count can fail.
Default ADMS is deliberately between the two: it lets the weak core idle when every job it
could run is projected to end sooner on the fast core (docs/adms-as-built.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from devices.host.spec import available_cores
from harness.experiment import baseline as baseline_module
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import Policy
from harness.seams.records import Completion
from harness.seams.view import Decision, SchedulerView
from tests.fixtures.frs_zoo import frs_zoo
from tests.fixtures.runs import compose_run, run_baselines

needs_two_cores = pytest.mark.skipif(
    len(available_cores()) < 2, reason="conf/device/host.yaml pins its workers to cores 0 and 1")


@dataclass
class IdleWhileRunnable:
    """A policy, and per processor the ns it stayed idle while a queued job could run on it."""

    inner: Policy
    idle_ns: dict[str, int] = field(default_factory=dict)
    decisions: int = 0
    _open: tuple[int, frozenset[str]] = (0, frozenset())
    name: str = ""
    reinsert_front: bool = False

    def __post_init__(self) -> None:
        self.name, self.reinsert_front = self.inner.name, self.inner.reinsert_front

    def plan(self, graph: ModelGraph, processors: Sequence[Processor],
             unsupported: Mapping[str, frozenset[int]]) -> ModelPlan:
        return self.inner.plan(graph, processors, unsupported)

    def prepare(self, plans: Mapping[str, ModelPlan],
                profile: Mapping[tuple[str, int], int]) -> None:
        self.inner.prepare(plans, profile)

    def observe(self, completion: Completion) -> None:
        self.inner.observe(completion)

    def expected_ns(self, subgraph: Subgraph) -> int:
        return self.inner.expected_ns(subgraph)

    def schedule(self, view: SchedulerView) -> Decision:
        decision = self.inner.schedule(view)
        since, idle = self._open
        for name in idle:
            self.idle_ns[name] = self.idle_ns.get(name, 0) + view.now_ns - since
        self._open = (view.now_ns, left_idle(view, decision))
        self.decisions += 1
        return decision


def left_idle(view: SchedulerView, decision: Decision) -> frozenset[str]:
    """Idle processors the decision gives nothing, although a job it leaves queued has a
    subgraph that starts there now."""
    taken = {a.subgraph.processor for a in decision.assignments}
    placed = {a.job_id for a in decision.assignments} | set(decision.drops)
    idle = {p.name for p in view.idle} - taken
    runnable = {sg.processor for job in view.queue if job.job_id not in placed
                for sg in view.plans[job.model].candidates(job.next_unit)}
    return frozenset(idle & runnable)


@pytest.fixture(scope="module")
def zoo(tiny_models: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return frs_zoo(tiny_models, tmp_path_factory.mktemp("tiny_zoo"))


def counted(name: str, zoo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
            ) -> IdleWhileRunnable:
    """Run baseline ``name`` on the host with its policy wrapped; the wrapper."""
    wrapped: list[IdleWhileRunnable] = []
    real = baseline_module.build_policy

    def build(*args: Any) -> Policy:
        wrapped.append(IdleWhileRunnable(real(*args)))
        return wrapped[-1]

    monkeypatch.setattr(baseline_module, "build_policy", build)
    cfg = compose_run("device=host", "scenario=frs", f"zoo_cache={zoo}", f"run=[{name}]",
                      "scenario.frames_in_flight=1", "scenario.duration_s=1",
                      "scenario.warmup_s=0", "device.host.profile_runs=1")
    data, facts = run_baselines(cfg, tmp_path / "run", tmp_path / "cache")
    assert "failed" not in facts[name]
    assert (data.requests["status"] == "ok").sum() > 0
    (policy,) = wrapped
    assert policy.decisions > 0
    return policy


@needs_two_cores
def test_work_conserving_adms_never_leaves_a_core_idle_while_a_job_could_run_there(
        zoo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = counted("adms_work_conserving", zoo, tmp_path, monkeypatch)
    assert policy.idle_ns == {}


@needs_two_cores
def test_the_count_sees_adms_strict_wait_for_the_faster_core(
        zoo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = counted("adms_strict", zoo, tmp_path, monkeypatch)
    assert sum(policy.idle_ns.values()) > 0


def test_left_idle_names_an_idle_processor_a_queued_job_could_use() -> None:
    from harness.seams.plan import ProcessorKind
    from harness.seams.records import Request
    from harness.seams.view import Assignment, JobView, ProcessorView

    ops = frozenset({0})
    subgraphs = (Subgraph(0, "m", "a", ops, (0,)), Subgraph(1, "m", "b", ops, (0,)))
    plan = ModelPlan("m", (ops,), (frozenset({"a", "b"}),), subgraphs)
    procs = tuple(ProcessorView(Processor(n, ProcessorKind.CPU), True, 0) for n in "ab")
    jobs = [JobView(j, Request(j, "m", j, 0, 0, 0), 0, 0) for j in (0, 1)]
    view = SchedulerView(0, jobs, procs, {"m": plan})
    assert left_idle(view, Decision(work=0)) == {"a", "b"}
    assert left_idle(view, Decision((Assignment(0, subgraphs[0]),), work=1)) == {"b"}
    both = Decision((Assignment(0, subgraphs[0]), Assignment(1, subgraphs[1])), work=2)
    assert left_idle(view, both) == frozenset()
