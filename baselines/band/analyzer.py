"""Band's Model Analyzer: cut a model into subgraphs that processors can run.

Band's ``ModelAnalyzer::GetUnitSubgraphs`` (``band/model_analyzer.cc`` in mrsnu/band) and
ADMS's Algorithm 1 ("Get Unit Subgraphs", paper Section 3.2) are the same procedure; Band's
``minimum_subgraph_size`` is ADMS's ``window_size``. Band uses one size for every processor
(:func:`analyze`); ADMS tunes one per model and processor (:mod:`adms.analyzer` calls
:func:`plan_with_sizes`). The steps:

1. **Fallback runs** (:func:`fallback_subgraphs`, Band's ``GetSubgraphsForFallbackOps``): for one
   processor, walk the graph from its inputs and take, alternately, the largest set of
   *resolved* ops (all runtime inputs available) that the processor supports, then the largest
   set it does not, until every op is taken. Each set is a maximal run for, or off, it.
2. **Minimum size** (:func:`short_runs`): a non-CPU processor's supported run with fewer than
   the minimum size of ops counts as unsupported there (the CPU is exempt), so no tiny
   accelerator subgraphs appear.
3. **Units** (:func:`form_units`): every op gets the set of processors that may run it;
   starting from the lowest-numbered resolved op, greedily take every resolved op with the
   same set, then start the next unit (Figure 5(c)). A *unit subgraph* is one unit placed on
   one processor that supports it.
4. **Merged subgraphs** (:func:`merged_ranges`, Band's ``MergeUnitSubgraphs``): Band closes the
   list under "same processor, the earlier subgraph's outputs hold all of the later one's pure
   inputs: add their union". Band then rejects any subgraph that is not a contiguous range of
   units. Here the contiguous members of that closure are computed directly (see
   :func:`merged_ranges` for the proof sketch), which turns Band's quadratic-per-round
   fixpoint into a scan whose cost is the size of its output.

Differences from Band, all for graphs Band cannot process: a runtime tensor that no op
produces (a variable, say) is treated as available from the start, like a model input (Band
would loop forever); an op no processor supports raises :class:`~harness.seams.errors.UserError`.
Op support, the CPU's included, comes from the ``unsupported`` table (Band hard-codes "the CPU
runs everything"; :mod:`devices.opsupport` gives ``support: all`` processors an empty set).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, ProcessorKind, Subgraph

#: plans kept by :func:`plan_with_sizes` (models x processor sets x windows of a process)
PLANS_KEPT = 1024


@dataclass(frozen=True, slots=True)
class Dataflow:
    """Per op, its runtime input and output tensors (Band's ``op_input_tensors`` /
    ``op_output_tensors``), and each tensor's producer. Computed here from ``graph.ops`` rather
    than through ``ModelGraph``'s cached properties, which a slotted dataclass cannot cache."""

    runtime_inputs: tuple[frozenset[int], ...]
    outputs: tuple[frozenset[int], ...]
    producer: Mapping[int, int]

    @classmethod
    def of(cls, graph: ModelGraph) -> Dataflow:
        const = {t.index for t in graph.tensors if t.is_const}
        ins = tuple(frozenset(i for i in op.inputs if i >= 0 and i not in const)
                    for op in graph.ops)
        outs = tuple(frozenset(o for o in op.outputs if o >= 0) for op in graph.ops)
        return cls(ins, outs, {t: k for k, ts in enumerate(outs) for t in ts})

    def pure_inputs(self, ops: Iterable[int]) -> frozenset[int]:
        """Runtime tensors the ops read but do not write (Band's ``GetPureInputTensors``)."""
        ops = list(ops)
        read = frozenset().union(*(self.runtime_inputs[i] for i in ops))
        return read - frozenset().union(*(self.outputs[i] for i in ops))


class _Frontier:
    """Ops whose runtime inputs are all resolved; taking an op resolves its outputs."""

    def __init__(self, graph: ModelGraph, flow: Dataflow) -> None:
        ins = flow.runtime_inputs
        resolved = set(graph.inputs) | {t for ts in ins for t in ts if t not in flow.producer}
        self.flow = flow
        self.pending = [len(ts - resolved) for ts in ins]
        self.ready = {i for i, n in enumerate(self.pending) if n == 0}
        self.left = graph.num_ops
        self.consumers: dict[int, list[int]] = {}
        for i, ts in enumerate(ins):
            for t in ts - resolved:
                self.consumers.setdefault(t, []).append(i)

    def take(self, accept: Callable[[int], bool]) -> list[int]:
        """Take every op reachable through resolved, accepted ops (a fixpoint, like Band's)."""
        stack = [i for i in self.ready if accept(i)]
        taken: list[int] = []
        while stack:
            i = stack.pop()
            self.ready.discard(i)
            taken.append(i)
            stack.extend(c for c in self._resolve(i) if accept(c))
        self.left -= len(taken)
        return sorted(taken)

    def _resolve(self, op: int) -> list[int]:
        """Mark ``op``'s outputs resolved; return the ops that become ready."""
        ready = []
        for t in self.flow.outputs[op]:
            for c in self.consumers.get(t, ()):
                self.pending[c] -= 1
                if self.pending[c] == 0:
                    self.ready.add(c)
                    ready.append(c)
        return ready


