"""``python -m harness.farm`` over loopback phones and a twin (no network, no phone).

The phones are tests/devices/adb/fakephone (fake adbds joined by the real adb server, the
stand-in ``benchmark_model`` running the tiny models with real LiteRT); the twin is the K50 Pro
twin; the launchers are Hydra's own (joblib, submitit_local). Checked: a night over two phones
and a twin where one phone is killed after its first cell: every other cell finishes, the
failed one is named, the report is written, the exit code says cells failed; two twin nights
where the second has an injected slowdown: exit 1 and the regression names the metric; the
same night run again appends only what is missing.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from harness.farm.__main__ import compose_farm, run
from harness.farm.cell import run_cell
from harness.farm.lock import holding
from harness.farm.night import collect, compare_nights, write_report
from harness.farm.plan import cells, read_plan, write_plan
from harness.seams.errors import UserError
from tests.devices.adb.fakephone.server import AdbServer
from tests.devices.adb.fakephone.several import loopback_phones

WAIT_S = 300.0
SHORT = "matrix.overrides=['plots=false','scenario.duration_s=0.4','scenario.warmup_s=0.1']"
#: every processor of the K50 Pro twin takes at least 100 ms per invoke: a slower night
SLOWDOWN = [f"device.processors.{i}.twin.invoke_floor_us=100000" for i in range(4)]


def write_inventory(conf: Path, phones: list[dict[str, object]],
                    twin_overrides: list[str]) -> str:
    folder = conf / "inventory"
    folder.mkdir(parents=True, exist_ok=True)
    body = {"phones": phones, "twins": [{"name": "k50", "device": "k50pro",
                                         "baselines": ["tflite"],
                                         "overrides": twin_overrides}]}
    (folder / "lab.json.yaml").write_text(json.dumps(body))  # JSON is YAML
    return f"hydra.searchpath=[file://{conf}]"


def farm_args(tmp: Path, searchpath: str, night: str, *extra: str) -> list[str]:
    return [searchpath, "inventory=lab.json", f"results={tmp / 'farm'}", f"night={night}",
            f"lock_dir={tmp / 'locks'}", SHORT, *extra]


def phone_entry(name: str, serial: str, server: AdbServer, tools: dict[str, Path],
                zoo: Path, baselines: tuple[str, ...] = ("tflite_stock",)) -> dict[str, object]:
    return {"name": name, "serial": serial, "device": "adb", "baselines": list(baselines),
            "overrides": [f"device.adb.port={server.port}", "device.adb.retries=1",
                          "device.adb.backoff_s=0.1", "device.tools.grace_s=20",
                          f"device.tools.benchmark_model={tools['benchmark_model']}",
                          f"device.tools.band_benchmark={tools['band_benchmark']}",
                          "device.tools.band_profile_runs=2",
                          "device.processors.0.adb.threads=1", f"zoo_cache={zoo}"]}


def cell_json(tmp: Path, night: str, cell: str) -> dict[str, object]:
    path = tmp / "farm" / night / cell / "cell.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def test_the_cells_of_a_night_with_one_phone_killed_halfway(
        session_server: AdbServer, tools: dict[str, Path], zoo_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast variant: the night's cells run in this process by the cell job's function
    (no launcher); phone p1 is killed between its two cells. The rest finish, the failed one
    is reported, the report is written."""
    for key, value in session_server.env.items():
        monkeypatch.setenv(key, value)
    with loopback_phones(tmp_path / "phones", session_server, 2) as phones:
        entries = [phone_entry("p0", phones[0][1].serial, session_server, tools, zoo_dir),
                   phone_entry("p1", phones[1][1].serial, session_server, tools, zoo_dir,
                               ("tflite_stock", "band_stock"))]
        conf = compose_farm(farm_args(tmp_path, write_inventory(tmp_path / "conf", entries, []),
                                      "2026-01-01"))
        folder = tmp_path / "farm" / "2026-01-01"
        body, todo = read_plan(write_plan(folder, cells(conf), conf.lock_dir, 60.0))
        assert [c.id for c in todo] == ["p0/frs/tflite_stock/seed0", "p1/frs/tflite_stock/seed0",
                                        "p1/frs/band_stock/seed0", "k50/frs/tflite/seed0"]
        for cell in todo:
            if cell.id == "p1/frs/band_stock/seed0":
                phones[1][1].kill()  # phone p1 vanishes halfway through the night
            run_cell(body, cell)
    night = collect(folder, todo)
    assert [o["cell"] for o in night.failed] == ["p1/frs/band_stock/seed0"]
    assert phones[1][1].serial in night.failed[0]["error"]
    found, metrics, broken = compare_nights(night, None, todo, conf.thresholds)
    assert broken == []
    assert found == [] and len(metrics) == 2 * len(todo)
    fps = metrics[metrics["metric"] == "fps"].set_index("cell")["value"]
    assert (fps.drop("p1/frs/band_stock/seed0") > 0).all()
    report = write_report(night, None, found, metrics, conf.thresholds, True).read_text()
    assert "`p1/frs/band_stock/seed0`" in report.split("## Regressions")[0]
    assert (folder / "fps.png").stat().st_size > 1000


