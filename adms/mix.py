"""The mix tuner: every model's per-processor windows chosen together, for the scenario.

:mod:`adms.tuner` scores a window by one model's single-run latency on {CPU + one
processor}. A processor that runs every op of a model (the GPU, the APU) then ties at every
window, and the latency alone cannot see what a finer plan costs the *other* models sharing
the device. The mix tuner scores a whole assignment — a window per (model, non-CPU
processor) for every model of the scenario — by the **frame-rate bound** of the scenario's
plans on the whole device (:func:`harness.models.bound.frame_rate_bound`: the linear program
over every chain of every plan, each subgraph at its profiled cost and handoff; one frame is
one inference of every model). The bound is chosen over short simulations of the mix
because it is deterministic (no seed to average over), fast (column generation, a few ms to
a fraction of a second per assignment) and prices what the device charges per subgraph
(dispatch, copies, handoffs), so a window that only fragments a plan lowers it.

**Search** (coordinate descent): start with the smallest candidate everywhere (the finest
plans: the most chains); for each model and non-CPU processor in turn, try every candidate
with the rest fixed and keep the pick of the tie rule among them; repeat until a pass
changes nothing (at most ``max_passes``). Plans and bounds are memoised, so a window that
does not change a plan (on a processor running every op) costs no second program. The
programs share a :class:`~harness.models.bound.ChainPool`: each starts from the chains
earlier ones found for the same plans (the assignments of a step differ in one model), which
gives the same bounds (to 1e-13 here) in fewer rounds, about a third of the time. Each
assignment still solves a program over every model, so a search grows faster than the square
of the models: a search longer than a few seconds says on stdout what it is doing and how
long it will take (:class:`TuningProgress`).

**Tie rule**: of every assignment tried, those whose bound is within ``tolerance`` (a
fraction) of the best bound tried are *eligible*; the one with the fewest subgraphs over the
mix wins, then the higher bound, then the larger windows. The tolerance stands for what the
bound leaves unpriced: scheduling work per subgraph, and memory (paper Section 2.2).

Choices are cached in ``<cache_dir>/adms_mix_windows.json`` under the device, its costs key,
and the scenario's model set (every model's name and graph sha256), with the candidates and
tolerance; ``cache_dir=None`` disables the cache.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from adms.config import AdmsConf, TunerKind
from adms.tuner import Tuned, WindowTuner, _analyze, _read_entries, _write_atomic, graph_digest
from harness.models.bound import ChainPool, ModelWork, frame_rate_bound
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, ProcessorKind
from harness.seams.policy import ProfileFn

#: version of the cache file layout
CACHE_SCHEMA = 1
CACHE_FILE = "adms_mix_windows.json"

#: a search done within this many seconds says nothing; a longer one speaks every EVERY_S
QUIET_S, EVERY_S = 2.0, 5.0

#: model -> processor -> window
Assignment = dict[str, dict[str, int]]
#: the run's models, and each one's op support (processor -> ops it cannot run)
Scenario = tuple[Mapping[str, ModelGraph], Mapping[str, Mapping[str, frozenset[int]]]]


@dataclass(frozen=True, slots=True)
class Score:
    """An assignment's frame-rate bound and its plans' subgraphs over the mix."""

    frames_per_s: float
    subgraphs: int


@dataclass(frozen=True, slots=True)
class MixTrial:
    """One assignment tried: the window it set (model, processor, window) and its score."""

    model: str
    processor: str
    window_size: int
    score: Score


def eligible(scores: Sequence[Score], tolerance: float) -> list[int]:
    """Positions of the scores within ``tolerance`` of the best bound among them."""
    best = max(s.frames_per_s for s in scores)
    return [k for k, s in enumerate(scores) if s.frames_per_s >= best * (1.0 - tolerance)]


def pick(scores: Sequence[Score], windows: Sequence[int], tolerance: float) -> int:
    """The tie rule: of the eligible scores, fewest subgraphs, then the higher bound, then
    the larger window (``windows[k]``, or a sum of windows); the position picked."""
    if not scores or len(scores) != len(windows):
        raise UserError("the mix tuner's tie rule needs one window per score")
    return min(eligible(scores, tolerance),
               key=lambda k: (scores[k].subgraphs, -scores[k].frames_per_s, -windows[k]))


class TuningProgress:
    """What a long search is doing and how long it will take, on stdout (where a run's
    progress goes; stderr holds only a failing command's one error line): nothing for a
    search done within :data:`QUIET_S`; then a line every :data:`EVERY_S` naming the pass,
    the model, the assignments scored and the time left, estimated from the time each took
    so far (for this pass, and for every pass the search may still make), and a last line."""

    def __init__(self, models: int, per_pass: int, passes: int,
                 out: TextIO | None = None) -> None:
        self.models, self.per_pass, self.passes = models, per_pass, passes
        self.out = out or sys.stdout
        self.began = self.last = time.monotonic()
        self.spoke = False

    def step(self, n: int, done: int, model: str) -> None:
        """``done`` assignments of pass ``n`` scored, the last of them on ``model``."""
        now = time.monotonic()
        if now - self.began < QUIET_S or now - self.last < EVERY_S:
            return
        if not self.spoke:
            self._say(f"tuning the windows of {self.models} models together (the mix tuner: "
                      f"{self.per_pass} assignments a pass, at most {self.passes} passes)")
        self.last, self.spoke = now, True
        each = (now - self.began) / (n * self.per_pass + done)
        left = (self.per_pass - done) * each
        self._say(f"window tuning pass {n + 1}: {done}/{self.per_pass} assignments "
                  f"(at {model}), {_duration(now - self.began)} so far, about "
                  f"{_duration(left)} left in this pass, at most "
                  f"{_duration(left + (self.passes - n - 1) * self.per_pass * each)} in all")

    def done(self) -> None:
        if self.spoke:
            self._say(f"window tuning done in {_duration(time.monotonic() - self.began)}")

    def _say(self, line: str) -> None:
        print(line, file=self.out, flush=True)


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


class MixTuner:
    """Chooses every model's per-processor windows together (module docstring)."""

    def __init__(
        self,
        candidates: Sequence[int],
        profile_fn: ProfileFn,
        device_name: str,
        cache_dir: Path | None = None,
        tolerance: float = 0.02,
        handoff_fn: ProfileFn | None = None,
        costs_key: str = "",
        max_passes: int = 3,
    ) -> None:
        if not candidates or min(candidates) < 1:
            raise UserError(f"adms window candidates must be >= 1 and not empty, got "
                            f"{list(candidates)}")
        self.candidates = tuple(sorted(set(candidates)))
        self.profile_fn, self.handoff_fn = profile_fn, handoff_fn
        self.device_name, self.costs_key = device_name, costs_key
        self.cache_path = None if cache_dir is None else Path(cache_dir) / CACHE_FILE
        self.tolerance, self.max_passes = tolerance, max_passes
        #: every assignment tried by the last search, in order
        self.trials: list[MixTrial] = []
        self._plans: dict[tuple[str, tuple[tuple[str, int], ...]], ModelPlan] = {}
        self._work: dict[int, ModelWork] = {}
        self._bounds: dict[tuple[int, ...], float] = {}
        self._pool = ChainPool()

    def key(self, graphs: Mapping[str, ModelGraph]) -> str:
        """The cache key: device, costs, and the mix (each model's name and graph hash)."""
        mix = ",".join(f"{m}:{graph_digest(graphs[m])}" for m in sorted(graphs))
        return "/".join(p for p in (self.device_name, self.costs_key, mix) if p)

    def tune(
        self, graphs: Mapping[str, ModelGraph], processors: Sequence[Processor],
        op_support: Mapping[str, Mapping[str, frozenset[int]]],
    ) -> dict[str, Tuned]:
        """Model -> its plan at the chosen windows (the mix's choice, or the cache's)."""
        cached = self._cached(graphs, processors)
        choice = cached if cached is not None else self.search(graphs, processors, op_support)
        if cached is None:
            self._store(graphs, choice)
        plans = {m: _analyze(graphs[m], processors, op_support[m], dict(choice[m]))
                 for m in graphs}
        return {m: Tuned(p.window_size, p, (), cached is not None) for m, p in plans.items()}

    # -- the search -------------------------------------------------------------------------

    def search(
        self, graphs: Mapping[str, ModelGraph], processors: Sequence[Processor],
        op_support: Mapping[str, Mapping[str, frozenset[int]]],
    ) -> Assignment:
        """The assignment the tie rule picks among those the descent tries."""
        axes = [(m, p.name) for m in graphs for p in processors if p.kind is not ProcessorKind.CPU]
        current: Assignment = {m: {p.name: 1 if p.kind is ProcessorKind.CPU
                                   else self.candidates[0] for p in processors} for m in graphs}
        self.trials = []
        tried: dict[str, tuple[Assignment, Score]] = {}
        shown = TuningProgress(len(graphs), len(axes) * len(self.candidates), self.max_passes)
        for n in range(self.max_passes):
            before = json.dumps(current, sort_keys=True)
            for k, (model, proc) in enumerate(axes):
                current = self._step(graphs, processors, op_support, current, model, proc, tried)
                shown.step(n, (k + 1) * len(self.candidates), model)
            if json.dumps(current, sort_keys=True) == before:
                break
        shown.done()
        return self._final(list(tried.values()))

    def _step(
        self, graphs: Mapping[str, ModelGraph], processors: Sequence[Processor],
        op_support: Mapping[str, Mapping[str, frozenset[int]]], current: Assignment,
        model: str, proc: str, tried: dict[str, tuple[Assignment, Score]],
    ) -> Assignment:
        """Every candidate on one axis, the rest fixed; the tie rule's pick among them."""
        options = []
        for w in self.candidates:
            option = {m: dict(ws) for m, ws in current.items()}
            option[model][proc] = w
            score = self.score(graphs, processors, op_support, option)
            tried[json.dumps(option, sort_keys=True)] = (option, score)
            self.trials.append(MixTrial(model, proc, w, score))
            options.append((option, score))
        k = pick([s for _, s in options], list(self.candidates), self.tolerance)
        return options[k][0]

    def _final(self, tried: Sequence[tuple[Assignment, Score]]) -> Assignment:
        """The tie rule over every assignment tried (larger windows: a larger sum)."""
        sums = [sum(w for ws in a.values() for w in ws.values()) for a, _ in tried]
        return tried[pick([s for _, s in tried], sums, self.tolerance)][0]

    def score(
        self, graphs: Mapping[str, ModelGraph], processors: Sequence[Processor],
        op_support: Mapping[str, Mapping[str, frozenset[int]]], assignment: Assignment,
    ) -> Score:
        """The assignment's bound and subgraphs (plans and bounds memoised)."""
        plans = {m: self._plan(graphs[m], processors, op_support[m], assignment[m])
                 for m in graphs}
        key = tuple(id(p) for p in plans.values())
        if key not in self._bounds:
            work = {m: self._work_of(p) for m, p in plans.items()}
            bound = frame_rate_bound([p.name for p in processors], work, pool=self._pool)
            self._bounds[key] = bound.frames_per_s
        return Score(self._bounds[key], sum(len(p.subgraphs) for p in plans.values()))

    def _plan(self, graph: ModelGraph, processors: Sequence[Processor],
              unsupported: Mapping[str, frozenset[int]], windows: Mapping[str, int]
              ) -> ModelPlan:
        """The analyzer's plan at ``windows``; equal plans are one object (so one bound)."""
        memo = (graph.name, tuple(sorted(windows.items())))
        if memo not in self._plans:
            plan = _analyze(graph, processors, unsupported, dict(windows))
            same = next((p for p in self._plans.values() if _same_cut(p, plan)), None)
            self._plans[memo] = plan if same is None else same
        return self._plans[memo]

    def _work_of(self, plan: ModelPlan) -> ModelWork:
        if id(plan) not in self._work:
            cost = {(0, sg.index): max(1, int(self.profile_fn(plan, sg)))
                    for sg in plan.subgraphs}
            handoff = {} if self.handoff_fn is None else {
                (0, sg.index): int(self.handoff_fn(plan, sg)) for sg in plan.subgraphs}
            self._work[id(plan)] = ModelWork((plan,), cost, handoff)
        return self._work[id(plan)]

    # -- cache ------------------------------------------------------------------------------

    def _entry(self) -> dict[str, Any]:
        return {"candidates": list(self.candidates), "tolerance": self.tolerance}

    def _read(self) -> dict[str, Any]:
        return _read_entries(self.cache_path, CACHE_SCHEMA)

    def _cached(self, graphs: Mapping[str, ModelGraph], processors: Sequence[Processor]
                ) -> Assignment | None:
        entry = self._read().get(self.key(graphs))
        if not isinstance(entry, dict) or any(entry.get(k) != v for k, v in self._entry().items()):
            return None
        windows = entry.get("windows")
        names = {p.name for p in processors}
        if not isinstance(windows, dict) or set(windows) != set(graphs) or any(
                not isinstance(ws, dict) or set(ws) != names for ws in windows.values()):
            return None
        return {m: {p: int(w) for p, w in ws.items()} for m, ws in windows.items()}

    def _store(self, graphs: Mapping[str, ModelGraph], choice: Assignment) -> None:
        if self.cache_path is None:
            return
        entries = self._read()
        entries[self.key(graphs)] = {
            **self._entry(), "windows": choice,
            # rows: [model, processor, window, bound frames/s, subgraphs over the mix]
            "trials": [[t.model, t.processor, t.window_size, t.score.frames_per_s,
                        t.score.subgraphs] for t in self.trials],
        }
        _write_atomic(self.cache_path, {"schema": CACHE_SCHEMA, "entries": entries})


class ScenarioTuner:
    """The policy's tuner in ``mix`` mode: :class:`MixTuner` over the run's models (its
    context's), tuned once, answering per model as :class:`adms.tuner.WindowTuner` does. A
    model outside the run's models is tuned as a mix of its own."""

    def __init__(self, tuner: MixTuner, graphs: Mapping[str, ModelGraph],
                 op_support: Mapping[str, Mapping[str, frozenset[int]]]) -> None:
        self.mix, self.graphs, self.op_support = tuner, dict(graphs), dict(op_support)
        self.handoff_fn = tuner.handoff_fn
        self._tuned: dict[str, Tuned] = {}

    def tune(self, graph: ModelGraph, processors: Sequence[Processor],
             unsupported: Mapping[str, frozenset[int]]) -> Tuned:
        if graph.name not in self.graphs or graph.name not in self.op_support:
            return self.mix.tune({graph.name: graph}, processors,
                                 {graph.name: unsupported})[graph.name]
        if graph.name not in self._tuned:
            self._tuned = self.mix.tune(self.graphs, processors, self.op_support)
        return self._tuned[graph.name]


def make_tuner(
    conf: AdmsConf, windows: Sequence[int], profile_fn: ProfileFn, device_name: str,
    cache_dir: Path | None, handoff_fn: ProfileFn | None, costs_key: str,
    scenario: Scenario | None,
) -> WindowTuner | ScenarioTuner:
    """The tuner ``conf`` asks for: a fixed window or ``tuner: per_model`` is
    :class:`WindowTuner`; ``tuner: mix`` is the mix tuner over ``scenario``'s models."""
    if conf.tuner is TunerKind.per_model or len(set(windows)) == 1:
        return WindowTuner(windows, profile_fn, device_name, cache_dir,
                           tie_tolerance=conf.window_tie_tolerance,
                           per_processor=conf.window_per_processor,
                           handoff_fn=handoff_fn, costs_key=costs_key)
    mix = MixTuner(windows, profile_fn, device_name, cache_dir, conf.window_mix_tolerance,
                   handoff_fn, costs_key)
    graphs, support = scenario or ({}, {})
    return ScenarioTuner(mix, graphs, support)


def _same_cut(a: ModelPlan, b: ModelPlan) -> bool:
    """Two plans of one model with the same units and subgraphs (windows aside)."""
    return a.model == b.model and a.units == b.units and \
        [(s.processor, s.units) for s in a.subgraphs] == [(s.processor, s.units)
                                                          for s in b.subgraphs]
