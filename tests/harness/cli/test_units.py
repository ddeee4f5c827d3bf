"""The commands' small parts: the dry run's plan, Δ% intervals, the runs index, plain
progress, the help text, the listing."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

from harness.cli.listing import first_sentence, listing
from harness.experiment.dryrun import duration, plan
from harness.experiment.progress import plain_progress
from harness.reporting import runindex
from harness.reporting.delta import change


def test_the_dry_run_lists_jobs_seed_by_seed_and_estimates_time() -> None:
    dry = plan(["tflite", "adms"], [0, 1, 2], 1.0, 10.0, "twin", "interpreted (x)", [0.5])
    text = "\n".join(dry.lines())
    assert dry.jobs == 6 and dry.device_s == 66.0 and dry.wall_s == 33.0
    assert "seed 1: tflite -> adms" in text and "33 s of wall time" in text
    assert plan(["a"], [0], 0, 10, "host", "").wall_s == 10.0
    assert duration(3725) == "1 h 02 min" and duration(125) == "2 min 05 s"


def test_a_change_has_an_interval_and_says_when_it_is_noise() -> None:
    same = change([10.0, 11.0, 9.0], [10.5, 9.5, 10.0])
    assert same.noise and "within noise" in same.text()
    drop = change([10.0, 10.1, 9.9], [5.0, 5.1, 4.9])
    assert not drop.noise and math.isclose(drop.pct, -50.0) and drop.high < 0
    assert "no interval" in change([10.0], [5.0]).text()


def _manifest(folder: Path, status: str) -> None:
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({
        "status": status, "device": "k50pro", "device_kind": "twin", "scenario": "frs",
        "baselines": ["band", "adms"], "seeds": [0, 1], "duration_s": 2.0, "warmup_s": 1.0}))
    (folder / "summary.csv").write_text("baseline,fps\nband,40.0\nadms,31.5\n")


def test_the_runs_index_is_kept_and_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "results"
    _manifest(root / "k50pro" / "a", "completed")
    runindex.note(root / "k50pro" / "a", wall_s=6.0)
    assert runindex.wall_rates(root, "k50pro", "") == [0.5]
    (root / runindex.INDEX).unlink()
    _manifest(root / "k50pro" / "b", "running")
    found = runindex.runs(root)
    assert [(e.folder, e.state, e.headline) for e in found] == [
        ("k50pro/a", "completed", ("adms", 31.5)),
        ("k50pro/b", runindex.KILLED, ("adms", 31.5))]  # running, and nobody holds its claim
    # a reader: the index is rebuilt in memory, never written
    assert not (root / runindex.INDEX).exists() and "seeds 0-1: adms 31.5 FPS" in found[0].line()
    assert runindex.root_of(tmp_path / "elsewhere") is None


def test_a_run_that_failed_before_its_manifest_shows_its_device_and_error(tmp_path: Path
                                                                          ) -> None:
    folder = tmp_path / "results" / "host" / "c"
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "config.yaml").write_text(
        "device:\n  name: host\nscenario:\n  name: frs\n")
    (folder / "manifest.json").write_text(json.dumps(
        {"status": "failed", "error": "model 'x.tflite' needs custom op 'Y'"}))
    line = runindex.runs(tmp_path / "results")[0].line()
    assert line.startswith("host/c\n    host (unknown) frs failed")
    assert line.endswith("failed: model 'x.tflite' needs custom op 'Y'")


def test_plain_progress_prints_a_line_every_few_seconds_and_at_the_end() -> None:
    out, now = io.StringIO(), [0.0]
    with plain_progress(out, every_s=5, clock=lambda: now[0]) as progress:
        tick = progress.task("band", 10_000_000_000)
        for t in range(1, 11):
            now[0] = 2.0 * t
            tick(t * 1_000_000_000)
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 and lines[-1].startswith("progress band: 10.0 of 10 s (100%)")


def test_the_listing_names_every_section_within_80_columns() -> None:
    text = listing([])
    for title in ("baselines", "devices", "scenarios", "experiments", "zoo models"):
        assert title in text
    assert "(host)" in text and "(twin)" in text and "band_best" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_a_header_comment_gives_its_first_sentence(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("# @package _global_\n# Band with eq. (1) inside. More words.\nname: x\n")
    assert first_sentence(path) == "Band with eq. (1) inside"
