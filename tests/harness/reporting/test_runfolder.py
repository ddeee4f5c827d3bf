"""A run folder read through RunFolder: typed facts equal to what the session wrote, structured
failures, and reading that never writes (journals read in place give the frames
the recorder's conversion gives; ``load_run`` reads in place too).

Two real twin runs, made once: k50pro FRS, TFLite and Band, two seeds, a memory budget Band's
3073 unit subgraphs do not fit in (Band fails on every seed, TFLite runs); and the same run
whose journals were never converted (as a killed run leaves them).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from harness.experiment import session
from harness.paper.plan import composed_digest
from harness.reporting import journal
from harness.reporting.runfolder import (
    BoundFacts,
    Failure,
    RunFolder,
    SeedRun,
    State,
    config_digest,
)
from harness.reporting.store import RUNTIME_TABLES, TABLES, load_run
from harness.seams.errors import UserError
from harness.seams.plan import PlanCounts

OVERRIDES = ("device=k50pro", "scenario=frs", "run=[tflite,band]", "scenario.duration_s=0.5",
             "scenario.warmup_s=0.1", "seed.count=2", "plots=false",
             "device.twin.memory_budget_mb=150")


#: the recorder's conversion (the ``journaled`` fixture switches it off while it lives)
CONVERT = journal.convert_arrows


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A completed run folder, as the session leaves it (parquet tables)."""
    return session.run(list(OVERRIDES), tmp_path_factory.mktemp("run") / "closed", report=False)


@pytest.fixture(scope="module")
def journaled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The same run with its Arrow journals never converted into parquet."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "convert_arrows", lambda *_args: None)
        folder = tmp_path_factory.mktemp("run") / "journaled"
        yield session.run(list(OVERRIDES), folder, report=False)


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``folder``: its size and modification time (ns)."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


def read_everything(run: RunFolder) -> None:
    for name in TABLES:
        run.table(name)
    _ = (run.data, run.state, run.error, run.kind, run.baselines, run.seeds, run.failures,
         run.config_digest, run.versions, [run.bound(s) for s in run.seeds],
         [run.plans(b, s) for b in run.baselines for s in run.seeds])


def test_the_manifest_reads_as_typed_facts(closed: Path) -> None:
    run = RunFolder(closed)
    manifest = json.loads((closed / "manifest.json").read_text())
    assert (run.state, run.device, run.kind, run.scenario) == (State.COMPLETED, "k50pro", "twin",
                                                               "frs")
    assert run.baselines == ["tflite", "band"] and run.seeds == [0, 1]
    assert run.models == ("retinaface", "arcface_mobilenet", "arcface_resnet50")
    assert (run.duration_s, run.warmup_s) == (0.5, 0.1)
    assert run.commit == manifest["git_commit"] and run.versions == manifest["versions"]
    for seed in run.seeds:
        facts = manifest["runs"]["tflite"][str(seed)]
        ran = run.run("tflite", seed)
        assert isinstance(ran, SeedRun) and ran.facts == facts
        assert run.plans("tflite", seed) == {m: PlanCounts(**c) for m, c in facts["plans"].items()}
        assert ran.end_ns == facts["end_ns"] and ran.slo_ns == facts["slo_ns"]
        assert ran.bound == BoundFacts.of(facts["bound"]) is not None
        bound = run.bound(seed)
        assert bound is not None and bound.frames_per_s == manifest["bound"][str(seed)][
            "frames_per_s"]
    assert run.run("band", 0) is None and run.plans("band", 0) == {}
    assert run.config_digest == composed_digest(OVERRIDES)


def test_failures_are_structured(closed: Path) -> None:
    run = RunFolder(closed)
    assert [(f.baseline, f.seed) for f in run.failures] == [("band", 0), ("band", 1)]
    assert run.failed("band") == run.failures and run.failed("tflite") == []
    assert run.failed_seeds == {"band": {0, 1}}
    first = run.failures[0]
    assert first.reason == "out of memory on k50pro at 0.00 s"
    assert first.detail.endswith("the budget is 150 MB")
    assert first.error == f"{first.reason}: {first.detail}"


def test_reading_never_writes_into_the_folder(closed: Path, journaled: Path) -> None:
    for folder in (closed, journaled):
        before = listing(folder)
        read_everything(RunFolder(folder))
        assert listing(folder) == before


def test_journals_read_in_place_are_the_tables_the_recorder_converts(journaled: Path,
                                                                      tmp_path: Path) -> None:
    assert (journaled / "requests.arrows").exists()
    assert not (journaled / "requests.parquet").exists()
    before = listing(journaled)
    in_place = load_run(journaled)
    assert listing(journaled) == before  # load_run converts nothing, removes nothing
    copy = tmp_path / "copy"
    shutil.copytree(journaled, copy)
    for name in RUNTIME_TABLES:  # what the recorder does with its own journals at close
        CONVERT(copy / f"{name}.arrows", copy / f"{name}.parquet", TABLES[name])
    assert (copy / "requests.parquet").exists() and not (copy / "requests.arrows").exists()
    converted = load_run(copy)
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(in_place, name), getattr(converted, name),
                                      check_exact=True)
    assert len(in_place.requests) > 0 and set(in_place.requests["seed"]) == {0, 1}


def test_a_folder_without_a_manifest_is_unknown_and_a_missing_one_an_error(
        tmp_path: Path) -> None:
    run = RunFolder(tmp_path)
    assert run.state == State.UNKNOWN and run.baselines == [] and run.failures == []
    assert run.requests.empty and list(run.requests.columns) == list(TABLES["requests"])
    assert listing(tmp_path) == {}
    with pytest.raises(UserError, match="is not a folder"):
        RunFolder(tmp_path / "nope")


def test_a_failure_without_a_detail_is_its_reason() -> None:
    failure = Failure("band", 3, "device lost")
    assert (failure.reason, failure.detail) == ("device lost", "")


def test_the_config_digest_leaves_out_where_the_run_goes() -> None:
    config = {"device": {"name": "k50pro"}, "seed": {"base": 0, "count": 2}}
    assert config_digest(config) == config_digest({**config, "hydra": {"run": {"dir": "x"}}})
    assert config_digest(config) == config_digest(dict(reversed(config.items())))
    assert config_digest(config) != config_digest({**config, "seed": {"base": 1, "count": 2}})
