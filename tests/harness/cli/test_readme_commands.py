"""Every command the README documents runs, in a short variant, and exits 0.

Each command line of the README's "Using it" block has a short variant here (fewer seeds and
seconds, a dry run, a temporary folder, or ``--help`` where the command needs a phone, the zoo
extra or minutes): a README command without one fails the test, so the two stay in step. The
variants run in-process through the ``harness`` console script's entry
(:func:`harness.cli.main.main`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hydra.core.global_hydra import GlobalHydra

from harness.cli.main import main
from tests.fixtures.paths import REPO

SHORT = ["seed.count=1", "scenario.duration_s=0.2", "scenario.warmup_s=0.1", "plots=false"]
#: run commands are dry runs: composed, checked and planned, nothing measured
DRY = ["dry_run=true"]


def documented() -> list[str]:
    """The command lines of the README's "Using it" block, without their comments."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Using it\s+```bash\n(.*?)```", text, re.S)
    assert block is not None
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def variant(command: str, tmp: Path, run: Path) -> list[str] | None:
    """The short argv (after ``harness``) of a README command; None: none known."""
    words = command.replace("python -m harness.", "harness ").replace(
        "python -m harness", "harness").split()[1:]
    words = [w for w in words if w != "hydra/launcher=joblib"]  # in-process: the basic one
    tool = words[0] if words and not ("=" in words[0] or words[0].startswith("-")) else "run"
    if tool == "run":
        extra = DRY  # the module's fixture runs one real short run
        flags = [w for w in words if w.startswith("-") or w == "job"]  # after the overrides
        return [*(w for w in words if w not in flags), *extra, f"hydra.run.dir={tmp / 'run'}",
                f"hydra.sweep.dir={tmp / 'm'}", *flags]
    return {
        "analyze": [*words, f"out_dir={tmp / 'an'}", "window_size=[1,2]"][:4]
        if "model=all" not in words else ["analyze", "model=retinaface", f"out_dir={tmp}"],
        "zoo": ["zoo", "list"] if words[1:] == ["list"] else ["zoo", "build", "--help"],
        "compare": ["compare", str(run), str(run), "--tolerance", "5"],
        "list": ["list"],
        "runs": ["runs", str(run.parent)],
        "report": ["report", str(run), "--no-plots", "--out", str(tmp / "rep")],
        "paper": ["paper", "--help"], "probe": ["probe", "--help"],
        "calibrate": ["calibrate", "--help"], "farm": ["farm", "--help"],
    }.get(tool)


@pytest.fixture(scope="module")
def short_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("results") / "k50pro" / "run"
    _call(["run=[tflite]", *SHORT, f"hydra.run.dir={folder}"])
    return folder


def _call(argv: list[str]) -> int:
    GlobalHydra.instance().clear()
    try:
        main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    finally:
        GlobalHydra.instance().clear()
    return 0


def test_every_readme_command_has_a_short_variant(tmp_path: Path) -> None:
    missing = [c for c in documented() if variant(c, tmp_path, tmp_path) is None]
    assert not missing, f"README commands without a short variant here: {missing}"


def _marked(command: str) -> object:
    """A multirun (every job composed and checked) is kept out of the default run."""
    slow = " -m " in command.split("harness", 1)[1] + " "
    return pytest.param(command, marks=pytest.mark.slow) if slow else command


@pytest.mark.parametrize("command", [_marked(c) for c in documented()])
def test_readme_command_exits_0(command: str, short_run: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    argv = variant(command, tmp_path, short_run)
    assert argv is not None
    assert _call(argv) == 0, capsys.readouterr().err
