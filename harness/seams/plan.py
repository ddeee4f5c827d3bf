"""Execution plans: how a model is cut into subgraphs that processors can run.

A Model Analyzer (Band's, :mod:`baselines.band.analyzer`, or ADMS's, :mod:`adms.analyzer`)
turns a :class:`~harness.seams.graph.ModelGraph` and the processors' op support into a
:class:`ModelPlan`:

* **units** (``units``): disjoint op sets, in topological order, each supported by the same
  set of processors (``unit_support``); together they cover every op exactly once;
* **subgraphs**: what a scheduler can place. Each runs a contiguous range of units on one
  processor. A *unit subgraph* covers one unit on one processor; a *merged subgraph* covers
  several consecutive units.

A job (one inference request) walks its plan's units in order: the scheduler picks a subgraph
that starts at the job's next unit, runs it, and the job moves past the subgraph's last unit.

Counts follow the paper's Table III: ``unit`` = distinct units, ``unit_subgraphs`` = (unit,
processor) pairs, ``merged`` = multi-unit subgraphs, ``total`` = unit subgraphs + merged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum


class ProcessorKind(Enum):
    """The kinds of processor a phone SoC offers."""

    CPU = "cpu"
    GPU = "gpu"
    DSP = "dsp"
    NPU = "npu"


@dataclass(frozen=True, slots=True)
class Processor:
    """A processor a scheduler can place work on (Band: a worker)."""

    name: str
    kind: ProcessorKind


@dataclass(frozen=True, slots=True)
class Subgraph:
    """A contiguous range of units of one model, placed on one processor."""

    #: index within the model's plan
    index: int
    model: str
    processor: str
    ops: frozenset[int]
    #: the consecutive unit indices it covers, ascending
    units: tuple[int, ...]
    #: ``(model, index)``: the subgraph's key in latency estimates (made once)
    key: tuple[str, int] = field(init=False, repr=False, compare=False)

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, index: int, model: str, processor: str, ops: frozenset[int],
                 units: tuple[int, ...]) -> None:
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "processor", processor)
        object.__setattr__(self, "ops", ops)
        object.__setattr__(self, "units", units)
        object.__setattr__(self, "key", (model, index))

    @property
    def first_unit(self) -> int:
        return self.units[0]

    @property
    def last_unit(self) -> int:
        return self.units[-1]

    @property
    def is_merged(self) -> bool:
        return len(self.units) > 1


@dataclass(frozen=True, slots=True)
class PlanCounts:
    unit: int
    unit_subgraphs: int
    merged: int

    @property
    def total(self) -> int:
        return self.unit_subgraphs + self.merged


@dataclass(frozen=True, eq=False)
class ModelPlan:
    """All subgraphs of one model on one device, from one analyzer setting."""

    model: str
    units: tuple[frozenset[int], ...]
    #: for each unit, the processors that may run it
    unit_support: tuple[frozenset[str], ...]
    subgraphs: tuple[Subgraph, ...]
    #: the analyzer setting that produced it (ADMS window size / Band minimum_subgraph_size)
    window_size: int = 1
    #: how it was made, e.g. ``{"analyzer": "band", "preparation": "merge_unit_subgraph"}``
    meta: Mapping[str, object] = field(default_factory=dict)
    #: its subgraphs are the delegate partitions of one interpreter, run back to back
    #: (vanilla TFLite): no copies between them, no scheduler; otherwise each subgraph is an
    #: interpreter of its own that a scheduler dispatches (Band, ADMS)
    shared_interpreter: bool = False
    #: each of its streams is an interpreter of its own on an app thread (vanilla TFLite):
    #: invocations of different interpreters on one processor run concurrently, the device
    #: shares the processor among them; otherwise one worker per processor runs one subgraph
    #: at a time (Band, ADMS)
    concurrent: bool = False

    @property
    def num_units(self) -> int:
        return len(self.units)

    #: :attr:`starting_at`, made at its first read
    _starting: dict[int, tuple[Subgraph, ...]] | None = field(
        default=None, init=False, repr=False, compare=False)

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, model: str, units: tuple[frozenset[int], ...],
                 unit_support: tuple[frozenset[str], ...], subgraphs: tuple[Subgraph, ...],
                 window_size: int = 1, meta: Mapping[str, object] | None = None,
                 shared_interpreter: bool = False, concurrent: bool = False) -> None:
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "units", units)
        object.__setattr__(self, "unit_support", unit_support)
        object.__setattr__(self, "subgraphs", subgraphs)
        object.__setattr__(self, "window_size", window_size)
        object.__setattr__(self, "meta", {} if meta is None else meta)
        object.__setattr__(self, "shared_interpreter", shared_interpreter)
        object.__setattr__(self, "concurrent", concurrent)
        object.__setattr__(self, "_starting", None)

    @property
    def starting_at(self) -> Mapping[int, tuple[Subgraph, ...]]:
        """Unit index -> subgraphs whose first unit it is (made once: not a cached_property,
        which compiled code reads as a plain property)."""
        got = self._starting
        if got is None:
            table: dict[int, list[Subgraph]] = {}
            for sg in self.subgraphs:
                table.setdefault(sg.first_unit, []).append(sg)
            got = {u: tuple(sgs) for u, sgs in table.items()}
            object.__setattr__(self, "_starting", got)
        return got

    def candidates(self, next_unit: int) -> tuple[Subgraph, ...]:
        """Subgraphs a job whose next unit is ``next_unit`` can run now."""
        return self.starting_at.get(next_unit, ())

    def counts(self) -> PlanCounts:
        unit_sgs = sum(1 for sg in self.subgraphs if not sg.is_merged)
        return PlanCounts(self.num_units, unit_sgs, len(self.subgraphs) - unit_sgs)

    def processors(self) -> frozenset[str]:
        return frozenset(sg.processor for sg in self.subgraphs)


def op_ranges(ops: Iterable[int]) -> str:
    """``{0,1,2,5}`` -> ``0-2,5``."""
    spans: list[list[int]] = []
    for i in sorted(ops):
        if spans and i == spans[-1][1] + 1:
            spans[-1][1] = i
        else:
            spans.append([i, i])
    return ",".join(f"{a}-{b}" if a != b else str(a) for a, b in spans)
