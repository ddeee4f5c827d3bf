"""The ``adb`` device's config schema: what ``conf/device/adb.yaml`` (or a drafted phone YAML)
holds.

A phone is reached through an adb server (:class:`AdbServerConf`) by its serial; it runs the
harness's native runner and the user's own tool binaries (:class:`AdbToolsConf`: the runner
with its ``libLiteRt.so``, the stock TFLite ``benchmark_model`` and Band's ``band_benchmark``,
pushed by content hash under ``remote_dir``); its processors are
:class:`~devices.processors.ProcessorConf` with an ``adb:`` block saying how the runner,
``benchmark_model`` and Band reach each one and which sensors belong to it
(:class:`AdbProcessorBlock`); one sampling loop on the phone reads the sensors
(:class:`AdbSensorsConf`); a power monitor on the host measures the whole phone
(:class:`AdbPowerConf`). Hydra rejects unknown keys and wrong types at composition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from hydra.core.config_store import ConfigStore

from devices.processors import ProcessorConf
from harness.config.schema import DeviceConf
from harness.seams.fields import ANY, NONNEG, PORT, POS, Range, at_least, spec


class Delegate(Enum):
    """How ``benchmark_model`` reaches a processor (its flags: :mod:`devices.adb.tflite_tool`)."""

    #: TFLite's default CPU path (``--num_threads``; recent builds apply XNNPACK by default)
    cpu = "cpu"
    #: ``--use_xnnpack=true``
    xnnpack = "xnnpack"
    #: ``--use_gpu=true`` (OpenCL, else OpenGL ES)
    gpu = "gpu"
    #: ``--use_nnapi=true`` (with ``--nnapi_accelerator_name`` when one is named)
    nnapi = "nnapi"
    #: ``--use_hexagon=true`` (8-bit models on a Hexagon DSP)
    hexagon = "hexagon"


class Accelerator(Enum):
    """Which backend of the native runner runs a processor's subgraphs (``runner/README.md``,
    the plan file's ``accelerator=``)."""

    #: by the processor's kind: CPU -> cpu, GPU -> gpu, NPU -> npu, DSP -> tflite (Hexagon)
    auto = "auto"
    #: LiteRT's CPU accelerator (XNNPACK, built-in or reference kernels)
    cpu = "cpu"
    #: LiteRT's GPU accelerator (needs its library in the runner's runtime folder)
    gpu = "gpu"
    #: LiteRT's NPU dispatch (needs the vendor's dispatch library)
    npu = "npu"
    #: the classic TFLite C API with the processor's ``delegate`` (older phones)
    tflite = "tflite"


class PowerMonitorKind(Enum):
    """Which power monitor measures the run (:mod:`devices.power`)."""

    #: no monitor: power columns stay empty
    none = "none"
    #: a Monsoon HVPM powering the phone (the ``monsoon`` package over USB)
    monsoon = "monsoon"
    #: RAPL package counters of the machine running the harness: right only when that
    #: machine is what is measured (an x86 Android device on it, or the tests' phone)
    rapl = "rapl"


@dataclass
class AdbProcessorBlock:
    # benchmark_model delegate: cpu | xnnpack | gpu | nnapi | hexagon
    delegate: Delegate = Delegate.cpu
    threads: int = field(default=1, metadata=spec(
        "", at_least(1), "interpreter threads (--num_threads; Band's worker num_threads)"))
    # NNAPI accelerator (--nnapi_accelerator_name), e.g. "qti-dsp"; empty: NNAPI chooses
    nnapi_accelerator: str = ""
    # further benchmark_model flags for this processor, e.g. ["--gpu_precision_loss_allowed=false"]
    extra_flags: list[str] = field(default_factory=list)
    # Band worker device: CPU | GPU | DSP | NPU; empty: the processor's kind
    band_device: str = ""
    # Band worker cpu mask: ALL | LITTLE | BIG | PRIMARY
    band_cpu_mask: str = "ALL"
    # the thermal zone (its `type`) read as this processor's temperature; "auto": the first
    # zone whose type contains the kind's name (cpu, gpu, npu, dsp); "": none
    thermal_zone: str = "auto"
    # cpufreq policies (numbers of /sys/devices/system/cpu/cpufreq/policyN) whose frequency and
    # load are this processor's; null: every policy for a CPU, none otherwise
    cpufreq_policies: list[int] | None = field(default=None, metadata=spec(
        "", NONNEG, "cpufreq policies of this processor"))
    # the native runner's backend for this processor: auto (by kind) | cpu | gpu | npu | tflite
    accelerator: Accelerator = Accelerator.auto
    # the runner's CPU kernels (accelerator cpu, and the CPU fallback of the others):
    # xnnpack | builtin | reference
    kernel: str = "xnnpack"
    # cores the runner's worker for this processor is pinned to; null: not pinned
    cores: list[int] | None = field(default=None, metadata=spec(
        "", NONNEG, "cores the runner's worker is pinned to"))


