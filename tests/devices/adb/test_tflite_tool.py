"""``benchmark_model``'s command line per processor and traffic, and the rows its output
becomes (:mod:`devices.adb.tflite_tool`, :mod:`devices.adb.rows`)."""

from __future__ import annotations

import math
import subprocess
import time
from pathlib import Path

import pytest

from baselines.tflite.config import Placement, TfliteConf
from devices.adb.config import AdbProcessorBlock, AdbProcessorConf, AdbToolsConf, Delegate
from devices.adb.phone import connect
from devices.adb.rows import ToolRun, benchmark_row, op_rows, status_of
from devices.adb.tflite_output import parse_benchmark_output
from devices.adb.tflite_tool import Timing, benchmark_flags, marker_ns, timing_for, tool_command
from devices.adb.transport import ShellResult
from devices.adb.vanilla import placements, tool_runs
from devices.processors import SupportRules
from harness.config.schema import Arrival, ScenarioConf
from harness.seams.errors import UserError
from harness.seams.plan import ProcessorKind
from tests.devices.adb.conftest import phone_conf
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.server import AdbServer
from tests.devices.adb.test_tflite_output import MODERN, OP_PROFILE
from tests.fixtures.processes import alive


def test_flags_per_delegate_and_traffic() -> None:
    nnapi = AdbProcessorBlock(delegate=Delegate.nnapi, threads=2, nnapi_accelerator="qti-dsp",
                              extra_flags=["--nnapi_allow_fp16=true"])
    tools = AdbToolsConf(report_peak_memory=True, enable_op_profiling=True)
    flags = benchmark_flags("/d/m.tflite", nnapi, Timing(1.5, 10.0, 30.0), tools)
    assert flags == ["--graph=/d/m.tflite", "--num_threads=2", "--warmup_runs=1",
                     "--warmup_min_secs=1.5", "--num_runs=1", "--min_secs=10",
                     "--max_secs=10", "--run_frequency=30", "--use_nnapi=true",
                     "--nnapi_accelerator_name=qti-dsp", "--report_peak_memory_footprint=true",
                     "--enable_op_profiling=true", "--nnapi_allow_fp16=true"]
    gpu = benchmark_flags("g", AdbProcessorBlock(delegate=Delegate.gpu), Timing(0, 1),
                          AdbToolsConf(report_peak_memory=False))
    assert "--use_gpu=true" in gpu and not any("run_frequency" in f for f in gpu)
    assert "--use_hexagon=true" in benchmark_flags(
        "g", AdbProcessorBlock(delegate=Delegate.hexagon), Timing(0, 1), AdbToolsConf())


def test_timing_from_the_scenario() -> None:
    periodic = ScenarioConf(name="s", models=["m"], arrival=Arrival.periodic, fps=20.0,
                            duration_s=5.0, warmup_s=1.0)
    assert timing_for(periodic) == Timing(1.0, 5.0, 20.0)
    frames = ScenarioConf(name="s", models=["m"], arrival=Arrival.frames, fps=20.0)
    assert timing_for(frames).run_frequency_hz == 0.0
    with pytest.raises(UserError, match="Poisson"):
        timing_for(ScenarioConf(name="s", models=["m"], arrival=Arrival.poisson))


def test_the_command_marks_start_and_end_on_the_phone() -> None:
    command = tool_command("/d/bm", ["--graph=/d/a b.tflite"], "/d", "/d/runs/r/bm.pid")
    assert command.startswith("cd /d && echo @@t0 $(date +%s%N); /d/bm '--graph=/d/a b.tflite' &")
    assert command.endswith("rc=$?; echo @@t1 $(date +%s%N); exit $rc")
    assert marker_ns("x\n@@t0 1700000000123456789\n", "@@t0") == 1700000000123456789
    assert marker_ns("@@t0 %N\n", "@@t0") is None


def test_the_command_writes_the_tools_process_id_and_keeps_its_exit_code(
        tmp_path: Path) -> None:
    """Run by a POSIX sh (the fake phone's, as Android's mksh would): the markers around the
    tool's output, the tool's own process id in the pid file, the tool's exit code."""
    pid_file = tmp_path / "tool.pid"
    tool = ["sh", "-c", "echo tool $$; exit 3"]
    command = tool_command(tool[0], tool[1:], str(tmp_path), str(pid_file))
    done = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True,
                          timeout=30, check=False)
    lines = done.stdout.split()
    assert done.returncode == 3, done.stderr
    assert lines[0] == "@@t0" and lines[2:4] == ["tool", pid_file.read_text().strip()]
    assert lines[4] == "@@t1" and int(lines[5]) >= int(lines[1])


