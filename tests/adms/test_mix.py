"""The mix tuner chooses windows by the frame-rate bound of the scenario's models together.

The hand-made device: a cpu (10 ns per op) and an npu (12 ns per op, slower). Model ``a`` is
three ops, the npu runs ops 0 and 1 (a 2-op run); model ``b`` is three cpu-only ops.

* Alone, ``a``'s fastest chain is the cpu's 30 ns at every window (npu 24 + cpu 10 = 34 is
  slower), so the per-model tuner ties and takes the largest window, 3, cutting the npu out.
* Together, one frame (one ``a`` and one ``b``) at window 3 puts 30 + 30 = 60 ns on the cpu:
  the bound is 1e9 / 60 = 16.67e6 frames/s. At window 1 or 2, ``a`` runs ops 0-1 on the npu
  (24 ns) and op 2 on the cpu (10 ns): cpu 30 + 10 = 40 ns, npu 24 ns per frame, so the bound
  is 1e9 / 40 = 25e6 frames/s. The mix tuner keeps the npu (window 2: the larger of the tie).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adms.mix import CACHE_FILE, MixTuner, ScenarioTuner, Score, pick
from adms.tuner import WindowTuner
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Subgraph
from tests.fixtures.policies import chain_graph, procs

NS_PER_OP = {"cpu": 10, "npu": 12}
PROCS = procs("cpu", "npu")


def per_op(mp: ModelPlan, sg: Subgraph) -> int:
    return NS_PER_OP[sg.processor] * len(sg.ops)


def mix() -> tuple[dict[str, ModelGraph], dict[str, dict[str, frozenset[int]]]]:
    graphs = {"a": chain_graph("a", 3), "b": chain_graph("b", 3)}
    support = {"a": {"cpu": frozenset(), "npu": frozenset({2})},
               "b": {"cpu": frozenset(), "npu": frozenset({0, 1, 2})}}
    return graphs, support


def test_per_model_tuner_ties_and_drops_the_npu() -> None:
    graphs, support = mix()
    tuned = WindowTuner([1, 2, 3], per_op, "dev", None).tune(graphs["a"], PROCS, support["a"])
    assert {t.window_size: t.latency_ns for t in tuned.trials} == {1: 30, 2: 30, 3: 30}
    assert tuned.windows["npu"] == 3
    assert all(sg.processor == "cpu" for sg in tuned.plan.subgraphs)


def test_mix_tuner_picks_the_window_with_the_better_bound() -> None:
    graphs, support = mix()
    tuner = MixTuner([1, 2, 3], per_op, "dev", None, tolerance=0.02)
    tuned = tuner.tune(graphs, PROCS, support)
    assert tuned["a"].windows == {"cpu": 1, "npu": 2}
    assert any(sg.processor == "npu" for sg in tuned["a"].plan.subgraphs)
    a_npu = {t.window_size: t.score.frames_per_s for t in tuner.trials
             if (t.model, t.processor) == ("a", "npu")}
    assert a_npu[1] == pytest.approx(25e6, rel=1e-6)
    assert a_npu[2] == pytest.approx(25e6, rel=1e-6)
    assert a_npu[3] == pytest.approx(1e9 / 60, rel=1e-6)


def test_a_wide_tolerance_prefers_fewer_subgraphs() -> None:
    """16.67e6 is within 50% of 25e6, and window 3's plans hold 2 subgraphs against 5."""
    graphs, support = mix()
    tuned = MixTuner([1, 2, 3], per_op, "dev", None, tolerance=0.5).tune(graphs, PROCS, support)
    assert tuned["a"].windows["npu"] == 3
    assert sum(len(t.plan.subgraphs) for t in tuned.values()) == 2


def test_tie_rule() -> None:
    scores = [Score(100.0, 50), Score(99.0, 10), Score(90.0, 1), Score(99.0, 10)]
    windows = [1, 2, 3, 4]
    assert pick(scores, windows, 0.0) == 0
    assert pick(scores, windows, 0.02) == 3  # fewest subgraphs within 2%; equal: larger window
    assert pick(scores, windows, 0.2) == 2