@dataclass
class AdbProcessorConf(ProcessorConf):
    adb: AdbProcessorBlock = field(default_factory=AdbProcessorBlock)


@dataclass
class AdbServerConf:
    # the adb server's host and port (a local server is started on that port if none answers)
    host: str = "127.0.0.1"
    port: int = field(default=5037, metadata=spec("", PORT, "the adb server's port"))
    # a short command (getprop, cat, ls), seconds
    command_timeout_s: float = field(default=20.0, metadata=spec(
        "s", POS, "limit of a short command"))
    transfer_timeout_s: float = field(default=300.0, metadata=spec(
        "s", POS, "limit of one push or pull"))
    # the on-device `timeout` sends TERM at the limit, then KILL this many seconds later
    kill_after_s: float = field(default=5.0, metadata=spec(
        "s", NONNEG, "KILL this long after the on-device TERM"))
    # a lost phone (offline, gone from the server): tries, and the first wait between them
    # (doubling each time), seconds; 5 tries from 0.5 s wait 7.5 s in all, which rides out
    # a serial that blinks for a second (the adb server takes a few seconds to rejoin it)
    retries: int = field(default=5, metadata=spec("", NONNEG, "tries for a lost phone"))
    backoff_s: float = field(default=0.5, metadata=spec(
        "s", NONNEG, "first wait between tries (doubling)"))


@dataclass
class AdbToolsConf:
    # local path of the stock TFLite benchmark_model built for the phone's ABI (tensorflow
    # lite/tools/benchmark; prebuilt "nightly" binaries exist for arm64 and armv7)
    benchmark_model: str = ""
    # local path of Band's band_benchmark (mrsnu/band @ 8600d49, built with --config=trace so
    # that it writes its job log); empty: the band baseline cannot run on the phone
    band_benchmark: str = ""
    # local path of the harness's native runner built for the phone's ABI (runner/README.md);
    # empty: runner/build/runner, the x86-64 build of `make runner` (an x86-64 phone's)
    runner: str = ""
    # local path of the libLiteRt.so the runner is linked against, built for the phone (the
    # LiteRT AAR's jni/<abi>/libLiteRt.so); empty: the ai-edge-litert wheel's (x86-64)
    litert_lib: str = ""
    # local paths of LiteRT's accelerator and dispatch libraries for the phone (e.g. the GPU
    # accelerator's libLiteRtGpuAccelerator.so, a vendor's libLiteRtDispatch_<Vendor>.so: the
    # LiteRT AARs, runner/README.md): pushed together into one folder the runner is pointed at
    # (--litert-runtime-dir, --litert-dispatch-dir); empty: the CPU only
    litert_accelerators: list[str] = field(default_factory=list)
    # each subgraph is profiled alone on the phone this many times (after 1 warm-up)
    profile_runs: int = field(default=20, metadata=spec(
        "", at_least(1), "runs of each subgraph when profiling on the phone"))
    # a runner whose job log has not grown for this long is stalled: it is killed, seconds
    stall_s: float = field(default=30.0, metadata=spec(
        "s", POS, "no progress for this long: the runner is killed"))
    # seconds a tool may take beyond warm-up + duration (model init, GPU compilation, Band's
    # profiling) before the phone's `timeout` kills it
    grace_s: float = field(default=120.0, metadata=spec(
        "s", NONNEG, "time a tool may take beyond warm-up + duration"))
    # --report_peak_memory_footprint (a monitor thread inside the tool)
    report_peak_memory: bool = True
    # --enable_op_profiling: per-op times into the phone_ops table
    enable_op_profiling: bool = False
    # Band's profile_warmup_runs and profile_num_runs (online profiling before the run)
    band_profile_warmup_runs: int = field(default=3, metadata=spec(
        "", NONNEG, "Band's profile_warmup_runs"))
    band_profile_runs: int = field(default=50, metadata=spec(
        "", at_least(1), "Band's profile_num_runs"))