def _stuck(graph: ModelGraph, frontier: _Frontier) -> UserError:
    return UserError(
        f"model {graph.name!r}: {frontier.left} ops can never run (their inputs form a cycle "
        "or are never produced)"
    )


def fallback_subgraphs(
    graph: ModelGraph, processor: Processor, unsupported: frozenset[int]
) -> list[frozenset[int]]:
    """Alternating maximal runs of ops ``processor`` supports / does not (Band's
    ``GetSubgraphsForFallbackOps``); empty runs are skipped, so the list may start with a
    fallback run. ``processor`` names the processor in errors only."""
    frontier, runs, fallback, idle = _Frontier(graph, Dataflow.of(graph)), [], False, 0
    while frontier.left:
        ops = frontier.take(_is_fallback(unsupported) if fallback else _is_kept(unsupported))
        idle = 0 if ops else idle + 1
        if idle == 2:
            raise _stuck(graph, frontier)
        if ops:
            runs.append(frozenset(ops))
        fallback = not fallback
    return runs


def _is_fallback(unsupported: frozenset[int]) -> Callable[[int], bool]:
    return lambda i: i in unsupported


def _is_kept(unsupported: frozenset[int]) -> Callable[[int], bool]:
    return lambda i: i not in unsupported


def short_runs(
    graph: ModelGraph, processor: Processor, unsupported: frozenset[int], minimum_size: int
) -> frozenset[int]:
    """Ops of ``processor``'s supported runs shorter than ``minimum_size`` (none for a CPU)."""
    if processor.kind is ProcessorKind.CPU or minimum_size <= 1:
        return frozenset()
    runs = fallback_subgraphs(graph, processor, unsupported)
    short = (run for run in runs if len(run) < minimum_size and not run & unsupported)
    return frozenset(i for run in short for i in run)


def support_masks(
    graph: ModelGraph,
    processors: Sequence[Processor],
    unsupported: Mapping[str, frozenset[int]],
    sizes: Mapping[str, int],
    label: object = None,
) -> list[frozenset[str]]:
    """For each op, the processors that may run it after the minimum-size rule (Band's
    ``op_support_table``); ``sizes[p]`` is processor ``p``'s minimum size, ``label`` names
    the setting in errors."""
    cut = {p.name: unsupported[p.name] | short_runs(graph, p, unsupported[p.name], sizes[p.name])
           for p in processors}
    masks = [frozenset(p.name for p in processors if i not in cut[p.name])
             for i in range(graph.num_ops)]
    if (orphan := next((i for i, m in enumerate(masks) if not m), None)) is not None:
        names = ", ".join(p.name for p in processors)
        raise UserError(f"model {graph.name!r}: op {orphan} ({graph.ops[orphan].kind}) is "
                        f"supported by no processor ({names}) at window size "
                        f"{dict(sizes) if label is None else label}")
    return masks


def form_units(
    graph: ModelGraph, masks: Sequence[frozenset[str]]
) -> list[frozenset[int]]:
    """Greedy units: resolved ops with the support set of the lowest-numbered resolved op."""
    frontier, units = _Frontier(graph, Dataflow.of(graph)), []
    while frontier.left:
        if not frontier.ready:
            raise _stuck(graph, frontier)
        mask = masks[min(frontier.ready)]
        units.append(frozenset(frontier.take(_has_mask(masks, mask))))
    return units


def _has_mask(masks: Sequence[frozenset[str]], mask: frozenset[str]) -> Callable[[int], bool]:
    return lambda i: masks[i] == mask


def unit_reach(graph: ModelGraph, units: Sequence[frozenset[int]]) -> list[int]:
    """For each unit u, the lowest unit producing one of its pure inputs: -1 when a pure input
    comes from no op (a model input), ``len(units)`` when u has no pure inputs."""
    flow, unit_of = Dataflow.of(graph), {op: u for u, ops in enumerate(units) for op in ops}
    reach = []
    for ops in units:
        producers = [flow.producer.get(t) for t in flow.pure_inputs(ops)]
        lows = [-1 if p is None else unit_of[p] for p in producers]
        reach.append(min(lows, default=len(units)))
    return reach


def merged_ranges(supported: Sequence[bool], reach: Sequence[int]) -> list[tuple[int, int]]:
    """Contiguous unit ranges ``(first, last)``, ``last > first``, in Band's merge closure for
    one processor that supports the units flagged in ``supported``.

    Band merges P and N when outputs(P) hold the pure inputs of N. A set S of units is in that
    closure iff at most one unit of S reads a tensor made outside S: merging keeps this true
    (N's one outside reader now finds its inputs in P), and any such S is built by adding, to
    that one unit, the others in topological order. For ``[first..last]``, unit u reads from
    outside iff ``reach[u] < first``; the count only grows with ``last``, so the scan stops at
    the second outsider or the first unsupported unit."""
    ranges = []
    for first, ok in enumerate(supported):
        outside = int(ok and reach[first] < first)
        for last in range(first + 1, len(supported) if ok else first + 1):
            outside += reach[last] < first
            if not supported[last] or outside > 1:
                break
            ranges.append((first, last))
    return ranges


