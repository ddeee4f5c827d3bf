"""The layout's rules, read from the source: imports run one way, down to a small floor.

* the seams (``harness/seams/``) import nothing of the project above them;
* the models (``harness/models/``) import nothing of the project but the seams;
* ``devices/``, ``baselines/`` and ``adms/`` import of the harness only ``harness.seams`` and
  ``harness.models``: what a device or a policy needs of the harness (records, row schemas,
  clocks, the frame-rate bound) lives there; each exception is named in :data:`EXCEPTIONS`
  with its reason;
* nothing under ``harness/`` but the composition root (``harness/__main__.py``,
  ``harness/analyze.py``, the commands ``harness/probe.py``, ``harness/calibrate/`` and
  ``harness/validate/``,
  ``harness/experiment/``) imports ``devices``, ``baselines`` or ``adms``: the harness never
  names a concrete device or policy;
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
                    "harness/calibrate/", "harness/validate/", "harness/sensitivity/",
                    "harness/experiment/")
#: what a component may import of the harness
FLOOR = ("harness.seams", "harness.models")
#: (modules under this prefix, top-level packages they must not import, except these modules)
RULES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("harness/seams/", ("harness", "devices", "baselines", "adms"), ("harness.seams",)),
    ("harness/models/", ("harness", "devices", "baselines", "adms"), FLOOR),
    ("harness/", ("devices", "baselines", "adms"), ()),
    ("baselines/", ("adms", "harness"), FLOOR),
    ("devices/", ("baselines", "adms", "harness"), FLOOR),
    ("adms/", ("harness",), FLOOR),
)
#: (modules whose path starts with or ends in this, the module they may import (and its
#: submodules) against the rules above, why)
EXCEPTIONS: tuple[tuple[str, str, str], ...] = (
    ("/__init__.py", "harness",
     "a component package imports the harness package first: it installs the compiled core "
     "(harness.native) before any compiled module is imported"),
    ("/config.py", "harness.config.schema",
     "a component's config schema extends the run's DeviceConf / BaselineConf and registers "
     "beside its component (Hydra's structured configs); issue 21 item 1 reworks the fields"),
    ("devices/twin/calibrate.py", "harness.config.compose",
     "a twin YAML is read by the run's one composition path (Hydra's errors as one line)"),
)


def _inside(module: str, allowed: str) -> bool:
    return module == allowed or module.startswith(allowed + ".")


def excepted(path: str, module: str) -> bool:
    """Whether :data:`EXCEPTIONS` lets ``path`` import ``module``."""
    return any((path.startswith(where) or path.endswith(where)) and _inside(module, allowed)
               for where, allowed, _ in EXCEPTIONS)


def imported_modules(source: str) -> Iterator[str]:
    """Every absolute module a source file imports, at any depth."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def violations(path: str, source: str) -> list[str]:
    """``path imports module`` for each import that breaks a rule (the first rule whose
    prefix ``path`` starts with)."""
    if path.startswith(COMPOSITION_ROOT):
        return []
    _, forbidden, allowed = next(
        (r for r in RULES if path.startswith(r[0])), ("", (), ()))
    return [f"{path} imports {module}" for module in imported_modules(source)
            if module.split(".")[0] in forbidden
            and not any(_inside(module, a) for a in allowed) and not excepted(path, module)]


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
    ("devices/host/device.py", "from harness.runtime.clocks import WallClock\n",
     "harness.runtime.clocks"),
    ("adms/policy.py", "from harness.reporting.bound import Bound\n", "harness.reporting.bound"),
    ("baselines/band/policy.py", "import harness.experiment\n", "harness.experiment"),
    ("harness/models/bound.py", "from harness.reporting import store\n", "harness.reporting"),
    ("devices/host/config.py", "from harness.config.compose import compose\n",
     "harness.config.compose"),
    ("devices/adb/draft.py", "import harness.seamsy\n", "harness.seamsy"),
])
def test_the_rules_catch_a_backward_import(path: str, source: str, bad: str) -> None:
    assert violations(path, source) == [f"{path} imports {bad}"]


def test_components_may_import_the_floor_and_the_named_exceptions() -> None:
    assert violations("devices/twin/device.py", "from harness.seams.clocks import SimClock\n"
                      "from harness.models.bound import Bound\n") == []
    assert violations("adms/config.py", "from harness.config.schema import BaselineConf\n") == []


def test_every_exception_is_still_needed() -> None:
    """An exception no import uses any more (its reason is gone) is removed from the list."""
    used = {(where, allowed) for path, src in sources() for module in imported_modules(src)
            for where, allowed, _ in EXCEPTIONS
            if (path.startswith(where) or path.endswith(where)) and _inside(module, allowed)}
    assert [e[:2] for e in EXCEPTIONS if e[:2] not in used] == []


def test_the_composition_root_may_name_components() -> None:
    assert violations("harness/experiment/components.py", "import devices.twin\n") == []
    assert violations("harness/seams/graph.py", "from harness.seams.errors import X\n") == []


def test_tests_mirror_the_source_tree() -> None:
    tests = REPO / "tests"
    folders = {p.parent.relative_to(tests) for p in tests.rglob("test_*.py")}
    missing = [str(f) for f in folders
               if f != Path(".") and not (REPO / f).is_dir()]
    assert missing == []
