"""The Perfetto trace against a JSON schema of the Chrome trace format (the events it writes:
metadata, complete, flow and counter events), and the flows that link each request's
subgraphs."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness.reporting import trace
from tests.harness.reporting.test_metrics import small_run

NUMBER = {"type": "number"}
ID = {"type": "integer", "minimum": 0}


def event(ph: str, required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": ["ph", "pid", *required],
            "properties": {"ph": {"const": ph}, "pid": ID, **properties}}


#: the Chrome trace event format's object form, as far as this harness writes it
SCHEMA = {
    "type": "object",
    "required": ["traceEvents", "displayTimeUnit"],
    "properties": {
        "displayTimeUnit": {"enum": ["ms", "ns"]},
        "otherData": {"type": "object", "additionalProperties": {"type": "string"}},
        "traceEvents": {"type": "array", "items": {"oneOf": [
            event("M", ["name", "tid", "args"], name={"enum": ["process_name", "thread_name"]},
                  tid=ID, args={"type": "object", "required": ["name"]}),
            event("X", ["name", "cat", "tid", "ts", "dur", "args"], name={"type": "string"},
                  tid=ID, ts=NUMBER, dur={"type": "number", "minimum": 0},
                  args={"type": "object", "required": ["model", "request", "subgraph", "job",
                                                       "units", "ok"]}),
            *(event(ph, ["id", "name", "cat", "tid", "ts", "bp"], id=ID, tid=ID, ts=NUMBER,
                    name={"const": "request"}, cat={"const": "request"}, bp={"const": "e"})
              for ph in ("s", "t", "f")),
            event("C", ["name", "ts", "args"], name={"type": "string"}, ts=NUMBER,
                  args={"type": "object", "minProperties": 1,
                        "additionalProperties": {"type": "number"}}),
        ]}},
    },
}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("trace")
    return dict(json.loads(trace.write_trace(small_run(folder)).read_text()))


def test_the_trace_matches_the_schema(written: dict[str, Any]) -> None:
    jsonschema.validate(written, SCHEMA)


def test_the_schema_rejects_a_flow_without_its_id(written: dict[str, Any]) -> None:
    flow = next(e for e in written["traceEvents"] if e["ph"] == "s")
    bad = {**written, "traceEvents": [{k: v for k, v in flow.items() if k != "id"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)


def test_each_request_flows_through_its_subgraphs_in_order(written: dict[str, Any]) -> None:
    events = written["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    flows: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        if e["ph"] in "stf":
            flows[e["id"]].append(e)
    # small_run: every request runs two subgraphs (gpu, then cpu)
    requests = {(e["pid"], e["args"]["request"]) for e in slices}
    assert len(flows) == len(requests)
    for chain in flows.values():
        assert [e["ph"] for e in chain] == ["s", "f"]
        assert chain[0]["ts"] < chain[1]["ts"]
        # each sits inside a slice of one and the same request, on its own track (the
        # fixture's models overlap on a processor, so a slice of another may hold it too)
        holders = [{x["args"]["request"] for x in slices
                    if (x["pid"], x["tid"]) == (e["pid"], e["tid"])
                    and x["ts"] < e["ts"] < x["ts"] + x["dur"]} for e in chain]
        assert set.intersection(*holders)


def test_a_request_of_one_subgraph_has_no_flow(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    one = run.subgraphs[run.subgraphs["subgraph"] == 0]
    baselines = list(one["baseline"].astype(str).unique())
    flows = trace._flow_columns(one, dict.fromkeys(baselines, 0),
                                {b: k + 1 for k, b in enumerate(baselines)},
                                dict.fromkeys(one["processor"].astype(str).unique(), 1))
    assert len(flows["id"]) == 0
