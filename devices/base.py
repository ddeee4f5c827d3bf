"""The device protocol every backend implements (twin, host, adb).

A device runs at most one subgraph at a time on each processor; the runtime keeps the
processors' local queues and calls :meth:`Device.start` only on an idle processor. A device
never decides what runs where.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, runtime_checkable

from harness.graph import ModelGraph
from harness.plan import ModelPlan, Subgraph
from harness.runtime.api import Completion, DeviceInfo, Request, SensorSample


@runtime_checkable
class Device(Protocol):
    def describe(self) -> DeviceInfo:
        """Name, kind (twin/host/adb), processors, facts for the manifest."""
        ...

    def load(self, graphs: Mapping[str, ModelGraph], plans: Mapping[str, ModelPlan]) -> None:
        """Prepare to run every subgraph of ``plans`` (build slices, interpreters...)."""
        ...

    def profile(self, plan: ModelPlan, subgraph: Subgraph) -> int:
        """Latency in ns of ``subgraph`` run alone on its processor (measured or modelled)."""
        ...

    def start(
        self,
        job_id: int,
        request: Request,
        subgraph: Subgraph,
        now_ns: int,
        on_done: Callable[[Completion], None],
    ) -> None:
        """Begin running ``subgraph`` on its (idle) processor; call ``on_done`` when it ends."""
        ...

    def read_sensors(self, now_ns: int) -> tuple[SensorSample, ...]:
        """One reading per processor; unavailable sensors are ``None``, never invented."""
        ...

    def close(self) -> None:
        ...
