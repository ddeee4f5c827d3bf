"""The schemas of ``conf/farm/farm.yaml`` and its inventory."""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from harness.seams.fields import ANY, NONNEG, SEED, spec


@dataclass
class PhoneEntry:
    # the name of its cells in results
    name: str = MISSING
    # its adb serial
    serial: str = MISSING
    # its device config (conf/device/<device>.yaml: adb, or a probed phone's YAML)
    device: str = "adb"
    # baselines to run on it; empty: the matrix's (that a phone can run)
    baselines: list[str] = field(default_factory=list)
    # more `python -m harness` overrides for its cells (tool paths, adb server port...)
    overrides: list[str] = field(default_factory=list)


@dataclass
class TwinEntry:
    name: str = MISSING
    # its device config (conf/device/<device>.yaml, e.g. k50pro)
    device: str = MISSING
    baselines: list[str] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)


@dataclass
class InventoryConf:
    phones: list[PhoneEntry] = field(default_factory=list)
    twins: list[TwinEntry] = field(default_factory=list)


@dataclass
class MatrixConf:
    scenarios: list[str] = field(default_factory=lambda: ["frs"], metadata=spec(
        "", ANY, "scenarios of every cell", non_empty=True))
    # baselines of every device (a device's own list replaces it)
    baselines: list[str] = field(default_factory=lambda: ["tflite", "band"], metadata=spec(
        "", ANY, "baselines of every device", non_empty=True))
    seeds: list[int] = field(default_factory=lambda: [0],
                             metadata=spec("", SEED, "seeds of every cell",
                                           non_empty=True))
    # overrides of every cell (e.g. scenario.duration_s=30 plots=false)
    overrides: list[str] = field(default_factory=list)


@dataclass
class FarmConf:
    inventory: InventoryConf = field(default_factory=InventoryConf)
    matrix: MatrixConf = field(default_factory=MatrixConf)
    # the results tree; a night is <results>/<night>/
    results: str = "results/farm"
    # the night's name; empty: today's date (UTC), YYYY-MM-DD
    night: str = ""
    # compare with this night; empty: the latest earlier night in the tree
    previous: str = ""
    # Hydra launcher of the cells: joblib | submitit_local | submitit_slurm
    launcher: str = "joblib"
    # launcher name -> its overrides (hydra.launcher.*)
    launchers: dict[str, list[str]] = field(default_factory=dict)
    # per-serial lock files live here; a job waits this long for a phone, s
    lock_dir: str = "results/farm/.locks"
    lock_timeout_s: float = field(default=3600.0, metadata=spec(
        "s", NONNEG, "how long a job waits for a phone's lock"))
    # metric -> the percent it may worsen before it is a regression (noisy ones wider)
    thresholds: dict[str, float] = field(
        default_factory=lambda: {"fps": 10.0, "latency_p90_ms": 25.0},
        metadata=spec("%", NONNEG, "how much a metric may worsen before it is a regression"))
    # write PNG plots into the report
    plots: bool = True


def register() -> None:
    ConfigStore.instance().store(name="farm_schema", node=FarmConf)