def check_processors(
    processors: Sequence[Processor], unsupported: Mapping[str, frozenset[int]]
) -> None:
    """Distinct names, each with an op-support entry."""
    names = [p.name for p in processors]
    if not names or len(set(names)) != len(names):
        raise UserError(f"processors must be a non-empty list of distinct names, got {names}")
    if missing := [n for n in names if n not in unsupported]:
        raise UserError(f"no op-support entry for processor(s) {', '.join(missing)}")


def check_size(size: object, what: str = "window_size") -> None:
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise UserError(f"{what} must be an integer >= 1, got {size!r}")


def analyze(
    graph: ModelGraph,
    processors: Sequence[Processor],
    unsupported: Mapping[str, frozenset[int]],
    minimum_subgraph_size: int = 1,
    merge: bool = True,
) -> ModelPlan:
    """Band's analysis: units, unit subgraphs and (with ``merge``) merged subgraphs of
    ``graph``, with one ``minimum_subgraph_size`` for every processor."""
    check_size(minimum_subgraph_size, "minimum_subgraph_size (ADMS: window_size)")
    check_processors(processors, unsupported)
    sizes = {p.name: minimum_subgraph_size for p in processors}
    return plan_with_sizes(graph, processors, unsupported, sizes, merge, minimum_subgraph_size)


def plan_with_sizes(
    graph: ModelGraph,
    processors: Sequence[Processor],
    unsupported: Mapping[str, frozenset[int]],
    sizes: Mapping[str, int],
    merge: bool = True,
    label: int | Mapping[str, int] | None = None,
) -> ModelPlan:
    """The procedure with a minimum size per processor (``sizes``, checked by the caller).
    The plan's ``window_size`` is ``label`` when it is one size, else the largest size;
    ``meta["windows"]`` holds every processor's. A plan is a pure function of its arguments
    and immutable: a process that plans the same model again (every seed of a sweep, the
    ADMS tuner's windows) gets the plan it made (:func:`_planned`)."""
    return _planned(graph, tuple(processors), tuple(sorted(unsupported.items())),
                    tuple(sorted(sizes.items())), merge,
                    label if label is None or isinstance(label, int)
                    else tuple(sorted(label.items())))


@functools.lru_cache(maxsize=PLANS_KEPT)
def _planned(
    graph: ModelGraph,
    processors: tuple[Processor, ...],
    unsupported: tuple[tuple[str, frozenset[int]], ...],
    sizes_items: tuple[tuple[str, int], ...],
    merge: bool,
    label_items: int | tuple[tuple[str, int], ...] | None,
) -> ModelPlan:
    sizes = dict(sizes_items)
    label = label_items if label_items is None or isinstance(label_items, int) \
        else dict(label_items)
    setting = dict(sizes) if label is None else label
    masks = support_masks(graph, processors, dict(unsupported), sizes, setting)
    units = form_units(graph, masks)
    support = tuple(masks[min(ops)] for ops in units)
    ranges = [(u, u, p.name) for u, s in enumerate(support) for p in processors if p.name in s]
    if merge:
        ranges += _merged(graph, processors, units, support)
    windows = {p.name: sizes[p.name] for p in processors}
    meta = {"analyzer": "model_analyzer", "window_size": setting, "windows": windows,
            "merge": merge, "preparation": "merge_unit_subgraph" if merge else "unit_subgraph"}
    largest = setting if isinstance(setting, int) else max(windows.values())
    return ModelPlan(graph.name, tuple(units), support, _subgraphs(graph.name, units, ranges),
                     largest, meta)


def _merged(
    graph: ModelGraph,
    processors: Sequence[Processor],
    units: Sequence[frozenset[int]],
    support: Sequence[frozenset[str]],
) -> list[tuple[int, int, str]]:
    reach = unit_reach(graph, units)
    order = {p.name: k for k, p in enumerate(processors)}
    found = [(a, b, p.name) for p in processors
             for a, b in merged_ranges([p.name in s for s in support], reach)]
    return sorted(found, key=lambda r: (r[0], r[1], order[r[2]]))


def _subgraphs(
    model: str, units: Sequence[frozenset[int]], ranges: Iterable[tuple[int, int, str]]
) -> tuple[Subgraph, ...]:
    """Subgraph objects; a range's ops extend the one-shorter range's (ranges come sorted)."""
    ops: dict[tuple[int, int], frozenset[int]] = {}
    out = []
    for k, (a, b, proc) in enumerate(ranges):
        if (a, b) not in ops:
            shorter = ops.get((a, b - 1)) or _union(units[a:b])
            ops[(a, b)] = units[a] if a == b else shorter | units[b]
        out.append(Subgraph(k, model, proc, ops[(a, b)], tuple(range(a, b + 1))))
    return tuple(out)


def _union(sets: Sequence[frozenset[int]]) -> frozenset[int]:
    return frozenset().union(*sets)
