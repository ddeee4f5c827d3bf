"""``python -m harness device=host`` end to end, on tiny real models (no TensorFlow, no zoo).

The host device finds a scenario model ``<name>`` at ``<zoo_cache>/<name>.tflite``; pointing
``zoo_cache`` at a folder of the tiny test models, saved under the FRS models' names, runs
the real FRS scenario config through real LiteRT slices on this machine's cores. Checked:

* Ctrl-C (SIGINT) in the middle of a run ends the process, every request that had finished
  is in the results (``requests.parquet``, read through
  :func:`harness.reporting.store.load_run`) and the manifest says ``interrupted``;
* a bad core id, kernel or setting in the host config on the command line ends with exit
  code 2 and one ``error:`` line on stderr, no traceback;
* the on-disk profile cache (:mod:`devices.host.profiles`) answers a second device, only for
  the same slice, kernel, threads and cores, and never keeps a contended measurement;
* the device reports how much of their busy time workers ran, and how much CPU other
  processes used meanwhile (the contention check).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from devices.host.config import HostDeviceConf, HostProcessorConf
from devices.host.device import HostDevice
from devices.host.profiles import Timing
from devices.host.spec import available_cores
from devices.opsupport import SupportRules
from harness.reporting.journal import journal_frame
from harness.reporting.store import load_run
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from harness.seams.records import Completion, Request
from harness.seams.rows import REQUEST_COLUMNS
from tests.fixtures import raw
from tests.fixtures.frs_zoo import STAND_INS, frs_zoo
from tests.fixtures.paths import REPO
from tests.harness.experiment.test_cli import assert_user_error

ROOT = REPO
#: hang guards (a broken run fails the test instead of blocking it), not timing checks
WAIT_S = 120.0
FINISHED_BEFORE_CTRL_C = 20

needs_two_cores = pytest.mark.skipif(
    len(available_cores()) < 2, reason="conf/device/host.yaml pins its workers to cores 0 and 1"
)


@pytest.fixture(scope="module")
def zoo_dir(tiny_models: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A zoo cache holding the tiny models under the FRS models' names."""
    return frs_zoo(tiny_models, tmp_path_factory.mktemp("tiny_zoo"))


def harness_args(zoo: Path, run_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "harness", "device=host", "scenario=frs", f"zoo_cache={zoo}",
            f"hydra.run.dir={run_dir}", "plots=false", *extra]


# -- Ctrl-C ----------------------------------------------------------------------------------


def finished_requests(journal: Path) -> int:
    """Requests the journal records as finished (``ok``) so far (its complete batches: the
    recorder writes what it holds at least once a second)."""
    return int((journal_frame(journal, REQUEST_COLUMNS)["status"] == "ok").sum())


@pytest.fixture
def running(zoo_dir: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """A long ADMS run on the host (120 s measured, so Ctrl-C always lands mid-run)."""
    run_dir = tmp_path / "run"
    args = harness_args(zoo_dir, run_dir, "run=[adms]", "scenario.duration_s=120",
                        "scenario.warmup_s=0")
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        yield proc, run_dir
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def wait_for_finished(proc: subprocess.Popen[str], journal: Path, count: int) -> int:
    deadline = time.monotonic() + WAIT_S
    while (done := finished_requests(journal)) < count:
        assert proc.poll() is None, f"the run ended early: {proc.communicate()[1][-2000:]}"
        assert time.monotonic() < deadline, f"fewer than {count} requests finished"
        time.sleep(0.2)
    return done


@needs_two_cores
def test_ctrl_c_keeps_every_finished_request(
    running: tuple[subprocess.Popen[str], Path],
) -> None:
    proc, run_dir = running
    before = wait_for_finished(proc, run_dir / "requests.arrows", FINISHED_BEFORE_CTRL_C)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 130
    assert "Traceback" not in stderr and "interrupted: finished requests are kept" in stderr
    assert (run_dir / "requests.parquet").exists()
    run = load_run(run_dir)
    assert run.manifest["status"] == "interrupted"
    ok = run.requests[run.requests["status"] == "ok"]
    assert len(ok) >= before
    assert set(ok["model"]) == set(STAND_INS) and set(ok["baseline"]) == {"adms"}
    assert (ok["end_ns"] >= ok["start_ns"]).all() and (ok["start_ns"] >= ok["arrival_ns"]).all()
    ran = run.subgraphs[run.subgraphs["ok"]].groupby("request_id").size()
    assert (ran.reindex(ok["request_id"]).to_numpy() == ok["n_subgraphs"].to_numpy()).all()


# -- bad host settings -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "needles"),
    [
        ("device.processors.0.host.cores=[4096]", ["cpu", "core 4096"]),
        # typed at composition: Hydra names the processor by its place in the list
        ("device.processors.1.host.kernel=cuda", ["processors.1", "cuda", "xnnpack"]),
        ("device.host.profile_cache=sometimes", ["profile_cache", "true or false"]),
    ],
)
def test_bad_host_setting_is_one_line_and_exit_2(
    override: str, needles: list[str], zoo_dir: Path, tmp_path: Path
) -> None:
    proc = subprocess.run(harness_args(zoo_dir, tmp_path, "run=[tflite]", override), cwd=ROOT,
                          capture_output=True, text=True, timeout=WAIT_S, check=False)
    assert_user_error(proc, *needles)


