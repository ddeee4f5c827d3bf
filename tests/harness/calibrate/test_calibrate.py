"""``python -m harness.calibrate`` on the loopback phone (tests/devices/adb/fakephone: a fake
adbd joined by the real adb server, stand-in ``benchmark_model`` running the tiny models with
real LiteRT). Checked: every slice is measured and lands in the twin YAML as a measured
latency with the phone's serial; the YAML composes and runs (Band, ADMS) as "twin calibrated
from <serial>"; the thermal constants come from the heat-up trace; the report puts the
twin-predicted vanilla FPS beside the phone-measured one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from omegaconf import DictConfig, OmegaConf

from devices.twin.calibrate import load_conf
from devices.twin.spec import parse
from harness.calibrate.__main__ import run
from harness.reporting.runfolder import RunFolder, State
from harness.seams.errors import UserError
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.server import AdbServer

MODELS = "scenario.models=[retinaface,arcface_mobilenet]"  # tiny stand-ins: fallback, chain


def overrides(server: AdbServer, serial: str, tools: dict[str, Path], zoo: Path, out: Path
              ) -> list[str]:
    return [f"device.serial={serial}", f"device.adb.port={server.port}",
            f"device.tools.benchmark_model={tools['benchmark_model']}",
            "device.processors.0.adb.threads=1", "device.tools.grace_s=20", MODELS,
            f"zoo_cache={zoo}", f"out={out}", "profile.warmup_s=0.1", "profile.duration_s=0.3",
            "heat.duration_s=2", "check.duration_s=0.5", "check.warmup_s=0.3",
            "check.twin_duration_s=0.006", "check.twin_warmup_s=0.002",
            "check.seeds=1"]


@pytest.mark.parametrize("baselines", [
    pytest.param([], id="holdout-only"),
    pytest.param(["band", "adms"], id="band-adms", marks=pytest.mark.slow),
])
def test_calibrate_writes_a_twin_that_runs_and_is_checked(
        baselines: list[str], adb_server: AdbServer, adbd: Adbd, tools: dict[str, Path],
        zoo_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "cal"
    report = run([*overrides(adb_server, adbd.serial, tools, zoo_dir, out),
                  f"check.baselines=[{','.join(baselines)}]"])
    slices = pd.read_csv(out / "slices.csv")
    assert set(slices["processor"]) == {"cpu", "gpu"}
    assert set(slices["model"]) == {"retinaface", "arcface_mobilenet"}
    assert (slices["latency_us"] > 0).all() and (slices["count"] > 0).all()

    [yaml] = (out / "device").glob("*.yaml")
    conf = load_conf(yaml)
    spec = parse(conf)
    assert conf.description.startswith(f"twin calibrated from {adbd.serial}")
    for row in slices.itertuples():
        measured = spec.processor(row.processor).measured_ns
        found = next(k for k in measured if k[0] == row.model and len(k[1]) == row.n_ops)
        assert measured[found] == pytest.approx(row.latency_us * 1e3, abs=1.0)  # 3 decimals in µs
    provenance = spec.provenance()
    for key in ("gpu.measured_us", "gpu.overheads", "gpu.thermal",
                "device.ambient_c",
                "cpu.freqs_mhz"):
        assert adbd.serial in provenance[key] and provenance[key].endswith("[M]"), key
    assert "least squares over 2 slices" in provenance["cpu.peak_gflops"]  # fitted or kept
    assert "prior k50pro" in provenance["gpu.power"]  # not measured, and says so
    assert spec.processor("cpu").freqs_mhz[-1] == 2400.0  # the probed table (fake: 2.4 GHz)
    raw = OmegaConf.load(yaml)
    assert isinstance(raw, DictConfig)
    assert raw["_target_"] == "devices.twin.calibrated.CalibratedTwinDevice"

    for folder, names in (("twin_vanilla", ["tflite"]), ("twin", baselines)):
        if not names:
            assert not (out / folder).exists()
            continue
        twin = RunFolder(out / folder)
        assert twin.kind == "twin" and twin.state is State.COMPLETED
        assert set(twin.requests["baseline"]) == set(names)
        assert (twin.requests["status"] == "ok").mean() > 0.9
        first = twin.run(names[0], 0)
        assert first is not None
        assert f"twin calibrated from {adbd.serial}" in json.dumps(first.facts["device"]["facts"])

    phone = RunFolder(out / "phone_vanilla")
    assert phone.kind == "adb" and len(phone.phone_runs) == 2
    text = report.read_text()
    assert "| phone-measured (benchmark_model processes) |" in text
    assert "| twin-predicted |" in text and "twin error" in text
    assert ("| band |" in text and "| adms |" in text) == bool(baselines)


def test_calibrate_refuses_a_twin_as_the_phone(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="calibrates from a phone over adb"):
        run(["device=k50pro", f"out={tmp_path}"])
