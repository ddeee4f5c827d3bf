"""Vanilla TFLite: placement (best by profiles, or fixed), FIFO per processor, no dropping."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

import pytest

from baselines.tflite import TfliteConf, TflitePolicy
from baselines.tflite.config import Placement
from harness.runtime.queue import JobQueue
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.records import Completion, Request
from harness.seams.view import JobView, SchedulerView
from tests.fixtures.policies import MS, chain_graph, job, merge, placed, plan, procs, pv, view
from tests.fixtures.runs import compose_run

PROCS = procs("cpu", "gpu", "npu")


def FIXED(**kw: Any) -> TfliteConf:
    return TfliteConf(placement=Placement.fixed, **kw)


def test_processor_from_map_or_default() -> None:
    policy = TflitePolicy(TfliteConf(placement=Placement.fixed, processor_map={"a": "npu"},
                                   default_processor="gpu"))
    assert policy.processor_for("a", PROCS).name == "npu"
    assert policy.processor_for("b", PROCS).name == "gpu"


def test_unknown_processor_is_a_user_error() -> None:
    with pytest.raises(UserError, match=r"'dsp'.*cpu"):
        TflitePolicy(FIXED(default_processor="dsp")).processor_for("a", PROCS)
    with pytest.raises(UserError, match="fallback"):
        TflitePolicy(FIXED(), cpu_name="big").processor_for("a", PROCS)


def test_plan_passes_the_processor_and_its_delegate_limits(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    seen: dict[str, Any] = {}

    def fake(graph: Any, processor: Any, unsupported: Any, cpu_name: str,
             max_partitions: int | None, min_partition_ops: int = 1,
             concurrent: bool = False) -> ModelPlan:
        seen.update(processor=processor, unsupported=unsupported, cpu=cpu_name,
                    max_partitions=max_partitions, min_ops=min_partition_ops,
                    concurrent=concurrent)
        return plan(graph.name, [("gpu", 0, 0, 1)])[0]

    monkeypatch.setattr("baselines.tflite.policy.tflite_plan", fake)
    policy = TflitePolicy(FIXED(), max_partitions={"gpu": 1}, min_partition_ops={"gpu": 2})
    policy.plan(chain_graph("a"), PROCS, {"gpu": frozenset({1}), "npu": frozenset({0})})
    assert seen == {"processor": PROCS[1], "unsupported": frozenset({1}), "cpu": "cpu",
                    "max_partitions": 1, "min_ops": 2, "concurrent": True}
    TflitePolicy(FIXED(default_processor="npu")).plan(chain_graph("a"), PROCS, {})
    assert seen["max_partitions"] is None and seen["unsupported"] == frozenset()


def test_plan_with_the_analyzer_puts_fallback_ops_on_the_cpu() -> None:
    policy = TflitePolicy(FIXED(default_processor="gpu"))
    mp = policy.plan(chain_graph("a", 3), PROCS, {"gpu": frozenset({1})})
    assert all(len(mp.candidates(u)) == 1 for u in range(mp.num_units))
    placement = {op: sg.processor for sg in mp.subgraphs for op in sg.ops}
    assert placement[1] == "cpu" and placement[0] == placement[2] == "gpu"


def _plans() -> dict[str, ModelPlan]:
    plans, _ = merge(plan("a", [("gpu", 0, 0, 1), ("cpu", 1, 1, 1), ("gpu", 2, 2, 1)]),
                     plan("b", [("cpu", 0, 0, 1)]))
    return plans


def test_fifo_per_processor() -> None:
    q = [job(0, "a"), job(1, "a"), job(2, "b"), job(3, "a", next_unit=1)]
    policy = TflitePolicy(TfliteConf())
    d = policy.schedule(view(q, [pv("cpu"), pv("gpu")], _plans()))
    assert placed(d) == [(0, "gpu"), (2, "cpu")]
    d = policy.schedule(view(q, [pv("cpu"), pv("gpu", busy_ms=1)], _plans()))
    assert placed(d) == [(2, "cpu")]


def test_fallback_segment_at_the_front_runs_first_and_nothing_is_dropped() -> None:
    policy = TflitePolicy(TfliteConf())
    assert policy.reinsert_front
    q = [job(3, "a", next_unit=1, slo_ms=1), job(2, "b", slo_ms=1)]
    d = policy.schedule(view(q, [pv("cpu"), pv("gpu")], _plans(), now_ms=50))
    assert placed(d) == [(3, "cpu")] and d.drops == ()


# -- placement: best ---------------------------------------------------------------------------


def _profiles(ms: Mapping[tuple[str, str], float]) -> Any:
    """A profile function: (model, processor) -> ms of its whole subgraph (1-op chains)."""
    def profile(p: ModelPlan, sg: Any) -> int:
        return int(ms[(sg.model, sg.processor)] * 1e6)
    return profile


def test_best_placement_spreads_models_by_their_profiles() -> None:
    """a: cpu 10 / gpu 2 / npu 3 ms; b: cpu 10 / gpu 3 / npu 20 ms. All on the gpu: 5 ms per
    frame there; a on the npu and b on the gpu: busiest 3 ms, the best."""
    ms = {("a", "cpu"): 10, ("a", "gpu"): 2, ("a", "npu"): 3,
          ("b", "cpu"): 10, ("b", "gpu"): 3, ("b", "npu"): 20}
    models = {m: chain_graph(m, 1) for m in "ab"}
    policy = TflitePolicy(TfliteConf(), profile=_profiles(ms), models=models,
                          op_support={m: {} for m in models})
    assert policy.processor_for("a", PROCS).name == "npu"
    assert policy.processor_for("b", PROCS).name == "gpu"
    assert policy.assignment == {"a": "npu", "b": "gpu"}


def test_best_placement_skips_a_processor_whose_fallback_cannot_run_an_op() -> None:
    """a's only op is one the cpu (the fallback) and the npu reject (a custom op only XNNPACK,
    here the gpu, provides): on the cpu, or on the npu with its fallback to the cpu, it cannot
    run, however cheap the profile says it is; b cannot run anywhere."""
    ms = {("a", "cpu"): 1, ("a", "gpu"): 9, ("a", "npu"): 1,
          ("b", "cpu"): 1, ("b", "gpu"): 1, ("b", "npu"): 1}
    models = {m: chain_graph(m, 1) for m in "ab"}
    rejects = frozenset({0})
    policy = TflitePolicy(TfliteConf(), profile=_profiles(ms), models={"a": models["a"]},
                          op_support={"a": {"cpu": rejects, "npu": rejects}})
    assert policy.processor_for("a", PROCS).name == "gpu"
    nowhere = TflitePolicy(TfliteConf(), profile=_profiles(ms), models={"b": models["b"]},
                           op_support={"b": {p: rejects for p in ("cpu", "gpu", "npu")}})
    with pytest.raises(UserError, match="cannot run whole on any processor"):
        nowhere.processor_for("b", PROCS)


def test_best_placement_keeps_a_pinned_model_where_it_is_pinned() -> None:
    ms = {("a", "cpu"): 10, ("a", "gpu"): 2, ("a", "npu"): 3,
          ("b", "cpu"): 10, ("b", "gpu"): 3, ("b", "npu"): 20}
    models = {m: chain_graph(m, 1) for m in "ab"}
    policy = TflitePolicy(TfliteConf(processor_map={"b": "cpu"}), profile=_profiles(ms),
                          models=models, op_support={m: {} for m in models})
    assert policy.assignment == {} and policy.processor_for("b", PROCS).name == "cpu"
    assert policy.assignment["a"] == "gpu"  # b on the cpu (10 ms) is the busiest anyway


def test_best_placement_without_profiles_says_how_to_fix_it() -> None:
    with pytest.raises(UserError, match="placement=fixed"):
        TflitePolicy(TfliteConf()).processor_for("a", PROCS)


def _quantised(name: str) -> ModelGraph:
    """A chain of ADD ops on int8 tensors: an 8-bit model (``ModelGraph.is_quantized``)."""
    graph = chain_graph(name)
    tensors = tuple(dataclasses.replace(t, dtype="int8", nbytes=1, quantized=True)
                    for t in graph.tensors)
    return dataclasses.replace(graph, tensors=tensors)


def _processors_of(policy: TflitePolicy, graph: ModelGraph,
                   processors: tuple[Processor, ...]) -> set[str]:
    return {sg.processor for sg in policy.plan(graph, processors, {}).subgraphs}


@pytest.mark.parametrize(("device", "quantised_on"), [
    (("cpu", "gpu", "apu", "npu"), "npu"),  # k50pro: NNAPI to the MDLA
    (("cpu", "gpu", "npu"), "npu"),  # p20
    (("cpu", "gpu", "dsp"), "dsp"),  # mi6: the Hexagon delegate
    (("cpu", "gpu"), "gpu"),  # no NNAPI accelerator: the GPU like the float models
])
def test_tflite_gpu_puts_float_models_on_the_gpu_and_quantised_ones_on_nnapi(
        device: tuple[str, ...], quantised_on: str) -> None:
    conf = compose_run().baselines["tflite_gpu"]
    policy = TflitePolicy(conf)
    processors = procs(*device)
    assert not chain_graph("f").is_quantized and _quantised("q").is_quantized
    assert _processors_of(policy, chain_graph("f"), processors) == {"gpu"}
    assert _processors_of(policy, _quantised("q"), processors) == {quantised_on}
    # processor_map still wins over the quantised rule
    pinned = TflitePolicy(dataclasses.replace(conf, processor_map={"q": "cpu"}))
    assert _processors_of(pinned, _quantised("q"), processors) == {"cpu"}


def test_fixed_processor_reads_map_then_quantised_list_then_default() -> None:
    conf = FIXED(processor_map={"a": "cpu"}, quantized_processors=["npu", "dsp"],
                 default_processor="gpu")
    assert conf.fixed_processor("a", True, ["cpu", "gpu", "npu"]) == "cpu"
    assert conf.fixed_processor("b", True, ["cpu", "gpu", "dsp", "npu"]) == "npu"
    assert conf.fixed_processor("b", True, ["cpu", "gpu", "dsp"]) == "dsp"
    assert conf.fixed_processor("b", False, ["cpu", "gpu", "npu"]) == "gpu"
    assert FIXED().fixed_processor("b", True, ["cpu", "gpu", "npu"]) == "gpu"


# -- concurrent interpreters: the queue's stream heads are every choice there is -------------

class _Waiting:
    """A queued job as the runtime's queue holds it."""

    def __init__(self, view: JobView) -> None:
        self.job_id = view.job_id
        self._view = view

    def view(self) -> JobView:
        return self._view


