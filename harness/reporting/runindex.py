"""The runs index: one line per run folder under a results root, kept as runs finish.

``<root>/index.jsonl`` (the root is the nearest folder named ``results`` above a run folder;
a run written elsewhere is indexed only when ``harness runs ROOT`` is asked about its root)
holds one JSON object per run: its folder relative to the root, device and kind, scenario,
baselines, state, seeds, the headline FPS (the system under study's row of ``summary.csv``:
``adms`` when it ran, else the fastest baseline), and the device and wall seconds it took
(what ``dry_run`` estimates from). A session appends its run's line when it ends, however
it ends (:func:`note`); a later line for the same folder replaces an earlier one.
:func:`runs` reads the index, adds every run folder under the root it does not know (so a
deleted index is rebuilt, and runs copied in are found), re-reads runs it last saw
``running``, and rewrites the file when anything changed. The index is a cache of what the
run folders say: it never decides anything, and losing it loses nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from harness.reporting.runrecord import RunRecord, State
from harness.reporting.store import read_manifest

INDEX = "index.jsonl"
ROOT_NAME = "results"
#: the baseline whose FPS heads a run's line when it ran
HEADLINE = "adms"


@dataclass(frozen=True, slots=True)
class Entry:
    """One run, as the index keeps it."""

    folder: str
    device: str
    kind: str
    scenario: str
    state: str
    baselines: list[str] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    #: (baseline, mean FPS) heading the run, or None before summary.csv exists
    headline: tuple[str, float] | None = None
    #: warm-up plus measured seconds of every job; the wall seconds the session took
    device_s: float = 0.0
    wall_s: float | None = None
    #: the simulation core's status (harness.native)
    core: str = ""
    #: why the run ended early (its error's line or signal), "" when it did not
    error: str = ""

    def line(self) -> str:
        seeds = (f"{self.seeds[0]}-{self.seeds[-1]}" if len(self.seeds) > 1
                 else ",".join(map(str, self.seeds)) or "-")
        head = f"{self.headline[0]} {self.headline[1]:.1f} FPS" if self.headline else "-"
        why = f"\n    {self.state}: {self.error}" if self.error else ""
        return (f"{self.folder}\n    {self.device} ({self.kind}) {self.scenario} "
                f"{self.state} seeds {seeds}: {head}\n    {', '.join(self.baselines)}{why}")


def root_of(folder: Path) -> Path | None:
    """The nearest folder named :data:`ROOT_NAME` holding ``folder``, or None."""
    return next((p for p in folder.absolute().parents if p.name == ROOT_NAME), None)


def headline(folder: Path) -> tuple[str, float] | None:
    """The run's heading FPS from its ``summary.csv`` (module docstring)."""
    path = folder / "summary.csv"
    if not path.exists():
        return None
    table = pd.read_csv(path)
    if table.empty or "fps" not in table:
        return None
    fps = table.groupby("baseline")["fps"].mean()
    name = HEADLINE if HEADLINE in fps.index else str(fps.idxmax())
    value = float(fps[name])
    return (name, value) if math.isfinite(value) else None


def entry(folder: Path, root: Path, wall_s: float | None = None) -> Entry:
    """The index line of the run in ``folder``."""
    record = RunRecord({**_asked(folder), **read_manifest(folder)})
    span = record.warmup_s + (record.duration_s or 0.0)
    return Entry(str(folder.absolute().relative_to(root.absolute())), record.device,
                 record.kind, record.scenario, record.state.value, record.baselines,
                 record.seeds, headline(folder), span * len(record.baselines) *
                 len(record.seeds), wall_s, record.versions.get("simulation core", ""),
                 record.error)


def _asked(folder: Path) -> dict[str, Any]:
    """What the run's composed config (Hydra's ``.hydra/config.yaml``) says of its device
    and scenario: a run that failed before its manifest was written has only its ending."""
    path = folder / ".hydra" / "config.yaml"
    try:
        config = yaml.safe_load(path.read_text()) if path.is_file() else None
    except (OSError, yaml.YAMLError):
        return {}
    if not isinstance(config, Mapping):
        return {}
    return {key: config[key]["name"] for key in ("device", "scenario")
            if isinstance(config.get(key), Mapping) and "name" in config[key]}


def note(folder: Path, wall_s: float | None = None) -> None:
    """Append the run's line to its root's index (nothing when it has no root). Never fails
    the run: an index that cannot be written is rebuilt by the next :func:`runs`."""
    root = root_of(folder)
    if root is None:
        return
    try:
        line = json.dumps(asdict(entry(folder, root, wall_s)))
        with (root / INDEX).open("a") as out:
            out.write(line + "\n")
    except (OSError, ValueError):
        pass


def _read(path: Path) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    if path.exists():
        for text in path.read_text().splitlines():
            try:
                item = _entry(json.loads(text))
            except (ValueError, TypeError, KeyError):
                continue  # a torn or foreign line: the folder scan finds its run again
            found[item.folder] = item
    return found


def _entry(item: Mapping[str, Any]) -> Entry:
    head = item.get("headline")
    return Entry(**{**item, "headline": None if head is None else (str(head[0]),
                                                                      float(head[1]))})


def _folders(root: Path) -> Iterator[Path]:
    for manifest in sorted(root.rglob("manifest.json")):
        yield manifest.parent


def runs(root: Path) -> list[Entry]:
    """Every run under ``root``: the index, completed by a scan (module docstring)."""
    path = root / INDEX
    known = _read(path)
    changed = not path.exists()
    for folder in _folders(root):
        key = str(folder.absolute().relative_to(root.absolute()))
        old = known.get(key)
        if old is None or old.state == State.RUNNING.value:
            fresh = entry(folder, root, old.wall_s if old else None)
            changed |= fresh != old
            known[key] = fresh
    if changed:
        path.write_text("".join(json.dumps(asdict(e)) + "\n" for e in known.values()))
    return sorted(known.values(), key=lambda e: e.folder)


def wall_rates(root: Path | None, device: str, core: str) -> list[float]:
    """Wall seconds per device second of the completed runs of ``device`` with the same
    simulation core (what ``dry_run`` estimates from)."""
    if root is None or not (root / INDEX).exists():
        return []
    return [e.wall_s / e.device_s for e in _read(root / INDEX).values()
            if e.device == device and e.core == core and e.state == State.COMPLETED.value
            and e.wall_s and e.device_s > 0]