def run_with(output: str, code: int) -> ToolRun:
    run = ToolRun("benchmark_model", "m", "gpu", "gpu", "cmd", 1, 0.0)
    run.result = ShellResult(code, output, "")
    return run


def test_a_row_holds_what_the_tool_reported_and_nothing_more() -> None:
    run = run_with(OP_PROFILE, 0)
    report = parse_benchmark_output(run.output)
    row = benchmark_row("tflite", 2, run, report)
    assert (row["status"], row["count"], row["avg_us"], row["p50_us"], row["init_us"]) == (
        "ok", 50.0, 899641.0, 899281.0, 614333.0)
    assert (row["delegated_nodes"], row["total_nodes"], row["delegate_coverage"]) == (
        63.0, 66.0, "partial")
    assert math.isnan(row["canceled"]) and math.isnan(row["slo_satisfaction"])
    assert [(r["order"], r["node_type"]) for r in op_rows("tflite", 2, run, report)] == [
        (0, "TfLiteGpuDelegateV2"), (1, "RESHAPE")]


@pytest.mark.parametrize(("output", "code", "status"), [
    (MODERN, 0, "ok"), (MODERN[:400], 0, "truncated"), (MODERN, 1, "failed"),
    (MODERN[:400], 124, "timeout"), (MODERN[:400], 137, "timeout")])
def test_how_a_tool_ended(output: str, code: int, status: str) -> None:
    run = run_with(output, code)
    assert status_of(run, parse_benchmark_output(output).complete) == status
    lost = ToolRun("benchmark_model", "m", "gpu", "gpu", "cmd", lost=True)
    assert status_of(lost, False) == "lost"


def test_each_model_goes_where_the_tflite_baselines_fixed_placement_puts_it(
        adb_server: AdbServer, adbd: Adbd) -> None:
    """``tflite_stock`` follows the ``tflite`` baseline's own rule (``fixed_processor``): an
    8-bit model goes to the first of ``quantized_processors`` the phone has, a float model to
    ``default_processor``, a mapped model where ``processor_map`` says."""
    conf = phone_conf(adb_server, adbd.serial)
    conf.processors.append(AdbProcessorConf(
        name="npu", kind=ProcessorKind.NPU, support=SupportRules.nnapi,
        adb=AdbProcessorBlock(delegate=Delegate.nnapi)))
    phone = connect(conf)
    tflite = TfliteConf(placement=Placement.fixed, default_processor="gpu",
                        quantized_processors=["dsp", "npu"], processor_map={"mapped": "cpu"})
    models = {m: f"/d/{m}.tflite" for m in ("q8", "float", "mapped")}
    quantized = {"q8": True, "float": False, "mapped": True}
    runs = tool_runs(phone, placements(phone, tflite, quantized), models, "/d/benchmark_model",
                     Timing(0.0, 1.0), "/d/runs/r")
    assert {r.model: r.processor for r in runs} == {"q8": "npu", "float": "gpu", "mapped": "cpu"}
    assert {r.model: r.delegate for r in runs} == {"q8": "nnapi", "float": "gpu",
                                                   "mapped": "cpu"}


def test_a_signalled_shell_takes_its_tool_with_it(tmp_path: Path) -> None:
    """The phone's ``timeout`` signals the shell it started, not the tool the shell waits
    for: the shell kills the tool before it exits."""
    pid_file = tmp_path / "tool.pid"
    command = tool_command("sleep", ["60"], str(tmp_path), str(pid_file))
    shell = subprocess.Popen(["/bin/sh", "-c", command], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not pid_file.is_file() or not pid_file.read_text().strip():
            assert time.monotonic() < deadline and shell.poll() is None
            time.sleep(0.01)
        pid = int(pid_file.read_text())
        shell.terminate()
        assert shell.wait(timeout=30) == 143
        while alive(pid):
            assert time.monotonic() < deadline, f"the tool {pid} outlived its shell"
            time.sleep(0.01)
    finally:
        if shell.poll() is None:
            shell.kill()
            shell.wait()

