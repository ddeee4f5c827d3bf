"""What a phone says of itself: model, SoC, ABI, API level, CPU clusters, thermal zones, GPU
clock files and the delegates it can offer, read in one shell call.

:data:`PROBE_SCRIPT` prints sections (``@@props``, ``@@policy``, ``@@zone``, ``@@gpu``,
``@@libs``, ``@@nnapi``, ``@@hexagon``); :func:`parse_probe` turns them into
:class:`PhoneFacts`. Sources:

* properties (``getprop``): ``ro.product.model``/``manufacturer``, ``ro.soc.model``/
  ``manufacturer`` (Android 12+), ``ro.board.platform``, ``ro.hardware``,
  ``ro.product.cpu.abi``/``abilist``, ``ro.build.version.sdk``/``release``/``fingerprint``,
  ``ro.opengles.version``;
* CPU clusters: ``/sys/devices/system/cpu/cpufreq/policyN/`` (``related_cpus``,
  ``cpuinfo_min/max_freq`` and ``scaling_available_frequencies`` in kHz, governors);
* thermal zones: ``/sys/class/thermal/thermal_zoneN/type`` and ``temp`` (m°C; ``NA`` when it
  cannot be read, as SELinux denies on many retail phones);
* GPU clock: Adreno's ``/sys/class/kgsl/kgsl-3d0/{gpuclk,max_gpuclk}``, else a devfreq device
  whose name looks like a GPU (``cur_freq``, ``max_freq``, both Hz);
* delegates, from what each needs: GPU (an OpenCL library, or OpenGL ES >= 3.1), NNAPI
  (API level >= 27; accelerators named after the NNAPI HAL services in ``/vendor/bin/hw``),
  Hexagon (a ``libhexagon_nn_skel`` library). Only a tool run proves a delegate works.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

PROBE_SCRIPT = r"""
echo @@props; getprop
for p in /sys/devices/system/cpu/cpufreq/policy*; do
  [ -d "$p" ] || continue
  line="@@policy ${p##*policy}"
  for f in related_cpus cpuinfo_min_freq cpuinfo_max_freq scaling_available_frequencies \
           scaling_governor scaling_available_governors; do
    line="$line|$(cat $p/$f 2>/dev/null)"
  done
  echo "$line"
done
for z in /sys/class/thermal/thermal_zone*; do
  [ -d "$z" ] || continue
  t=$(cat $z/temp 2>/dev/null) || t=NA
  echo "@@zone ${z##*thermal_zone}|$(cat $z/type 2>/dev/null)|${t:-NA}"
done
for f in /sys/class/kgsl/kgsl-3d0/gpuclk /sys/class/kgsl/kgsl-3d0/max_gpuclk \
         /sys/class/devfreq/*/cur_freq /sys/class/devfreq/*/max_freq; do
  [ -r "$f" ] && echo "@@gpu $f|$(cat $f 2>/dev/null)"
done
for f in /vendor/lib64/libOpenCL.so /system/vendor/lib64/libOpenCL.so \
         /vendor/lib/libOpenCL.so /system/lib64/libOpenCL.so; do
  [ -e "$f" ] && echo "@@libs $f"
