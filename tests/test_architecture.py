"""The layout's rules, read from the source: imports run one way, down to a small floor.

* the seams (``harness/seams/``) import nothing of the project above them;
* nothing under ``harness/`` but the composition root (``harness/__main__.py``,
  ``harness/calibrate/``,
  ``harness/analyze.py``, ``harness/probe.py``, ``harness/experiment/``) imports
  ``devices``, ``baselines`` or ``adms``: the harness never names a concrete device or policy;
* ``baselines/`` imports nothing from ``adms/`` (the older system does not depend on the one
  under study; ADMS builds on Band, never the reverse);
* ``devices/`` imports no policy (a device never decides what runs where);
* the test tree mirrors the source tree.

Imports inside functions count too: every ``import`` statement of a module is read (``ast``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.paths import REPO

PACKAGES = ("harness", "devices", "baselines", "adms")
COMPOSITION_ROOT = ("harness/__main__.py", "harness/analyze.py", "harness/probe.py",
                    "harness/calibrate/",
                    "harness/experiment/")
#: (modules under this prefix, top-level packages they must not import, except this prefix)
RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("harness/seams/", ("harness", "devices", "baselines", "adms"), "harness.seams"),
    ("harness/", ("devices", "baselines", "adms"), ""),
    ("baselines/", ("adms",), ""),
    ("devices/", ("baselines", "adms"), ""),
)


def imported_modules(source: str) -> Iterator[str]:
    """Every absolute module a source file imports, at any depth."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def violations(path: str, source: str) -> list[str]:
    """``path imports module`` for each import that breaks a rule."""
    found = []
    for prefix, forbidden, allowed in RULES:
        if not path.startswith(prefix) or (prefix == "harness/" and path.startswith(
                COMPOSITION_ROOT)):
            continue
        for module in imported_modules(source):
            top = module.split(".")[0]
            if top in forbidden and not (allowed and module.startswith(allowed)):
                found.append(f"{path} imports {module}")
    return found


def sources() -> list[tuple[str, str]]:
    return [(str(p.relative_to(REPO)), p.read_text()) for pkg in PACKAGES
            for p in sorted((REPO / pkg).rglob("*.py"))]


def test_imports_run_one_way() -> None:
    assert [v for path, src in sources() for v in violations(path, src)] == []


@pytest.mark.parametrize(("path", "source", "bad"), [
    ("harness/runtime/core.py", "def f():\n    from devices.twin import TwinDevice\n",
     "devices.twin"),
    ("harness/seams/plan.py", "import harness.runtime.core\n", "harness.runtime.core"),
    ("baselines/band/policy.py", "from adms.analyzer import analyze\n", "adms.analyzer"),
    ("devices/twin/device.py", "import baselines.band\n", "baselines.band"),
])
def test_the_rules_catch_a_backward_import(path: str, source: str, bad: str) -> None:
    assert violations(path, source) == [f"{path} imports {bad}"]


def test_the_composition_root_may_name_components() -> None:
    assert violations("harness/experiment/components.py", "import devices.twin\n") == []
    assert violations("harness/seams/graph.py", "from harness.seams.errors import X\n") == []


def test_tests_mirror_the_source_tree() -> None:
    tests = REPO / "tests"
    folders = {p.parent.relative_to(tests) for p in tests.rglob("test_*.py")}
    missing = [str(f) for f in folders
               if f != Path(".") and not (REPO / f).is_dir()]
    assert missing == []
