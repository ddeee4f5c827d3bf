"""The compiled simulation core (:mod:`harness.native`): served only when current, and the
same results as the interpreted modules it is compiled from."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harness import native
from harness.reporting.store import load_run
from tests.fixtures.paths import REPO


def fake_build(root: Path, digests: dict[str, str]) -> None:
    """A build folder under ``root`` whose manifest says these sources were compiled."""
    folder = native.build_dir(root)
    folder.mkdir(parents=True)
    (folder / native.MANIFEST).write_text(json.dumps({"mypy": "0", "sources": digests,
                                                      "files": {}}))


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    """A root holding a copy of every compiled source."""
    for rel in native.SOURCES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, tmp_path / rel)
    return tmp_path


def test_every_compiled_source_exists() -> None:
    assert all((REPO / rel).is_file() for rel in native.SOURCES)
    assert "missing" not in native.digests(REPO).values()


def test_a_current_build_is_served(sources: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(native.ENV, raising=False)
    fake_build(sources, native.digests(sources))
    # (the modules are already imported in this process: it says so rather than mix builds)
    reason = native._check(sources)
    assert reason is not None and reason.endswith(" was imported before harness")
    assert reason.split()[0] in {native.module_name(rel) for rel in native.SOURCES}


def test_a_changed_source_is_not_served(sources: Path) -> None:
    fake_build(sources, native.digests(sources))
    (sources / "adms/scheduler.py").write_text("# changed\n")
    assert native._check(sources) == "out of date: adms/scheduler.py changed since it was built"


def test_a_changed_list_of_modules_is_not_served(sources: Path) -> None:
    fake_build(sources, dict(list(native.digests(sources).items())[1:]))
    assert native._check(sources) == "out of date: the list of compiled modules changed"


def test_no_build_and_the_switch(sources: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert native._check(sources) == "not built: `make native` builds it"
    monkeypatch.setenv(native.ENV, "0")
    fake_build(sources, native.digests(sources))
    assert native._check(sources) == "HARNESS_NATIVE=0"


def test_the_test_run_uses_the_compiled_core_when_built() -> None:
    """Under ``make test`` the build exists, so the tests exercise the compiled modules (the
    same check as :func:`native.install`'s, without the import order)."""
    if os.environ.get(native.ENV) == "0":
        pytest.skip("HARNESS_NATIVE=0: the interpreted modules are under test")
    if not (native.build_dir() / native.MANIFEST).is_file():
        pytest.skip("no compiled core built here (`make native`)")
    assert native.compiled(), native.status()
    from harness.runtime import core
    assert Path(core.__file__).suffix != ".py"


def _run(folder: Path, env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "harness", "device=k50pro", "scenario=frs",
                    "run=[tflite,band,adms]", "seed.count=2", "scenario.duration_s=2",
                    "plots=false", f"hydra.run.dir={folder}"],
                   cwd=REPO, env=env, check=True, capture_output=True, timeout=600)


def test_compiled_and_interpreted_give_the_same_tables(tmp_path: Path) -> None:
    if not native.compiled():
        pytest.skip(f"the core is not compiled here: {native.status()}")
    interpreted = dict(os.environ, **{native.ENV: "0"})
    _run(tmp_path / "interpreted", interpreted)
    _run(tmp_path / "compiled", dict(os.environ))
    a, b = load_run(tmp_path / "interpreted"), load_run(tmp_path / "compiled")
    assert a.manifest["versions"]["simulation core"].startswith("interpreted")
    assert b.manifest["versions"]["simulation core"].startswith("compiled")
    assert len(b.subgraphs) > 1000
    for table in ("requests", "subgraphs", "sensors"):
        pd.testing.assert_frame_equal(getattr(a, table), getattr(b, table))
    # (what other processes did to the machine during each run is measured, not simulated)
    measured = ["other_cores", "cores"]
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "interpreted/summary.csv").drop(columns=measured, errors="ignore"),
        pd.read_csv(tmp_path / "compiled/summary.csv").drop(columns=measured, errors="ignore"))
