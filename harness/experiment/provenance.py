"""Provenance: which code produced a result, the facts every manifest and figure footer names.

:func:`versions` gives the harness's main packages' versions and whether the simulation
core ran compiled (:mod:`harness.native`); :func:`git_commit` the commit of the checkout the
harness runs from ("unknown" outside a git checkout). A run's manifest records both
(:mod:`harness.experiment.session`); commands that write no manifest (``python -m
harness.analyze``) put them in their figures' footers.
"""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path

from harness import native

#: the packages whose versions a result records
PACKAGES = ("ai-edge-litert", "numpy", "simpy", "hydra-core", "pandas", "adbutils")


def versions() -> dict[str, str]:
    """The packages' versions, and whether the simulation core ran compiled."""
    found = {"simulation core": native.status()}
    for pkg in PACKAGES:
        try:
            found[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            found[pkg] = "absent"
    return found


def git_commit() -> str:
    """The commit of the checkout this harness runs from, or "unknown"."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=5, check=False)
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"
