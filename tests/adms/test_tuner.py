"""The window tuner picks the known best window and caches its choice.

The mechanics (tie-breaks, cache) are tested in per-model mode with a fake analyzer; the
per-processor mode (the default) with the real analyzer."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from adms.tuner import CACHE_FILE, CACHE_SCHEMA, Trial, WindowTuner, best_trial, graph_digest
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from tests.fixtures.policies import chain_graph, plan, procs

#: single-run latency (ns) of the fake plan for each window size; 3 and 4 tie for best
LATENCY = {1: 50, 2: 40, 3: 30, 4: 30, 6: 45}


def fake_analyze(
    graph: ModelGraph,
    processors: Sequence[Processor],
    unsupported: Mapping[str, frozenset[int]],
    window_size: int = 1,
    merge: bool = True,
) -> ModelPlan:
    """Two units; a gpu path whose cost encodes the window, and a slow cpu path."""
    mp, _ = plan(
        graph.name,
        [("cpu", 0, 1, 10**6), ("gpu", 0, 0, 0), ("gpu", 1, 1, 0)],
        window_size=window_size,
    )
    return mp


class CountingProfile:
    """profile_fn: the gpu halves of the plan cost LATENCY[window] together; counts calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, mp: ModelPlan, sg: Subgraph) -> int:
        self.calls += 1
        if sg.processor == "cpu":
            return 10**6
        return LATENCY[mp.window_size] // 2 + (LATENCY[mp.window_size] % 2) * sg.first_unit


