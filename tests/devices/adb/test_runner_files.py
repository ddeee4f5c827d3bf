"""The native runner's files from the host's side, without a phone: the plan file written
from plans (chains as chains, alternatives with ``units=``), the arrivals file, the closed
loops' flags (the runtime's frames in flight and wait after a drop), the profile table read
back, and the job and request logs turned into rows (whole lines only, times on the
traffic's clock, each request's status)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import numpy as np
import pytest

from devices.adb.config import Accelerator, AdbProcessorBlock, AdbProcessorConf, Delegate
from devices.adb.profiling import parse_profile
from devices.adb.runner_logs import (
    RunnerTraffic,
    parse_jobs,
    parse_requests,
    start_of_traffic,
    write_rows,
)
from devices.adb.runner_plan import PlacedSlice, arrivals_text, is_chain, plan_text
from devices.adb.runner_run import MOST, RunnerRun, drop_wait_ns
from devices.adb.runner_sensors import parse_sensor_log, sensors_lines
from devices.adb.sensors import ProcessorSensors, SensorPlan
from harness.config.schema import Arrival, ScenarioConf
from harness.runtime.traffic import Traffic
from harness.seams.device import PolicyRun
from harness.seams.errors import UserError
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from harness.seams.records import Request
from harness.seams.rows import REQUEST_COLUMNS, SUBGRAPH_COLUMNS

T0 = 1_700_000_000_000_000_000  # phone CLOCK_REALTIME ns


def plan(model: str, ranges: list[tuple[str, tuple[int, ...]]], units: int) -> ModelPlan:
    subgraphs = tuple(Subgraph(i, model, proc, frozenset(us), us)
                      for i, (proc, us) in enumerate(ranges))
    return ModelPlan(model, tuple(frozenset({u}) for u in range(units)),
                     tuple(frozenset({"cpu", "gpu"}) for _ in range(units)), subgraphs)


CHAIN = plan("a", [("gpu", (0, 1)), ("cpu", (2,))], 3)
ALTERNATIVES = plan("b", [("cpu", (0,)), ("gpu", (0,)), ("cpu", (1,)), ("cpu", (0, 1))], 2)


def processors() -> list[AdbProcessorConf]:
    return [AdbProcessorConf(name="cpu", kind=ProcessorKind.CPU,
                             adb=AdbProcessorBlock(threads=2, cores=[2, 3])),
            AdbProcessorConf(name="gpu", kind=ProcessorKind.GPU,
                             adb=AdbProcessorBlock(delegate=Delegate.gpu,
                                                   accelerator=Accelerator.tflite))]


def test_a_chain_is_written_as_a_chain_and_alternatives_with_units() -> None:
    assert is_chain(CHAIN) and not is_chain(ALTERNATIVES)
    slices = {(p.model, sg.index): PlacedSlice(f"h{sg.index}/{p.model}.tflite", (7,), (9,))
              for p in (CHAIN, ALTERNATIVES) for sg in p.subgraphs}
    text = plan_text(processors(), {"a": CHAIN, "b": ALTERNATIVES},
                     {"a": ((0,), (5,)), "b": ((0, 1), (4,))}, slices, {"b": 50_000_000})
    lines = text.splitlines()[1:]
    assert lines[:2] == ["processor cpu accelerator=cpu threads=2 cores=2,3 kernel=xnnpack",
                         "processor gpu accelerator=tflite threads=1 delegate=gpu"]
    assert lines[2] == "model a inputs=0 outputs=5"
    assert lines[3] == ("subgraph a 0 processor=gpu slice=h0/a.tflite inputs=7 outputs=9")
    assert lines[5] == "model b inputs=0,1 outputs=4 slo_ns=50000000"
    assert lines[9] == ("subgraph b 3 processor=cpu units=0-1 slice=h3/b.tflite inputs=7 "
                        "outputs=9")
    assert all("units=" in line for line in lines[6:])


def test_arrivals_are_offsets_with_their_streams() -> None:
    arrivals = [Request(0, "a", 0, 0, 0, 0), Request(1, "b", 0, 0, 0, 1),
                Request(2, "a", 1, 25_000_000, 0, 0)]
    assert arrivals_text(arrivals) == "0 a 0\n0 b 1\n25000000 a 0\n"


def policy_run(arrival: Arrival, fps: float = 30.0, frames_in_flight: int = 2) -> PolicyRun:
    scenario = ScenarioConf(name="s", models=["a"], arrival=arrival, fps=fps,
                            frames_in_flight=frames_in_flight)
    return PolicyRun("band", 0, {"a": CHAIN}, {}, {}, scenario, {}, [], lambda _: False,
                     lambda _: None, lambda _: None)


@pytest.mark.parametrize(("arrival", "flags", "facts"), [
    (Arrival.frames, ["--frames", str(MOST), "--in-flight", "2", "--drop-wait-ns", "33333333"],
     {"frames_in_flight": 2, "drop_wait_ns": 33_333_333}),
    (Arrival.stream, ["--streams", str(MOST), "--drop-wait-ns", "33333333"],
     {"frames_in_flight": None, "drop_wait_ns": 33_333_333}),
])
def test_a_closed_loop_runs_as_the_runtimes_traffic(arrival: Arrival, flags: list[str],
                                                    facts: dict[str, int | None]) -> None:
    """Frames outstanding and one camera period after a drop, as the runtime's traffic; the
    manifest's facts say the values given."""
    run = policy_run(arrival)
    shipped, got = RunnerRun(cast(Any, None), cast(Any, None), cast(Any, None), {}).traffic(run)
    assert (got, shipped.closed) == (flags, arrival.value)
    assert RunnerRun.loop_facts(run, got) == facts


