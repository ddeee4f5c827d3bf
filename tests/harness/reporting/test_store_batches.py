"""Rows held in columns, journaled a batch at a time, read back as the tables they were.

The journals (harness/reporting/journal.py) hold what the columns (columns.py) held: a batch
is written when it is full or when a second went by, every complete batch survives a kill,
and the parquet file reads back as the frame pandas makes of the rows themselves (subgraph
shapes, journaled as an Arrow dictionary, included).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest
from pytest import MonkeyPatch

from harness.experiment.bounds import Timings
from harness.experiment.recording import RunRows
from harness.reporting import journal, parquet, store
from harness.reporting.journal import journal_frame, read_batches
from harness.reporting.store import (
    RunRecorder,
    load_run,
)
from harness.seams.records import Completion, Request, SensorSample
from harness.seams.rows import (
    REQUEST_COLUMNS,
    SENSOR_COLUMNS,
    SUBGRAPH_COLUMNS,
    request_row,
    sensor_row,
    subgraph_row,
)
from tests.fixtures.policies import plan


def sg(i: int, shape: int = 0) -> dict[str, Any]:
    return {"baseline": "adms", "seed": 0, "request_id": i, "job_id": i, "model": f"m{shape}",
            "subgraph": shape % 3, "processor": ("cpu", "gpu")[shape % 2], "first_unit": shape,
            "last_unit": shape + 1, "n_ops": 2, "start_ns": 10 * i, "end_ns": 10 * i + 5,
            "ok": i % 4 != 3}


def expected(rows: list[dict[str, Any]], columns: dict[str, str]) -> pd.DataFrame:
    """What pandas makes of the rows themselves."""
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


def test_batches_are_written_when_full_and_joined_on_close(tmp_path: Path) -> None:
    rec = RunRecorder(tmp_path, batch=4)
    for i in range(10):
        rec.subgraphs.append(sg(i))
    assert len(journal_frame(rec.subgraphs.journal, SUBGRAPH_COLUMNS)) == 8  # 2 batches, 2 held
    assert rec.subgraphs.held.rows() == 2
    rec.close()
    assert not rec.subgraphs.journal.exists()
    frame = load_run(tmp_path).subgraphs
    assert list(frame["request_id"]) == list(range(10))
    assert list(frame.columns) == list(SUBGRAPH_COLUMNS)
    assert str(frame["processor"].dtype) == "string"


def test_a_row_at_the_batch_boundary_is_written_with_its_batch(tmp_path: Path) -> None:
    rec = RunRecorder(tmp_path, batch=3)
    for i in range(3):
        rec.requests.append(_request(i))
    assert rec.requests.held.rows() == 0
    assert list(journal_frame(rec.requests.journal, REQUEST_COLUMNS)["request_id"]) == [0, 1, 2]
    rec.requests.append(_request(3))
    assert len(journal_frame(rec.requests.journal, REQUEST_COLUMNS)) == 3
    rec.close()
    assert list(load_run(tmp_path).requests["request_id"]) == [0, 1, 2, 3]


def test_held_rows_are_written_once_a_second_went_by(tmp_path: Path,
                                                     monkeypatch: MonkeyPatch) -> None:
    rec = RunRecorder(tmp_path)
    rec.requests.append(_request(0))
    rec.flush_due()  # less than a second since the recorder opened
    assert journal_frame(rec.requests.journal, REQUEST_COLUMNS).empty
    monkeypatch.setattr(store, "FLUSH_S", 0.0)
    rec.flush_due()
    assert list(journal_frame(rec.requests.journal, REQUEST_COLUMNS)["request_id"]) == [0]
    rec.close()


def test_closing_removes_every_journal(tmp_path: Path) -> None:
    rec = RunRecorder(tmp_path)
    rec.subgraphs.append(sg(0))
    rec.close()
    left = sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".arrows", ".jsonl"))
    assert left == []
    assert sorted(p.name for p in tmp_path.glob("*.tmp")) == []
    assert (tmp_path / "requests.parquet").exists() and (tmp_path / "subgraphs.parquet").exists()


KILLED = """
import os, signal, sys
from pathlib import Path
from harness.reporting import store
rec = store.RunRecorder(Path(sys.argv[1]), batch=3)
for i in range(7):
    rec.subgraphs.append({"baseline": "adms", "seed": 0, "request_id": i, "job_id": i,
        "model": "m" if i < 4 else "n", "subgraph": 0, "processor": "cpu", "first_unit": 0,
        "last_unit": 0, "n_ops": 1, "start_ns": i, "end_ns": i + 1, "ok": True})
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_run_keeps_every_written_batch(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path)], check=False)
    assert proc.returncode == -signal.SIGKILL
    assert not (tmp_path / "subgraphs.parquet").exists()
    (tmp_path / "subgraphs.parquet.tmp").write_bytes(b"PAR1 cut")  # a conversion cut short
    frame = load_run(tmp_path).subgraphs
    assert list(frame["request_id"]) == list(range(6))  # two batches of 3; 1 row was held
    assert list(frame["model"]) == ["m"] * 4 + ["n"] * 2  # a shape new in the second batch


