"""A run folder, read: its manifest's facts as typed values and its tables as frames.

``RunFolder(path)`` reads ``results/<device>/<timestamp>_<scenario>/`` as the session wrote
it (:mod:`harness.experiment.session`, :mod:`harness.reporting.store`) and never writes into
it: a table whose journal was never converted (a run still going, or killed) is read from the
journal in place (:func:`~harness.reporting.store.read_table`); conversion is the recorder's.
Notebooks, ``compare``, the farm and the paper driver read runs through it rather than
indexing the manifest's dictionaries or parsing its strings.

What it gives:

* the run's :class:`State` (and :attr:`~RunFolder.error`: why it ended early), and whether a
  run still records into the folder (:attr:`~RunFolder.recorder_pid`: the folder's claim is
  held, :mod:`harness.seams.claim`), which tells a run going on from one killed;
* device, kind, scenario, models, measured and warm-up seconds, the composed config and its
  digest (:func:`config_digest`), versions, commit and machine;
* baselines, groups and seeds; per baseline and seed a :class:`SeedRun` (plan counts, plan
  facts, SLOs, end time, the bounds of its plans) or a :class:`Failure`; the run's bound per
  seed (:class:`BoundFacts`);
* the tables ``requests``, ``subgraphs``, ``sensors``, ``phone_runs``, ``phone_ops`` and all of
  them as a :class:`~harness.reporting.store.RunData` (what metrics and reports take).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from harness.reporting.store import TABLES, RunData, read_manifest, read_table
from harness.seams.claim import holder
from harness.seams.errors import UserError
from harness.seams.plan import PlanCounts

#: keys of a composed config that name where a run goes, not what it runs: left out of
#: :func:`config_digest` (a config composed without Hydra's node has none of them)
RUN_DIR_KEYS = ("hydra",)


class State(StrEnum):
    """How a run ended, as its manifest's ``status`` says."""

    RUNNING = "running"  # still going, or killed (SIGKILL, a crash)
    COMPLETED = "completed"
    INTERRUPTED = "interrupted"  # SIGINT or SIGTERM
    FAILED = "failed"  # an error ended it (``error`` says which)
    UNKNOWN = "unknown"  # no manifest, or one older than run states


@dataclass(frozen=True, slots=True)
class Failure:
    """A seed on which a baseline could not run (a device's ``RunFailure``)."""

    baseline: str
    seed: int
    #: the device's one line: ``<what> at <when>: <detail>``, e.g. ``out of memory on k50pro
    #: at 1.46 s: 12 subgraphs have run; ... the budget is 800 MB``
    error: str

    @property
    def reason(self) -> str:
        """What failed, where and when: the error up to its first ``": "``."""
        return self.error.split(": ", 1)[0]

    @property
    def detail(self) -> str:
        """The rest of the error ("" when it has no ``": "``)."""
        parts = self.error.split(": ", 1)
        return parts[1] if len(parts) > 1 else ""


@dataclass(frozen=True, slots=True)
class BoundFacts:
    """A frame-rate bound as the manifest keeps it (:func:`harness.experiment.bounds.facts`)."""

    frames_per_s: float
    #: processor -> its busy share at the bound
    busy: Mapping[str, float] = field(default_factory=dict)
    #: model -> processor -> the share of the model's work placed there
    share: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    @classmethod
    def of(cls, value: Any) -> BoundFacts | None:
        if not isinstance(value, Mapping) or "frames_per_s" not in value:
            return None
        return cls(float(value["frames_per_s"]), dict(value.get("busy") or {}),
                   {m: dict(s) for m, s in (value.get("share") or {}).items()})


