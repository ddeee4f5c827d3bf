"""A twin calibrated from a phone: it simulates the very ``.tflite`` files measured on it.

``python -m harness.calibrate`` writes a twin device YAML whose ``_target_`` is
:class:`CalibratedTwinDevice`. Its processors carry ``measured_us`` latencies keyed by model
and op set (:mod:`devices.twin.spec`), measured on slices of the scenario's model files, so
the graphs it simulates must be those files' graphs, not the zoo's committed profiles: this
device asks the session for the model files (``needs_model_files``), as the host and the
phone do, and refuses a graph that cannot be the one measured (an op index past its end).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import numpy as np
import simpy

from devices.twin.config import TwinDeviceConf
from devices.twin.device import TwinDevice
from devices.twin.spec import TwinProcessorSpec
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph


class CalibratedTwinDevice(TwinDevice):
    """:class:`~devices.twin.device.TwinDevice` over the measured model files."""

    needs_model_files: ClassVar[bool] = True

    def __init__(self, conf: TwinDeviceConf, env: simpy.Environment, rng: np.random.Generator,
                 graphs: Mapping[str, ModelGraph] | None = None) -> None:
        super().__init__(conf, env, rng, graphs)
        for graph in (graphs or {}).values():
            check_measured(self.spec.name, self.spec.processors, graph)


def check_measured(device: str, processors: Sequence[TwinProcessorSpec], graph: ModelGraph
                   ) -> None:
    """Every measured op set of ``graph``'s model lies inside ``graph``."""
    for p in processors:
        for (model, ops), _ in p.measured_ns.items():
            if model == graph.name and max(ops) >= graph.num_ops:
                raise UserError(
                    f"twin {device}: {p.name} has a latency measured on a {model!r} with at "
                    f"least {max(ops) + 1} ops, but this {model!r} has {graph.num_ops}: "
                    "calibrate the twin again on these model files")
