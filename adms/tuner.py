"""The window-size tuner (paper Section 3.2): pick, per model and processor, the analyzer's
*window size* — the fewest ops a subgraph may have on that (non-CPU) processor.

A small window keeps every run of supported ops on its accelerator but fragments the model
into many subgraphs (thousands for DeepLabV3 at window 1, paper Table III); a large window
collapses the plan towards one subgraph and pushes short runs back to the CPU. The paper
measures the trade-off (Figure 6) and stores the best setting "for each model-processor
combination".

**Per processor** (the default, ``per_processor=True``): for each non-CPU processor *p* and
each candidate window, the tuner analyses the model on *p* with the CPU as its fallback
(:func:`adms.analyzer.analyze` over ``[cpu, p]``, ``merge=True``) and estimates its
single-run latency: the fastest chain of subgraphs, each costing ``profile_fn(plan,
subgraph)`` ns. Each processor gets its own best window; the final plan is analysed over all
processors with those windows. Tuning each processor alone matters: on a whole device the
fastest processor (often the GPU) would win every single-run estimate, hiding what a window
does to the others, which in a multi-model run are the ones left free.

**Per model** (``per_processor=False``): one window for every processor, chosen on the whole
device's single-run estimate.

The lowest latency wins; within ``tie_tolerance`` (a fraction) of it, the larger window, then
the plan with fewer subgraphs. A single candidate (a fixed window) is used as it is, without
profiling or caching. Choices are cached in ``<cache_dir>/adms_windows.json`` under
``device/model/graph sha256`` (with the candidate list and mode, so a change is tuned again);
``cache_dir=None`` disables the cache. The file is replaced atomically; an unreadable file is
ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adms.chains import chain_latency, remaining_latency
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, ProcessorKind
from harness.seams.policy import ProfileFn

#: version of the cache file layout (2: a window per processor)
CACHE_SCHEMA = 2
CACHE_FILE = "adms_windows.json"


@dataclass(frozen=True, slots=True)
class Trial:
    """One candidate window: its estimated single-run latency and plan size."""

    window_size: int
    latency_ns: int
    subgraphs: int
    #: the processor tuned (empty when one window serves every processor)
    processor: str = ""


@dataclass(frozen=True)
class Tuned:
    """The tuner's choice for one model on one device."""

    #: the plan's window (the largest of ``windows``)
    window_size: int
    plan: ModelPlan
    #: every candidate tried (empty when the choice came from the cache)
    trials: tuple[Trial, ...]
    from_cache: bool

    @property
    def windows(self) -> Mapping[str, int]:
        """Processor -> window (the plan's analyzer setting)."""
        return dict(self.plan.meta.get("windows", {}))  # type: ignore[call-overload]


#: what the tuner chooses: one window, or one per processor name
Choice = int | dict[str, int]


