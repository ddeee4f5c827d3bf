"""The runner's whole runtime equals Python's row for row (:mod:`tests.runner.differential`):
the runner under ``--simulate`` (executor, traffic, library policy on a virtual clock) and
the Python runtime on the same latency table, policy, plans, SLOs and arrivals give the same
subgraph rows (job, subgraph, processor, start, end, in order), request rows (job, arrival,
end or dropped) and decision traces (every view and decision). Property-based over random
tables, plans, configs and traffic (closed loops of frames, several in flight, and streams,
with drops and the wait after them; periodic and Poisson arrivals), and every named baseline
of ``conf/baseline`` once per kind of traffic. Skipped when cmake or g++ is missing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.config.schema import Arrival
from tests.fixtures.paths import REPO
from tests.runner import native
from tests.runner.differential import (
    ARRIVALS,
    FAMILIES,
    Case,
    difference,
    make_setup,
    run_python,
    run_runner,
)

pytestmark = pytest.mark.skipif(native.missing_tools() is not None,
                                reason=f"runner not buildable: {native.missing_tools()}")

#: every named baseline the runner runs (the stock tools and thread settings are not policies)
VARIANTS = sorted(p.stem for p in (REPO / "conf" / "baseline").glob("*.yaml")
                  if not p.stem.endswith("_stock") and p.stem != "threads")


def family_of(variant: str) -> str:
    return next(f for f in FAMILIES if variant.startswith(f))


@pytest.fixture(scope="module")
def binary() -> Path:
    return native.build()


def assert_equal(binary: Path, case: Case, folder: Path) -> tuple[int, int]:
    """Both runs of ``case`` give the same rows and decision traces; (subgraph rows, dropped
    requests)."""
    python = run_python(case, make_setup(case))
    cpp = run_runner(binary, case, make_setup(case), folder)
    found = difference(python, cpp)
    assert not found, f"{case} ({folder}): {found}"
    return len(python.jobs), sum(1 for r in python.requests if r[3] < 0)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(family=st.sampled_from(FAMILIES), seed=st.integers(0, 2**32 - 1),
       arrival=st.sampled_from(ARRIVALS), count=st.integers(1, 12),
       in_flight=st.integers(1, 3), fps=st.sampled_from([100.0, 300.0, 1000.0]))
def test_random_runs_are_equal(binary: Path, tmp_path: Path, family: str, seed: int,
                               arrival: Arrival, count: int, in_flight: int, fps: float) -> None:
    case = Case(family, seed, arrival, count, in_flight, fps)
    assert_equal(binary, case, tmp_path / f"{family}_{seed}_{arrival.name}")


def test_streams_dropped_together_release_in_drop_order(binary: Path, tmp_path: Path) -> None:
    """Found by the property test: ADMS shed two streams' requests in one decision; Python
    re-issues them (after the wait) in the order of the drops, and so must the runner (a seed
whose random ADMS config sheds several requests; the configs' draws changed with the readings)."""
    assert assert_equal(binary, Case("adms", 0, Arrival.stream, 8, 2, 300.0), tmp_path)[1] > 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_named_baseline_is_equal(binary: Path, tmp_path: Path, variant: str) -> None:
    jobs = 0
    for k, arrival in enumerate(ARRIVALS):
        case = Case(family_of(variant), 7 + k, arrival, 8, 1 + k % 3, 300.0, variant)
        jobs += assert_equal(binary, case, tmp_path / arrival.name)[0]
    assert jobs > 0


@pytest.mark.parametrize("family", ["band", "adms"])
def test_runs_with_drops_are_equal(binary: Path, tmp_path: Path, family: str) -> None:
    """SLOs tight enough that Band (drop_on_slo) and ADMS's shedding drop requests, and the
    closed loop waits after them: seeded cases that drop, checked to."""
    variant = "band" if family == "band" else "adms_shed"
    dropped = 0
    for seed in range(6):
        for arrival in ARRIVALS:
            case = Case(family, seed, arrival, 10, 3, 300.0, variant)
            dropped += assert_equal(binary, case, tmp_path / f"{seed}_{arrival.name}")[1]
    assert dropped > 0


def run_simulate(binary: Path, tmp_path: Path, table: str, *extra: str
                 ) -> subprocess.CompletedProcess[str]:
    (tmp_path / "plan.txt").write_text(
        "processor cpu accelerator=cpu\nmodel a inputs=0 outputs=1\n"
        "subgraph a 0 processor=cpu slice=x/a.tflite inputs=0 outputs=1\n")
    (tmp_path / "latency.txt").write_text(table)
    return subprocess.run([str(binary), "--plan", str(tmp_path / "plan.txt"), "--simulate",
                           str(tmp_path / "latency.txt"), "--log", str(tmp_path / "jobs.tsv"),
                           "--frames", "3", *extra], capture_output=True, text=True, timeout=60)


def test_simulate_runs_the_built_in_policy_on_virtual_time(binary: Path, tmp_path: Path) -> None:
    result = run_simulate(binary, tmp_path, "a 0 5\n")
    assert result.returncode == 0, result.stderr
    starts_ends = [line.split("\t")[4:6] for line in
                   (tmp_path / "jobs.tsv").read_text().splitlines()[1:]]
    assert starts_ends == [["0", "5"], ["5", "10"], ["10", "15"]]


@pytest.mark.parametrize(("table", "error"), [
    ("", "no latency for a subgraph 0"),
    ("a 0 -3\n", ":1: expected '<model> <index> <latency_ns>'"),
    ("a 0 5 6\n", ":1: expected"),
    ("a 1 5\n", ":1: model a has no subgraph 1"),
    ("b 0 5\n", "no model named 'b'"),
])
def test_a_bad_latency_table_is_one_error(binary: Path, tmp_path: Path, table: str,
                                          error: str) -> None:
    result = run_simulate(binary, tmp_path, table)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and error in result.stderr, result.stderr


def test_simulate_excludes_what_needs_a_backend(binary: Path, tmp_path: Path) -> None:
    result = run_simulate(binary, tmp_path, "a 0 5\n", "--slices", str(tmp_path))
    assert result.returncode == 2
    assert "--simulate excludes --slices" in result.stderr