done
for f in /vendor/bin/hw/*neuralnetworks*; do [ -e "$f" ] && echo "@@nnapi ${f##*/}"; done
for f in /vendor/lib/rfsa/adsp/libhexagon_nn_skel* /vendor/dsp/*/libhexagon_nn_skel* \
         /data/local/tmp/libhexagon_nn_skel*; do
  [ -e "$f" ] && echo "@@hexagon $f"
done
true
"""
_PROP = re.compile(r"^\[([^\]]+)\]: \[(.*)\]$")
GLES_3_1 = 0x30001
NNAPI_MIN_SDK = 27
_GPU_DEVFREQ = re.compile(r"gpu|mali|kgsl|g3d|sgpu|pvr", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class CpuCluster:
    """One cpufreq policy: its cores and frequency table (kHz)."""

    policy: int
    cpus: tuple[int, ...]
    min_khz: int | None
    max_khz: int | None
    freqs_khz: tuple[int, ...]
    governor: str
    governors: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ThermalZone:
    index: int
    type: str
    #: the temperature when probed, °C; None when it cannot be read
    temperature_c: float | None


@dataclass(frozen=True, slots=True)
class PhoneFacts:
    """A probed phone."""

    props: Mapping[str, str]
    clusters: tuple[CpuCluster, ...]
    zones: tuple[ThermalZone, ...]
    #: readable GPU clock files -> value when probed
    gpu_files: Mapping[str, int | None]
    delegates: tuple[str, ...]
    nnapi_accelerators: tuple[str, ...] = field(default_factory=tuple)

    def prop(self, key: str) -> str:
        return self.props.get(key, "")

    @property
    def model(self) -> str:
        return self.prop("ro.product.model") or "unknown phone"

    @property
    def soc(self) -> str:
        soc = " ".join(p for p in (self.prop("ro.soc.manufacturer"), self.prop("ro.soc.model"))
                       if p)
        return soc or self.prop("ro.board.platform") or self.prop("ro.hardware")

    @property
    def abi(self) -> str:
        return self.prop("ro.product.cpu.abi")

    @property
    def abilist(self) -> tuple[str, ...]:
        listed = [a for a in self.prop("ro.product.cpu.abilist").split(",") if a]
        return tuple(listed or ([self.abi] if self.abi else []))

    @property
    def api_level(self) -> int | None:
        sdk = self.prop("ro.build.version.sdk")
        return int(sdk) if sdk.isdigit() else None

    def gpu_frequency_path(self) -> str:
        return _first(self.gpu_files, ("kgsl-3d0/gpuclk", "/cur_freq"))

    def gpu_max_frequency_path(self) -> str:
        return _first(self.gpu_files, ("kgsl-3d0/max_gpuclk", "/max_freq"))

    def zone_for(self, kind: str) -> str:
        """The first zone whose type names ``kind`` (cpu, gpu, npu, dsp), or ""."""
        for zone in self.zones:
            if kind.lower() in zone.type.lower():
                return zone.type
        return ""

    def manifest(self) -> dict[str, Any]:
        """Everything, for the run's manifest."""
        keys = ("ro.product.model", "ro.product.manufacturer", "ro.product.device",
                "ro.soc.manufacturer", "ro.soc.model", "ro.board.platform", "ro.hardware",
                "ro.product.cpu.abi", "ro.product.cpu.abilist", "ro.build.version.sdk",
                "ro.build.version.release", "ro.build.fingerprint")
        return {"model": self.model, "soc": self.soc, "abi": self.abi,
                "api_level": self.api_level,
                "props": {k: self.props[k] for k in keys if k in self.props},
                "cpu_clusters": [asdict(c) for c in self.clusters],
                "thermal_zones": [asdict(z) for z in self.zones],
                "gpu_frequency_files": dict(self.gpu_files),
                "delegates": list(self.delegates),
                "nnapi_accelerators": list(self.nnapi_accelerators)}


def parse_probe(text: str) -> PhoneFacts:
    """:class:`PhoneFacts` from :data:`PROBE_SCRIPT`'s output."""
    props = dict(_props(text))
    sections = _sections(text)
    clusters = tuple(_cluster(v) for v in sections.get("policy", []))
    zones = tuple(_zone(v) for v in sections.get("zone", []))
    gpu = {path: _int(value) for path, _, value in
           (v.partition("|") for v in sections.get("gpu", []))
           if "kgsl" in path or _GPU_DEVFREQ.search(path.split("/")[-2] if "/" in path else "")}
    accelerators = tuple(_accelerator(v) for v in sections.get("nnapi", []))
    delegates = _delegates(props, sections, accelerators)
    return PhoneFacts(props, clusters, zones, gpu, delegates, accelerators)


def _props(text: str) -> Iterator[tuple[str, str]]:
    for line in text.splitlines():
        if m := _PROP.match(line.strip()):
            yield m.group(1), m.group(2)


def _sections(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("@@") and " " in line:
            name, _, value = line[2:].partition(" ")
            out.setdefault(name, []).append(value.strip())
    return out


def _int(value: str) -> int | None:
    value = value.strip()
    return int(value) if value.lstrip("-").isdigit() else None


def _ints(value: str) -> tuple[int, ...]:
    return tuple(int(v) for v in value.split() if v.isdigit())


def _cluster(value: str) -> CpuCluster:
    parts = [*value.split("|"), *[""] * 7][:7]
    policy, cpus, lo, hi, freqs, governor, governors = parts
    return CpuCluster(int(policy), _ints(cpus), _int(lo), _int(hi), _ints(freqs),
                      governor.strip(), tuple(governors.split()))


def _zone(value: str) -> ThermalZone:
    index, kind, temp = [*value.split("|"), "", ""][:3]
    milli = _int(temp)
    return ThermalZone(int(index), kind.strip(), None if milli is None else milli / 1000.0)


def _accelerator(service: str) -> str:
    """``android.hardware.neuralnetworks@1.3-service-qti`` -> ``qti``."""
    name = service.split("-service", 1)[-1].lstrip("-.")
    return name or service


def _delegates(props: Mapping[str, str], sections: Mapping[str, list[str]],
               accelerators: tuple[str, ...]) -> tuple[str, ...]:
    found = ["cpu", "xnnpack"]
    gles = props.get("ro.opengles.version", "")
    if sections.get("libs") or (gles.isdigit() and int(gles) >= GLES_3_1):
        found.append("gpu")
    sdk = props.get("ro.build.version.sdk", "")
    if sdk.isdigit() and int(sdk) >= NNAPI_MIN_SDK:
        found.append("nnapi")
    if sections.get("hexagon"):
        found.append("hexagon")
    return tuple(found)


def _first(files: Mapping[str, int | None], endings: tuple[str, ...]) -> str:
    for ending in endings:
        for path in files:
            if path.endswith(ending):
                return path
    return ""
