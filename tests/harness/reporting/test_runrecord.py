"""A manifest read as a RunRecord without any folder: the facts metrics and reports take from
it (what ran per seed, failures, bounds, the kind's meaning), and the manifest facts of the
per-seed table read through it (NaN where a seed failed or recorded nothing)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.reporting.metrics import with_manifest_facts
from harness.reporting.runrecord import RunRecord

COUNTS = {"unit": 4, "unit_subgraphs": 6, "merged": 2}
MANIFEST = {
    "device": {"name": "k50pro", "kind": "twin"}, "kind_words": "TWIN = SIMULATION (digital twin)",
    "scenario": "frs", "seeds": [0, 1],
    "bound": {"0": {"frames_per_s": 50.0}},
    "runs": {"adms": {"0": {"plans": {"m": COUNTS}, "bound": {"frames_per_s": 40.0},
                            "as_run_bound": {"frames_per_s": 20.0}, "end_ns": 5},
                      "1": {"failed": "out of memory on k50pro at 1 s: no room"}}},
}


def test_a_manifest_read_as_a_record() -> None:
    record = RunRecord(MANIFEST)
    assert (record.kind, record.kind_meaning, record.device) == (
        "twin", "SIMULATION (digital twin)", "k50pro")
    ran = record.run("adms", 0)
    assert ran is not None and ran.subgraphs == 8 and ran.end_ns == 5
    assert record.run("adms", 1) is None and record.failed_seeds == {"adms": {1}}
    bound = record.bound(0)
    assert bound is not None and bound.frames_per_s == 50.0 and record.bound(1) is None


def test_manifest_facts_of_the_per_seed_table() -> None:
    scenario = pd.DataFrame({"baseline": ["adms", "adms"], "seed": [0, 1], "fps": [10.0, 5.0]})
    out = with_manifest_facts(scenario, MANIFEST).set_index("seed")
    assert out.loc[0, "bound_pct"] == pytest.approx(20.0)
    assert out.loc[0, "own_bound_fps"] == 40.0 and out.loc[0, "as_run_pct"] == pytest.approx(50.0)
    assert out.loc[0, "plan_subgraphs"] == 8.0
    assert all(math.isnan(out.loc[1, c]) for c in ("bound_fps", "own_bound_fps",
                                                   "as_run_bound_fps", "plan_subgraphs"))
