"""The twin of this machine: a calibrated twin that cuts models as the ``host`` device does.

``python -m harness.validate`` writes a twin device YAML of the host (``host_twin``, from the
host's own single-slice measurements: :mod:`harness.validate.twin`) whose ``_target_`` is
:class:`HostTwinDevice`. It is a :class:`~devices.twin.calibrated.CalibratedTwinDevice` (it
simulates the very ``.tflite`` files measured) with one difference: a processor with
``support: xnnpack`` rejects exactly the ops the XNNPACK delegate rejected when the host
tried the model (:func:`~devices.host.workers.xnnpack_unsupported_ops`), not the public
rules' estimate, so that host and twin run the same plans; and every subgraph is an
interpreter of its own, dispatched by the runtime and copying its inputs in, also where a
plan says its subgraphs are one interpreter's delegate partitions (vanilla TFLite's): the
host runs each partition as a slice on its processor's worker. Everything else is the
twin's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np
import simpy

from devices.host.device import adjust_by_kind
from devices.host.workers import xnnpack_unsupported_ops
from devices.opsupport import unsupported_ops
from devices.processors import ProcessorConf, SupportRules
from devices.twin.calibrated import CalibratedTwinDevice
from devices.twin.config import TwinDeviceConf
from devices.twin.latency import NS_PER_US, SubgraphCost
from harness.seams.device import DeviceContext, DeviceKind
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Subgraph


class HostTwinDevice(CalibratedTwinDevice):
    """A twin of this machine; see the module docstring."""

    kind: ClassVar[DeviceKind] = DeviceKind("twin", "SIMULATION (twin of this machine)")

    def __init__(self, conf: TwinDeviceConf, env: simpy.Environment, rng: np.random.Generator,
                 graphs: Mapping[str, ModelGraph] | None = None,
                 paths: Mapping[str, Path] | None = None) -> None:
        super().__init__(conf, env, rng, graphs)
        self._paths = dict(paths or {})
        self._xnnpack: dict[str, frozenset[int]] = {}

    @classmethod
    def open(cls, conf: TwinDeviceConf, context: DeviceContext) -> HostTwinDevice:
        return cls(conf, simpy.Environment(), context.rng, context.graphs, context.paths)

    def profile(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """What the host's profile of the subgraph would read: its slice alone on its
        worker, so without the runtime's overhead per subgraph (``scheduler_fixed_us``),
        which the host pays around a subgraph in a run but never inside a profile. The
        policies plan with the numbers they would see on the host."""
        ns = super().profile(plan, subgraph)
        dev = self.spec.device
        if not dev.mechanisms.scheduler_cost:
            return ns
        return max(1, ns - round(dev.scheduler_fixed_us * NS_PER_US))

    def _cost(self, subgraph: Subgraph, shared: bool | None = None) -> SubgraphCost:
        """As the twin's, but never a shared interpreter's partition (the module docstring)."""
        return super()._cost(subgraph, False)

    def op_support(self, graph: ModelGraph) -> dict[str, frozenset[int]]:
        """Processor name -> the ops of ``graph`` it cannot run, as on the host."""
        return {p.name: self._unsupported(graph, p) for p in self.conf.processors}

    def _unsupported(self, graph: ModelGraph, conf: ProcessorConf) -> frozenset[int]:
        if conf.support is not SupportRules.xnnpack:
            return unsupported_ops(graph, conf)
        if graph.name not in self._xnnpack:
            if graph.name not in self._paths:
                raise UserError(f"twin {self.spec.name}: no .tflite for model {graph.name!r} "
                                "(the host's twin tries XNNPACK on the model file)")
            self._xnnpack[graph.name] = xnnpack_unsupported_ops(self._paths[graph.name])
        return adjust_by_kind(self._xnnpack[graph.name], graph, conf)
