"""A prepared policy run on the phone by the native runner (``tflite``, ``band``, ``adms``).

The harness prepared the policy on the phone's own profile (:mod:`devices.adb.profiling`)
and hands over its decision trace header (:class:`~harness.seams.device.PolicyRun`). Here:

1. write the plan file (:mod:`devices.adb.runner_plan`: every subgraph's slice, pushed by
   :mod:`devices.adb.slices`), the header and, for open-loop traffic, the run's seeded
   arrivals; push them by content hash;
2. in a :class:`~devices.adb.measure.Measurement` (sensor loop, power, conditioning), run
   ``runner --policy HEADER --decisions TRACE --log JOBS --requests REQUESTS`` with the
   traffic (``--arrivals``; or a closed loop, ``--frames``/``--streams``, run as the
   runtime's traffic runs it: ``scenario.frames_in_flight`` frames outstanding
   (``--in-flight``) and one camera period after a drop (``--drop-wait-ns``,
   :func:`drop_wait_ns`); it counts requests, not time: it is given more than it can run and
   stopped :data:`DRAIN_S` after the traffic's time, and only the requests issued within
   that time become rows, as the runtime issues none after it), watched from the host
   (:mod:`devices.adb.runner_watch`: progress, stalls, logs copied as they grow);
3. write ``requests`` and ``subgraphs`` rows from the complete lines of its logs
   (:mod:`devices.adb.runner_logs`) on the run's clock (0: the traffic's start) as they come
   to the host (:mod:`devices.adb.runner_rows`: a request's rows once all its lines are
   surely there, the rest when the runner ended), and the sensors as their lines come
   (the runner samples the phone's sensors itself: :mod:`devices.adb.runner_sensors`;
   the measurement adds the power monitor's at its exit); the run's journals flush them
   each second (the progress callback), so a host killed mid-run keeps them. A host
   interrupted mid-run (SIGINT, SIGTERM) kills the runner on the phone, pulls its logs a
   last time if the phone answers, writes every whole line's rows and goes on ending
   (the manifest says ``interrupted``);
4. pull its decision trace and replay it through the Python policy
   (:attr:`PolicyRun.check_trace`): ``clean``, or the first differing decision, into the
   manifest;
5. only then, a failed runner (killed, stalled, exited with an error, the phone lost)
   becomes one error, every row up to it written.
"""

from __future__ import annotations

import json
import posixpath
import tempfile
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

from devices.adb.measure import Measurement
from devices.adb.phone import Phone
from devices.adb.runner_exe import RunnerOnPhone
from devices.adb.runner_logs import RowWriter, RunnerTraffic
from devices.adb.runner_plan import arrivals_text, plan_text
from devices.adb.runner_rows import LiveRows
from devices.adb.runner_sensors import field_files, readable, sensors_lines, write_command
from devices.adb.runner_watch import LogTail, RunnerProcess, Watch, failure, watch
from devices.adb.slices import PhoneSlices
from devices.adb.transport import PhoneLost
from harness.seams.device import PolicyRun, RowSink
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.units import NS_PER_S

#: a closed loop's count of frames (requests per model): more than any run issues before
#: the host stops it
MOST = 1_000_000_000
#: how long a closed loop's runner goes on after its traffic's time before it is stopped:
#: requests in flight finish (the runner flushes its logs every second), s
DRAIN_S = 2.0


def drop_wait_ns(scenario: Any) -> int:
    """A closed-loop client's wait after a drop: one camera period, the very integer the
    runtime's traffic waits (``harness.runtime.traffic.Traffic._skip``)."""
    return int(NS_PER_S / scenario.fps)


def closed_loop_flags(scenario: Any) -> list[str]:
    """The runner's flags of the scenario's closed loop (``frames`` or ``stream``)."""
    wait = ["--drop-wait-ns", str(drop_wait_ns(scenario))]
    if str(scenario.arrival.value) == "frames":  # (a device names no run config's types)
        return ["--frames", str(MOST), "--in-flight", str(scenario.frames_in_flight), *wait]
    return ["--streams", str(MOST), *wait]


def span_s_of(run: PolicyRun) -> float:
    """The traffic's time: warm-up and duration, s."""
    return float(run.scenario.warmup_s + run.scenario.duration_s)


