"""ADMS's Model Analyzer: Band's procedure with a window size per processor.

The paper's Algorithm 1 is Band's ``GetUnitSubgraphs`` (:mod:`baselines.band.analyzer`), and
its *window size* is Band's ``minimum_subgraph_size``: the fewest ops a subgraph may have on a
non-CPU processor. What ADMS adds is that the window is chosen "for each model-processor
combination" (Section 3.2): :func:`analyze` takes one window for every processor or one per
processor name, and :mod:`adms.tuner` chooses them.

:func:`whole_model_plan` is the paper's ablation without subgraph partitioning (Section 4.4,
ROS): each model whole on one processor, any processor that runs all its ops.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from baselines.band.analyzer import check_processors, check_size, plan_with_sizes
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph

#: a window for every processor, or one per processor name (missing names: 1)
Window = int | Mapping[str, int]


def window_for(window_size: Window, processor: str) -> int:
    """The window that applies to ``processor``."""
    if isinstance(window_size, int):
        return window_size
    return int(window_size.get(processor, 1))


def _check_windows(window_size: Window) -> None:
    sizes = [window_size] if not isinstance(window_size, Mapping) else list(window_size.values())
    if not sizes:
        raise UserError(f"window_size must be an integer >= 1, got {window_size!r}")
    try:
        for w in sizes:
            check_size(w)
    except UserError:
        raise UserError(f"window_size must be an integer >= 1, got {window_size!r}") from None


def analyze(
    graph: ModelGraph,
    processors: Sequence[Processor],
    unsupported: Mapping[str, frozenset[int]],
    window_size: Window = 1,
    merge: bool = True,
) -> ModelPlan:
    """Units, unit subgraphs and (with ``merge``) merged subgraphs of ``graph``.

    ``window_size`` is one window for every processor, or a window per processor name; the
    plan's ``window_size`` is then the largest of them and ``meta["windows"]`` holds them all."""
    _check_windows(window_size)
    check_processors(processors, unsupported)
    sizes = {p.name: window_for(window_size, p.name) for p in processors}
    return plan_with_sizes(graph, processors, unsupported, sizes, merge, window_size)


def whole_model_plan(
    graph: ModelGraph,
    processors: Sequence[Processor],
    unsupported: Mapping[str, frozenset[int]],
) -> ModelPlan:
    """One unit holding every op of ``graph`` and one subgraph per processor that supports
    all of them: model-level scheduling, the scheduler picks a processor per request."""
    check_processors(processors, unsupported)
    ops = frozenset(range(graph.num_ops))
    able = [p.name for p in processors if not unsupported.get(p.name, frozenset()) & ops]
    if not able:
        raise UserError(f"model {graph.name!r}: no processor runs all of its ops, so it cannot "
                        "run without subgraph partitioning (adms partition: false)")
    subgraphs = tuple(Subgraph(k, graph.name, name, ops, (0,)) for k, name in enumerate(able))
    return ModelPlan(graph.name, (ops,), (frozenset(able),), subgraphs, graph.num_ops,
                     {"analyzer": "adms", "partition": False})