@pytest.mark.slow
def test_a_night_over_two_phones_and_a_twin_with_one_phone_killed(
        session_server: AdbServer, tools: dict[str, Path], zoo_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole command in a thread (its cells are Hydra joblib jobs in processes of their
    own); phone p1 is killed once its first cell ended."""
    for key, value in session_server.env.items():
        monkeypatch.setenv(key, value)
    with loopback_phones(tmp_path / "phones", session_server, 2) as phones:
        entries = [phone_entry(f"p{i}", d.serial, session_server, tools, zoo_dir)
                   for i, (_, d) in enumerate(phones)]
        searchpath = write_inventory(tmp_path / "conf", entries, [])
        codes: list[int] = []
        night = threading.Thread(target=lambda: codes.append(run(farm_args(
            tmp_path, searchpath, "2026-01-01", "matrix.seeds=[0,1]"))), daemon=True)
        night.start()
        deadline = time.monotonic() + WAIT_S
        while not cell_json(tmp_path, "2026-01-01", "p1/frs/tflite_stock/seed0"):
            assert night.is_alive(), "the night ended before phone p1's first cell"
            assert time.monotonic() < deadline, "phone p1's first cell never ended"
            time.sleep(0.05)
        phones[1][1].kill()  # phone p1 vanishes halfway through the night
        night.join(WAIT_S)
    out, err = capsys.readouterr()
    assert codes == [3], err
    folder = tmp_path / "farm" / "2026-01-01"
    statuses = {f"{c}/{s}": cell_json(tmp_path, "2026-01-01",
                                      f"{c}/frs/{'tflite' if c == 'k50' else 'tflite_stock'}"
                                      f"/seed{s}").get("status")
                for c in ("p0", "p1", "k50") for s in (0, 1)}
    assert statuses == {"p0/0": "ok", "p0/1": "ok", "p1/0": "ok", "p1/1": "failed",
                        "k50/0": "ok", "k50/1": "ok"}
    failed = cell_json(tmp_path, "2026-01-01", "p1/frs/tflite_stock/seed1")
    assert phones[1][1].serial in str(failed["error"])
    assert "FAILED p1/frs/tflite_stock/seed1" in err and err.count("FAILED") == 1
    report = (folder / "report.md").read_text()
    assert "`p1/frs/tflite_stock/seed1`" in report.split("## Regressions")[0]
    assert "no earlier night" in report and (folder / "fps.png").stat().st_size > 1000
    assert f"report: {folder / 'report.md'}" in out


def twin_night(tmp: Path, searchpath: str, night: str) -> None:
    """A night's twin cell run by the cell job's own function, in this process (what a
    launcher's job runs), so that the farm's command finds every cell finished."""
    conf = compose_farm(farm_args(tmp, searchpath, night))
    todo = cells(conf)
    plan = write_plan(tmp / "farm" / night, todo, conf.lock_dir, conf.lock_timeout_s)
    body, planned = read_plan(plan)
    for cell in planned:
        assert run_cell(body, cell)["status"] == "ok"


def test_a_slower_night_is_a_regression_naming_the_metric(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The fast variant: the cells run in this process; no launcher is needed."""
    plain = write_inventory(tmp_path / "conf", [], [])
    twin_night(tmp_path, plain, "2026-01-01")
    assert run(farm_args(tmp_path, plain, "2026-01-01")) == 0
    slower = write_inventory(tmp_path / "conf2", [], SLOWDOWN)
    twin_night(tmp_path, slower, "2026-01-02")
    assert run(farm_args(tmp_path, slower, "2026-01-02")) == 1
    out, err = capsys.readouterr()
    assert "0 to run" in out and "REGRESSION k50/frs/tflite/seed0 tflite fps:" in err
    report = (tmp_path / "farm" / "2026-01-02" / "report.md").read_text()
    assert "compared with 2026-01-01" in report and "tflite fps:" in report


@pytest.mark.slow
def test_a_slower_second_night_through_submitit_local(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two twin nights through submitit_local (the shape of submitit_slurm), cells and all."""
    launcher = ["launcher=submitit_local"]
    plain = write_inventory(tmp_path / "conf", [], [])
    assert run(farm_args(tmp_path, plain, "2026-01-01", *launcher)) == 0
    slower = write_inventory(tmp_path / "conf2", [], SLOWDOWN)
    assert run(farm_args(tmp_path, slower, "2026-01-02", *launcher)) == 1
    err = capsys.readouterr().err
    assert "REGRESSION k50/frs/tflite/seed0 tflite fps:" in err
    report = (tmp_path / "farm" / "2026-01-02" / "report.md").read_text()
    assert "compared with 2026-01-01" in report and "tflite fps:" in report
    summary = json.loads((tmp_path / "farm" / "2026-01-02" / "summary.json").read_text())
    assert [r["metric"] for r in summary["regressions"]][:1] == ["fps"]
    # the same night again runs nothing (every cell finished) and still reports it
    assert run(farm_args(tmp_path, slower, "2026-01-02", *launcher)) == 1
    assert "0 to run" in capsys.readouterr().out


def test_a_phone_is_held_by_one_job_at_a_time(tmp_path: Path) -> None:
    with (holding(tmp_path, "127.0.0.1:5601", 1.0),
          pytest.raises(UserError, match=r"127.0.0.1:5601 stayed locked"),
          holding(tmp_path, "127.0.0.1:5601", 0.2)):
        pass
    with holding(tmp_path, "127.0.0.1:5601", 0.2):
        pass  # released when the holder's block ended


@pytest.mark.parametrize(("override", "needle"), [
    ("inventory.twins=[]", "no phones and no twins"),
    ("inventory.twins=[{name:'a/b',device:k50pro}]", "'a/b' is a folder name"),
    ("launcher=ray", "launcher='ray' is not a Hydra launcher"),
    ("+thresholds.power=5", "thresholds.power: not a compared metric"),
])
def test_bad_farm_input_is_one_error(override: str, needle: str, tmp_path: Path) -> None:
    searchpath = write_inventory(tmp_path / "conf", [], [])
    with pytest.raises(UserError, match=needle):
        run(farm_args(tmp_path, searchpath, "2026-01-01", override))


@pytest.mark.parametrize("text", ['{"status": "o', "[1, 2]", "\xff"])
def test_a_damaged_cell_json_is_a_failed_cell_saying_so(text: str, tmp_path: Path) -> None:
    from harness.farm.night import read_outcome
    path = tmp_path / "cell.json"
    path.write_text(text, encoding="latin-1")
    found = read_outcome(path, "k50pro/frs/tflite/seed0")
    assert found["status"] == "failed" and str(path) in found["error"]
