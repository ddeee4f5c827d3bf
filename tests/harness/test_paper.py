"""``python -m harness.paper``: its config, its plan of runs, reuse of complete runs, the
comparison rows and the HTML report (the notebooks themselves: ``tests/notebooks``)."""

from __future__ import annotations

import base64
import io
import json
import math
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from rich.console import Console

from harness.paper import build, nb, plan, runner
from harness.paper.nb import Row
from harness.reporting import html
from harness.reporting.stats import Interval, mean_ci
from harness.seams.errors import UserError
from tests.fixtures.paths import REPO


def paper_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.paper", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)


def test_fast_mode_plans_every_artifact_small() -> None:
    cfg = build.load_conf(["mode=fast"])
    assert plan.selected(cfg) == list(plan.ARTIFACTS)
    for artifact in plan.ARTIFACTS:
        specs = plan.specs_of(cfg, artifact)
        assert specs, artifact
        for spec in specs:
            assert "seed.count=2" in spec.overrides
            durations = [o for o in spec.overrides if o.startswith("scenario.duration_s=")]
            assert float(durations[0].split("=")[1]) <= 1.5  # Figure 10: 1.5 s


def test_full_mode_follows_the_paper() -> None:
    cfg = build.load_conf([])
    assert cfg.mode == "full"
    labels = [s.label for s in plan.specs_of(cfg, "fig8")]
    assert labels == ["k50pro/frs", "k50pro/ros", "p20/frs", "p20/ros"]
    # TFLite as an oracle and as apps ship it; Band in the paper's configuration and at its
    # strongest (band_best holds both); ADMS as the paper describes it and as built
    assert all("run=[tflite,tflite_gpu,band_best,adms,adms_ef]" in s.overrides
               for s in plan.specs_of(cfg, "fig8"))
    ablations, no_partition = plan.specs_of(cfg, "ablations")
    assert ("run=[band,adms,adms_ef,adms_window1,adms_no_monitor,adms_no_priority,adms_eqs_only,"
            "adms_strict,adms_work_conserving,adms_no_partition,adms_selfish]"
            in ablations.overrides)
    assert {"scenario=ros", "run=[band_best,adms,adms_no_partition]"} <= set(
        no_partition.overrides)
    table2 = plan.specs_of(cfg, "table2")
    assert {s.label.split("/")[0] for s in table2} == {"k50pro", "p20", "mi6"}
    k50 = next(s for s in table2 if s.label == "k50pro/copies=4")
    assert "run=[tflite_on_gpu,tflite_on_apu,tflite_on_npu]" in k50.overrides
    assert "scenario.streams_per_model=4" in k50.overrides
    fig9 = [s.label for s in plan.specs_of(cfg, "fig9")]
    assert fig9[0] == "k50pro/slo=0.1" and fig9[-1] == "k50pro/slo=1" and len(fig9) == 10


def test_shared_runs_run_once() -> None:
    cfg = build.load_conf(["mode=fast"])
    specs = [s for a in plan.ARTIFACTS for s in plan.specs_of(cfg, a)]
    table3 = plan.specs_of(cfg, "table3")[0]
    table5 = plan.specs_of(cfg, "table5")[0]
    assert table3.digest == table5.digest  # the same single-model run
    distinct = runner.unique(specs)
    assert len(distinct) == len({s.digest for s in specs}) < len(specs)


def test_override_lists_composing_one_config_share_a_run() -> None:
    base = ("device=k50pro", "seed.count=2", "scenario.duration_s=0.5")
    same = (*base[::-1], "scenario=frs")  # reordered, and the default scenario spelled out
    first, second = plan.RunSpec("fig8", "a", base), plan.RunSpec("table2", "b", same)
    assert first.digest == second.digest and first.overrides != second.overrides
    assert runner.unique([first, second]) == [first]
    assert plan.composed_digest((*base, "seed.count=3")) != first.digest
    assert plan.composed_digest(("scenario=nope",)).startswith("o")  # does not compose


def test_the_device_reaches_every_run() -> None:
    cfg = build.load_conf(["mode=fast", "device=p20", "fig10_device=p20"])
    for artifact in plan.ARTIFACTS:
        for spec in plan.specs_of(cfg, artifact):
            assert "device=p20" in spec.overrides


@pytest.mark.parametrize(("override", "words"), [
    ("mode=nope", "mode='nope' is not a mode; allowed: full, fast"),
    ("only=[fig99]", "only: fig99 is not an artifact; allowed: table2"),
])
def test_bad_input_is_one_user_error(override: str, words: str) -> None:
    with pytest.raises(UserError, match=words.split(";")[0].replace("[", r"\[")):
        build.load_conf([override])


def test_cli_bad_mode_is_one_line_and_exit_2() -> None:
    done = paper_cli("mode=nope")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: mode='nope' is not a mode; allowed: full, fast"]


