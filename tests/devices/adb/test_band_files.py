"""Band's config and job log at the pinned commit (:mod:`devices.adb.band_files`).

The trace below is written as chrome-tracer v0.0.2 writes it for Band's ``JobTracer``
(mrsnu/band @ 8600d49): ``Start`` instants, process and thread names, and B/E pairs whose E
``args`` are ``Job::ToJson()`` verbatim, which leaves a multi-unit ``unit_indices`` and a
``model_fname`` unquoted (so the file is not JSON until repaired).
"""

from __future__ import annotations

import json

import pytest

from devices.adb.band_files import (
    BandWorker,
    band_config,
    parse_summary,
    parse_trace,
    repair,
)

TRACE = (
    '{"traceEvents": [{"name": "Start", "ph": "i", "ts": 0, "tid": 1, "pid": 0},'
    '{"name": "Start", "ph": "i", "ts": 0, "tid": 2, "pid": 0},'
    '{"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "Band"}},'
    '{"name": "thread_name", "ph": "M", "pid": 0, "tid": 1, "args": {"name": "(CPUWorker ,0)"}},'
    '{"name": "thread_name", "ph": "M", "pid": 0, "tid": 2, "args": {"name": "(GPUWorker ,1)"}},'
    '{"name": "(Model 0, JobId 0)", "ph": "B", "ts": 10, "tid": 2, "pid": 0},'
    '{"name": "(Model 0, JobId 0)", "ph": "E", "ts": 30, "tid": 2, "pid": 0, "args": '
    '{"enqueue_time":1000,"invoke_time":1010,"end_time":1030,"profiled_execution_time":20,'
    '"expected_execution_time":20,"expected_latency":25,"slo_us":-1,"model_id":0,'
    '"unit_indices":0,1,2,"job_id":0}},'
    '{"name": "(Model 0, JobId 0)", "ph": "B", "ts": 31, "tid": 1, "pid": 0},'
    '{"name": "(Model 0, JobId 0)", "ph": "E", "ts": 40, "tid": 1, "pid": 0, "args": '
    '{"enqueue_time":1000,"invoke_time":1031,"end_time":1040,"profiled_execution_time":9,'
    '"expected_execution_time":9,"expected_latency":40,"slo_us":-1,"model_id":0,'
    '"model_fname":/data/local/tmp/m.tflite,"unit_indices":3,"job_id":0}}]}'
)


def test_the_unquoted_job_fields_are_repaired() -> None:
    with pytest.raises(ValueError):
        json.loads(TRACE)
    events = json.loads(repair(TRACE))["traceEvents"]
    assert events[6]["args"]["unit_indices"] == [0, 1, 2]
    assert events[8]["args"]["model_fname"] == "/data/local/tmp/m.tflite"


def test_a_trace_gives_workers_and_executed_subgraphs() -> None:
    trace = parse_trace(TRACE)
    assert trace.workers == {0: "CPU", 1: "GPU"}
    assert [(j.job_id, j.worker, j.units, j.invoke_us, j.end_us) for j in trace.jobs] == [
        (0, 1, (0, 1, 2), 1010, 1030), (0, 0, (3,), 1031, 1040)]
    assert trace.jobs[1].model_fname == "/data/local/tmp/m.tflite"
    assert {j.enqueue_us for j in trace.jobs} == {1000}  # a job keeps its enqueue time


def test_a_cut_trace_is_an_error() -> None:
    with pytest.raises(ValueError):
        parse_trace(TRACE[: len(TRACE) // 2])


def test_the_stdout_summary() -> None:
    out = ("--\t\t Band Benchmark Tool \t\t--\n<Option>\n  [Execution mode] : periodic\n"
           "<Model>\n  </data/local/tmp/a.tflite>\n    [Batch size] : 1\n"
           "<Result - /data/local/tmp/a.tflite>\n  [# Processed requests] : 120\n"
           "  [Avg. Latency (ms)] : 12.500000\n  [Avg. FPS] : 80.000000\n"
           "  [Total # requests] : 120\n  [Total # canceled requests] : 4\n"
           "  [SLO Satisfactory Rate (%)] : 96.5\n")
    [block] = parse_summary(out)
    assert block.name == "/data/local/tmp/a.tflite"
    assert block.values["# Processed requests"] == 120
    assert block.values["Total # canceled requests"] == 4
    assert block.values["SLO Satisfactory Rate (%)"] == 96.5


#: every key band/tool/benchmark.cc @ 8600d49 reads (LoadBenchmarkConfigs, LoadRuntimeConfigs)
READ_KEYS = {"models", "execution_mode", "running_time_ms", "profile_warmup_runs",
             "profile_num_runs", "profile_smoothing_factor", "profile_data_path",
             "schedule_window_size", "schedulers", "cpu_masks", "log_path", "workers",
             "availability_check_interval_ms", "minimum_subgraph_size",
             "subgraph_preparation_type"}
MODEL_KEYS = {"graph", "period_ms", "batch_size", "worker_id", "slo_us", "slo_scale"}


def test_the_config_uses_only_keys_band_reads() -> None:
    config = band_config([{"graph": "/g.tflite", "batch_size": 1, "slo_scale": 2.0}],
                         [BandWorker("CPU", 2, "BIG"), BandWorker("GPU", 1, "ALL")],
                         {"execution_mode": "stream", "schedulers": ["least_slack_time_first"],
                          "log_path": "/log.json", "running_time_ms": 1000})
    assert set(config) <= READ_KEYS
    assert all(set(m) <= MODEL_KEYS for m in config["models"])
    assert config["workers"] == [{"device": "CPU", "num_threads": 2, "cpu_masks": "BIG"},
                                 {"device": "GPU", "num_threads": 1, "cpu_masks": "ALL"}]