def test_an_open_loop_has_no_closed_loop_flags_or_facts() -> None:
    run = policy_run(Arrival.periodic)
    _, flags = RunnerRun(cast(Any, None), cast(Any, None), cast(Any, None), {}).traffic(run)
    assert flags == []
    assert RunnerRun.loop_facts(run, flags) == {"frames_in_flight": None, "drop_wait_ns": None}


@pytest.mark.parametrize("fps", [30.0, 29.97, 7.0, 60.0, 1e-3, 3.0])
def test_the_drop_wait_is_the_runtimes_camera_period_bit_for_bit(fps: float) -> None:
    scenario = ScenarioConf(name="s", models=["a"], fps=fps)
    traffic = Traffic(scenario, {}, np.random.default_rng(0))
    assert drop_wait_ns(scenario) == traffic._skip(True)


def test_the_profile_table_is_read_back_per_subgraph() -> None:
    text = ("model\tindex\tprocessor\tfirst_unit\tlast_unit\tn\tinvoke_ns_median\t"
            "invoke_ns_min\tcopy_ns_median\n"
            "a@0\t0\tgpu\t0\t1\t20\t1000\t900\t50\nb@3\t0\tcpu\t0\t1\t20\t300\t250\t7\n")
    assert parse_profile(text) == {("a", 0): 1050, ("b", 3): 307}
    with pytest.raises(UserError, match="no header"):
        parse_profile("model\tindex\n")


JOBS = "request\tmodel\tsubgraph\tprocessor\tstart_ns\tend_ns\tcopy_ns\tinvoke_ns\n"
REQUESTS = "request\tmodel\tarrival_ns\tend_ns\n"


def job(r: int, model: str, s: int, proc: str, start: int, end: int) -> str:
    return f"{r}\t{model}\t{s}\t{proc}\t{T0 + start}\t{T0 + end}\t10\t{end - start - 10}\n"


class Sink:
    def __init__(self) -> None:
        self.rows: dict[str, list[Mapping[str, Any]]] = {"requests": [], "subgraphs": []}

    def append(self, table: str, row: Mapping[str, Any]) -> None:
        self.rows[table].append(row)


def frames_rows(job_text: str, request_text: str) -> tuple[Sink, Any]:
    traffic = RunnerTraffic(("a", "b"), "frames", [], {"a": 9})
    jobs, ended = parse_jobs(job_text), parse_requests(request_text)
    t0 = start_of_traffic(traffic, ended, jobs)
    assert t0 is not None
    sink = Sink()
    written = write_rows("tflite", 1, sink, {"a": CHAIN, "b": ALTERNATIVES}, traffic,
                         (jobs, ended), t0, lambda r: r.arrival_ns < 100)
    return sink, written


def test_log_lines_become_rows_on_the_traffics_clock() -> None:
    jobs = JOBS + job(0, "a", 0, "gpu", 5, 100) + job(1, "b", 3, "cpu", 6, 90) + \
        job(0, "a", 1, "cpu", 110, 200) + job(2, "a", 0, "gpu", 210, 300)
    ended = REQUESTS + f"0\ta\t{T0}\t{T0 + 200}\n1\tb\t{T0}\t-1\n"
    sink, written = frames_rows(jobs, ended)
    assert written.statuses == {"ok": 1, "dropped": 1, "unfinished": 1}
    requests = {r["request_id"]: r for r in sink.rows["requests"]}
    assert list(requests[0]) == list(REQUEST_COLUMNS)
    assert (requests[0]["start_ns"], requests[0]["end_ns"], requests[0]["processors"],
            requests[0]["n_subgraphs"], requests[0]["slo_ns"]) == (5, 200, "gpu,cpu", 2, 9)
    assert requests[1]["status"] == "dropped" and requests[1]["end_ns"] == -1
    assert (requests[2]["frame_id"], requests[2]["stream"], requests[2]["status"]) == \
        (1, 0, "unfinished")  # frame 2 // 2 models; its model's index as the stream
    assert requests[0]["warmup"] and requests[1]["stream"] == 1
    subgraphs = sink.rows["subgraphs"]
    assert list(subgraphs[0]) == list(SUBGRAPH_COLUMNS) and len(subgraphs) == 4
    merged = next(s for s in subgraphs if s["model"] == "b")
    assert (merged["subgraph"], merged["first_unit"], merged["last_unit"], merged["n_ops"],
            merged["start_ns"], merged["end_ns"]) == (3, 0, 1, 2, 6, 90)
    assert written.end_ns == 300


