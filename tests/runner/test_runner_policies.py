"""The runner running the decision library's policies (``runner --policy HEADER``): vanilla
TFLite, Band and ADMS headers over chained slices of tiny models on two pinned workers. Every
request finishes, and the runner's own decision trace (``--decisions``) replays clean through
the Python policy (``check_phone_trace``) and the C++ replay; a header that does not match
the plan file is refused with one ``error:`` line. Skipped when cmake or g++ is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from baselines.band.config import BandConf, SchedulerName
from harness.replay.phone import check_phone_trace
from harness.replay.record import conf_obj
from harness.replay.replay import Mismatch
from tests.runner import native

pytestmark = pytest.mark.skipif(native.missing_tools() is not None,
                                reason=f"runner not buildable: {native.missing_tools()}")

CORES = sorted(os.sched_getaffinity(0))[:2]
MODELS = ("chain", "branchy")
FRAMES = 4
@pytest.fixture(scope="module")
def binary() -> Path:
    return native.build()


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory, tiny_models: dict[str, Path]
           ) -> native.Layout:
    return native.lay_out(tmp_path_factory.mktemp("policies"),
                          {m: tiny_models[m] for m in MODELS}, parts=3, cores=CORES)


def run_policy(binary: Path, layout: native.Layout, folder: Path, head: dict[str, Any],
               check: bool = True) -> subprocess.CompletedProcess[str]:
    (folder / "header.json").write_text(json.dumps(head))
    return native.run(binary, layout, "--frames", str(FRAMES), "--policy",
                      str(folder / "header.json"), "--decisions", str(folder / "trace.jsonl"),
                      "--requests", str(folder / "requests.tsv"), check=check)


@pytest.mark.parametrize("baseline", sorted(native.POLICIES))
def test_every_request_finishes_and_the_trace_replays_clean(
        binary: Path, layout: native.Layout, tmp_path: Path, baseline: str) -> None:
    run_policy(binary, layout, tmp_path, native.policy_header(baseline, layout, len(CORES)))
    requests = (tmp_path / "requests.tsv").read_text().splitlines()[1:]
    assert len(requests) == FRAMES * len(MODELS)
    assert all(int(line.split("\t")[3]) > 0 for line in requests), "a request was dropped"
    jobs = native.read_jobs(layout.plan.parent / "jobs.tsv")
    assert len(jobs) == FRAMES * sum(layout.subgraphs.values())
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    calls = [line["call"] for line in lines[1:]]
    assert calls.count("observe") == len(jobs)
    assert sum(len(line["decision"]["assign"]) for line in lines[1:]
               if line["call"] == "schedule") == len(jobs)
    views = [p for line in lines[1:] if line["call"] == "schedule" for p in line["processors"]]
    assert any(not p["idle"] for p in views), "no view saw a busy processor"
    assert check_phone_trace(tmp_path / "trace.jsonl") is None
    replayed = subprocess.run([str(native.BUILD / "replay"), str(tmp_path / "trace.jsonl")],
                              capture_output=True, text=True)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "replay clean" in replayed.stdout


def test_an_altered_phone_decision_is_named(binary: Path, layout: native.Layout,
                                            tmp_path: Path) -> None:
    run_policy(binary, layout, tmp_path, native.policy_header("adms", layout, len(CORES)))
    path = tmp_path / "trace.jsonl"
    text = path.read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    k = next(k for k, line in enumerate(lines)
             if line.get("call") == "schedule" and line["decision"]["assign"])
    lines[k]["decision"]["assign"] = []
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    mismatch = check_phone_trace(path)
    assert isinstance(mismatch, Mismatch) and mismatch.call == lines[k]["i"]
    path.write_text(text[:-20])  # (a cut run: its last line is cut short)
    assert isinstance(check_phone_trace(path), str)


def moved(head: dict[str, Any]) -> dict[str, Any]:
    head["plans"][0]["subgraphs"][1]["processor"] = "cpu0"
    return head


@pytest.mark.parametrize("change, message", [
    (lambda h: {**h, "plans": h["plans"][:1]}, "the header plans 1 models, the plan file 2"),
    (moved, "runs on cpu0 in the header and on cpu1 in the plan file"),
    (lambda h: {**h, "processors": h["processors"] + [{"name": "gpu", "kind": "gpu"}]},
     "processor gpu is not in the plan file"),
    (lambda h: {**h, "policy": "nowhere.Policy"}, "no C++ policy for nowhere.Policy"),
])
def test_a_header_that_does_not_match_the_plan_file_is_refused(
        binary: Path, layout: native.Layout, tmp_path: Path, change: Any, message: str) -> None:
    if len(CORES) < 2 and "cpu1" in message:
        pytest.skip("needs two processors")
    head = change(native.policy_header("band", layout, len(CORES)))
    result = run_policy(binary, layout, tmp_path, head, check=False)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("error: --policy ") and message in lines[-1], result.stderr


def test_subgraphs_assigned_to_a_busy_processor_wait_in_its_local_queue(
        binary: Path, tiny_models: dict[str, Path], tmp_path: Path) -> None:
    """Band's fixed_worker sends every job to its model's worker, busy or not: whole models,
    all on cpu0, so the views show subgraphs queued there, and the trace still replays."""
    layout = native.lay_out(tmp_path, {m: tiny_models[m] for m in ("chain", "branchy",
                                                                    "mobile_block")},
                            parts=1, cores=CORES)
    conf = BandConf(scheduler=SchedulerName.fixed_worker)
    head = native.policy_header("band", layout, len(CORES), conf=conf_obj(conf))
    (tmp_path / "header.json").write_text(json.dumps(head))
    native.run(binary, layout, "--streams", "4", "--policy", str(tmp_path / "header.json"),
               "--decisions", str(tmp_path / "trace.jsonl"))
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert any(p["queued"] > 0 for line in lines[1:] if line["call"] == "schedule"
               for p in line["processors"])
    assert sum(line["call"] == "observe" for line in lines[1:]) == 4 * 3
    models = [p["model"] for p in lines[0]["plans"]]
    requests = {tuple(line["request"]) for line in lines[1:] if line["call"] == "observe"}
    assert {(r[1], r[2], r[5]) for r in requests} == {  # (Python's stream traffic numbering)
        (m, k, s) for s, m in enumerate(models) for k in range(4)}
    assert check_phone_trace(tmp_path / "trace.jsonl") is None
    replayed = subprocess.run([str(native.BUILD / "replay"), str(tmp_path / "trace.jsonl")],
                              capture_output=True, text=True)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_adms_jobs_carry_their_last_processor_and_handoffs_price_them(
        binary: Path, layout: native.Layout, tmp_path: Path) -> None:
    """The runner's core sets a job's last processor as the Python runtime does (where its
    last subgraph ran; "" before its first), and ADMS reads the header's handoff facts: the
    trace (version 2) replays clean through both policies."""
    head = native.policy_header("adms", layout, len(CORES))
    head["facts"] = {"handoff": {p["model"]: [[sg["index"], 300_000] for sg in p["subgraphs"]
                                              if sg["units"][0] > 0] for p in head["plans"]}}
    run_policy(binary, layout, tmp_path, head)
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert lines[0]["facts"] == head["facts"]
    ran_on = {(p["model"], sg["units"][-1] + 1): sg["processor"] for p in head["plans"]
              for sg in p["subgraphs"]}
    rows = [row for line in lines[1:] if line["call"] == "schedule" for row in line["queue"]]
    assert all(row[10] == ("" if row[1] == 0 else ran_on[(row[5], row[1])]) for row in rows)
    assert any(row[10] for row in rows), "no job was seen past its first subgraph"
    assert check_phone_trace(tmp_path / "trace.jsonl") is None
    replayed = subprocess.run([str(native.BUILD / "replay"), str(tmp_path / "trace.jsonl")],
                              capture_output=True, text=True)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