def test_cache_key_holds_the_scenarios_model_set(tmp_path: Path) -> None:
    graphs, support = mix()
    calls: list[int] = []

    def counting(mp: ModelPlan, sg: Subgraph) -> int:
        calls.append(1)
        return per_op(mp, sg)

    first = MixTuner([1, 2, 3], counting, "dev", tmp_path).tune(graphs, PROCS, support)
    n = len(calls)
    again = MixTuner([1, 2, 3], counting, "dev", tmp_path).tune(graphs, PROCS, support)
    assert len(calls) == n and all(t.from_cache for t in again.values())
    assert {m: t.windows for m, t in again.items()} == {m: t.windows for m, t in first.items()}
    alone = MixTuner([1, 2, 3], counting, "dev", tmp_path).tune(
        {"a": graphs["a"]}, PROCS, {"a": support["a"]})
    assert len(calls) > n and not alone["a"].from_cache
    keys = sorted(json.loads((tmp_path / CACHE_FILE).read_text())["entries"])
    assert len(keys) == 2
    assert keys[0].startswith("dev/a:") and ",b:" not in keys[0] and ",b:" in keys[1]


def test_scenario_tuner_tunes_the_run_once() -> None:
    graphs, support = mix()
    calls: list[int] = []

    def counting(mp: ModelPlan, sg: Subgraph) -> int:
        calls.append(1)
        return per_op(mp, sg)

    tuner = ScenarioTuner(MixTuner([1, 2, 3], counting, "dev", None), graphs, support)
    a = tuner.tune(graphs["a"], PROCS, support["a"])
    n = len(calls)
    b = tuner.tune(graphs["b"], PROCS, support["b"])
    assert len(calls) == n and a.windows["npu"] == 2 and b.plan.model == "b"


# -- a long search says what it does and how long it will take -------------------------------

#: 50 models of 40 ops on a cpu, a gpu and an npu, each processor running its own random ops
FIFTY = """
import random
from adms.mix import MixTuner
from tests.fixtures.policies import chain_graph, procs
rng = random.Random(0)
graphs, support = {}, {}
for i in range(50):
    g = chain_graph(f"m{i}", 40)
    graphs[g.name] = g
    support[g.name] = {"cpu": frozenset(),
                       "gpu": frozenset(o for o in range(40) if rng.random() < 0.1),
                       "npu": frozenset(o for o in range(40) if rng.random() < 0.3)}
ns = {"cpu": 100, "gpu": 40, "npu": 25}
MixTuner([1, 2, 3, 4, 5, 6, 8, 10, 12, 16], lambda mp, sg: ns[sg.processor] * len(sg.ops) + 50,
         "dev", None).tune(graphs, procs("cpu", "gpu", "npu"), support)
"""


def test_fifty_models_tuning_say_how_long_they_will_take() -> None:
    """A real process tuning 50 models: within its first progress interval it names what
    it does and the time left (the search itself takes minutes; it is stopped there)."""
    import subprocess
    import sys

    from tests.fixtures.paths import REPO

    proc = subprocess.Popen([sys.executable, "-c", FIFTY], cwd=REPO, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        second = proc.stdout.readline()
    finally:
        proc.kill()
        proc.communicate()
    assert first.startswith("tuning the windows of 50 models together"), first
    assert "1000 assignments a pass, at most 3 passes" in first
    assert second.startswith("window tuning pass 1: ") and " left in this pass, at most " in second


def test_a_short_search_says_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from adms import mix as mix_module

    out = io.StringIO()
    shown = mix_module.TuningProgress(2, 6, 3, out)
    shown.step(0, 3, "a")
    shown.done()
    assert out.getvalue() == ""
    monkeypatch.setattr(mix_module, "QUIET_S", 0.0)
    monkeypatch.setattr(mix_module, "EVERY_S", 0.0)
    shown = mix_module.TuningProgress(2, 6, 3, out)
    shown.step(0, 3, "a")
    shown.done()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("tuning the windows of 2 models together")
    assert lines[1].startswith("window tuning pass 1: 3/6 assignments (at a)")
    assert lines[2].startswith("window tuning done in ")
