"""The policy protocol: a baseline or ADMS, built from its config.

A policy cuts models into plans and makes scheduling decisions. It never sleeps, does I/O
(beyond its own analysis cache) or makes traffic. It is built by the composition root
(:mod:`harness.experiment.components`) from its config node, whose ``_target_`` names the
policy class: the class carries its schema as ``Conf`` and builds itself with
``from_config(conf, context)``. Its optional members, which :class:`Runner` runs it
(``runner``) and ``check_device``, are part of :class:`PolicyClass`, with their defaults in
:class:`PolicyDefaults`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.records import Completion, DeviceInfo
from harness.seams.view import Decision, SchedulerView

#: the latency in ns of a subgraph run alone on its processor (a device's ``profile``)
ProfileFn = Callable[[ModelPlan, Subgraph], int]


@runtime_checkable
class Policy(Protocol):
    """A baseline or ADMS: analysis of models into plans, and scheduling decisions."""

    #: short name used in results: ``tflite``, ``band``, ``adms``
    name: str
    #: unfinished jobs go back to the front of the queue (True) or to its back
    reinsert_front: bool

    def plan(
        self,
        graph: ModelGraph,
        processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]],
    ) -> ModelPlan:
        """Cut a model into the subgraphs this policy will place. ``unsupported[p]`` holds the
        indices of the ops processor ``p`` cannot run (Band: ``ModelSpec::unsupported_ops``)."""
        ...

    def prepare(
        self, plans: Mapping[str, ModelPlan], profile: Mapping[tuple[str, int], int]
    ) -> None:
        """Seed latency estimates: ``profile[(model, subgraph index)]`` = ns when run alone."""
        ...

    def schedule(self, view: SchedulerView) -> Decision:
        ...

    def observe(self, completion: Completion) -> None:
        """Learn from a finished subgraph (latency estimators)."""
        ...

    def expected_ns(self, subgraph: Subgraph) -> int:
        """The policy's current estimate of ``subgraph`` alone, ns: the runtime reports each
        processor's waiting time (``ProcessorView.available_ns``) with it, as Band's workers
        report theirs with the engine's estimates (``GetWaitingTime``)."""
        ...


@dataclass(frozen=True)
class PolicyContext:
    """What a policy may know of the run it is built for."""

    #: its name in results and in ``run`` (the key of its config under ``baselines``)
    name: str
    #: the device it will run on (processors, the CPU fallback, delegate limits)
    device: DeviceInfo
    #: the device's single-run latency of a subgraph (ADMS's window tuner measures with it)
    profile: ProfileFn
    #: where a policy may keep analysis results between runs (None: keep nothing)
    cache_dir: Path | None = None
    #: the run's models, and each one's op support (processor -> ops it cannot run)
    models: Mapping[str, ModelGraph] = field(default_factory=dict)
    op_support: Mapping[str, Mapping[str, frozenset[int]]] = field(default_factory=dict)
    #: the device's extra time for a subgraph whose predecessor ran elsewhere (a handoff)
    handoff: ProfileFn | None = None


class Runner(Enum):
    """What runs a baseline: the runtime, dispatching the subgraphs its policy decides, or a
    system a device may run with its own means (the host runs plain threads; a phone's stock
    ``benchmark_model`` and ``band_benchmark`` are vanilla TFLite's and Band's cross-checks,
    while the policies themselves run in its native runner). A baseline class
    declares its runner; a device declares the runners it runs itself
    (:class:`~harness.seams.device.BaselineRunner`) and the runtime drives the rest."""

    #: the runtime dispatches the policy's decisions on the device (every device)
    RUNTIME = "runtime"
    #: vanilla TFLite: each model whole on its processor's delegate
    TFLITE = "tflite"
    #: Band's engine and schedulers
    BAND = "band"
    #: one interpreter per model in its own thread, the OS sharing the cores
    THREADS = "threads"
    #: the stock TFLite ``benchmark_model``, one process per model (a phone's cross-check)
    TFLITE_STOCK = "tflite_stock"
    #: Band's own ``band_benchmark`` (a phone's cross-check)
    BAND_STOCK = "band_stock"


class PolicyClass(Protocol):
    """What a ``_target_`` of a baseline config must name (a class inheriting
    :class:`PolicyDefaults` has the optional members' defaults)."""

    #: the config schema (a dataclass) its node is validated against
    Conf: ClassVar[type]
    #: optional (default: the runtime): which system it is, for devices that run it themselves
    runner: ClassVar[Runner]

    def from_config(self, conf: Any, context: PolicyContext) -> Policy: ...

    def check_device(self, name: str, kind: str) -> None:
        """Optional (default: every kind). Before anything runs: refuse a device of kind
        ``kind`` (a :class:`~harness.seams.device.DeviceKind` word) with a UserError;
        ``name`` is the baseline's."""
        ...


class PolicyDefaults:
    """The defaults of :class:`PolicyClass`'s optional members: inherit it and override what
    the baseline needs."""

    #: the runtime runs it, on every device
    runner: ClassVar[Runner] = Runner.RUNTIME

    @classmethod
    def check_device(cls, name: str, kind: str) -> None:
        """Every device kind runs it."""
