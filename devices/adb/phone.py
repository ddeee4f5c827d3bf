"""A connected, probed phone: its transport, its facts, its deployer, and which of its sensor
files belong to which processor of the device config.

:func:`connect` reaches the phone (:class:`~devices.adb.transport.Transport`) and probes it
(:mod:`devices.adb.probe`). :meth:`Phone.sensor_plan` resolves the config's ``auto`` choices
against the facts: a processor's thermal zone (``auto``: the first zone whose type names its
kind), its cpufreq policies (a CPU: every policy unless listed), the GPU clock files (``auto``:
the ones the probe found); the resolved mapping is recorded in the manifest, so what a
sensor row means is never a guess.
"""

from __future__ import annotations

import posixpath
import time
from dataclasses import dataclass, field

from devices.adb import leftovers
from devices.adb.config import AdbDeviceConf, AdbProcessorConf
from devices.adb.deploy import Deployer
from devices.adb.probe import PROBE_SCRIPT, PhoneFacts, parse_probe
from devices.adb.sensors import ProcessorSensors, SensorPlan
from devices.adb.transport import Transport
from harness.seams.errors import UserError
from harness.seams.plan import ProcessorKind


@dataclass
class Phone:
    conf: AdbDeviceConf
    transport: Transport
    facts: PhoneFacts
    deployer: Deployer = field(init=False)
    #: the host's run folder, written into each phone run folder (devices.adb.leftovers)
    host_run: str = ""

    def __post_init__(self) -> None:
        self.deployer = Deployer(self.transport, self.conf.remote_dir)

    @property
    def serial(self) -> str:
        return self.transport.serial

    def processor(self, name: str) -> AdbProcessorConf:
        for proc in self.conf.processors:
            if proc.name == name:
                return proc
        names = [p.name for p in self.conf.processors]
        raise UserError(f"processor {name!r} is not on phone {self.facts.model!r}; "
                        f"processors: {names}")

    def run_dir(self, tag: str) -> str:
        """A fresh folder on the phone for one baseline's logs."""
        folder = posixpath.join(self.conf.remote_dir, "runs", f"{tag}_{time.time_ns()}")
        self.transport.check(f"mkdir -p {folder}", "making a run folder")
        leftovers.mark(self.transport, folder, self.host_run)
        return folder

    def sensor_plan(self) -> SensorPlan:
        procs = tuple(self._processor_sensors(p) for p in self.conf.processors)
        files = [(f"zone:{z.type}", f"/sys/class/thermal/thermal_zone{z.index}/temp")
                 for z in self.facts.zones]
        base = "/sys/devices/system/cpu/cpufreq/policy"
        for c in self.facts.clusters:
            files += [(f"cur:{c.policy}", f"{base}{c.policy}/scaling_cur_freq"),
                      (f"cap:{c.policy}", f"{base}{c.policy}/scaling_max_freq")]
        files += [(key, path) for key, path in self._gpu_files().items() if path]
        return SensorPlan(procs, tuple(files), {c.policy: c.cpus for c in self.facts.clusters},
                          {c.policy: c.max_khz for c in self.facts.clusters if c.max_khz},
                          self.conf.sensors.gpu_frequency_unit_hz)

    def _gpu_files(self) -> dict[str, str]:
        s = self.conf.sensors
        cur = self.facts.gpu_frequency_path() if s.gpu_frequency_path == "auto" else \
            s.gpu_frequency_path
        top = self.facts.gpu_max_frequency_path() if s.gpu_max_frequency_path == "auto" else \
            s.gpu_max_frequency_path
        return {"gpu:cur": cur, "gpu:max": top}

    def _processor_sensors(self, proc: AdbProcessorConf) -> ProcessorSensors:
        block = proc.adb
        zone = self.facts.zone_for(proc.kind.value) if block.thermal_zone == "auto" else \
            block.thermal_zone
        if zone and zone not in {z.type for z in self.facts.zones}:
            raise UserError(f"processor {proc.name!r}: no thermal zone of type {zone!r} on the "
                            f"phone; zones: {[z.type for z in self.facts.zones]}")
        is_cpu = proc.kind is ProcessorKind.CPU
        policies = block.cpufreq_policies
        if policies is None:
            policies = [c.policy for c in self.facts.clusters] if is_cpu else []
        return ProcessorSensors(proc.name, zone, tuple(policies),
                                gpu=proc.kind is ProcessorKind.GPU)

    def describe(self) -> dict[str, object]:
        plan = self.sensor_plan()
        return {**self.transport.describe(), **self.facts.manifest(),
                "sensor_mapping": {p.name: {"thermal_zone": p.zone or None,
                                            "cpufreq_policies": list(p.policies),
                                            "gpu_clock": p.gpu} for p in plan.processors}}


def probe(transport: Transport) -> PhoneFacts:
    return parse_probe(transport.check(PROBE_SCRIPT, "probing the phone"))


def connect(conf: AdbDeviceConf) -> Phone:
    transport = Transport(conf)
    return Phone(conf, transport, probe(transport))
