"""The window-size tuner (paper Section 3.2): pick, per model and device, the analyzer's
*window size* — the fewest ops a subgraph may have on a non-CPU processor.

A small window keeps every run of supported ops on its accelerator but fragments the model
into many subgraphs (thousands for DeepLabV3 at window 1, paper Table III); a large window
collapses the plan towards one subgraph and pushes short runs back to the CPU. The paper
measures the trade-off (Figure 6) and stores the best setting per model-processor pair.

For each candidate window the tuner analyses the model (:func:`adms.analyzer.analyze`,
``merge=True``) and estimates its single-run latency on the device: the fastest chain of
subgraphs through the plan with every processor free, each subgraph costing
``profile_fn(plan, subgraph)`` ns. The lowest latency wins; ties go to the larger window,
then to the plan with fewer subgraphs. ``tie_tolerance`` widens "tie" to latencies within
that fraction of the best.

A single candidate (a fixed window) is used as it is, without profiling or caching.
Choices are cached in ``<cache_dir>/adms_windows.json`` under ``device/model/graph sha256``
(with the candidate list, so a changed list is tuned again); ``cache_dir=None`` disables the
cache. The file is replaced atomically; an unreadable file is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adms.scheduler import remaining_latency
from harness.errors import UserError
from harness.graph import ModelGraph
from harness.plan import ModelPlan, Processor, Subgraph

#: version of the cache file layout
CACHE_SCHEMA = 1
CACHE_FILE = "adms_windows.json"

ProfileFn = Callable[[ModelPlan, Subgraph], int]


@dataclass(frozen=True, slots=True)
class Trial:
    """One candidate window: its estimated single-run latency and plan size."""

    window_size: int
    latency_ns: int
    subgraphs: int


@dataclass(frozen=True)
class Tuned:
    """The tuner's choice for one model on one device."""

    window_size: int
    plan: ModelPlan
    #: every candidate tried (empty when the choice came from the cache)
    trials: tuple[Trial, ...]
    from_cache: bool


def graph_digest(graph: ModelGraph) -> str:
    """sha256 of the source ``.tflite``, or of the graph profile for hand-built graphs."""
    if graph.source_sha256:
        return graph.source_sha256
    text = json.dumps(graph.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def single_run_latency(plan: ModelPlan, profile_fn: ProfileFn) -> int:
    """Fastest chain through ``plan`` on a free device, ns."""
    return remaining_latency(plan, lambda sg: profile_fn(plan, sg))[0]


def best_trial(trials: Sequence[Trial], tie_tolerance: float = 0.0) -> Trial:
    """Lowest latency; within ``tie_tolerance`` of it, the larger window, then fewer subgraphs."""
    fastest = min(t.latency_ns for t in trials)
    ties = [t for t in trials if t.latency_ns <= fastest * (1.0 + tie_tolerance)]
    return min(ties, key=lambda t: (-t.window_size, t.subgraphs, t.latency_ns))


class WindowTuner:
    """Chooses a window size per model (``candidates``), analysing with :mod:`adms.analyzer`."""

    def __init__(
        self,
        candidates: Sequence[int],
        profile_fn: ProfileFn,
        device_name: str,
        cache_dir: Path | None = None,
        tie_tolerance: float = 0.0,
    ) -> None:
        if not candidates or min(candidates) < 1:
            raise UserError(f"adms window candidates must be >= 1 and not empty, got "
                            f"{list(candidates)}")
        self.candidates = tuple(sorted(set(candidates)))
        self.profile_fn, self.device_name = profile_fn, device_name
        self.cache_path = None if cache_dir is None else Path(cache_dir) / CACHE_FILE
        self.tie_tolerance = tie_tolerance

    def _key(self, graph: ModelGraph) -> str:
        return f"{self.device_name}/{graph.name}/{graph_digest(graph)}"

    def tune(
        self, graph: ModelGraph, processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]],
    ) -> Tuned:
        from adms.analyzer import analyze

        def build(ws: int) -> ModelPlan:
            plan: ModelPlan = analyze(graph, processors, unsupported, window_size=ws, merge=True)
            return plan

        if len(self.candidates) == 1:  # a fixed window: nothing to compare, nothing to cache
            return Tuned(self.candidates[0], build(self.candidates[0]), (), False)
        cached = self._cached(graph)
        if cached is not None:
            return Tuned(cached, build(cached), (), True)
        plans = {ws: build(ws) for ws in self.candidates}
        trials = tuple(Trial(ws, single_run_latency(p, self.profile_fn), len(p.subgraphs))
                       for ws, p in plans.items())
        best = best_trial(trials, self.tie_tolerance)
        self._store(graph, best, trials)
        return Tuned(best.window_size, plans[best.window_size], trials, False)

    # -- cache ------------------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        if self.cache_path is None or not self.cache_path.is_file():
            return {}
        try:
            data = json.loads(self.cache_path.read_text())
        except (OSError, ValueError):
            return {}
        ok = isinstance(data, dict) and data.get("schema") == CACHE_SCHEMA
        return dict(data.get("entries", {})) if ok else {}

    def _cached(self, graph: ModelGraph) -> int | None:
        entry = self._read().get(self._key(graph))
        if not isinstance(entry, dict) or entry.get("candidates") != list(self.candidates):
            return None
        ws = entry.get("window_size")
        return ws if isinstance(ws, int) and ws in self.candidates else None

    def _store(self, graph: ModelGraph, best: Trial, trials: Sequence[Trial]) -> None:
        if self.cache_path is None:
            return
        entries = self._read()
        entries[self._key(graph)] = {
            "window_size": best.window_size,
            "latency_ns": best.latency_ns,
            "candidates": list(self.candidates),
            # rows: [window_size, latency_ns, subgraphs]
            "trials": [[t.window_size, t.latency_ns, t.subgraphs] for t in trials],
        }
        _write_atomic(self.cache_path, {"schema": CACHE_SCHEMA, "entries": entries})


def _write_atomic(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, path)