@dataclass(frozen=True, slots=True)
class SeedRun:
    """One baseline with one seed that ran, as the manifest recorded it."""

    baseline: str
    seed: int
    #: model -> its plan's counts (empty where the device ran the baseline with its own tools)
    plans: Mapping[str, PlanCounts]
    #: model -> what the policy said of its plan (ADMS: ``windows`` per processor, ...)
    plan_meta: Mapping[str, Mapping[str, Any]]
    window_sizes: Mapping[str, int]
    #: model -> its SLO in ns (0: none)
    slo_ns: Mapping[str, int]
    #: the run's end on its clock; None where not recorded
    end_ns: int | None
    #: the bound over the baseline's own plans, and that bound at the latencies it ran at
    bound: BoundFacts | None
    as_run_bound: BoundFacts | None
    #: every fact recorded (a phone's tools add their own)
    facts: Mapping[str, Any]

    @property
    def subgraphs(self) -> int:
        """The subgraphs its plans hold (unit and merged, every model)."""
        return sum(c.total for c in self.plans.values())

    @classmethod
    def of(cls, baseline: str, seed: int, facts: Mapping[str, Any]) -> SeedRun:
        end_ns = facts.get("end_ns")
        return cls(baseline, seed,
                   {m: PlanCounts(int(c["unit"]), int(c["unit_subgraphs"]), int(c["merged"]))
                    for m, c in _mapping(facts.get("plans")).items()},
                   {m: dict(v) for m, v in _mapping(facts.get("plan_meta")).items()},
                   {m: int(v) for m, v in _mapping(facts.get("window_sizes")).items()},
                   {m: int(v) for m, v in _mapping(facts.get("slo_ns")).items()},
                   None if end_ns is None else int(end_ns),
                   BoundFacts.of(facts.get("bound")), BoundFacts.of(facts.get("as_run_bound")),
                   dict(facts))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _name(value: Any) -> str:
    return str(value.get("name", "")) if isinstance(value, Mapping) else str(value or "")


def recorded(manifest: Mapping[str, Any]) -> tuple[dict[str, dict[int, SeedRun]],
                                                    list[Failure]]:
    """The manifest's ``runs``: baseline -> seed -> what ran, and every failed seed (by
    baseline, then seed)."""
    ran: dict[str, dict[int, SeedRun]] = {}
    failed: list[Failure] = []
    for baseline, by_seed in _mapping(manifest.get("runs")).items():
        for seed, facts in sorted(_mapping(by_seed).items(), key=lambda kv: int(kv[0])):
            if not isinstance(facts, Mapping):
                continue
            if "failed" in facts:
                failed.append(Failure(str(baseline), int(seed), str(facts["failed"])))
            else:
                ran.setdefault(str(baseline), {})[int(seed)] = SeedRun.of(baseline, int(seed),
                                                                          facts)
    return ran, failed


def failures_in(manifest: Mapping[str, Any]) -> list[Failure]:
    """Every failed seed the manifest records."""
    return recorded(manifest)[1]


def config_digest(config: Mapping[str, Any]) -> str:
    """The identity of a composed, resolved config: a hash of its canonical JSON (keys sorted,
    values as the manifest writes them), without :data:`RUN_DIR_KEYS`. Two override lists
    that compose to the same config have the same digest."""
    kept = {k: v for k, v in config.items() if k not in RUN_DIR_KEYS}
    text = json.dumps(kept, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:10]