@pytest.fixture
def analyzer(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def counting(*args: object, **kwargs: object) -> ModelPlan:
        calls.append(int(kwargs["window_size"]))  # type: ignore[call-overload]
        return fake_analyze(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("adms.analyzer.analyze", counting)
    return calls


def test_tuner_picks_the_fastest_window_ties_to_larger(analyzer: list[int]) -> None:
    tuner = WindowTuner(list(LATENCY), CountingProfile(), "dev", None, per_processor=False)
    tuned = tuner.tune(chain_graph(), procs("cpu", "gpu"), {})
    assert tuned.window_size == 4 and tuned.plan.window_size == 4 and not tuned.from_cache
    assert {t.window_size: t.latency_ns for t in tuned.trials} == LATENCY
    assert sorted(analyzer) == sorted(LATENCY)


def test_best_trial_tie_breaks() -> None:
    trials = [Trial(2, 30, 9), Trial(5, 30, 4), Trial(5, 30, 3), Trial(8, 31, 1)]
    assert best_trial(trials) == Trial(5, 30, 3)
    assert best_trial(trials, tie_tolerance=0.05) == Trial(8, 31, 1)


def test_cache_hit_on_second_call(analyzer: list[int], tmp_path: Path) -> None:
    prof = CountingProfile()
    first = WindowTuner(list(LATENCY), prof, "dev", tmp_path, per_processor=False).tune(
        chain_graph(), procs("cpu"), {}
    )
    calls_after_first, analyses = prof.calls, len(analyzer)
    second = WindowTuner(list(LATENCY), prof, "dev", tmp_path, per_processor=False).tune(
        chain_graph(), procs("cpu"), {}
    )
    assert second.from_cache and second.window_size == first.window_size == 4
    assert prof.calls == calls_after_first and len(analyzer) == analyses + 1
    entry = json.loads((tmp_path / CACHE_FILE).read_text())["entries"]
    assert list(entry) == [f"dev/m/{graph_digest(chain_graph())}"]


def test_cache_misses_on_other_device_graph_or_candidates(
    analyzer: list[int], tmp_path: Path
) -> None:
    WindowTuner(list(LATENCY), CountingProfile(), "dev", tmp_path, per_processor=False).tune(
        chain_graph(), (), {}
    )
    for tuner, graph in (
        (
            WindowTuner(list(LATENCY), CountingProfile(), "other", tmp_path, per_processor=False),
            chain_graph(),
        ),
        (
            WindowTuner(list(LATENCY), CountingProfile(), "dev", tmp_path, per_processor=False),
            chain_graph(n_ops=4),
        ),
        (
            WindowTuner([1, 2], CountingProfile(), "dev", tmp_path, per_processor=False),
            chain_graph(),
        ),
    ):
        assert not tuner.tune(graph, (), {}).from_cache


def test_corrupt_cache_is_rewritten(analyzer: list[int], tmp_path: Path) -> None:
    (tmp_path / CACHE_FILE).write_text("{not json")
    tuned = WindowTuner(
        list(LATENCY), CountingProfile(), "dev", tmp_path, per_processor=False
    ).tune(chain_graph(), (), {})
    assert not tuned.from_cache
    assert json.loads((tmp_path / CACHE_FILE).read_text())["schema"] == CACHE_SCHEMA


def test_no_cache_dir_writes_nothing(analyzer: list[int], tmp_path: Path) -> None:
    WindowTuner([1, 2], CountingProfile(), "dev", None, per_processor=False).tune(
        chain_graph(), (), {}
    )
    assert list(tmp_path.iterdir()) == []


def test_fixed_window_needs_no_profile(analyzer: list[int], tmp_path: Path) -> None:
    prof = CountingProfile()
    tuned = WindowTuner([6], prof, "dev", tmp_path, per_processor=False).tune(chain_graph(), (), {})
    assert tuned.window_size == 6 and tuned.plan.window_size == 6 and analyzer == [6]
    assert prof.calls == 0 and list(tmp_path.iterdir()) == []


def test_bad_candidates() -> None:
    with pytest.raises(UserError):
        WindowTuner([0, 2], CountingProfile(), "dev", None, per_processor=False)


def test_tuner_with_the_real_analyzer() -> None:
    """gpu rejects op 2 of 6: windows 1 and 2 keep both gpu runs (2 and 3 ops) and tie at
    25 ns; window 4 drops them to the cpu (60 ns). The tie goes to the larger window, 2."""

    def profile(mp: ModelPlan, sg: Subgraph) -> int:
        return 10 * len(sg.ops) if sg.processor == "cpu" else len(sg.ops) + 5

    tuner = WindowTuner([1, 2, 4], profile, "dev", None, per_processor=False)
    unsupported = {"cpu": frozenset[int](), "gpu": frozenset({2})}
    tuned = tuner.tune(chain_graph("m", 6), procs("cpu", "gpu"), unsupported)
    assert {t.window_size: t.latency_ns for t in tuned.trials} == {1: 25, 2: 25, 4: 60}
    assert tuned.window_size == 2


def gpu_npu_graph() -> tuple[ModelGraph, dict[str, frozenset[int]]]:
    """8 ops in a chain: the gpu runs all; the npu rejects ops 2 and 5, leaving runs of 2, 2
    and 2 supported ops."""
    return chain_graph("m", 8), {"cpu": frozenset(), "gpu": frozenset(), "npu": frozenset({2, 5})}


def per_op_profile(mp: ModelPlan, sg: Subgraph) -> int:
    """ns: 10 per op on the cpu, 3 per op on the gpu, 1 per op on the npu; +4 per invoke."""
    per_op = {"cpu": 10, "gpu": 3, "npu": 1}[sg.processor]
    return per_op * len(sg.ops) + 4


def test_per_processor_windows_are_tuned_on_each_processor_alone() -> None:
    """Alone with the cpu, the npu is fastest keeping its 2-op runs (window <= 2): npu 2 ops
    (6) + cpu 1 op (14) ... = 3x6 + 2x14 = 46 ns, against 84 ns all on the cpu at window 3.
    The gpu runs everything, so every window ties and the largest wins. On the whole device
    the gpu would win every single-run estimate and hide the npu's choice."""
    graph, unsupported = gpu_npu_graph()
    tuner = WindowTuner([1, 2, 3], per_op_profile, "dev", None)
    tuned = tuner.tune(graph, procs("cpu", "gpu", "npu"), unsupported)
    assert tuned.windows == {"cpu": 1, "gpu": 3, "npu": 2}
    npu_trials = {t.window_size: t.latency_ns for t in tuned.trials if t.processor == "npu"}
    assert npu_trials == {1: 46, 2: 46, 3: 84}
    assert any(sg.processor == "npu" for sg in tuned.plan.subgraphs)


def test_per_processor_choice_is_cached(tmp_path: Path) -> None:
    graph, unsupported = gpu_npu_graph()
    calls: list[int] = []

    def counting(mp: ModelPlan, sg: Subgraph) -> int:
        calls.append(1)
        return per_op_profile(mp, sg)

    first = WindowTuner([1, 2, 3], counting, "dev", tmp_path).tune(
        graph, procs("cpu", "gpu", "npu"), unsupported
    )
    n = len(calls)
    second = WindowTuner([1, 2, 3], counting, "dev", tmp_path).tune(
        graph, procs("cpu", "gpu", "npu"), unsupported
    )
    assert second.from_cache and second.windows == first.windows and len(calls) == n
    per_model = WindowTuner([1, 2, 3], counting, "dev", tmp_path, per_processor=False)
    assert not per_model.tune(graph, procs("cpu", "gpu", "npu"), unsupported).from_cache
