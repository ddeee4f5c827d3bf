"""The decision trace's lines: written from a policy's calls, read back into the same objects.

One JSON object per line (``docs/decision-traces.md`` has the format). The first line is the
header; every other line is a call, ``schedule`` or ``observe``, numbered ``i`` from 0 in
the order the policy received them. Jobs and requests are arrays in a fixed field order
(:data:`JOB_FIELDS`, :data:`REQUEST_FIELDS`) to keep long traces short; the rest are objects.
Floats are written as Python's ``repr`` (shortest round-trip), so a reader gets the same
double back.

Reading is as strict as the runner's C++ reader (``runner/src/policies/json.cc``): nesting
deeper than :data:`MAX_DEPTH`, a malformed escape (``\\u12zz``), a key given twice, NaN, an
infinite number or an integer past 64 bits, and a line that is not an object are each a
:class:`TraceError` naming the line and the offset in it. A last line with no newline that
does not parse was cut by a killed run: :class:`TraceLines` stops before it and keeps why
in ``cut``.
"""

from __future__ import annotations

import json
import math
import re
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
#: the deepest nesting of objects and arrays a line may have (the C++ reader's kMaxNesting;
#: a trace line needs 5)
MAX_DEPTH = 64


class TraceError(ValueError):
    """A trace line that cannot be read (the message names the line and the offset)."""


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

class _Refused(Exception):
    """What a decoder hook refuses: why, and the text it refused (to find its offset)."""

    def __init__(self, why: str, text: str) -> None:
        super().__init__(why)
        self.text = text


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"key {json.dumps(key)} given twice", json.dumps(key) + ":")
            seen.add(key)
    return obj


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(f"number out of range {text}", text)
    return value


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number", name)


def _int64(text: str) -> int:
    value = int(text)
    if not -2**63 <= value < 2**63:
        raise _Refused(f"integer out of the 64-bit range {text}", text)
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_float=_finite,
                            parse_constant=_constant)
#: the same, checking every integer fits 64 bits (slower: used on lines that may hold one
#: that does not, :data:`_LONG`)
_DECODER_INT64 = json.JSONDecoder(object_pairs_hook=_unique, parse_float=_finite,
                                  parse_constant=_constant, parse_int=_int64)
#: a run of digits that may not fit 64 bits (20 or more, or 19 from a 9)
_LONG = re.compile(r"\d{20}|(?<!\d)9\d{18}")
#: a JSON string (escapes included) or a bracket: the tokens nesting is counted over
_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _too_deep(text: str) -> int | None:
    """The offset where ``text`` nests deeper than :data:`MAX_DEPTH`, or None."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    depth = 0
    for token in _NESTING.finditer(text):
        c = token.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return token.start()
        elif c in "]}":
            depth -= 1
    return None


def loads(text: str) -> dict[str, Any]:
    """One trace line as an object; :class:`TraceError` (naming the offset) otherwise."""
    deep = _too_deep(text)
    if deep is not None:
        raise TraceError(f"nesting deeper than {MAX_DEPTH} at offset {deep}")
    try:
        obj = (_DECODER_INT64 if _LONG.search(text) else _DECODER).decode(text)
    except json.JSONDecodeError as e:
        raise TraceError(f"{e.msg.removesuffix(' at')} at offset {e.pos}") from None
    except _Refused as e:  # (its offset: the last place its text occurs, a repeated key's)
        raise TraceError(f"{e} at offset {max(0, text.rfind(e.text))}") from None
    if not isinstance(obj, dict):
        raise TraceError("not a JSON object at offset 0")
    return obj


class TraceLines(Iterator[dict[str, Any]]):
    """A trace's objects, line by line (blank lines skipped); a bad line is a
    :class:`TraceError` naming it. A last line with no newline that does not parse was cut
    by a killed run: iteration stops before it and :attr:`cut` says why."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: the line read last (1 = the header)
        self.number = 0
        #: why the cut last line does not parse ("line N: ..."), None when none was cut
        self.cut: str | None = None
        self._lines = self._read()

    def _read(self) -> Iterator[dict[str, Any]]:
        # (bytes that are not UTF-8 kept as surrogates: the C++ reader keeps bytes too)
        with self.path.open(encoding="utf-8", errors="surrogateescape", newline="\n") as f:
            for self.number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    yield loads(line)
                except TraceError as e:
                    if line.endswith("\n"):
                        raise TraceError(f"line {self.number}: {e}") from None
                    self.cut = f"line {self.number}: {e}"
                    return

    def __next__(self) -> dict[str, Any]:
        return next(self._lines)


def lines(path: Path) -> TraceLines:
    return TraceLines(path)


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
