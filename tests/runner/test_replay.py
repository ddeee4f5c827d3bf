"""The runner's C++ decision library against the Python policies: decision traces recorded
from short twin runs (every vanilla, Band and ADMS baseline and ablation) and generated from seeded
random calls replay through ``runner/build/replay`` with no differing decision; an altered
decision is named by its call. Skipped when cmake or g++ is missing. The whole matrix
(k50pro and p20, FRS and ROS, two seeds) is ``-m slow``; the default run records one
device and scenario per seed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.replay.replay import replay
from tests.fixtures.generated_traces import ADMS_READINGS, generated_trace
from tests.fixtures.traces import record_twin
from tests.runner import native

pytestmark = pytest.mark.skipif(native.missing_tools() is not None,
                                reason=f"runner not buildable: {native.missing_tools()}")

VANILLA = ("tflite", "tflite_gpu")
ADMS = ("adms", "adms_ef", "adms_eqs_only", "adms_lp_split", "adms_no_monitor",
        "adms_no_partition", "adms_no_priority", "adms_per_model", "adms_selfish", "adms_shed",
        "adms_strict", "adms_window1", "adms_work_conserving",
        # with `adms` (job_first, device order) and `adms_ef` (processor_asks, load order):
        # every other value of the readings (adms/config.py)
        "adms_asks_reverse", "adms_asks_since_arrival", "adms_highest_first",
        "adms_job_first_free_latency")
#: Band's sample configuration (least-slack-first), its code defaults, and each other scheduler
BAND = ("band", "band7", "band_fixed_worker", "band_round_robin", "band_sel", "band_heft",
        "band_heft_reserved")
#: tflite_gpu with one job at a time per processor (the other concurrency rule)
FIFO = "baselines.tflite_gpu.concurrent=false"
#: requests with SLOs (eq. (1) on real budgets; adms_shed drops)
SLO = "scenario.slo_multiplier=0.5"
SHORTER = ("scenario.duration_s=0.5", "scenario.warmup_s=0.1")
#: (device, scenario, seed, baselines) of the default run: every baseline once, the main
#: ones and every Band one on a second device and seed (odd seeds: tflite_gpu FIFO; even
#: ones: with SLOs, where Band drops)
DEFAULT = (("k50pro", "frs", 1, (*VANILLA, *BAND, *ADMS)),
           ("p20", "frs", 2, (*VANILLA, *BAND, "adms", "adms_ef", "adms_shed")))
MATRIX = tuple((d, s, seed) for d in ("k50pro", "p20") for s in ("frs", "ros") for seed in (1, 2))


@pytest.fixture(scope="module")
def replay_binary() -> Path:
    native.build()
    return native.BUILD / "replay"


def run_replay(binary: Path, *traces: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(binary), *map(str, traces)], capture_output=True, text=True,
                          timeout=300)


def assert_clean(binary: Path, traces: list[Path]) -> None:
    result = run_replay(binary, *traces)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("replay clean") == len(traces)


def record(tmp: Path, device: str, scenario: str, seed: int,
           baselines: tuple[str, ...] = (*VANILLA, *BAND, *ADMS)) -> list[Path]:
    folder = tmp / f"{device}_{scenario}_{seed}"
    return record_twin(device, scenario, baselines, seed, folder,
                       tmp.parent / "tuner_cache", *SHORTER, FIFO if seed % 2 else SLO)


@pytest.fixture(scope="module")
def twin_traces(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("twin")
    return [p for d, s, seed, names in DEFAULT for p in record(tmp, d, s, seed, names)]


def test_twin_traces_replay_clean_in_cpp(replay_binary: Path, twin_traces: list[Path]) -> None:
    assert_clean(replay_binary, twin_traces)


def test_twin_traces_are_complete(twin_traces: list[Path]) -> None:
    """The Python policy replays them clean too: the trace holds what its decisions read."""
    for trace in twin_traces:
        count, mismatch = replay(trace)
        assert mismatch is None, f"{trace.name}: {mismatch}"
        assert count > 0


@pytest.mark.parametrize("family", ["tflite", "band", "adms"])
def test_generated_traces_replay_clean(replay_binary: Path, tmp_path: Path,
                                       family: str) -> None:
    traces = [generated_trace(seed, family, tmp_path / f"{family}_{seed}.jsonl")
              for seed in range(12)]
    assert_clean(replay_binary, traces)


@pytest.mark.parametrize("baseline", ["adms_shed", "band", "band7", "band_sel",
                                      "band_heft_reserved"])
def test_a_twin_trace_with_slos_drops(twin_traces: list[Path], baseline: str) -> None:
    dropping = next(t for t in twin_traces
                    if t.name == f"{baseline}.jsonl" and t.parent.name.endswith("_2"))  # (SLOs)
    assert '"drop":[' in dropping.read_text().replace('"drop":[]', "")


def test_twin_adms_traces_carry_handoffs_and_last_processors(twin_traces: list[Path]) -> None:
    """The twin charges handoffs: an ADMS trace's header holds them (``facts.handoff``) and
    its jobs past their first subgraph name where it ran, so the replays above price them."""
    lines = next(t for t in twin_traces if t.name == "adms_ef.jsonl").read_text().splitlines()
    assert any(ns > 0 for rows in json.loads(lines[0])["facts"]["handoff"].values()
               for _, ns in rows)
    rows = [row for line in map(json.loads, lines[1:]) if line["call"] == "schedule"
            for row in line["queue"]]
    assert any(row[10] for row in rows) and all((row[10] == "") == (row[1] == 0) for row in rows)


def test_generated_band_traces_cover_every_scheduler_and_worker_map(tmp_path: Path) -> None:
    headers = [json.loads(generated_trace(seed, "band", tmp_path / f"{seed}.jsonl")
                          .read_text().splitlines()[0]) for seed in range(6)]
    assert len({h["conf"]["scheduler"] for h in headers}) == 6
    assert any("worker_map" in h["facts"] for h in headers)


def test_generated_adms_traces_cover_every_reading_and_handoffs(tmp_path: Path) -> None:
    """The seeds the replay test above runs draw every value of each reading, with and
    without handoffs."""
    headers = [json.loads(generated_trace(seed, "adms", tmp_path / f"{seed}.jsonl")
                          .read_text().splitlines()[0]) for seed in range(12)]
    for name, enum in ADMS_READINGS.items():
        assert {h["conf"][name] for h in headers} == {v.name for v in enum}, name
    assert 0 < sum("handoff" in h["facts"] for h in headers) < len(headers)


def test_an_altered_decision_is_named(replay_binary: Path, twin_traces: list[Path],
                                      tmp_path: Path) -> None:
    source = next(t for t in twin_traces if t.name == "adms_ef.jsonl")
    lines = source.read_text().splitlines()
    assigning = [k for k, line in enumerate(lines) if '"assign":[[' in line]
    k = assigning[len(assigning) // 2]
    call = json.loads(lines[k])
    call["decision"]["assign"][0][0] += 1000  # another job
    lines[k] = json.dumps(call)
    altered = tmp_path / "altered.jsonl"
    altered.write_text("\n".join(lines) + "\n")
    result = run_replay(replay_binary, altered)
    assert result.returncode == 1
    assert f"differs at call {call['i']} (schedule at now_ns={call['now_ns']}): expected" \
        in result.stdout


def test_a_trace_it_cannot_read_is_one_error(replay_binary: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"trace":"decisions","policy":"no.such.Policy"}\n')
    result = run_replay(replay_binary, bad)
    assert result.returncode == 1
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


@pytest.mark.slow
@pytest.mark.parametrize(("device", "scenario", "seed"), MATRIX)
def test_every_baseline_replays_clean(replay_binary: Path, tmp_path_factory:
                                      pytest.TempPathFactory, device: str, scenario: str,
                                      seed: int) -> None:
    tmp = tmp_path_factory.mktemp("matrix")
    assert_clean(replay_binary, record(tmp, device, scenario, seed))
