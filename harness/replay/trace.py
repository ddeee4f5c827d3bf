"""The decision trace's lines: written from a policy's calls, read back into the same objects.

One JSON object per line (``docs/decision-traces.md`` has the format). The first line is the
header; every other line is a call, ``schedule`` or ``observe``, numbered ``i`` from 0 in
the order the policy received them. Jobs and requests are arrays in a fixed field order
(:data:`JOB_FIELDS`, :data:`REQUEST_FIELDS`) to keep long traces short; the rest are objects.
Floats are written as Python's ``repr`` (shortest round-trip), so a reader gets the same
double back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from harness.seams.plan import ModelPlan, Processor, ProcessorKind, Subgraph
from harness.seams.records import Completion, Request, SensorSample
from harness.seams.view import Decision, JobView, ProcessorView

#: the trace format's version (the header's ``version``)
VERSION = 2
#: a request as an array, in this order
REQUEST_FIELDS = ("request_id", "model", "frame_id", "arrival_ns", "slo_ns", "stream")
#: a queued job as an array: its own fields, then its request's, then the processor its last
#: subgraph ran on ("" before its first)
JOB_FIELDS = ("job_id", "next_unit", "enqueue_ns", "executed", *REQUEST_FIELDS,
              "last_processor")
#: a sensor reading's fields (an object; absent readings are null)
STATE_FIELDS = tuple(f.name for f in fields(SensorSample))


def dumps(obj: Mapping[str, Any]) -> str:
    """One line of the trace (no NaN: a reader in another language must parse it)."""
    return json.dumps(obj, separators=(",", ":"), allow_nan=False)


# -- writing -----------------------------------------------------------------------------------

def request_row(r: Request) -> list[Any]:
    return [r.request_id, r.model, r.frame_id, r.arrival_ns, r.slo_ns, r.stream]


def job_row(j: JobView) -> list[Any]:
    return [j.job_id, j.next_unit, j.enqueue_ns, j.executed, *request_row(j.request),
            j.last_processor]


def state_obj(s: SensorSample | None) -> dict[str, Any] | None:
    return None if s is None else {name: getattr(s, name) for name in STATE_FIELDS}


def processor_obj(p: ProcessorView) -> dict[str, Any]:
    return {"idle": p.idle, "available_ns": p.available_ns, "queued": p.queued,
            "state": state_obj(p.state)}


def decision_obj(d: Decision) -> dict[str, Any]:
    return {"assign": [[a.job_id, a.subgraph.model, a.subgraph.index] for a in d.assignments],
            "drop": list(d.drops), "work": d.work}


def completion_obj(c: Completion) -> dict[str, Any]:
    return {"job_id": c.job_id, "request": request_row(c.request), "model": c.subgraph.model,
            "subgraph": c.subgraph.index, "start_ns": c.start_ns, "end_ns": c.end_ns,
            "ok": c.ok}


def plan_obj(plan: ModelPlan) -> dict[str, Any]:
    return {"model": plan.model, "units": plan.num_units,
            "unit_support": [sorted(s) for s in plan.unit_support],
            "window_size": plan.window_size, "shared_interpreter": plan.shared_interpreter,
            "concurrent": plan.concurrent,
            "subgraphs": [{"index": sg.index, "processor": sg.processor, "units": list(sg.units)}
                          for sg in plan.subgraphs]}


def profile_rows(profile: Mapping[tuple[str, int], int]) -> list[list[Any]]:
    return [[model, index, int(ns)] for (model, index), ns in profile.items()]


# -- reading -----------------------------------------------------------------------------------

def lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open() as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def request_of(row: Sequence[Any]) -> Request:
    return Request(*row)


def job_of(row: Sequence[Any]) -> JobView:
    end = 4 + len(REQUEST_FIELDS)
    return JobView(row[0], request_of(row[4:end]), row[1], row[2], row[3], row[end])


def state_of(obj: Mapping[str, Any] | None) -> SensorSample | None:
    return None if obj is None else SensorSample(**obj)


def processors_of(header: Mapping[str, Any]) -> tuple[Processor, ...]:
    return tuple(Processor(p["name"], ProcessorKind(p["kind"])) for p in header["processors"])


def plan_of(obj: Mapping[str, Any]) -> ModelPlan:
    """The plan as the policy's calls read it: units as sets of no ops (their ops are not in
    the trace: no decision reads them)."""
    model = obj["model"]
    subgraphs = tuple(Subgraph(s["index"], model, s["processor"], frozenset(), tuple(s["units"]))
                      for s in obj["subgraphs"])
    return ModelPlan(model, tuple(frozenset() for _ in range(obj["units"])),
                     tuple(frozenset(s) for s in obj["unit_support"]), subgraphs,
                     obj["window_size"], {}, obj["shared_interpreter"], obj["concurrent"])


def profile_of(rows: Sequence[Sequence[Any]]) -> dict[tuple[str, int], int]:
    return {(m, i): ns for m, i, ns in rows}


def completion_of(obj: Mapping[str, Any], plans: Mapping[str, ModelPlan]) -> Completion:
    sg = next(s for s in plans[obj["model"]].subgraphs if s.index == obj["subgraph"])
    return Completion(obj["job_id"], request_of(obj["request"]), sg, obj["start_ns"],
                      obj["end_ns"], obj["ok"])
