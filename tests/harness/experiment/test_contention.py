"""Contention measured during a run: other processes' cores, recorded and flagged."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness.experiment.contention import Sample, measured, sample
from harness.reporting import headline, summaryfiles
from tests.harness.reporting.test_metrics import small_run


def test_other_cores_are_the_machines_busy_time_less_ours_per_wall_second() -> None:
    found = measured(Sample(100.0, 10.0, 0.0), Sample(130.0, 20.0, 10.0))
    assert found["other_cores"] == 2.0 and found["wall_s"] == 10.0 and found["cores"] >= 1
    # never negative (our own time counted with children the machine counted elsewhere)
    assert measured(Sample(0, 0, 0), Sample(1, 5, 1))["other_cores"] == 0.0


def test_a_real_sample_moves_forward() -> None:
    first = sample()
    sum(i * i for i in range(200_000))  # some work of our own
    later = sample()
    assert later.own_s >= first.own_s and later.busy_s >= first.busy_s
    assert measured(first, later)["other_cores"] >= 0


@pytest.mark.parametrize(("other", "flagged"), [(0.2, False), (0.5, True), (1.5, True)])
def test_a_busy_machine_is_flagged(other: float, flagged: bool) -> None:
    said = headline.busy({"other_cores": other, "cores": 2})
    assert bool(said) is flagged
    if flagged:
        assert said == f"other processes kept {other:.1f} of 2 cores busy during the run"
    assert headline.busy(None) == "" and headline.busy({"cores": 2}) == ""
    assert headline.busy({"other_cores": other, "cores": 2}, "twin") == ""  # simulated


def test_the_summary_and_the_headline_carry_the_runs_contention(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    manifest = {**run.manifest, "device": {"name": "k50pro", "kind": "host"},
                "contention": {"other_cores": 1.3, "cores": 2}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    from harness.reporting.store import load_run

    run = load_run(tmp_path)
    table = pd.read_csv(summaryfiles.summary_csv(run))
    assert set(table["other_cores"]) == {1.3} and set(table["cores"]) == {2}
    text = summaryfiles.summary_md(run).read_text()
    assert "FLAG: other processes kept 1.3 of 2 cores busy during the run." in text