def test_every_cut_of_a_journal_keeps_its_whole_batches(tmp_path: Path) -> None:
    """A kill can cut the file anywhere: reading keeps exactly the batches written whole."""
    rec = RunRecorder(tmp_path, batch=2)
    for i in range(5):
        rec.subgraphs.append(sg(i, shape=i))  # a new shape in every batch: dictionary deltas
    rec.subgraphs.flush()
    data = rec.subgraphs.journal.read_bytes()
    rec.close()
    cut = tmp_path / "cut.arrows"
    seen = []
    for end in range(len(data) + 1):
        cut.write_bytes(data[:end])
        seen.append(sum(b.num_rows for b in read_batches(cut)))
    assert seen == sorted(seen) and seen[-1] == 5
    assert set(seen) == {0, 2, 4, 5}


def test_subgraph_shapes_read_back_as_the_rows_themselves(tmp_path: Path) -> None:
    rows = [sg(i, shape=(i * 7) % 5) for i in range(23)]
    rec = RunRecorder(tmp_path, batch=4)
    for row in rows:
        rec.subgraphs.append(row)
    rec.close()
    got = load_run(tmp_path).subgraphs
    pd.testing.assert_frame_equal(got, expected(rows, SUBGRAPH_COLUMNS), check_exact=True)
    assert {str(got[c].dtype) for c in ("baseline", "model", "processor")} == {"string"}
    assert pq.ParquetFile(tmp_path / "subgraphs.parquet").schema_arrow.field("model").type \
        == "large_string"  # a plain string column, not a dictionary one


def test_requests_and_sensors_read_back_as_the_rows_themselves(tmp_path: Path) -> None:
    requests = [_request(i, status=("ok", "dropped", "unfinished")[i % 3]) for i in range(7)]
    sensors = [_sensor(i) for i in range(9)]
    rec = RunRecorder(tmp_path, batch=4)
    for row in requests:
        rec.requests.append(row)
    for row in sensors:
        rec.sensors.append(row)
    rec.close()
    run = load_run(tmp_path)
    pd.testing.assert_frame_equal(run.requests, expected(requests, REQUEST_COLUMNS),
                                  check_exact=True)
    pd.testing.assert_frame_equal(run.sensors, expected(sensors, SENSOR_COLUMNS),
                                  check_exact=True)
    assert run.sensors["throttled"].isna().sum() == 3 and math.isinf(run.sensors["load"][1])


def test_a_missing_value_where_the_dtype_has_none_is_an_error(tmp_path: Path) -> None:
    rec = RunRecorder(tmp_path)
    with pytest.raises(ValueError, match="start_ns"):
        rec.subgraphs.append({**sg(0), "start_ns": None})
    rec.requests.append(_request(0))
    rec.requests.flush()
    rec.requests.append({**_request(1), "arrival_ns": None})
    with pytest.raises(ValueError, match="arrival_ns"):
        rec.close()
    run = load_run(tmp_path)  # every table closed; the rows written are kept
    assert list(run.requests["request_id"]) == [0] and run.subgraphs.empty


