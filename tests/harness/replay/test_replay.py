"""Decision traces in Python: a trace recorded from a twin run replays clean through its
policy (it holds everything the decisions read), and an altered decision is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.replay.__main__ import main
from harness.replay.replay import replay
from tests.fixtures.traces import record_twin

BASELINES = ("tflite", "tflite_gpu", "adms", "adms_ef", "adms_lp_split")


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("traces")
    paths = record_twin("k50pro", "frs", BASELINES, 3, folder, folder / "cache")
    return dict(zip(BASELINES, paths, strict=True))


@pytest.mark.parametrize("baseline", BASELINES)
def test_a_recorded_trace_replays_clean(traces: dict[str, Path], baseline: str) -> None:
    count, mismatch = replay(traces[baseline])
    assert mismatch is None
    assert count > 10


def test_an_altered_decision_is_named(traces: dict[str, Path], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    lines = traces["adms_ef"].read_text().splitlines()
    k, call = next((k, json.loads(line)) for k, line in enumerate(lines[1:], 1)
                   if '"assign":[[' in line)
    call["decision"]["assign"][0][2] += 1
    lines[k] = json.dumps(call)
    altered = tmp_path / "altered.jsonl"
    altered.write_text("\n".join(lines) + "\n")
    assert main([str(altered)]) == 1
    assert f"differs at call {call['i']} " in capsys.readouterr().out
