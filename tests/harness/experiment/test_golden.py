"""A seeded golden run: k50pro, FRS, 1 s + 0.2 s warm-up, seed 0, every baseline.

The twins draw latency noise (``noise_sigma: 0.05``) and traffic from generators split from
``seed.base``, so a seed fixes every row. The run's ``requests`` table is reduced to a digest —
the sha256 of its canonical CSV (rows sorted by baseline and request id, columns in schema
order) plus human-readable figures (rows and ``ok`` requests per baseline and model, FPS per
baseline) and which reading of the paper's rule ``adms`` is — and compared with the
committed ``golden/k50pro_frs_seed0.json`` beside this file. The figures are compared first,
so a change shows as a readable diff before the hash.

A deliberate change of behaviour (a scheduler, the twin, the traffic) changes the golden run.
Regenerate the file, review the figures' diff, and commit it with the change::

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/harness/experiment/test_golden.py

Two more properties: the same seed twice gives a byte-identical requests table (rows in the
same order too), and another seed gives a different one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from harness.reporting.metrics import scenario_metrics
from harness.reporting.readings import reading_of
from harness.reporting.store import RunData
from harness.seams.rows import REQUEST_COLUMNS
from tests.fixtures.runs import SHORT, compose_run, run_baselines

GOLDEN = Path(__file__).resolve().parent / "golden" / "k50pro_frs_seed0.json"
OVERRIDES = ("device=k50pro", "scenario=frs", *SHORT)
#: bump when the digest's definition (not the harness's behaviour) changes
DIGEST_VERSION = 1


def canonical_csv(requests: pd.DataFrame) -> str:
    """The requests table as CSV: schema columns, sorted by (baseline, request_id)."""
    rows = requests[list(REQUEST_COLUMNS)].sort_values(["baseline", "request_id"], kind="stable")
    return str(rows.to_csv(index=False, lineterminator="\n"))


def figures(data: RunData) -> dict[str, Any]:
    """Readable facts of the requests table."""
    req = data.requests
    ok = req[req["status"] == "ok"]
    fps = scenario_metrics(req, data.subgraphs, data.sensors).set_index("baseline")["fps"]
    return {
        "rows": {str(b): int(n) for b, n in req.groupby("baseline").size().items()},
        "ok_requests": {f"{b}/{m}": int(n) for (b, m), n in ok.groupby(["baseline", "model"])
                        .size().items()},
        "fps": {str(b): round(float(v), 3) for b, v in fps.items()},
    }


def adms_reading() -> str:
    """Which reading of the paper's rule the golden run's ``adms`` row is."""
    conf = vars(compose_run(*OVERRIDES).baselines["adms"])
    return reading_of({k: str(v) for k, v in conf.items()})


def digest(data: RunData) -> dict[str, Any]:
    body = canonical_csv(data.requests).encode()
    return {"digest_version": DIGEST_VERSION, "overrides": list(OVERRIDES), "seed": 0,
            "adms_reading": adms_reading(), "figures": figures(data),
            "requests_csv_sha256": hashlib.sha256(body).hexdigest()}


def write_golden(found: dict[str, Any]) -> None:
    versions = {p: metadata.version(p) for p in ("numpy", "pandas", "simpy")}
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({**found, "written_with": versions}, indent=2, sort_keys=True)
    GOLDEN.write_text(text + "\n")


@pytest.fixture(scope="module")
def run_seed(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int, str], RunData]:
    """``run_seed(seed, tag)``: the golden scenario with ``seed.base=seed`` in its own folder,
    run once per module and tag (two tags with one seed are two independent runs).

    The ADMS tuner's cache is shared: its choices do not depend on the seed (it profiles
    without noise), and a warm cache must not change results."""
    cache_dir = tmp_path_factory.mktemp("tuner_cache")
    done: dict[tuple[int, str], RunData] = {}

    def run(seed: int, tag: str) -> RunData:
        if (seed, tag) not in done:
            cfg = compose_run(*OVERRIDES, f"seed.base={seed}")
            folder = tmp_path_factory.mktemp(f"golden_{tag}")
            done[(seed, tag)] = run_baselines(cfg, folder, cache_dir)[0]
        return done[(seed, tag)]

    return run


def test_golden_run(run_seed: Callable[[int, str], RunData]) -> None:
    found = digest(run_seed(0, "a"))
    if os.environ.get("UPDATE_GOLDEN") == "1":
        write_golden(found)
        pytest.skip(f"golden file rewritten: {GOLDEN}")
    expected = json.loads(GOLDEN.read_text())
    assert found["digest_version"] == expected["digest_version"]
    assert found["adms_reading"] == expected["adms_reading"]
    assert found["figures"] == expected["figures"]
    assert found["requests_csv_sha256"] == expected["requests_csv_sha256"]


def test_same_seed_gives_a_byte_identical_requests_table(
        run_seed: Callable[[int, str], RunData]) -> None:
    first = run_seed(0, "a").requests.to_csv(index=False)
    second = run_seed(0, "b").requests.to_csv(index=False)
    assert first.encode() == second.encode()


def test_another_seed_gives_another_requests_table(
        run_seed: Callable[[int, str], RunData]) -> None:
    zero = run_seed(0, "a")
    one = run_seed(1, "c")
    assert canonical_csv(zero.requests) != canonical_csv(one.requests)
    assert set(one.requests["baseline"]) == set(zero.requests["baseline"])


def test_without_noise_the_twin_is_deterministic(tmp_path: Path) -> None:
    """σ = 0 and frames traffic: nothing is random, so two seeds give the same rows (all but
    the seed column), and the same run twice gives byte-identical ones."""
    cfg = compose_run(*OVERRIDES, "device.twin.noise_sigma=0", "seed.base=3")
    other = compose_run(*OVERRIDES, "device.twin.noise_sigma=0", "seed.base=8")
    three = run_baselines(cfg, tmp_path / "a", tmp_path / "cache")[0]
    again = run_baselines(cfg, tmp_path / "b", tmp_path / "cache")[0]
    eight = run_baselines(other, tmp_path / "c", tmp_path / "cache")[0]
    assert three.requests.to_csv(index=False) == again.requests.to_csv(index=False)
    assert set(three.requests["seed"]) == {3} and set(eight.requests["seed"]) == {8}
    drop = ["seed"]
    assert (three.requests.drop(columns=drop).to_csv(index=False)
            == eight.requests.drop(columns=drop).to_csv(index=False))
    assert (three.subgraphs.drop(columns=drop).to_csv(index=False)
            == eight.subgraphs.drop(columns=drop).to_csv(index=False))
