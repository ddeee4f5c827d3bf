"""What a run's folder says about how it ended, and what reading and comparing make of it:
a corrupt journal line is skipped and counted, run folders are fresh, ``compare`` refuses
runs that differ and flags runs that did not complete or covered too little."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.config.rundir import check_run_dir, fresh_dir
from harness.reporting.compare import compare, coverage
from harness.reporting.journal import read_journal
from harness.reporting.runfolder import RunFolder
from harness.reporting.store import load_run
from harness.seams.errors import UserError
from harness.seams.rows import REQUEST_COLUMNS
from tests.harness.reporting.test_metrics import small_run

#: small_run's span: frames every 50 ms for 1 s, the first 100 ms warm-up
MANIFEST = {"device": {"name": "k50pro", "kind": "twin"}, "scenario": "frs", "seed": 7,
            "models": ["retinaface", "arcface_mobilenet"], "duration_s": 0.9,
            "warmup_s": 0.1, "status": "completed"}


def _run(folder: Path, **changes: Any) -> Path:
    small_run(folder, manifest={**MANIFEST, **changes})
    return folder


def test_a_corrupt_journal_line_is_skipped_counted_and_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "requests.jsonl"
    blank = {"string": "", "int64": 0, "bool": False}
    row = {c: blank[t] for c, t in REQUEST_COLUMNS.items()}
    good, later = json.dumps(row | {"request_id": 1}), json.dumps(row | {"request_id": 2})
    journal.write_text("\n".join([good, "garbage{", later, '"x"', good[:20]]))
    frame = read_journal(journal, REQUEST_COLUMNS)
    assert list(frame["request_id"]) == [1, 2]  # the row after the garbage is kept
    assert frame.attrs["skipped_lines"] == 3
    assert "skipped 3 corrupt line(s) (line 2, 4, 5)" in capsys.readouterr().err


def test_an_unreadable_manifest_is_one_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{oops")
    with pytest.raises(UserError, match=r"manifest\.json"):
        load_run(tmp_path)


def test_run_folders_are_fresh_even_in_the_same_second(tmp_path: Path) -> None:
    base = str(tmp_path / "k50pro" / "2026-12-01_10-00-00_frs")
    first = fresh_dir.__wrapped__(base)
    second = fresh_dir.__wrapped__(base)
    assert (first, second) == (base, base + "-2") and Path(second).is_dir()


def test_a_folder_holding_a_run_or_under_a_file_is_refused_before_hydra(tmp_path: Path) -> None:
    taken = _run(tmp_path / "taken")
    with pytest.raises(UserError, match="already holds a run"):
        check_run_dir([f"hydra.run.dir={taken}"])
    (tmp_path / "file").write_text("")
    with pytest.raises(UserError, match="is a file"):
        check_run_dir([f"hydra.run.dir={tmp_path / 'file' / 'run'}"])
    check_run_dir([f"hydra.run.dir={tmp_path / 'new'}"])


CHANGES: dict[str, dict[str, Any]] = {
    "device": {"device": {"name": "p20", "kind": "twin"}}, "scenario": {"scenario": "ros"},
    "models": {"models": ["retinaface"]}, "duration_s": {"duration_s": 30},
}


def test_compare_refuses_runs_that_differ_unless_forced(tmp_path: Path) -> None:
    a = _run(tmp_path / "a")
    for word, change in CHANGES.items():
        b = _run(tmp_path / word, **change)
        with pytest.raises(UserError, match=f"not comparable.*{word}.*--force"):
            compare([str(a), str(b)], 5.0)
    assert compare([str(a), str(tmp_path / "scenario")], 5.0, force=True) == 0


def test_compare_flags_a_run_that_did_not_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _run(tmp_path / "a")
    b = _run(tmp_path / "b", status="interrupted", signal="SIGINT")
    compare([str(a), str(b)], 5.0)
    flags = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("FLAG")]
    assert flags == [f"FLAG {b}: the run did not complete (status interrupted: SIGINT)"]


def test_compare_flags_a_baseline_that_covered_too_little(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path / "a", duration_s=2.0)  # the rows span 0.9 s of a 2 s run
    share = coverage(RunFolder(run))
    assert set(share) == {"tflite", "band", "adms"} and max(share.values()) < 0.5
    compare([str(run)], 5.0)
    out = capsys.readouterr().out
    assert "FLAG" in out and "adms covered 4" in out
    assert not [ln for ln in out.splitlines() if "FLAG" in ln and "complete" in ln]