def graph_digest(graph: ModelGraph) -> str:
    """sha256 of the source ``.tflite``, or of the graph profile for hand-built graphs."""
    if graph.source_sha256:
        return graph.source_sha256
    text = json.dumps(graph.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def single_run_latency(plan: ModelPlan, profile_fn: ProfileFn,
                       handoff_fn: ProfileFn | None = None) -> int:
    """Fastest chain through ``plan`` on a free device, ns: every subgraph at its profiled
    cost (copies, floors and dispatch included), plus ``handoff_fn`` where the chain
    changes processor."""
    if handoff_fn is None:
        return remaining_latency(plan, lambda sg: profile_fn(plan, sg))[0]
    return chain_latency(plan, lambda sg: profile_fn(plan, sg), lambda sg: handoff_fn(plan, sg))


def best_trial(trials: Sequence[Trial], tie_tolerance: float = 0.0) -> Trial:
    """Lowest latency; within ``tie_tolerance`` of it, the larger window, then fewer subgraphs."""
    fastest = min(t.latency_ns for t in trials)
    ties = [t for t in trials if t.latency_ns <= fastest * (1.0 + tie_tolerance)]
    return min(ties, key=lambda t: (-t.window_size, t.subgraphs, t.latency_ns))


class WindowTuner:
    """Chooses window sizes per model (``candidates``), analysing with :mod:`adms.analyzer`."""

    def __init__(
        self,
        candidates: Sequence[int],
        profile_fn: ProfileFn,
        device_name: str,
        cache_dir: Path | None = None,
        tie_tolerance: float = 0.0,
        per_processor: bool = True,
        handoff_fn: ProfileFn | None = None,
        costs_key: str = "",
    ) -> None:
        if not candidates or min(candidates) < 1:
            raise UserError(f"adms window candidates must be >= 1 and not empty, got "
                            f"{list(candidates)}")
        self.candidates = tuple(sorted(set(candidates)))
        self.profile_fn, self.device_name = profile_fn, device_name
        self.handoff_fn = handoff_fn
        #: what the costs depend on beyond the device's name (its constants, mechanisms)
        self.costs_key = costs_key
        self.cache_path = None if cache_dir is None else Path(cache_dir) / CACHE_FILE
        self.tie_tolerance = tie_tolerance
        self.per_processor = per_processor

    def _key(self, graph: ModelGraph) -> str:
        parts = (self.device_name, self.costs_key, graph.name, graph_digest(graph))
        return "/".join(p for p in parts if p)

    def tune(
        self, graph: ModelGraph, processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]],
    ) -> Tuned:
        def build(choice: Choice) -> ModelPlan:
            return _analyze(graph, processors, unsupported, choice)

        if len(self.candidates) == 1:  # a fixed window: nothing to compare, nothing to cache
            plan = build(self.candidates[0])
            return Tuned(plan.window_size, plan, (), False)
        cached = self._cached(graph, processors)
        if cached is not None:
            plan = build(cached)
            return Tuned(plan.window_size, plan, (), True)
        choice, trials, plan_or_none = self._search(graph, processors, unsupported)
        plan = plan_or_none or build(choice)
        self._store(graph, choice, trials)
        return Tuned(plan.window_size, plan, trials, False)

    def _search(
        self, graph: ModelGraph, processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]],
    ) -> tuple[Choice, tuple[Trial, ...], ModelPlan | None]:
        """The choice, every trial, and the chosen plan when a trial already built it."""
        cpu = next((p for p in processors if p.kind is ProcessorKind.CPU), None)
        if not self.per_processor or cpu is None:
            trials, plans = self._trials(graph, processors, unsupported, "")
            best = best_trial(trials, self.tie_tolerance).window_size
            return best, trials, plans[best]
        windows: dict[str, int] = {cpu.name: 1}
        every: list[Trial] = []
        for proc in processors:
            if proc.kind is ProcessorKind.CPU:
                continue
            trials, _ = self._trials(graph, (cpu, proc), unsupported, proc.name)
            windows[proc.name] = best_trial(trials, self.tie_tolerance).window_size
            every.extend(trials)
        return windows, tuple(every), None

    def _trials(
        self, graph: ModelGraph, processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]], label: str,
    ) -> tuple[tuple[Trial, ...], dict[int, ModelPlan]]:
        plans = {ws: _analyze(graph, processors, unsupported, ws) for ws in self.candidates}
        trials = tuple(Trial(ws, single_run_latency(plan, self.profile_fn, self.handoff_fn),
                             len(plan.subgraphs),
                             label) for ws, plan in plans.items())
        return trials, plans

    # -- cache ------------------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        return _read_entries(self.cache_path, CACHE_SCHEMA)

    def _cached(self, graph: ModelGraph, processors: Sequence[Processor]) -> Choice | None:
        entry = self._read().get(self._key(graph))
        if not isinstance(entry, dict) or entry.get("candidates") != list(self.candidates):
            return None
        if entry.get("per_processor") != self.per_processor:
            return None
        choice = entry.get("windows")
        if isinstance(choice, int):
            return choice if choice in self.candidates else None
        names = {p.name for p in processors}
        if isinstance(choice, dict) and set(choice) == names:
            return {str(k): int(v) for k, v in choice.items()}
        return None

    def _store(self, graph: ModelGraph, choice: Choice, trials: Sequence[Trial]) -> None:
        if self.cache_path is None:
            return
        entries = self._read()
        entries[self._key(graph)] = {
            "windows": choice,
            "per_processor": self.per_processor,
            "candidates": list(self.candidates),
            # rows: [processor, window_size, latency_ns, subgraphs]
            "trials": [[t.processor, t.window_size, t.latency_ns, t.subgraphs] for t in trials],
        }
        _write_atomic(self.cache_path, {"schema": CACHE_SCHEMA, "entries": entries})


def _analyze(
    graph: ModelGraph, processors: Sequence[Processor],
    unsupported: Mapping[str, frozenset[int]], choice: Choice,
) -> ModelPlan:
    from adms import analyzer

    subset = {p.name: unsupported.get(p.name, frozenset()) for p in processors}
    plan: ModelPlan = analyzer.analyze(graph, processors, subset, window_size=choice, merge=True)
    return plan


def _read_entries(path: Path | None, schema: int) -> dict[str, Any]:
    """The entries of a tuner's cache file; none if it is absent, unreadable or of another
    layout (``schema``)."""
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    ok = isinstance(data, dict) and data.get("schema") == schema
    return dict(data.get("entries", {})) if ok else {}


def _write_atomic(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, path)
