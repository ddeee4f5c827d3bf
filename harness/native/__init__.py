"""The compiled simulation core: the hot modules built to C by mypyc, loaded only when current.

A simulated run spends its time in a few modules: the seams' records, the runtime loop, the
twin, the policies' decisions and the row columns (:data:`SOURCES`). They are ordinary,
fully annotated Python, and mypyc (part of mypy) compiles exactly that source to C extension
modules, several times faster, with the same results. Nothing else differs: there is one
source of truth, and the interpreted modules remain the reference (``HARNESS_NATIVE=0``
runs them; ``tests/harness/test_native.py`` checks that both give the same tables).

**Build** (``make native``, run by ``make run`` and ``make test``)::

    python -m harness.native build

compiles :data:`SOURCES` into ``.native/<python tag>/`` beside the packages, never into the
source tree (:mod:`harness.native.build`), with a manifest of each source's SHA-256. Nothing
is rebuilt while the manifest matches the sources.

**Load.** :func:`install` (called by ``import harness``, which the packages ``adms``,
``baselines`` and ``devices`` import first) puts a finder in front of the import system that
serves the compiled modules, but only when every compiled source is byte-identical to the one
built and the build is for this interpreter. Otherwise nothing is compiled at all: one line
on stderr says why and every module runs interpreted. It is all or nothing because compiled
modules call each other's native classes directly: a compiled module handed an object of an
interpreted twin of its class would fail. :func:`status` says which it is; every run's
manifest records it (``versions``).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: the compiled modules, as paths from the repository root (compiled together: one group)
SOURCES: tuple[str, ...] = (
    "harness/seams/units.py",
    "harness/seams/plan.py",
    "harness/seams/records.py",
    "harness/seams/view.py",
    "harness/seams/clocks.py",
    "harness/seams/rows.py",
    "harness/runtime/core.py",
    "harness/runtime/queue.py",
    "harness/runtime/driver.py",
    "harness/runtime/sensors.py",
    "harness/runtime/traffic.py",
    "adms/priority.py",
    "adms/jobs.py",
    "adms/readings.py",
    "adms/lp_split.py",
    "adms/additions.py",
    "adms/scheduler.py",
    "adms/monitor.py",
    "adms/chains.py",
    "adms/policy.py",
    "baselines/band/estimator.py",
    "baselines/band/schedulers.py",
    "baselines/band/policy.py",
    "baselines/tflite/policy.py",
    "devices/twin/facts.py",
    "devices/twin/sharing.py",
    "devices/twin/ends.py",
    "devices/twin/tensors.py",
    "devices/twin/memory.py",
    "devices/twin/device.py",
    "devices/twin/calibrated.py",
    "devices/host/twin.py",
    "devices/twin/heat.py",
    "devices/twin/latency.py",
    "devices/twin/thermal.py",
    "devices/twin/power.py",
    "harness/reporting/columns.py",
    "harness/experiment/recording.py",
)
#: the name of the group's shared library (the modules' code; each module is a small shim)
GROUP = "harness_native"
#: set to 0 to run every module interpreted
ENV = "HARNESS_NATIVE"
ROOT = Path(__file__).resolve().parent.parent.parent
MANIFEST = "manifest.json"


def build_dir(root: Path = ROOT) -> Path:
    """Where this interpreter's build lives: ``.native/<extension tag>``, e.g.
    ``.native/cpython-311-x86_64-linux-gnu``."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    tag = suffix.strip(".").removesuffix(".so").replace(".", "-")
    return root / ".native" / tag


def digests(root: Path = ROOT, sources: Sequence[str] = SOURCES) -> dict[str, str]:
    """Source path -> SHA-256 of its bytes (missing files: ``missing``)."""
    out = {}
    for rel in sources:
        path = root / rel
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
    return out


def module_name(rel: str) -> str:
    return rel.removesuffix(".py").replace("/", ".")


# -- loading ---------------------------------------------------------------------------------


class _Finder(importlib.abc.MetaPathFinder):
    """Serves the compiled modules (and the group's shared library) from the build folder."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        return importlib.util.spec_from_file_location(fullname, file)


_STATE: dict[str, str] = {}


def install(root: Path = ROOT) -> str:
    """Serve the compiled modules if the build is current (see the module docstring);
    returns :func:`status`. Idempotent."""
    if _STATE:
        return status()
    reason = _check(root)
    if reason is None:
        manifest = json.loads((build_dir(root) / MANIFEST).read_text())
        files = {name: build_dir(root) / rel for name, rel in manifest["files"].items()}
        sys.meta_path.insert(0, _Finder(files))
        _STATE["status"] = f"compiled (mypyc {manifest['mypy']}, {len(SOURCES)} modules)"
    else:
        _STATE["status"] = f"interpreted ({reason})"
        if reason.startswith("out of date"):
            print(f"harness: the compiled simulation core is {reason}; running interpreted "
                  "(slower): `make native` rebuilds it", file=sys.stderr)
    return status()


def _check(root: Path) -> str | None:
    """Why the build cannot be used (None: it can)."""
    if os.environ.get(ENV, "1") == "0":
        return f"{ENV}=0"
    path = build_dir(root) / MANIFEST
    if not path.is_file():
        return "not built: `make native` builds it"
    try:
        manifest = json.loads(path.read_text())
        built = manifest["sources"]
    except (ValueError, KeyError):
        return "its manifest is unreadable: `make native` builds it again"
    if list(built) != list(SOURCES):
        return "out of date: the list of compiled modules changed"
    stale = [rel for rel, digest in digests(root).items() if built.get(rel) != digest]
    if stale:
        more = f" and {len(stale) - 1} more" if len(stale) > 1 else ""
        return f"out of date: {stale[0]}{more} changed since it was built"
    already = [module_name(rel) for rel in SOURCES if module_name(rel) in sys.modules]
    if already:
        return f"{already[0]} was imported before harness"
    return None


def status() -> str:
    """``compiled (...)`` or ``interpreted (why)``; ``not installed`` before :func:`install`."""
    return _STATE.get("status", "not installed")


def compiled() -> bool:
    return status().startswith("compiled")