@dataclass
class AdbSensorsConf:
    interval_ms: float = field(default=100.0, metadata=spec(
        "ms", at_least(10), "the phone's sampling interval"))
    # the GPU's current-frequency file; "auto": the first the probe finds (kgsl gpuclk,
    # a devfreq cur_freq); "": none
    gpu_frequency_path: str = "auto"
    # the GPU's top frequency file (same rules)
    gpu_max_frequency_path: str = "auto"
    # Hz per unit of those files (1 for kgsl and devfreq, which count Hz)
    gpu_frequency_unit_hz: float = field(default=1.0, metadata=spec(
        "Hz", POS, "Hz per unit of the GPU frequency files"))
    # pin every cpufreq policy to this governor for each baseline and restore it afterwards,
    # e.g. "performance" (needs root: adb root); "": leave the governors alone
    pin_governor: str = ""
    cooldown_to_c: float = field(default=0.0, metadata=spec(
        "°C", NONNEG, "wait until every zone is below this; 0: no"))
    # give up waiting after this long (the start temperature is recorded either way), seconds
    cooldown_timeout_s: float = field(default=600.0, metadata=spec(
        "s", NONNEG, "give up waiting after this long"))


@dataclass
class AdbPowerConf:
    # none | monsoon | rapl
    monitor: PowerMonitorKind = PowerMonitorKind.none
    monsoon_serial: int = field(default=0, metadata=spec(
        "", NONNEG, "the Monsoon's serial; 0: the first found"))
    # set the Monsoon's output voltage (V) before sampling; 0: leave it as it is
    monsoon_voltage_v: float = field(default=0.0, metadata=spec(
        "V", Range(0, 13.5), "output voltage to set; 0: leave it"))
    # the package providing HVPM and sampleEngine (the vendor's `Monsoon`, or a drop-in)
    monsoon_driver: str = "Monsoon"
    # samples are averaged over windows of this length into the sensors table, ms
    window_ms: float = field(default=50.0, metadata=spec(
        "ms", POS, "power samples averaged over windows this long"))
    # root under which RAPL's /sys/class/powercap is read
    rapl_root: str = "/"


class Leftovers(Enum):
    #: stop it on the phone, say so in one line, and run
    stop = "stop"
    #: refuse the run in one line
    refuse = "refuse"


@dataclass
class AdbDeviceConf(DeviceConf):
    _target_: str = "devices.adb.AdbDevice"
    # the phone's adb serial (a USB serial, or HOST:PORT for adb over TCP, connected with
    # `adb connect` if needed); empty: ANDROID_SERIAL, else the only phone attached
    serial: str = ""
    adb: AdbServerConf = field(default_factory=AdbServerConf)
    # where files are pushed on the phone (each under a folder named by its content hash)
    remote_dir: str = "/data/local/tmp/adms-harness"
    tools: AdbToolsConf = field(default_factory=AdbToolsConf)
    processors: list[AdbProcessorConf] = field(
        default_factory=list, metadata=spec("", ANY, "the processors", non_empty=True))
    sensors: AdbSensorsConf = field(default_factory=AdbSensorsConf)
    power: AdbPowerConf = field(default_factory=AdbPowerConf)
    # a runner or tool that a run the host lost left running on the phone, found before a
    # run starts (devices/adb/leftovers.py): `stop` it (and pull its logs into its run
    # folder), or `refuse` to run beside it
    leftovers: Leftovers = Leftovers.stop


def register() -> None:
    ConfigStore.instance().store(group="schema/device", name="adb", node=AdbDeviceConf)
