"""Subgraph rows in columnar batches written as the run goes; journals gone once converted."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from pytest import MonkeyPatch

from harness.reporting import store
from harness.reporting.store import SUBGRAPH_COLUMNS, BatchWriter, RunRecorder, load_run


def sg(i: int) -> dict:
    return {"baseline": "adms", "seed": 0, "request_id": i, "job_id": i, "model": "m",
            "subgraph": i % 3, "processor": "cpu", "first_unit": 0, "last_unit": 1, "n_ops": 2,
            "start_ns": 10 * i, "end_ns": 10 * i + 5, "ok": True}


def test_batches_are_written_as_the_run_goes_and_joined_on_close(tmp_path: Path) -> None:
    writer = BatchWriter(tmp_path, "subgraphs", batch=4)
    for i in range(10):
        writer.append(sg(i))
    assert len(list(writer.parts.glob("part-*.parquet"))) == 2  # 8 rows out, 2 held
    writer.close()
    assert not writer.parts.exists()
    frame = load_run(tmp_path).subgraphs
    assert list(frame["request_id"]) == list(range(10))
    assert list(frame.columns) == list(SUBGRAPH_COLUMNS)
    assert str(frame["processor"].dtype) == "string"


def test_closing_removes_every_journal(tmp_path: Path) -> None:
    rec = RunRecorder(tmp_path)
    rec.subgraphs.append(sg(0))
    rec.close()
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == []
    assert (tmp_path / "requests.parquet").exists() and (tmp_path / "subgraphs.parquet").exists()


KILLED = """
import os, signal, sys
from pathlib import Path
from harness.reporting import store
store.SUBGRAPH_BATCH = 3
rec = store.RunRecorder(Path(sys.argv[1]))
for i in range(7):
    rec.subgraphs.append({"baseline": "adms", "seed": 0, "request_id": i, "job_id": i,
        "model": "m", "subgraph": 0, "processor": "cpu", "first_unit": 0, "last_unit": 0,
        "n_ops": 1, "start_ns": i, "end_ns": i + 1, "ok": True})
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_run_keeps_every_written_batch(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path)], check=False)
    assert proc.returncode == -signal.SIGKILL
    assert not (tmp_path / "subgraphs.parquet").exists()
    frame = load_run(tmp_path).subgraphs
    assert list(frame["request_id"]) == list(range(6))  # two batches of 3; 1 row was held


def test_a_long_journal_converts_in_chunks(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    monkeypatch.setattr(store, "CONVERT_CHUNK", 4)
    rec = RunRecorder(tmp_path)
    for i in range(10):
        rec.sensors.append({"baseline": "b", "seed": 0, "t_ns": i, "processor": "cpu",
                            "temperature_c": 30.0 + i, "frequency_hz": None,
                            "max_frequency_hz": 1e9, "load": 0.5, "power_w": 1.0,
                            "throttled": None})
    rec.close()
    import pyarrow.parquet as pq

    assert pq.ParquetFile(tmp_path / "sensors.parquet").num_row_groups == 3
    sensors = load_run(tmp_path).sensors
    assert list(sensors["temperature_c"]) == [30.0 + i for i in range(10)]