# -- the profile cache -----------------------------------------------------------------------


def one_core_device(kernel: str, cache: bool = True) -> HostDeviceConf:
    host = {"kernel": kernel, "threads": 1, "cores": [available_cores()[0]]}
    proc = HostProcessorConf(name="p", kind=ProcessorKind.CPU, support=SupportRules.all,
                             host=raw(host))
    settings = {"profile_runs": 2, "warmup_runs": 1, "profile_cache": cache}
    return HostDeviceConf(name="t", processors=[proc], host=raw(settings))


def profile_whole(conf: HostDeviceConf, path: Path, cache_dir: Path) -> tuple[int, int, int]:
    """Profile the whole ``chain`` model once: (ns, cache hits, measurements stored)."""
    with HostDevice(conf, {"chain": path}, cache_dir) as dev:
        ops = frozenset(range(dev.graph("chain").num_ops))
        sg = Subgraph(0, "chain", "p", ops, (0,))
        ns = dev.profile(ModelPlan("chain", (ops,), (frozenset({"p"}),), (sg,)), sg)
        store = dev.profile_store
        return ns, (store.hits if store else 0), (store.stores if store else 0)


def test_profile_cache_reuses_only_a_matching_measurement(
    tiny_models: dict[str, Path], tmp_path: Path
) -> None:
    path = tiny_models["chain"]
    first, hits, stores = profile_whole(one_core_device("xnnpack"), path, tmp_path)
    assert (hits, stores) == (0, 1)
    again, hits, stores = profile_whole(one_core_device("xnnpack"), path, tmp_path)
    assert (again, hits, stores) == (first, 1, 0)
    _, hits, stores = profile_whole(one_core_device("builtin"), path, tmp_path)
    assert (hits, stores) == (0, 1)
    _, hits, stores = profile_whole(one_core_device("xnnpack", cache=False), path, tmp_path)
    assert (hits, stores) == (0, 0)
    assert len(list((tmp_path / "profiles").rglob("*.json"))) == 2


def test_a_contended_measurement_is_not_cached(tiny_models: dict[str, Path],
                                               tmp_path: Path) -> None:
    conf = one_core_device("xnnpack")
    with HostDevice(conf, {"chain": tiny_models["chain"]}, tmp_path) as dev:
        store, spec, ops = dev.profile_store, dev.specs["p"], frozenset({0, 1})
        assert store is not None
        store.put(tiny_models["chain"], ops, spec, Timing(5, (5,), cpu_share=0.5))
        assert store.get(tiny_models["chain"], ops, spec) is None
        store.put(tiny_models["chain"], ops, spec, Timing(7, (7,), cpu_share=None))
        assert store.get(tiny_models["chain"], ops, spec) == 7


def test_workers_report_their_cpu_share_and_other_processes_load(
    tiny_models: dict[str, Path], tmp_path: Path
) -> None:
    with HostDevice(one_core_device("xnnpack"), {"chain": tiny_models["chain"]}, tmp_path) as dev:
        assert dev.cpu_shares() == {"p": None} and dev.foreign_load() is None
        ops = frozenset(range(dev.graph("chain").num_ops))
        sg = Subgraph(0, "chain", "p", ops, (0,))
        dev.load({"chain": dev.graph("chain")}, {"chain": ModelPlan("chain", (ops,),
                                                                    (frozenset({"p"}),), (sg,))})
        loaded_at = dev.now_ns()
        dev.start_clock()  # the run's time 0 comes after loading
        assert dev.now_ns() < loaded_at
        done: list[Completion] = []
        dev.start(1, Request(1, "chain", 0, 0), sg, dev.now_ns(), done.append)
        dev.drain()
        assert [c.ok for c in done] == [True]
        share, foreign = dev.cpu_shares()["p"], dev.foreign_load()
        assert share is not None and share > 0
        assert foreign is not None and foreign >= 0