def tiny_spec() -> plan.RunSpec:
    return plan.RunSpec("table2", "k50pro/tiny", (
        "device=k50pro", "seed.count=1", "scenario.duration_s=0.05", "scenario.warmup_s=0.01",
        "plots=false", "scenario=single", "scenario.models=[mobilenet_v1]", "run=[tflite]"))


def test_a_complete_run_is_reused_and_a_changed_one_is_not(tmp_path: Path) -> None:
    spec = tiny_spec()
    first = runner.run_all([spec], tmp_path)
    assert [o.status for o in first.values()] == ["ran"]
    folder = first[spec.digest].folder
    assert runner.is_complete(folder, spec)
    # the same config, composed from the overrides in another order: the same run
    assert runner.is_complete(folder, plan.RunSpec("fig8", "other", spec.overrides[::-1]))
    again = runner.run_all([spec], tmp_path)
    assert [o.status for o in again.values()] == ["reused"]
    other = plan.RunSpec(spec.artifact, spec.label, (*spec.overrides[:-1], "run=[band]"))
    assert not runner.is_complete(folder, other)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["status"] = "interrupted"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert [o.status for o in runner.run_all([spec], tmp_path).values()] == ["ran"]


def test_a_failing_run_is_an_outcome(tmp_path: Path) -> None:
    bad = plan.RunSpec("fig8", "bad", ("scenario=nope",))
    outcome = runner.run_all([bad], tmp_path)[bad.digest]
    assert outcome.status == "failed" and "nope" in outcome.error
    runner.write_index([bad], {bad.digest: outcome}, tmp_path)
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["fig8"][0]["status"] == "failed"


def test_row_ratio_scales_the_interval_by_the_paper() -> None:
    ours = mean_ci([9.0, 11.0])
    row = Row("fig8", "fps", 20.0, ours)
    assert row.ratio.mean == pytest.approx(0.5)
    assert row.ratio.low == pytest.approx(ours.low / 20)
    assert row.ratio.high == pytest.approx(ours.high / 20)
    assert math.isnan(Row("x", "y", float("nan"), ours).ratio.mean)


def test_summary_markdown_and_html_embed(tmp_path: Path) -> None:
    row = Row("fig8", "k50pro frs adms FPS", 45.12, Interval(40.0, 39.0, 41.0, (39.5, 40.5)),
              "frames/s", kind="twin").record()
    (tmp_path / "summary").mkdir()
    (tmp_path / "summary" / "fig8.json").write_text(json.dumps([row]))
    png = base64.b64encode(b"\x89PNG fake").decode()
    notebook = {"cells": [
        {"cell_type": "markdown", "source": "# Figure 8"},
        {"cell_type": "code", "source": "x = 1", "outputs": [
            {"output_type": "display_data", "data": {"image/png": png}},
            {"output_type": "error", "ename": "ValueError", "evalue": "boom"}]}]}
    executed = [("fig8", SimpleNamespace(notebook=notebook, error="ValueError: boom"))]
    page, md = html.write_report(tmp_path, executed, {"device": "k50pro", "mode": "fast"})
    text = page.read_text()
    assert f"data:image/png;base64,{png}" in text
    assert "<h1>Figure 8</h1>" in text and "notebook failed: ValueError: boom" in text
    assert "| fig8 | k50pro frs adms FPS frames/s | twin | 45.12 | 40 ± 1 | 0.89 ± 0.02 |" in (
        md.read_text())


OOM = "out of memory on k50pro at 1.46 s: 116 subgraphs have run; the app holds 6148 MB"


def oom_manifest(failed: dict[str, list[int]]) -> dict[str, object]:
    """A manifest of seeds 0 and 1 where ``failed`` lists each baseline's failed seeds."""
    runs = {b: {str(s): {"failed": OOM} for s in seeds} for b, seeds in failed.items()}
    return {"seeds": [0, 1], "runs": runs, "baselines": ["band", "band7", "adms"]}


def test_a_failure_says_why_and_on_which_seeds() -> None:
    manifest = oom_manifest({"band": [0, 1], "band7": [1]})
    assert nb.failure(manifest, "band") == "out of memory on k50pro at 1.46 s (every seed)"
    assert nb.failure(manifest, "band7") == "out of memory on k50pro at 1.46 s (seed 1 of 2)"
    assert nb.failure(manifest, "adms") == ""


def fps_table(fps: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"baseline": b, "seed": s, "fps": v}
                         for b, values in fps.items() for s, v in enumerate(values)])


def test_the_strongest_band_completed_every_seed() -> None:
    scenario = fps_table({"band": [50.0, 50.0], "band7": [30.0, 31.0], "band_heft": [20.0, 40.0],
                          "adms": [45.0, 45.0]})
    members = ["band", "band7", "band_heft"]
    assert nb.strongest(scenario, members, {}) == "band"
    # band failed on a seed (its rows of the other seed stay): it cannot be the strongest
    assert nb.strongest(scenario, members, {"band": {1}}) == "band7"
    assert nb.strongest(scenario, ["band"], {"band": {0, 1}}) is None
    assert nb.strongest(scenario, ["band_sel"], {}) is None  # not run


