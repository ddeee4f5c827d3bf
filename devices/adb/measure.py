"""Everything around one baseline's tools on a phone, as a ``with`` block:

on entry: pin governors and cool down (:mod:`.conditioning`), open the power monitor (a missing
Monsoon fails here, before anything runs), set the run's time 0 with the phone's clock offset
(:mod:`.clock`), start the sensor loop on the phone (:mod:`.sensors`; unless the run samples
them itself, as the native runner does) and the power monitor's
sampling thread;

on exit (also when the tools failed or the phone was lost): stop the loop, pull its log and
write one ``sensors`` row per processor per sample, stop the monitor and write its samples as
rows of the pseudo-processor ``device`` (a whole-phone meter, :mod:`harness.reporting.power`),
restore the governors. Sensor and power rows are on the run's clock: 0 is the measurement's
start unless the run moved it (:attr:`Measurement.shift_ns`: a runner's traffic start).
What cannot be done on the way out (a lost phone's log) is noted in
:attr:`Measurement.problems` and in the manifest; it never hides the error that ended the run.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from types import TracebackType
from typing import Any

from devices.adb import leftovers
from devices.adb.clock import RunClock, sync_clock
from devices.adb.conditioning import Conditioning
from devices.adb.config import AdbPowerConf, PowerMonitorKind
from devices.adb.phone import Phone
from devices.adb.sensors import (
    availability,
    loop_script,
    parse_log,
    samples_for,
    start_command,
    stop_command,
)
from devices.power import PowerMonitor, windowed
from devices.power.monsoon import MonsoonMonitor
from devices.power.rapl import RaplMonitor
from harness.seams.device import RowSink
from harness.seams.errors import UserError
from harness.seams.records import SensorSample
from harness.seams.rows import sensor_row

#: the pseudo-processor of whole-device power rows (harness.reporting.power.DEVICE)
DEVICE = "device"


def power_monitor(conf: AdbPowerConf) -> PowerMonitor | None:
    """The configured monitor, opened (a UserError when it is not there)."""
    if conf.monitor is PowerMonitorKind.monsoon:
        return MonsoonMonitor(conf.monsoon_driver, conf.monsoon_serial or None,
                              conf.monsoon_voltage_v).open()
    if conf.monitor is PowerMonitorKind.rapl:
        return RaplMonitor(Path(conf.rapl_root)).open()
    return None


class Measurement:
    """See the module docstring."""

    def __init__(self, phone: Phone, baseline: str, seed: int, sink: RowSink, max_s: float,
                 loop: bool = True) -> None:
        self.phone, self.baseline, self.seed, self.sink = phone, baseline, seed, sink
        self.max_s = max_s
        #: run the sampling loop (False: the run samples the sensors itself, the runner)
        self.loop = loop
        self.plan = phone.sensor_plan()
        policies = tuple(c.policy for c in phone.facts.clusters)
        self.conditioning = Conditioning(phone.transport, phone.conf.sensors, policies)
        self.monitor: PowerMonitor | None = None
        self.clock: RunClock | None = None
        self.folder = ""
        self.loop_pid: int | None = None
        self.problems: list[str] = []
        self.counts: dict[str, Any] = {}
        #: the run's time 0 on the measurement's clock, ns: sensor rows are written relative
        #: to it (0: the measurement's start; a runner run sets its traffic's start)
        self.shift_ns = 0

    @property
    def run_clock(self) -> RunClock:
        assert self.clock is not None, "the measurement has not started"
        return self.clock

    def __enter__(self) -> Measurement:
        try:
            self.conditioning.pin()
            self.conditioning.cool_down()
            self.monitor = power_monitor(self.phone.conf.power)
            self.folder = self.phone.run_dir(self.baseline)
            self.clock = sync_clock(self.phone.transport)
            if self.loop:
                self._start_loop()
            if self.monitor is not None:
                self.monitor.start(self.clock.t0_epoch_ns)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _paths(self) -> tuple[str, str]:
        return posixpath.join(self.folder, "sensors.log"), posixpath.join(self.folder, "stop")

    def _start_loop(self) -> None:
        interval = self.phone.conf.sensors.interval_ms
        log, stop = self._paths()
        script = loop_script(self.plan, log, stop, interval,
                             int(self.max_s * 1000 / interval) + 10)
        out = self.phone.transport.check(start_command(script, log, stop),
                                         "starting the sensor loop").split()
        self.loop_pid = int(out[-1]) if out and out[-1].isdigit() else None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for step in (self._sensor_rows, self._power_rows, self.conditioning.restore):
            try:
                step()
            except UserError as problem:
                self.problems.append(f"{step.__name__}: {problem}")
        if self.folder:
            leftovers.finish(self.phone.transport, self.folder)

    def _sensor_rows(self) -> None:
        if self.loop_pid is None or self.clock is None:
            return
        log, stop = self._paths()
        self.phone.transport.shell(stop_command(stop, self.loop_pid,
                                                self.phone.conf.sensors.interval_ms))
        loop = parse_log(self.phone.transport.pull_text(log))
        clock, shift = self.clock, self.shift_ns
        rows = samples_for(self.plan, loop, lambda phone_ns: clock.from_phone(phone_ns) - shift)
        for sample in rows:
            self.sink.append("sensors", sensor_row(self.baseline, self.seed, sample))
        self.counts.update(sensor_samples=len(loop), sensor_availability=availability(loop))

    def _power_rows(self) -> None:
        if self.monitor is None:
            return
        window_ns = int(self.phone.conf.power.window_ms * 1e6)
        samples = windowed(self.monitor.stop(), window_ns)
        for s in samples:
            reading = SensorSample(DEVICE, s.t_ns - self.shift_ns, power_w=s.power_w)
            self.sink.append("sensors", sensor_row(self.baseline, self.seed, reading))
        self.counts["power_windows"] = len(samples)

    def facts(self) -> dict[str, Any]:
        return {"clock": self.clock.facts() if self.clock else None,
                "phone_folder": self.folder, "conditioning": dict(self.conditioning.record),
                "power": self.monitor.facts() if self.monitor else {"monitor": "none"},
                **self.counts, "problems": list(self.problems)}