def test_a_cut_log_gives_rows_of_its_whole_lines_only() -> None:
    whole = JOBS + job(0, "a", 0, "gpu", 5, 100)
    cut = whole + job(0, "a", 1, "cpu", 110, 200)[:-9]
    broken = whole + "0\ta\tx\tcpu\t1\t2\t3\t4\n"
    assert parse_jobs(cut) == parse_jobs(broken) == parse_jobs(whole)
    assert len(parse_jobs(whole)) == 1
    assert parse_requests(REQUESTS + f"0\ta\t{T0}\t{T0 + 200}"[:-2]) == []
    assert parse_jobs("") == [] and parse_jobs("garbage\n") == []


def test_open_loop_requests_are_the_shipped_arrivals() -> None:
    shipped = [Request(0, "a", 0, 0, 5, 0), Request(1, "b", 0, 0, 5, 1),
               Request(2, "a", 1, 40, 5, 0)]
    traffic = RunnerTraffic(("a", "b"), "", shipped, {})
    jobs = parse_jobs(JOBS + job(2, "a", 0, "gpu", 1000 + 45, 1000 + 60))
    assert start_of_traffic(traffic, [], jobs) == T0 + 1000 + 5  # (from a start: a bound)
    ended = parse_requests(REQUESTS + f"2\ta\t{T0 + 1040}\t{T0 + 1100}\n")
    assert start_of_traffic(traffic, ended, jobs) == T0 + 1000
    sink = Sink()
    write_rows("adms", 0, sink, {"a": CHAIN, "b": ALTERNATIVES}, traffic, (jobs, ended),
               T0 + 1000, lambda r: False)
    [row] = sink.rows["requests"]
    assert (row["request_id"], row["frame_id"], row["arrival_ns"], row["end_ns"],
            row["slo_ns"]) == (2, 1, 40, 100, 5)


def test_the_sensors_file_reads_the_probed_files_the_phone_lets_it_read() -> None:
    zone = "/sys/class/thermal/thermal_zone3/temp"
    plan = SensorPlan((ProcessorSensors("cpu", "cpu-usr", (0, 4)),
                       ProcessorSensors("gpu", "gpu-usr", (), gpu=True)),
                      (("zone:cpu-usr", zone), ("zone:gpu-usr", "/denied"),
                       ("gpu:cur", "/sys/gpu/cur"), ("gpu:max", "/sys/gpu/max")),
                      {0: (0, 1), 4: (4, 5)}, {0: 1800000, 4: 2400000}, 1.0)
    base = "/sys/devices/system/cpu/cpufreq/policy4"
    ok = {zone, f"{base}/scaling_cur_freq", f"{base}/cpuinfo_max_freq", "/sys/gpu/cur"}
    assert sensors_lines(plan, ok) == [
        f"sensor cpu temperature_c path={zone} scale=0.001",
        f"sensor cpu frequency_hz path={base}/scaling_cur_freq scale=1000.0",
        f"sensor cpu max_frequency_hz path={base}/cpuinfo_max_freq scale=1000.0",
        "sensor cpu load cpus=0,1,4,5 stat=/proc/stat",
        "sensor gpu frequency_hz path=/sys/gpu/cur scale=1.0"]
    log = ("t_ns\tprocessor\ttemperature_c\tfrequency_hz\tmax_frequency_hz\tload\tpower_w\t"
           "throttled\tthrottle_temperature_c\n"
           f"{T0 + 7}\tcpu\t41.5\t1800000000.0\t2400000000.0\t0.25\t\t1\t\n"
           f"{T0 + 9}\tgpu\t\t5e8\t")
    [sample] = parse_sensor_log(log, T0)
    assert (sample.processor, sample.t_ns, sample.temperature_c, sample.load,
            sample.power_w, sample.throttled) == ("cpu", 7, 41.5, 0.25, None, True)