def test_run_rows_record_what_the_row_functions_make(tmp_path: Path) -> None:
    """The runtime's callbacks (RunRows) write the rows of request_row, subgraph_row and
    sensor_row, and sum the latencies Timings.add sums."""
    mp, _ = plan("m", [("cpu", 0, 0, 1), ("gpu", 1, 2, 1), ("cpu", 3, 3, 1)])
    rec = RunRecorder(tmp_path, batch=5)
    rows = RunRows("adms", 3, lambda r: r.arrival_ns < 100, rec.subgraphs.held,
                   rec.requests.held, rec.sensors.held)
    completions, timings = [], Timings()
    for i in range(12):
        request = Request(i, "m", i // 2, 60 * i, slo_ns=7 * i, stream=i % 2)
        c = Completion(i, request, mp.subgraphs[i % 3], 60 * i + 1, 60 * i + 9 + i, i % 5 != 4)
        rows.record_subgraph(c)
        timings.add(c)
        completions.append(c)
        rows.record_request(request, "ok", _Job(c))
        rows.record_sample(SensorSample("cpu", 60 * i, 30.0 + i, None, 2e9, 0.5, 1.0,
                                        None if i % 2 else i % 3 == 0))
    assert rows.timings().seen == timings.seen
    rec.close()
    run = load_run(tmp_path)
    want_sub = [subgraph_row("adms", 3, c) for c in completions]
    want_req = [request_row("adms", 3, c.request, "ok", _Job(c), c.request.arrival_ns < 100)
                for c in completions]
    want_sens = [sensor_row("adms", 3, SensorSample("cpu", 60 * i, 30.0 + i, None, 2e9,
                                                          0.5, 1.0,
                                                          None if i % 2 else i % 3 == 0))
                 for i in range(12)]
    pd.testing.assert_frame_equal(run.subgraphs, expected(want_sub, SUBGRAPH_COLUMNS),
                                  check_exact=True)
    pd.testing.assert_frame_equal(run.requests, expected(want_req, REQUEST_COLUMNS),
                                  check_exact=True)
    pd.testing.assert_frame_equal(run.sensors, expected(want_sens, SENSOR_COLUMNS),
                                  check_exact=True)


def test_a_long_journal_converts_in_row_groups(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    monkeypatch.setattr(parquet, "ROW_GROUP", 4)
    rec = RunRecorder(tmp_path, batch=3)
    for i in range(10):
        rec.sensors.append(_sensor(i))
    rec.close()
    file = pq.ParquetFile(tmp_path / "sensors.parquet")
    assert [file.metadata.row_group(g).num_rows for g in range(file.num_row_groups)] == [4, 4, 2]
    assert list(load_run(tmp_path).sensors["t_ns"]) == list(range(10))


def _request(i: int, status: str = "ok") -> dict[str, Any]:
    return {"baseline": "adms", "seed": 0, "request_id": i, "model": ("a", "b")[i % 2],
            "frame_id": i // 2, "stream": 0, "arrival_ns": 10 * i, "start_ns": 10 * i + 1,
            "end_ns": 10 * i + 5 if status == "ok" else -1, "slo_ns": 0, "status": status,
            "processors": "cpu,gpu", "n_subgraphs": 2, "warmup": i == 0}


def _sensor(i: int) -> dict[str, Any]:
    """Sensor rows with what a sensor may lack: NaN and None floats, an unknown throttle."""
    return {"baseline": "band", "seed": 1, "t_ns": i, "processor": ("cpu", "gpu")[i % 2],
            "temperature_c": 30.0 + i / 3, "frequency_hz": None if i == 2 else 1e9,
            "max_frequency_hz": float("nan") if i == 3 else 2e9,
            "load": math.inf if i == 1 else 0.5, "power_w": 0.1 * i,
            "throttled": None if i % 3 == 0 else i % 2 == 0}


class _Job:
    """A request row's job facts (the runtime's JobRecord)."""

    def __init__(self, c: Completion) -> None:
        self.start_ns = c.start_ns
        self.end_ns = c.end_ns if c.ok else -1
        self.processors = "cpu,gpu"
        self.n_subgraphs = c.subgraph.index + 1


class _CutJob(_Job):
    """Job facts whose ``processors`` raises once, as Ctrl-C can in the middle of a row."""

    def __init__(self, c: Completion, cut: bool) -> None:
        super().__init__(c)
        self.cut = cut

    def __getattribute__(self, name: str) -> Any:
        if name == "processors" and object.__getattribute__(self, "cut"):
            raise KeyboardInterrupt
        return object.__getattribute__(self, name)


def test_a_row_cut_short_is_dropped_and_the_columns_stay_in_step(tmp_path: Path) -> None:
    """A request row cut while its values are read (Ctrl-C inside a property it reads)
    leaves nothing; one cut after half its values are appended (here made by hand) is not
    written; the rows after them (the runtime records unfinished jobs on the way out) are."""
    mp, _ = plan("m", [("cpu", 0, 0, 1)])
    rec = RunRecorder(tmp_path, batch=100)
    rows = RunRows("adms", 0, lambda r: False, rec.subgraphs.held, rec.requests.held,
                   rec.sensors.held)
    for i in range(4):
        c = Completion(i, Request(i, "m", i, 10 * i), mp.subgraphs[0], 10 * i, 10 * i + 5)
        with contextlib.suppress(KeyboardInterrupt):
            rows.record_request(c.request, "ok", _CutJob(c, cut=i == 1))
        held = rec.requests.held.lists()
        if i == 1:  # cut while read: no column holds a value of it
            assert {len(v) for v in held.values()} == {1} and rec.requests.held.rows() == 1
        if i == 2:  # half a row: some columns one value longer than the others
            held["baseline"].append("cut")
            held["request_id"].append(-1)
            assert rec.requests.held.rows() == 2
    rows.record_request(Request(9, "m", 9, 90), "unfinished", _Job(c))
    rec.close()
    requests = load_run(tmp_path).requests
    assert list(requests["request_id"]) == [0, 2, 3, 9]
    assert list(requests["status"]) == ["ok", "ok", "ok", "unfinished"]


def test_a_stop_signal_waits_for_the_batch_being_written() -> None:
    """Inside ``stops_held`` a SIGINT is noted; its handler runs once the block ends."""
    class Stop(Exception):
        pass

    def stop(_signum: int, _frame: object) -> None:
        raise Stop

    before = signal.signal(signal.SIGINT, stop)
    try:
        done = []
        with pytest.raises(Stop), journal.stops_held():
            os.kill(os.getpid(), signal.SIGINT)
            done.append("written")
            done.append("forgotten")
        assert done == ["written", "forgotten"]
        assert signal.getsignal(signal.SIGINT) is stop
    finally:
        signal.signal(signal.SIGINT, before)
