"""Where vanilla TFLite runs each model: the best assignment of whole models to processors.

Vanilla TFLite has no scheduler: each model is handed to one delegate for the whole run. A
user who wants frames fast picks, for each model, the processor that makes the frame
cheapest, so that is what this baseline does (the strongest vanilla configuration, as the
paper's Figure 10 shows TFLite running one model per processor). For every model and every
processor, the TFLite plan on it (:func:`~baselines.tflite.plan.tflite_plan`, CPU fallback
included) puts some busy time per inference on each processor, from single-model profiles.
An assignment's per-frame *load* on a processor is the sum of its models' busy time there; a
frame rate above 1 / (the busiest processor's load) is impossible, so the best assignment
minimises that load. Ties: fewer models on the most shared processor, less total busy time,
then processors in device order. Every assignment is tried up to :data:`MAX_EXHAUSTIVE`;
beyond, models are placed greedily (the slowest first, each where the busiest processor
stays least loaded).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from harness.seams.errors import UserError

#: most assignments tried one by one (4 processors, 6 models)
MAX_EXHAUSTIVE = 4096

#: model -> processor it is delegated to -> busy ns per inference on each processor
Loads = Mapping[str, Mapping[str, Mapping[str, int]]]


def _key(assignment: Mapping[str, str], loads: Loads, order: Sequence[str]
         ) -> tuple[int, int, int, tuple[int, ...]]:
    busy = dict.fromkeys(order, 0)
    count = dict.fromkeys(order, 0)
    for model, proc in assignment.items():
        count[proc] += 1
        for p, ns in loads[model][proc].items():
            busy[p] += ns
    positions = tuple(order.index(assignment[m]) for m in sorted(assignment))
    return max(busy.values()), max(count.values()), sum(busy.values()), positions


def _options(loads: Loads, pinned: Mapping[str, str]) -> dict[str, list[str]]:
    options = {}
    for model, by_proc in loads.items():
        if model in pinned:
            if pinned[model] not in by_proc:
                raise UserError(f"tflite: processor {pinned[model]!r} for model {model!r} is "
                                f"not on this device; processors: {sorted(by_proc)}")
            options[model] = [pinned[model]]
        else:
            options[model] = list(by_proc)
    return options


def best_assignment(loads: Loads, order: Sequence[str],
                    pinned: Mapping[str, str] | None = None) -> dict[str, str]:
    """Model -> processor (``order``: the device's processors, for ties)."""
    options = _options(loads, pinned or {})
    models = sorted(options)
    combos = 1
    for m in models:
        combos *= len(options[m])
    if combos <= MAX_EXHAUSTIVE:
        every = (dict(zip(models, pick, strict=True))
                 for pick in itertools.product(*(options[m] for m in models)))
        return min(every, key=lambda a: _key(a, loads, order))
    return _greedy(loads, options, order)


def _greedy(loads: Loads, options: Mapping[str, list[str]], order: Sequence[str]
            ) -> dict[str, str]:
    def fastest(model: str) -> int:
        return min(sum(loads[model][p].values()) for p in options[model])

    chosen: dict[str, str] = {}
    for model in sorted(options, key=lambda m: (-fastest(m), m)):
        chosen[model] = min(options[model],
                            key=lambda p: _key({**chosen, model: p}, loads, order))
    return chosen
