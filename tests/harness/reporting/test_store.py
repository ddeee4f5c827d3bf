"""Results are journaled row by row and survive a run that never closed."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harness.reporting import parquet
from harness.reporting.runfolder import RunFolder
from harness.reporting.store import RunRecorder, load_run
from harness.seams.claim import LOCK
from harness.seams.errors import UserError


def req(i: int, status: str = "ok") -> dict:
    return {"baseline": "adms", "seed": 0, "request_id": i, "model": "m", "frame_id": i,
            "stream": 0, "arrival_ns": 10 * i, "start_ns": 10 * i + 1, "end_ns": 10 * i + 5,
            "slo_ns": 0,
            "status": status, "processors": "cpu", "n_subgraphs": 1, "warmup": False}


def test_round_trip_through_parquet(tmp_path: Path) -> None:
    rec = RunRecorder(tmp_path)
    for i in range(3):
        rec.requests.append(req(i))
    rec.write_manifest({"device": "k50pro"})
    rec.close()
    run = load_run(tmp_path)
    assert list(run.requests["request_id"]) == [0, 1, 2]
    assert str(run.requests["status"].dtype) == "string"
    assert run.manifest["device"] == "k50pro"
    assert run.subgraphs.empty and run.sensors.columns[0] == "baseline"


KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from harness.reporting import store
rec = store.RunRecorder(Path(sys.argv[1]), batch=2)
def row(i, status):
    return {"baseline": "adms", "seed": 0, "request_id": i, "model": "m", "frame_id": i,
            "stream": 0, "arrival_ns": 0, "start_ns": 1, "end_ns": 5, "slo_ns": 0,
            "status": status, "processors": "cpu", "n_subgraphs": 1, "warmup": False}
rec.append("requests", row(0, "ok"))
rec.append("requests", row(1, "dropped"))  # a batch of 2: written
store.FLUSH_S = 0.0
rec.append("requests", row(2, "ok"))  # its second is up: written
store.FLUSH_S = 1e9
rec.append("requests", row(3, "ok"))  # held, never written
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_run_keeps_every_written_batch(tmp_path: Path) -> None:
    """Rows are written when a batch is full and when a second went by; a kill loses only
    the rows held since (here one), and a batch cut by the kill ends the journal. The killed
    run's folder is read in place, as it is: no finishing step, nothing written into it, and
    its claim is no longer held (the run is not going on)."""
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(tmp_path)], check=False)
    assert proc.returncode == -signal.SIGKILL
    assert not (tmp_path / "requests.parquet").exists()
    with (tmp_path / "requests.arrows").open("ab") as fh:
        fh.write(b"\xff\xff\xff\xff\x90\x01\x00\x00garbage")  # a batch cut by the kill
    before = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in tmp_path.iterdir())
    run = load_run(tmp_path)
    assert list(run.requests["request_id"]) == [0, 1, 2]
    assert list(run.requests["status"]) == ["ok", "dropped", "ok"]
    assert list(load_run(tmp_path).requests["request_id"]) == [0, 1, 2]  # read again: same
    assert sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns)
                  for p in tmp_path.iterdir()) == before
    assert (tmp_path / LOCK).exists() and RunFolder(tmp_path).recorder_pid is None


def test_unknown_schema_is_refused(tmp_path: Path) -> None:
    rec = RunRecorder(tmp_path)
    rec.close()
    (tmp_path / "manifest.json").write_text('{"schema_version": 99}')
    with pytest.raises(ValueError, match="schema 99"):
        load_run(tmp_path)


def test_a_folder_holding_a_run_is_not_appended_to(tmp_path: Path) -> None:
    rec = RunRecorder(tmp_path)
    rec.requests.append(req(0))
    rec.close()
    with pytest.raises(UserError, match="already holds a run"):
        RunRecorder(tmp_path)
    assert len(load_run(tmp_path).requests) == 1


def test_a_schema_1_folder_reads_with_its_manifest_seed(tmp_path: Path) -> None:
    row = {k: v for k, v in req(0).items() if k != "seed"}
    (tmp_path / "requests.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "manifest.json").write_text(json.dumps({"schema_version": 1, "seed": 4}))
    run = load_run(tmp_path)
    assert list(run.requests["seed"]) == [4] and run.requests.columns[1] == "seed"
    assert run.sensors.empty and "seed" in run.sensors.columns


@pytest.mark.parametrize(("index", "missing"), [(False, False), (False, True), (True, False)])
def test_read_parquet_is_what_pandas_reads(tmp_path: Path, index: bool, missing: bool) -> None:
    """Row group by row group into numpy for plain columns, pandas for the rest: the same
    frame as ``pd.read_parquet`` (strings, nullable booleans and integers, several row
    groups; missing values in a float column or a stored index: pandas reads it)."""
    nan = float("nan") if missing else 1.0
    frame = pd.DataFrame({
        "s": pd.array(["a", "b", None, "d"] * 3, dtype="string"),
        "i": pd.array(range(12), dtype="int64"),
        "f": [0.5, nan, 2.0] * 4,
        "b": [True, False] * 6,
        "nb": pd.array([True, None, False, True] * 3, dtype="boolean"),
        "ni": pd.array([1, None, 3] * 4, dtype="Int64"),
    }, index=pd.RangeIndex(12) * 2 if index else None)
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=index, row_group_size=5)
    got, want = parquet.read_parquet(path), pd.read_parquet(path)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert list(got.dtypes) == list(want.dtypes)
