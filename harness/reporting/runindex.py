"""The runs index: one line per run folder under a results root, kept as runs finish.

``<root>/index.jsonl`` (the root is the nearest folder named ``results`` above a run folder;
a run written elsewhere is indexed only when ``harness runs ROOT`` is asked about its root)
holds one JSON object per run: its folder relative to the root, device and kind, scenario,
baselines, state, seeds, the headline FPS (the system under study's row of ``summary.csv``:
``adms`` when it ran, else the fastest baseline), and the device and wall seconds it took
(what ``dry_run`` estimates from). A session appends its run's line when it ends, however
it ends (:func:`note`); a later line for the same folder replaces an earlier one.
:func:`runs` is a reader and writes nothing, anywhere (a results tree may be read-only or
another user's): it lists every run folder under the root, taking a run that ended from its
index line (a cache) and reading every other folder afresh, in memory. A run whose manifest
says ``running`` while nobody holds its claim (:mod:`harness.seams.claim`) was killed, and is
listed so; a folder whose manifest or summary cannot be read (torn, not UTF-8) is listed with
why, on its own row; the index itself is read whatever bytes it holds. The index is a cache
of what the run folders say: it never decides anything, and losing it loses nothing.
"""

from __future__ import annotations

import dataclasses
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
from harness.seams.claim import holder
from harness.seams.errors import UserError

INDEX = "index.jsonl"
ROOT_NAME = "results"
#: the baseline whose FPS heads a run's line when it ran
HEADLINE = "adms"
#: the states a run's index line keeps for good (every other folder is read again)
ENDED = (State.COMPLETED.value, State.INTERRUPTED.value, State.FAILED.value)
#: the state of a run whose manifest says running while no process holds its claim
KILLED = "killed (never closed: its manifest still says running)"


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
    try:
        table = pd.read_csv(path, encoding_errors="replace")
    except (OSError, ValueError):  # a torn summary: the run is listed without its FPS
        return None
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
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:  # none, or unreadable: the folder scan finds every run
        return found
    for line in text.splitlines():
        try:
            item = _entry(json.loads(line))
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


def shown(path: Path | str) -> str:
    """A path as text any terminal takes (a name that is not UTF-8 keeps a replacement
    character where its odd bytes were)."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def read_entry(folder: Path, root: Path, wall_s: float | None = None) -> Entry:
    """The run in ``folder`` as it stands: a killed run is so named; a folder whose manifest
    cannot be read is an entry saying why (one torn run never hides the others)."""
    key = shown(folder.absolute().relative_to(root.absolute()))
    try:
        found = entry(folder, root, wall_s)
    except (UserError, OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        why = " ".join(str(exc).split())[:120] or type(exc).__name__
        return Entry(key, "?", "?", "?", f"unreadable: {why}")
    state = found.state
    if state == State.RUNNING.value and holder(folder) is None:
        state = KILLED
    return dataclasses.replace(found, folder=key, state=state)


def runs(root: Path) -> list[Entry]:
    """Every run under ``root``, read without writing anything (module docstring)."""
    known = _read(root / INDEX)
    found = []
    for folder in _folders(root):
        old = known.get(shown(folder.absolute().relative_to(root.absolute())))
        if old is not None and old.state in ENDED:
            found.append(old)
        else:
            found.append(read_entry(folder, root, old.wall_s if old else None))
    return sorted(found, key=lambda e: e.folder)


def wall_rates(root: Path | None, device: str, core: str) -> list[float]:
    """Wall seconds per device second of the completed runs of ``device`` with the same
    simulation core (what ``dry_run`` estimates from)."""
    if root is None or not (root / INDEX).exists():
        return []
    return [e.wall_s / e.device_s for e in _read(root / INDEX).values()
            if e.device == device and e.core == core and e.state == State.COMPLETED.value
            and e.wall_s and e.device_s > 0]
