"""One row per baseline over seeds: means, intervals, paired ratios, *_best rows, failures."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.reporting.metrics import Metrics
from harness.reporting.summary import aggregate, blank_failed, failed_seeds_of, failures_of

FPS = {"tflite": [10.0, 11.0, 12.0], "band": [20.0, 22.0, 24.0], "band_heft": [25.0, 26.0, 27.0],
       "adms": [30.0, 33.0, 36.0]}


def _metrics(fps: dict[str, list[float]]) -> Metrics:
    rows = [{"baseline": b, "seed": s, "fps": v, "slo_satisfaction": 0.5, "bound_fps": 60.0,
             "bound_pct": 100 * v / 60.0}
            for b, values in fps.items() for s, v in enumerate(values)]
    return Metrics(pd.DataFrame(rows), pd.DataFrame(), pd.DataFrame())


def test_means_intervals_and_seeds() -> None:
    table = aggregate(_metrics(FPS)).set_index("baseline")
    assert list(table.index) == ["tflite", "band", "band_heft", "adms"]
    assert table.loc["adms", "fps"] == 33.0 and table.loc["adms", "n_seeds"] == 3
    assert table.loc["adms", "fps_low"] < 33.0 < table.loc["adms", "fps_high"]
    assert table.loc["adms", "seeds"] == "0,1,2"
    assert table.loc["adms", "slo_pct"] == 50.0
    assert table.loc["adms", "bound_pct"] == pytest.approx(55.0)


def test_ratios_pair_the_seeds() -> None:
    table = aggregate(_metrics(FPS)).set_index("baseline")
    assert table.loc["adms", "fps_vs_tflite"] == pytest.approx(3.0)
    assert table.loc["adms", "fps_vs_tflite_low"] == pytest.approx(3.0)  # 3x on every seed
    assert table.loc["adms", "fps_vs_band"] == pytest.approx(1.5)
    assert table.loc["tflite", "fps_vs_tflite"] == pytest.approx(1.0)


def test_a_best_group_adds_its_best_member_as_a_row() -> None:
    table = aggregate(_metrics(FPS), {"band_best": ["band", "band_heft", "band7"]})
    best = table.set_index("baseline").loc["band_best"]
    assert best["best_of"] == "band_heft" and best["fps"] == 26.0
    assert len(table) == 5  # the members' rows stay


def test_a_group_not_named_best_adds_no_row() -> None:
    assert len(aggregate(_metrics(FPS), {"ablations": ["adms", "band"]})) == 4


def test_a_baseline_that_never_ran_keeps_a_row_saying_why() -> None:
    failures = {"band7": "seed 0,1,2: out of memory on p20"}
    table = aggregate(_metrics(FPS), {"band_best": ["band", "band7"]}, failures)
    rows = table.set_index("baseline")
    assert rows.loc["band7", "n_seeds"] == 0
    assert rows.loc["band7", "failed_reason"].startswith("seed 0,1,2: out of memory")
    assert math.isnan(rows.loc["band7", "fps"])
    assert rows.loc["band_best", "best_of"] == "band"  # a failed member never wins


def test_failures_are_read_from_the_manifest() -> None:
    manifest = {"runs": {"band": {"0": {"failed": "out of memory on k50pro"},
                                  "1": {"failed": "out of memory on k50pro"}},
                         "adms": {"0": {"plans": {}}, "1": {"plans": {}}}}}
    assert failures_of(manifest) == {"band": "seed 0,1: out of memory on k50pro"}
    assert failures_of({}) == {}


def test_a_failed_seed_is_no_measurement() -> None:
    # band failed on seed 1 (its figures cover only the time before the failure), band_heft
    # on every seed: neither counts those seeds, and neither may win band_best
    failures = {"band": "seed 1: out of memory", "band_heft": "seed 0,1,2: out of memory"}
    failed = {"band": {1}, "band_heft": {0, 1, 2}}
    table = aggregate(_metrics(FPS), {"band_best": ["band", "band_heft", "tflite"]}, failures,
                      failed).set_index("baseline")
    assert table.loc["band", "fps"] == 22.0 and table.loc["band", "seeds"] == "0,2"
    assert table.loc["band", "n_seeds"] == 2 and table.loc["band", "n_failed"] == 1
    assert table.loc["band_heft", "n_seeds"] == 0 and math.isnan(table.loc["band_heft", "fps"])
    assert table.loc["band_best", "best_of"] == "tflite"
    assert table.loc["adms", "fps_vs_band"] == pytest.approx((30 + 36) / (20 + 24))


def test_failed_seeds_are_read_from_the_manifest() -> None:
    manifest = {"runs": {"band": {"0": {"plans": {}}, "2": {"failed": "out of memory"}}}}
    assert failed_seeds_of(manifest) == {"band": {2}}
    assert failures_of(manifest) == {"band": "seed 2: out of memory"}


def test_ratios_against_both_tflite_rows() -> None:
    """Known answers: adms 30/33/36 over the oracle 10/11/12 (3x) and over tflite_gpu
    5/11/6 (33 / 7.33...: the ratio of the means, not the mean of the ratios)."""
    fps = {**FPS, "tflite_gpu": [5.0, 11.0, 6.0]}
    table = aggregate(_metrics(fps)).set_index("baseline")
    assert table.loc["adms", "fps_vs_tflite"] == pytest.approx(3.0)
    assert table.loc["adms", "fps_vs_tflite_gpu"] == pytest.approx(33.0 / (22.0 / 3))
    assert table.loc["tflite", "fps_vs_tflite_gpu"] == pytest.approx(11.0 / (22.0 / 3))
    assert table.loc["tflite_gpu", "fps_vs_tflite"] == pytest.approx((22.0 / 3) / 11.0)
    assert table.loc["tflite_gpu", "fps_vs_tflite_gpu"] == pytest.approx(1.0)
    assert (table.loc["adms", "fps_vs_tflite_gpu_low"] < table.loc["adms", "fps_vs_tflite_gpu"]
            < table.loc["adms", "fps_vs_tflite_gpu_high"])


def test_a_ratio_against_a_row_not_run_is_missing() -> None:
    table = aggregate(_metrics(FPS)).set_index("baseline")
    assert math.isnan(table.loc["adms", "fps_vs_tflite_gpu"])


def test_a_failed_seeds_per_seed_row_carries_no_figure_to_average() -> None:
    """summary_seeds.csv's rows: band's seed 1 failed (19.86 FPS from the frames before it
    ran out of memory): its measured figures are blank, its partial FPS kept apart."""
    per_seed = _metrics(FPS).scenario
    blanked = blank_failed(per_seed, {"band": {1}}).set_index(["baseline", "seed"])
    assert bool(blanked.loc[("band", 1), "run_failed"])
    assert math.isnan(blanked.loc[("band", 1), "fps"])
    assert math.isnan(blanked.loc[("band", 1), "bound_pct"])
    assert blanked.loc[("band", 1), "fps_partial"] == 22.0
    assert blanked.loc[("band", 0), "fps"] == 20.0 and not blanked.loc[("band", 0), "run_failed"]
    assert math.isnan(blanked.loc[("band", 0), "fps_partial"])
