"""The bench against the C++ library: traces recorded from a short twin run time cleanly,
every decision's counted work is the Python's (the audit of counts: the bench replays each
decision and refuses one whose work differs), Band reports the work it actually did, and
an altered count is named by its call. Skipped when cmake or g++ is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.decision_cost.bench import timings
from harness.decision_cost.record import record_twin
from harness.seams.errors import UserError
from tests.runner import native

pytestmark = pytest.mark.skipif(native.missing_tools() is not None,
                                reason=f"runner not buildable: {native.missing_tools()}")


@pytest.fixture(scope="module")
def bench() -> Path:
    native.build()
    return native.BUILD / "decision_bench"


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return record_twin("k50pro", "frs", ["tflite", "band", "adms_ef"], 1, 0.4,
                       tmp_path_factory.mktemp("traces"))


def recorded_work(trace: Path) -> list[int]:
    calls = [json.loads(line) for line in trace.read_text().splitlines()[1:] if line]
    return [c["decision"]["work"] for c in calls if c["call"] == "schedule"]


@pytest.mark.parametrize("baseline", ["tflite", "band", "adms_ef"])
def test_every_decision_is_timed_with_the_pythons_counted_work(
        bench: Path, traces: dict[str, Path], baseline: str) -> None:
    rows = timings(traces[baseline], 2, bench)
    assert [r.work for r in rows] == recorded_work(traces[baseline])
    assert len(rows) > 20 and all(r.min_ns <= r.median_ns for r in rows)
    assert any(r.starts_nothing for r in rows) or baseline == "tflite"


def test_band_reports_the_work_it_did_and_the_others_do_not(
        bench: Path, traces: dict[str, Path]) -> None:
    band = timings(traces["band"], 1, bench)
    assert all(r.performed >= 0 for r in band)
    # its round's estimate copies: at least one per plan subgraph of a model it searched
    assert sum(r.performed for r in band) != sum(r.work for r in band)
    assert all(r.performed == -1 for r in timings(traces["adms_ef"], 1, bench))


def test_a_count_the_cpp_policy_does_not_make_is_named(
        bench: Path, traces: dict[str, Path], tmp_path: Path) -> None:
    lines = traces["band"].read_text().splitlines()
    k = next(i for i, line in enumerate(lines)
             if i > 0 and json.loads(line)["call"] == "schedule")
    call = json.loads(lines[k])
    call["decision"]["work"] += 1
    lines[k] = json.dumps(call)
    altered = tmp_path / "altered.jsonl"
    altered.write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError, match=f"decision differs at call {call['i']}"):
        timings(altered, 1, bench)
