"""Printed tables fit 80 columns without cutting a cell; the per-model latency table; a
variant's row named by what differs from its parent."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from harness.reporting import names, report, tables
from harness.seams import fitting
from tests.harness.reporting.test_metrics import small_run


def printed(run: object, width: int) -> str:
    out = io.StringIO()
    report.print_comparison(run, Console(file=out, width=width))  # type: ignore[arg-type]
    return out.getvalue()


@pytest.mark.parametrize("width", [80, 60])
def test_every_printed_table_fits_without_cutting_a_cell(tmp_path: Path, width: int) -> None:
    run = small_run(tmp_path)
    (tmp_path / ".hydra").mkdir()
    (tmp_path / ".hydra" / "overrides.yaml").write_text(
        "- baselines.band.scheduler=heterogeneous_earliest_finish_time\n")
    text = printed(run, width)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= width
    if width < 80:  # a name wider than half the console folds, whole
        return
    for shown in ("tflite (oracle)", "band[scheduler=heterogeneous_", "adms",
                  "subgraphs planned", "subgraphs executed", "×Band", "p99"):
        assert shown in text, shown
    # the long name folds in the tables, whole: its pieces on consecutive lines
    assert "finish_time]" in text
    assert len(fitting.parts(["baseline", *"abcdefghij"], [["x" * 51, *"0123456789"]],
                            80)) == 1


def test_a_narrow_console_splits_columns_and_repeats_the_names() -> None:
    headers = ["baseline", *(f"column {k}" for k in range(12))]
    rows = [["a long baseline name", *("12.34 ± 5.67" for _ in range(12))]]
    split = fitting.parts(headers, rows, 80)
    assert len(split) > 1 and all(part[0] == 0 for part in split)
    assert sorted(k for part in split for k in part[1:]) == list(range(1, 13))
    sizes = [w + fitting.PER_COLUMN for w in fitting.widths(headers, rows)]
    assert all(1 + sum(sizes[k] for k in part) <= 80 for part in split)


def test_latency_per_model_separates_models(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    found = tables.per_model(run.requests).set_index(["baseline", "model"])
    # small_run: retinaface costs 30 ms and arcface_mobilenet 12 ms, divided by the speed
    assert found.loc[("tflite", "retinaface"), "p50"] == pytest.approx(30.0)
    assert found.loc[("adms", "arcface_mobilenet"), "mean"] == pytest.approx(4.0)
    assert found.loc[("tflite", "retinaface"), "count"] == 18  # 20 frames, 2 warm-up
    assert np.isclose(found.loc[("band", "retinaface"), "std"], 0.0)


def test_a_failed_seed_leaves_the_per_model_table(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    found = tables.per_model(run.requests, {"band": {7}})
    band = found[found["baseline"] == "band"]
    assert (band["count"] == 0).all()


def test_variants_name_what_differs_from_the_parent() -> None:
    found = names.variants_of(["seed.count=2", "baselines.band.scheduler=heft",
                               "+baselines.band.worker_threads=2", "baselines.adms.gamma=2"])
    assert found == {"band": "scheduler=heft,worker_threads=2", "adms": "gamma=2"}
    assert names.shown_name("band", found) == "band[scheduler=heft,worker_threads=2]"
    assert names.shown_name("tflite", found) == "tflite (oracle)"


def test_a_folder_without_overrides_has_no_variants(tmp_path: Path) -> None:
    assert names.variants(tmp_path) == {}
    (tmp_path / ".hydra").mkdir()
    (tmp_path / ".hydra" / "overrides.yaml").write_text("- baselines.tflite.x=1\n")
    assert names.variants(tmp_path) == {"tflite": "x=1"}


def test_a_variant_row_does_not_show_its_parents_paper_numbers(tmp_path: Path) -> None:
    run = small_run(tmp_path)
    plain = report.report_table(run)[0].set_index("baseline")
    assert plain.loc["band", "paper_fps"] == pytest.approx(37.17)  # the paper's Band
    (tmp_path / ".hydra").mkdir()
    (tmp_path / ".hydra" / "overrides.yaml").write_text("- baselines.band.scheduler=heft\n")
    table, identity = report.report_table(run)
    rows = table.set_index("baseline")
    assert np.isnan(rows.loc["band", "paper_fps"])
    assert np.isnan(rows.loc["band", "paper_ratio_vs_tflite"])
    assert rows.loc["adms", "paper_fps"] == pytest.approx(45.12)  # the others keep theirs
    caption = report.paper_caption(identity)
    assert "band[scheduler=heft] is a variant of band" in caption and "37.17" in caption


def test_the_papers_tflite_sits_beside_vanilla_tflite_not_the_oracle(tmp_path: Path) -> None:
    """The paper's TFLite is vanilla (an accelerator's delegate, CPU fallback): its FPS and
    ratio go on ``tflite_gpu``; the oracle placement ``tflite`` ran no system of the paper's."""
    run = small_run(tmp_path, {"tflite_gpu": 0.8})
    table, identity = report.report_table(run)
    rows = table.set_index("baseline")
    assert rows.loc["tflite_gpu", "paper_fps"] == pytest.approx(11.20)
    assert rows.loc["tflite_gpu", "paper_ratio_vs_tflite"] == pytest.approx(1.0)
    assert np.isnan(rows.loc["tflite", "paper_fps"])
    assert np.isnan(rows.loc["tflite", "paper_ratio_vs_tflite"])
    assert rows.loc["adms", "paper_ratio_vs_tflite"] == pytest.approx(4.04)
    assert "shown beside tflite_gpu" in report.paper_caption(identity)