def _concurrent_plans() -> tuple[dict[str, ModelPlan], dict[tuple[str, int], int]]:
    """Two two-unit models (a GPU unit, then a CPU fallback unit), run concurrently."""
    built = [plan(m, [("gpu", 0, 0, MS), ("cpu", 1, 1, MS)]) for m in ("a", "b")]
    plans, profile = merge(*built)
    return {m: dataclasses.replace(p, concurrent=True) for m, p in plans.items()}, profile


def _policy(plans: dict[str, ModelPlan], profile: dict[tuple[str, int], int]) -> TflitePolicy:
    policy = TflitePolicy(TfliteConf(placement=Placement.fixed, default_processor="gpu"))
    policy.prepare(plans, profile)
    return policy


@pytest.mark.parametrize("seed", range(20))
def test_stream_heads_decide_as_the_whole_queue_does(seed: int) -> None:
    """Random arrivals (two models, three streams) and completions: a policy reading the
    queue's stream heads and one reading the whole queue (a plain sequence) start the same
    jobs in the same order at every decision, and count the same work."""
    rng = random.Random(seed)
    plans, profile = _concurrent_plans()
    heads, whole = _policy(plans, profile), _policy(plans, profile)
    queue: JobQueue[_Waiting] = JobQueue()
    running: list[tuple[JobView, Subgraph]] = []
    next_id, seen = 0, 0
    for step in range(200):
        for _ in range(rng.randrange(3)):
            req = Request(next_id, rng.choice("ab"), next_id, step, 0, rng.randrange(3))
            queue.append(_Waiting(JobView(next_id, req, 0, step)))
            next_id += 1
        got = heads.schedule(SchedulerView(step, queue.view(), (), plans))
        want = whole.schedule(SchedulerView(step, tuple(v.view() for v in queue), (), plans))
        assert got == want, step
        seen += len(got.assignments)
        for a in got.assignments:
            running.append((queue.take(a.job_id).view(), a.subgraph))
        rng.shuffle(running)
        for _ in range(rng.randrange(len(running) + 1)):
            done, sg = running.pop()
            completion = Completion(done.job_id, done.request, sg, step, step + 1)
            heads.observe(completion)
            whole.observe(completion)
            if sg.last_unit < 1:  # its CPU segment waits at the front
                queue.appendleft(_Waiting(JobView(done.job_id, done.request, 1, step, 1)))
    assert seen > 50
