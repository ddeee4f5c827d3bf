"""What the twin's hot path knows of one subgraph (:mod:`devices.twin.device`): fixed for the
run, but for two caches (its arena is resident, its latency per state). Made once per
subgraph object."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harness.seams.plan import Subgraph


@dataclass(slots=True)
class Facts:
    """A subgraph's facts for the twin's hot path."""

    subgraph: Subgraph
    #: its processor's index
    i: int
    #: the key of its arena in :attr:`devices.twin.memory.Memory.touched`
    touch_key: tuple[str, str, frozenset[int]]
    #: (tensor, bytes) of its pure inputs
    inputs: tuple[tuple[int, int], ...]
    #: tensor -> its processor, for the tensors it writes (none when it ends its model's
    #: plan): what a run of it records in the job's tensor locations
    made: Mapping[int, str]
    #: it runs its plan's last unit: its job is complete after it
    last: bool
    #: its plan's invocations may run beside others on its processor (``ModelPlan.concurrent``)
    concurrent: bool
    #: its arena is known to be resident (in :attr:`devices.twin.memory.Memory.touched`)
    touched: bool
    #: its latency by state, ns: DVFS level at its start x ``_STATES`` + other processors
    #: busy (:meth:`devices.twin.device.TwinDevice._state_latency`)
    state_ns: dict[int, float]

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, subgraph: Subgraph, i: int, touch_key: tuple[str, str, frozenset[int]],
                 inputs: tuple[tuple[int, int], ...], made: Mapping[int, str], last: bool,
                 concurrent: bool = False) -> None:
        self.subgraph = subgraph
        self.i = i
        self.touch_key = touch_key
        self.inputs = inputs
        self.made = made
        self.last = last
        self.concurrent = concurrent
        self.touched = False
        self.state_ns = {}
