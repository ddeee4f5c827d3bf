"""The verdict over readings (:mod:`harness.reporting.readings`) on hand-made per-seed rows:
each reading's ratio is the paired ratio of means against the strongest Band row that
completed every seed and against each TFLite row; the range names its ends; the sentence
says it."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.reporting import readings

FPS: dict[str, tuple[float, ...]] = {  # baseline -> FPS on seeds 0, 1, 2
    "tflite_gpu": (20.0, 20.0, 20.0),
    "band": (40.0, 44.0, 42.0),
    "band_sel": (50.0, 50.0, 50.0),  # the strongest Band row
    "r_low": (30.0, 30.0, 30.0),
    "r_high": (45.0, 55.0, 50.0),
}


def _scenario(fps: dict[str, tuple[float, ...]]) -> pd.DataFrame:
    return pd.DataFrame([{"baseline": b, "seed": s, "fps": v}
                         for b, values in fps.items() for s, v in enumerate(values)])


def test_each_reading_against_the_strongest_band_and_tflite() -> None:
    got = readings.table(_scenario(FPS), ["r_low", "r_high"])
    band = got[got["against"] == "band"].set_index("reading")
    assert set(band["other"]) == {"band_sel"}
    assert band.loc["r_low", "ratio"] == pytest.approx(30 / 50)
    assert band.loc["r_high", "ratio"] == pytest.approx(50 / 50)
    assert band.loc["r_high", "per_seed"] == "0.9000 1.1000 1.0000"
    tfl = got[got["against"] == "tflite_gpu"].set_index("reading")
    assert tfl.loc["r_high", "ratio"] == pytest.approx(2.5)
    assert not (got["against"] == "tflite").any()  # (no such row in the run)


def test_a_band_row_that_failed_is_not_the_strongest() -> None:
    got = readings.table(_scenario(FPS), ["r_low"], failed=["band_sel"])
    assert set(got[got["against"] == "band"]["other"]) == {"band"}


def test_the_range_names_its_ends_and_the_widest_bounds() -> None:
    full = readings.table(_scenario(FPS), ["r_low", "r_high"])
    spans = readings.ranges(full).set_index("against")
    band = spans.loc["band"]
    assert (band["min"], band["max"]) == (pytest.approx(0.6), pytest.approx(1.0))
    assert (band["min_reading"], band["max_reading"]) == ("r_low", "r_high")
    assert band["readings"] == 2
    assert band["lowest_bound"] <= 0.6 and band["highest_bound"] >= 1.0
    assert not math.isnan(band["highest_bound"])
    line = readings.sentence(band.to_dict() | {"against": "band"}, "k50pro", "frs")
    assert line.startswith("Under 2 readings of the paper's rule, ADMS/Band (band_sel) on "
                           "k50pro FRS lies in [0.60, 1.00]")


def test_the_report_says_which_reading_adms_is() -> None:
    conf = {"pairing": "Pairing.job_first", "idle_order": "IdleOrder.device",
            "t_latency": "LatencyReading.on_processor", "slo_reading": "SloReading.budget",
            "score_order": "ScoreOrder.lowest_first", "earliest_finish": False}
    manifest = {"baselines": ["band", "adms"], "config": {"baselines": {"adms": conf}}}
    assert readings.adms_line(manifest) == (
        "adms reads the paper's rule as: pairing job_first · idle order device · T_latency "
        "on_processor · T_SLO budget · sign lowest_first · waits for a busy processor false "
        "(docs/adms-as-built.md)")
    assert readings.adms_line({**manifest, "baselines": ["band"]}) == ""


def test_the_paper_reports_built_line_says_which_reading_adms_is() -> None:
    from harness.reporting.html import built_line

    facts = {"seconds": 12.5, "runs": {"ran": 4}}
    assert built_line(facts) == "built in 12.5 s; runs: 4 ran"
    said = built_line({**facts, "adms_reading": "adms reads the paper's rule as: pairing x"})
    assert said == "built in 12.5 s; runs: 4 ran. adms reads the paper's rule as: pairing x"