class RunFolder:
    """One run folder, read (module docstring); reading never writes into it."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise UserError(f"{folder} is not a folder")
        #: the manifest as written (``{}`` when there is none): for facts not typed here
        self.manifest: Mapping[str, Any] = read_manifest(self.folder)
        self._ran, self.failures = recorded(self.manifest)

    def __repr__(self) -> str:
        return f"RunFolder({str(self.folder)!r})"

    # -- how it ended, what produced it ---------------------------------------------------

    @property
    def state(self) -> State:
        status = self.manifest.get("status")
        return State(str(status)) if status in {s.value for s in State} else State.UNKNOWN

    @property
    def recorder_pid(self) -> int | None:
        """The pid of the run still recording into the folder (its claim is held); None when
        none does: the run ended, or was killed if its state is still ``running``."""
        return holder(self.folder)

    @property
    def error(self) -> str:
        """Why it ended early: the error's line, or the signal's name ("" when it did not)."""
        return str(self.manifest.get("error") or self.manifest.get("signal") or "")

    @property
    def device(self) -> str:
        return _name(self.manifest.get("device")) or "unknown"

    @property
    def kind(self) -> str:
        """twin, host or adb (the device kind that produced the numbers)."""
        device = self.manifest.get("device")
        kind = device.get("kind") if isinstance(device, Mapping) else None
        return str(kind or self.manifest.get("device_kind") or "unknown")

    @property
    def scenario(self) -> str:
        return _name(self.manifest.get("scenario")) or "unknown"

    @property
    def config(self) -> Mapping[str, Any]:
        """The composed config, resolved (manifest ``config``)."""
        return _mapping(self.manifest.get("config"))

    @property
    def config_digest(self) -> str:
        return config_digest(self.config)

    @property
    def scenario_config(self) -> Mapping[str, Any]:
        return _mapping(self.config.get("scenario"))

    @property
    def models(self) -> tuple[str, ...]:
        models = self.manifest.get("models", self.scenario_config.get("models")) or ()
        return tuple(str(m) for m in models)

    @property
    def duration_s(self) -> float | None:
        """The measured seconds (warm-up excluded); None when not recorded."""
        value = self.manifest.get("duration_s", self.scenario_config.get("duration_s"))
        return None if value is None else float(value)

    @property
    def warmup_s(self) -> float:
        return float(self.manifest.get("warmup_s", self.scenario_config.get("warmup_s", 0)))

    @property
    def versions(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in _mapping(self.manifest.get("versions")).items()}

    @property
    def commit(self) -> str:
        return str(self.manifest.get("git_commit") or self.manifest.get("commit") or "")

    @property
    def machine(self) -> Mapping[str, Any]:
        return _mapping(self.manifest.get("machine"))

    # -- baselines, seeds, plans, failures, bounds ----------------------------------------

    @property
    def baselines(self) -> list[str]:
        """Every baseline the run ran, in run order (failed ones too)."""
        listed = self.manifest.get("baselines")
        if isinstance(listed, list):
            return [str(b) for b in listed]
        return list(dict.fromkeys([*self._ran, *(f.baseline for f in self.failures)]))

    @property
    def groups(self) -> dict[str, list[str]]:
        """The groups the run asked for (``band_best``, ...) -> their baselines."""
        return {str(g): [str(b) for b in m] for g, m in _mapping(self.manifest.get("groups"))
                .items()}

    @property
    def seeds(self) -> list[int]:
        seeds = self.manifest.get("seeds")
        if isinstance(seeds, list):
            return [int(s) for s in seeds]
        seed = self.manifest.get("seed")
        seed = seed.get("base") if isinstance(seed, Mapping) else seed
        return [] if seed is None else [int(seed)]

    def runs(self, baseline: str) -> dict[int, SeedRun]:
        """Seed -> what ran, for the seeds of ``baseline`` that did not fail."""
        return dict(self._ran.get(baseline, {}))

    def run(self, baseline: str, seed: int) -> SeedRun | None:
        """What ``baseline`` ran with ``seed``; None when it failed or did not run."""
        return self._ran.get(baseline, {}).get(seed)

    def plans(self, baseline: str, seed: int) -> Mapping[str, PlanCounts]:
        """Model -> its plan's counts under ``baseline`` with ``seed`` (empty: none recorded)."""
        run = self.run(baseline, seed)
        return run.plans if run is not None else {}

    def failed(self, baseline: str) -> list[Failure]:
        """The failed seeds of ``baseline``, by seed."""
        return [f for f in self.failures if f.baseline == baseline]

    @property
    def failed_seeds(self) -> dict[str, set[int]]:
        """Baseline -> the seeds on which it failed (baselines that never failed: absent)."""
        out: dict[str, set[int]] = {}
        for f in self.failures:
            out.setdefault(f.baseline, set()).add(f.seed)
        return out

    def bound(self, seed: int) -> BoundFacts | None:
        """The run's bound with ``seed``: over every plan that loaded (manifest ``bound``)."""
        return BoundFacts.of(_mapping(self.manifest.get("bound")).get(str(seed)))

    # -- tables ---------------------------------------------------------------------------

    def table(self, name: str) -> pd.DataFrame:
        """One of the folder's tables (:data:`~harness.reporting.store.TABLES`), read in
        place; a fresh frame at each call."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; tables: {', '.join(TABLES)}")
        return read_table(self.folder, name, self.manifest)

    @cached_property
    def data(self) -> RunData:
        """Every table and the manifest, as metrics and reports take them (read once)."""
        frames = {name: self.table(name) for name in TABLES}
        return RunData(self.folder, frames["requests"], frames["subgraphs"], frames["sensors"],
                       self.manifest, frames["phone_runs"], frames["phone_ops"])

    @property
    def requests(self) -> pd.DataFrame:
        return self.data.requests

    @property
    def subgraphs(self) -> pd.DataFrame:
        return self.data.subgraphs

    @property
    def sensors(self) -> pd.DataFrame:
        return self.data.sensors

    @property
    def phone_runs(self) -> pd.DataFrame:
        return self.data.phone_runs

    @property
    def phone_ops(self) -> pd.DataFrame:
        return self.data.phone_ops
