"""What flows between traffic, runtime, policy and device while a run goes on.

Time is integer nanoseconds everywhere (fields end in ``_ns``).

* Traffic makes :class:`Request` objects; the runtime turns each into a job that walks its
  model's :class:`~harness.seams.plan.ModelPlan` unit by unit.
* A device runs one subgraph at a time per processor and reports a :class:`Completion`; it
  answers sensor reads with :class:`SensorSample` rows and says what it is with
  :class:`DeviceInfo`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from harness.seams.plan import Processor, Subgraph


@dataclass(frozen=True, slots=True)
class Request:
    """One inference request of one model."""

    request_id: int
    model: str
    #: frame this request belongs to (all models of a scenario share a frame id), or -1
    frame_id: int
    arrival_ns: int
    #: latency budget; the deadline is ``arrival_ns + slo_ns``; 0 means no SLO
    slo_ns: int = 0
    #: which client (stream) issued it; closed-loop streams wait for their own requests
    stream: int = 0

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, request_id: int, model: str, frame_id: int, arrival_ns: int, slo_ns: int = 0,
                 stream: int = 0) -> None:
        object.__setattr__(self, "request_id", request_id)
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "frame_id", frame_id)
        object.__setattr__(self, "arrival_ns", arrival_ns)
        object.__setattr__(self, "slo_ns", slo_ns)
        object.__setattr__(self, "stream", stream)

    @property
    def deadline_ns(self) -> int | None:
        return self.arrival_ns + self.slo_ns if self.slo_ns > 0 else None


@dataclass(frozen=True, slots=True)
class SensorSample:
    """One reading of one processor's sensors; ``None`` means the sensor is not available."""

    processor: str
    t_ns: int
    temperature_c: float | None = None
    frequency_hz: float | None = None
    max_frequency_hz: float | None = None
    #: utilisation in [0, 1]
    load: float | None = None
    power_w: float | None = None
    #: the processor is throttled (its frequency capped by a thermal governor)
    throttled: bool | None = None
    #: temperature at which its thermal governor starts throttling
    throttle_temperature_c: float | None = None

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, processor: str, t_ns: int, temperature_c: float | None = None,
                 frequency_hz: float | None = None, max_frequency_hz: float | None = None,
                 load: float | None = None, power_w: float | None = None,
                 throttled: bool | None = None,
                 throttle_temperature_c: float | None = None) -> None:
        object.__setattr__(self, "processor", processor)
        object.__setattr__(self, "t_ns", t_ns)
        object.__setattr__(self, "temperature_c", temperature_c)
        object.__setattr__(self, "frequency_hz", frequency_hz)
        object.__setattr__(self, "max_frequency_hz", max_frequency_hz)
        object.__setattr__(self, "load", load)
        object.__setattr__(self, "power_w", power_w)
        object.__setattr__(self, "throttled", throttled)
        object.__setattr__(self, "throttle_temperature_c", throttle_temperature_c)


@dataclass(frozen=True, slots=True)
class Completion:
    """A subgraph that finished on a device."""

    job_id: int
    request: Request
    subgraph: Subgraph
    start_ns: int
    end_ns: int
    #: False when the device failed to run it
    ok: bool = True

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, job_id: int, request: Request, subgraph: Subgraph, start_ns: int,
                 end_ns: int, ok: bool = True) -> None:
        object.__setattr__(self, "job_id", job_id)
        object.__setattr__(self, "request", request)
        object.__setattr__(self, "subgraph", subgraph)
        object.__setattr__(self, "start_ns", start_ns)
        object.__setattr__(self, "end_ns", end_ns)
        object.__setattr__(self, "ok", ok)

    @property
    def latency_ns(self) -> int:
        return self.end_ns - self.start_ns


@dataclass(frozen=True, slots=True)
class DelegateLimits:
    """How vanilla TFLite's delegate for one processor partitions a model: it keeps at most
    ``max_partitions`` delegated partitions (``None``: all) of at least ``min_partition_ops``
    ops each; the rest falls back to the CPU."""

    max_partitions: int | None = None
    min_partition_ops: int = 1


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What a device says of itself; recorded in every run's manifest."""

    name: str
    #: ``twin``, ``host`` or ``adb``: which kind produced the numbers
    kind: str
    processors: tuple[Processor, ...]
    facts: Mapping[str, object] = field(default_factory=dict)
    #: the processor that runs every op, where unsupported ops fall back (the CPU)
    fallback: str = "cpu"
    #: processor name -> its delegate's partition limits (processors not listed: no limits)
    delegates: Mapping[str, DelegateLimits] = field(default_factory=dict)