def test_a_failed_baseline_shows_as_failed_in_the_summary() -> None:
    row = Row("fig8", "k50pro ros band FPS", 5.87, Interval(math.nan, math.nan, math.nan, ()),
              "frames/s", kind="twin", failed="out of memory on k50pro at 1.46 s (every seed)")
    cells = html.summary_cells(row.record())
    assert cells[4] == "failed: out of memory on k50pro at 1.46 s (every seed)"
    assert nb.table([row])["ours (mean ± 95% CI)"][0] == cells[4]
    measured = Row("fig8", "q", 5.0, mean_ci([4.0, 6.0]), failed="x (seed 1 of 3)")
    assert html.summary_cells(measured.record())[4].startswith("5 ± ")  # ours stays a number


def test_why_notes_only_rows_that_disagree() -> None:
    ours = mean_ci([9.0, 11.0])
    close, far = Row("t", "q", 11.0, ours, note="n"), Row("t", "q", 40.0, ours, note="n")
    assert nb.why(close, "because").note == "n"
    assert nb.why(far, "because").note == "n; because"
    assert nb.why(far, "").note == "n"
    missing = Row("t", "q", 5.0, mean_ci([]), failed="out of memory")
    assert nb.disagrees(missing) and nb.why(missing, "x").note == "x"
    assert not nb.disagrees(Row("t", "q", float("nan"), ours))
    assert nb.disagrees(Row("t", "q", 0.0, ours))  # the paper's 0 against ours
    assert not nb.disagrees(Row("t", "q", 0.0, mean_ci([0.0, 0.0])))  # both 0
    assert nb.not_explained("a, b") == "not explained (checked: a, b)"


def test_processor_load_bounds_fps_by_the_busiest_processor() -> None:
    ms = 1_000_000
    sg = pd.DataFrame({"baseline": "b", "seed": 0, "request_id": [0, 1, 2, 3],
                       "model": ["m", "n", "m", "n"], "processor": ["gpu", "cpu", "gpu", "cpu"],
                       "start_ns": [0, 0, 10 * ms, 10 * ms],
                       "end_ns": [8 * ms, 2 * ms, 18 * ms, 12 * ms]})
    run = SimpleNamespace(data=SimpleNamespace(subgraphs=sg))
    load = nb.processor_load(run, "b")  # type: ignore[arg-type]
    assert load.loc["gpu", "busy"] == pytest.approx(16 / 18)
    assert load.loc["gpu", "ms_per_frame"] == pytest.approx(8.0)
    assert load.loc["cpu", "model"] == "n"
    assert nb.processor_load(run, "other").empty  # type: ignore[arg-type]


def test_the_kernel_gets_an_absolute_out_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                             ) -> None:
    """The default out_dir is relative (results/paper/<device>/<mode>) and the kernel runs in
    ``out/report``: a relative PAPER_OUT made every notebook miss the index and build its own
    fast runs under report/results/ (found on the first default full run)."""
    from harness.paper.execute import kernel_env

    monkeypatch.chdir(tmp_path)
    env = kernel_env(Path("results/paper/k50pro/full"))
    assert env["PAPER_OUT"] == str(tmp_path / "results" / "paper" / "k50pro" / "full")


def test_under_the_driver_a_missing_index_is_an_error(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(nb.ENV_OUT, str(tmp_path))
    monkeypatch.delenv(nb.ENV_ALONE, raising=False)
    with pytest.raises(RuntimeError, match="lists no runs for fig9"):
        nb.runs("fig9")
    assert not (tmp_path / "runs").exists()  # no fast runs stood in


def test_without_a_terminal_each_run_is_one_line_and_its_printout_stays_in_its_log(
        tmp_path: Path) -> None:
    """Into a file or pipe no progress bar is drawn: a line says how many runs, one line per
    run as it ends; the run's own stderr (a seed's failure) goes to its ``session.log``."""
    out = io.StringIO()
    spec = tiny_spec()
    bad = plan.RunSpec(spec.artifact, "k50pro/oom", (*spec.overrides[:-1], "run=[band]",
                                                   "device.twin.memory_budget_mb=1"))
    outcomes = runner.run_all([spec, bad], tmp_path, console=Console(file=out, width=200))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("2 runs into ")
    assert lines[1].startswith("run 1/2 k50pro/tiny: ran (")
    assert lines[2].startswith("run 2/2 k50pro/oom: ")
    log = (outcomes[bad.digest].folder / "session.log").read_text()
    assert "failed: out of memory" in log
    assert "out of memory" not in out.getvalue()