class RunnerRun:
    """One baseline with one seed in the runner; see the module docstring."""

    def __init__(self, phone: Phone, runner: RunnerOnPhone, slices: PhoneSlices,
                 graphs: Mapping[str, ModelGraph]) -> None:
        self.phone, self.runner, self.slices, self.graphs = phone, runner, slices, graphs

    def files(self, run: PolicyRun) -> dict[str, str]:
        """Plan, header and arrivals written and pushed: name -> phone path."""
        placed = {(m, sg.index): self.slices.place(sg) for m, p in run.plans.items()
                  for sg in p.subgraphs}
        bounds = {m: (self.graphs[m].inputs, self.graphs[m].outputs) for m in run.plans}
        texts = {"plan.txt": plan_text(self.phone.conf.processors, run.plans, bounds, placed,
                                       run.slo_ns),
                 "header.json": json.dumps(run.header)}
        if run.arrivals:
            texts["arrivals.txt"] = arrivals_text(run.arrivals)
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in texts.items():
                (Path(tmp) / name).write_text(text)
            return {name: self.phone.deployer.deploy(Path(tmp) / name) for name in texts}

    def traffic(self, run: PolicyRun) -> tuple[RunnerTraffic, list[str]]:
        """The runner's traffic and its flags."""
        # (a closed loop the runner generates itself, named as the arrival; "": an open loop,
        # the shipped arrivals)
        arrival = run.scenario.arrival
        closed = str(arrival.value) if arrival.closed else ""
        if closed == "stream" and run.scenario.streams_per_model != 1:
            raise UserError("the runner runs one closed loop per model: scenario."
                            "streams_per_model must be 1 on a phone")
        shipped = RunnerTraffic(tuple(run.plans), closed, run.arrivals, run.slo_ns)
        if not closed:
            return shipped, []
        return shipped, closed_loop_flags(run.scenario)

    def sensors(self, folder: str) -> list[str]:
        """Write the runner's sensors file in ``folder``: its flags."""
        plan = self.phone.sensor_plan()
        files = [path for proc in plan.processors for _, path, _ in field_files(plan, proc)]
        lines = sensors_lines(plan, readable(self.phone.transport, files))
        path = posixpath.join(folder, "sensors.txt")
        self.phone.transport.check(write_command(lines, path), "writing the sensors file")
        interval = round(self.phone.conf.sensors.interval_ms)
        return ["--sensors", path, "--sensor-interval-ms", str(interval), "--sensor-log",
                posixpath.join(folder, "sensors.tsv")]

    def command(self, run: PolicyRun, files: Mapping[str, str], folder: str,
                flags: list[str]) -> RunnerProcess:
        # (the request log is pulled before the job log: a request's rows are written once a
        # job-log pull began long enough after its line was seen, devices.adb.runner_rows)
        logs = {k: posixpath.join(folder, f"{k}.tsv") for k in ("requests", "jobs", "sensors")}
        traffic = flags or ["--arrivals", files["arrivals.txt"]]
        command = self.runner.command(
            "--plan", files["plan.txt"], "--slices", self.phone.conf.remote_dir,
            "--log", logs["jobs"], "--requests", logs["requests"], "--policy",
            files["header.json"], "--decisions", posixpath.join(folder, "decisions.jsonl"),
            *traffic, *self.sensors(folder))
        return RunnerProcess(command, folder, {k: LogTail(p) for k, p in logs.items()})

    def __call__(self, run: PolicyRun, sink: RowSink) -> dict[str, Any]:
        files = self.files(run)
        shipped, flags = self.traffic(run)
        tools = self.phone.conf.tools
        span_s = span_s_of(run)
        limit = span_s + DRAIN_S + 2 * tools.grace_s
        stop_s = span_s + DRAIN_S if flags else 0.0
        until = int(span_s * NS_PER_S) if shipped.closed else None
        live = LiveRows(RowWriter(run.name, run.seed, sink, run.plans, shipped, run.is_warmup,
                                  until))
        with Measurement(self.phone, run.name, run.seed, sink, limit, loop=False) as measurement:
            proc = self.command(run, files, measurement.folder, flags)
            clock = measurement.run_clock
            try:
                watch(self.phone.transport, proc, limit, Watch(
                    tools.grace_s, tools.stall_s, lambda: run.progress(clock.now_ns()), stop_s,
                    lambda: live.pulled(proc.logs)))
                written = live.finish(proc.logs)
            except BaseException:
                # (interrupted: the watch killed the runner and pulled its logs a last time;
                # every whole line's rows are written, and the interruption goes on)
                with suppress(Exception):
                    live.finish(proc.logs)
                raise
            finally:
                self._clock(live, measurement)
        facts = {"runner": "runner", "binary_abi": self.runner.abi,
                 "runner_binary": self.runner.local, "closed_loop": flags[:1],
                 "stopped_after_s": stop_s if proc.stopped else None,
                 **self.loop_facts(run, flags),
                 "traffic_start_phone_ns": live.t0_ns, "end_ns": written.end_ns,
                 "requests": written.statuses, "subgraph_rows": written.subgraphs,
                 "late_job_lines": written.late_jobs, "shell_lost": proc.shell_lost or None,
                 "host_gaps_s": proc.host_gaps_s,
                 **self.phone.deployer.facts(), "measurement": measurement.facts(),
                 "decisions": self._replay(run, proc)}
        self._raise(run, proc, limit)
        return facts

    @staticmethod
    def loop_facts(run: PolicyRun, flags: list[str]) -> dict[str, int | None]:
        """The closed loop's frames outstanding (frames) and wait after a drop, ns (None:
        not that loop)."""
        frames = flags[:1] == ["--frames"]
        return {"frames_in_flight": run.scenario.frames_in_flight if frames else None,
                "drop_wait_ns": drop_wait_ns(run.scenario) if flags else None}

    @staticmethod
    def _clock(live: LiveRows, measurement: Measurement) -> None:
        """The measurement's rows (power) on the run's clock, its count of sensor rows."""
        if live.t0_ns is not None:
            measurement.shift_ns = measurement.run_clock.from_phone(live.t0_ns)
        measurement.counts["sensor_samples"] = live.samples

    def _replay(self, run: PolicyRun, proc: RunnerProcess) -> str:
        """``clean``, the first decision the Python policy makes differently, or why the
        phone's trace could not be replayed."""
        if proc.lost:
            return "not replayed: the phone was lost"
        try:
            text = self.phone.transport.pull_text(posixpath.join(proc.folder,
                                                                 "decisions.jsonl"))
        except UserError as exc:
            return f"not replayed: {exc}"
        if proc.stopped:  # (stopped: its last line may be cut short)
            text = text[:text.rfind("\n") + 1]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "decisions.jsonl"
            path.write_text(text)
            found = run.check_trace(path)
        return "clean" if found is None else f"differs: {found}"

    def _raise(self, run: PolicyRun, proc: RunnerProcess, limit_s: float) -> None:
        kept = "; every row up to then and the run's sensors are kept"
        if proc.lost:
            raise PhoneLost(f"{run.name} on the phone: {proc.problem}{kept}")
        why = failure(proc, limit_s)
        if why is not None:
            raise UserError(f"{run.name} on the phone: {why}{kept}")
