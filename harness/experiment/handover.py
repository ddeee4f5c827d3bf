"""A prepared policy handed to a device that runs it itself (a phone's native runner).

The runtime's loop (:mod:`harness.experiment.loop`) drives every other run. A
:class:`~harness.seams.device.PolicyRunner` gets instead, in a
:class:`~harness.seams.device.PolicyRun`: the policy's decision trace header (the recorder's,
:mod:`harness.replay.record`, so the device's twin of the policy is built from exactly what
a replay is), the run's seeded open-loop arrivals (the same :class:`Traffic` the loop would
issue), the warm-up rule and the replay of the device's own decision trace through the
Python policy. The device writes its rows into the run's sink as the loop would; the
subgraph rows that pass through :class:`TimedSink` are summed into the as-run bound's
:class:`~harness.experiment.bounds.Timings`.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from harness.config.schema import RunConf
from harness.experiment.bounds import Timings
from harness.replay.phone import check_phone_trace
from harness.replay.record import Recorder
from harness.runtime.traffic import Traffic
from harness.seams.device import PolicyRun, PolicyRunner, RowSink
from harness.seams.plan import ModelPlan, Processor
from harness.seams.policy import Policy
from harness.seams.records import Request


class TimedSink:
    """A row sink that also sums the latencies of the subgraph rows that succeeded."""

    def __init__(self, sink: RowSink) -> None:
        self.sink, self.timings = sink, Timings()

    def append(self, table: str, row: Mapping[str, Any]) -> None:
        if table == "subgraphs" and row["ok"]:
            self.timings.add_sum(str(row["model"]), int(row["subgraph"]),
                                 int(row["end_ns"]) - int(row["start_ns"]), 1)
        self.sink.append(table, row)


def header_of(policy: Policy, name: str, processors: tuple[Processor, ...],
              plans: Mapping[str, ModelPlan], profile: Mapping[tuple[str, int], int]
              ) -> dict[str, Any]:
    """The decision trace header of the prepared ``policy``, as the recorder writes it."""
    out = io.StringIO()
    Recorder(policy, out, name, processors).write_header(plans, profile)
    return dict(json.loads(out.getvalue()))


def open_loop_arrivals(traffic: Traffic) -> list[Request]:
    """Every request ``traffic`` issues, in arrival order (open loops: no completions)."""
    if traffic.scenario.arrival.closed:
        return []
    issued: list[Request] = []
    while (t := traffic.next_arrival_ns()) is not None:
        issued += traffic.pop_due(t)
    return issued


def _check(path: Path) -> str | None:
    found = check_phone_trace(path)
    return None if found is None else str(found)


def hand_over(cfg: RunConf, name: str, seed: int, device: PolicyRunner, sink: RowSink,
              rngs: Mapping[str, np.random.Generator], progress: Callable[[int], None],
              prepared: tuple[Policy, Mapping[str, ModelPlan], Mapping[tuple[str, int], int]],
              processors: tuple[Processor, ...], slo: Mapping[str, int]
              ) -> tuple[dict[str, Any], Timings]:
    """Run the prepared policy on ``device``: its facts and the measured timings."""
    policy, plans, profile = prepared
    traffic = Traffic(cfg.scenario, slo, rngs["traffic"])
    run = PolicyRun(name, seed, plans, profile,
                    header_of(policy, name, processors, plans, profile), cfg.scenario,
                    dict(slo), open_loop_arrivals(traffic), traffic.is_warmup, _check,
                    progress)
    timed = TimedSink(sink)
    facts = dict(device.run_policy(run, timed))
    return facts, timed.timings
