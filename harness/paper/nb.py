"""What every paper notebook does: find its run folders, say who produced them, set ours
beside the paper's number.

A notebook calls :func:`runs` with its artifact name. Under ``python -m harness.paper`` the
environment variable ``PAPER_OUT`` names the output folder, whose ``index.json`` lists the
artifact's run folders; opened alone (no ``PAPER_OUT``), the notebook first runs its own
artifact in fast mode into a temporary folder (``PAPER_DEVICE`` picks the device). Either
way everything shown is computed from the folders' ``manifest.json`` and parquet tables.

A comparison is a :class:`Row`: the paper's value, ours as a mean with its 95% interval over
seeds (:mod:`harness.reporting.stats`), their ratio with the interval scaled by the paper's
value, and a note. Where ours and the paper disagree (:func:`disagrees`: a ratio outside
:data:`AGREE`, or ours missing) the note says why: :func:`why` adds a reason computed by the
notebook from its runs, only to the rows that disagree. :func:`emit` shows the rows and,
under the driver, writes them to ``report/summary/<artifact>.json`` for the report's summary
table.

Each run folder is read through :class:`~harness.reporting.runfolder.RunFolder` (in place,
never written). A seed on which a baseline failed (out of memory, say) is no measurement:
:meth:`Run.scenario` leaves it out, and a baseline that failed on every seed gets a row
that says so (``Row.failed``) rather than no row.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from functools import cached_property
from pathlib import Path

import pandas as pd

from harness.reporting.metrics import Metrics, compute
from harness.reporting.report import RunIdentity, run_identity
from harness.reporting.runfolder import Failure, RunFolder, failures_in
from harness.reporting.stats import NAN, Interval, mean_ci, ratio_ci
from harness.reporting.store import RunData
from harness.reporting.summary import without_failed

ENV_OUT = "PAPER_OUT"
ENV_DEVICE = "PAPER_DEVICE"
#: set (to the folder) when a notebook opened alone made its own output folder
ENV_ALONE = "PAPER_OUT_ALONE"


@dataclass(frozen=True)
class Run:
    """One run folder an artifact reads."""

    label: str
    folder: RunFolder
    #: why it did not finish ("" when it did)
    error: str = ""

    @property
    def data(self) -> RunData:
        """The folder's tables and manifest, as metrics and plots take them."""
        return self.folder.data

    @cached_property
    def identity(self) -> RunIdentity:
        return run_identity(self.folder.manifest)

    @property
    def kind(self) -> str:
        return self.identity.kind

    @cached_property
    def metrics(self) -> Metrics:
        return compute(self.data)

    @property
    def failed_seeds(self) -> dict[str, set[int]]:
        """Baseline -> the seeds on which it failed."""
        return self.folder.failed_seeds

    def scenario(self) -> pd.DataFrame:
        """``Metrics.scenario`` of the seeds that completed."""
        return without_failed(self.metrics.scenario, self.failed_seeds)

    def baselines(self) -> list[str]:
        """Every baseline the run ran, in run order (failed ones too)."""
        return self.folder.baselines

    def failure(self, baseline: str) -> str:
        """Why ``baseline`` failed and on which seeds (:func:`failure_text`)."""
        return failure_text(self.folder.failed(baseline), len(self.folder.seeds))


def failure(manifest: Mapping[str, object], baseline: str) -> str:
    """:func:`failure_text` of a manifest's failed seeds of ``baseline``."""
    seeds = manifest.get("seeds")
    return failure_text([f for f in failures_in(manifest) if f.baseline == baseline],
                        len(seeds) if isinstance(seeds, list) else 0)


def failure_text(failed: list[Failure], seeds: int) -> str:
    """``out of memory on k50pro at 1.46 s (every seed)``: why a baseline failed (the first
    failure's reason), and on which of the run's ``seeds`` seeds; "" when none failed."""
    if not failed:
        return ""
    total = seeds or len(failed)
    which = ("every seed" if len(failed) == total else
             f"seed {','.join(str(f.seed) for f in failed)} of {total}")
    return f"{failed[0].reason} ({which})"


def out_dir() -> Path:
    """The driver's output folder, or a fresh temporary one for a notebook opened alone."""
    given = os.environ.get(ENV_OUT)
    if given:
        return Path(given)
    path = Path(tempfile.mkdtemp(prefix="paper-"))
    os.environ[ENV_OUT] = str(path)
    os.environ[ENV_ALONE] = str(path)
    return path


def alone() -> bool:
    """The notebook was opened alone (no driver): :func:`out_dir` made its folder."""
    return bool(os.environ.get(ENV_ALONE)) and os.environ.get(ENV_ALONE) == os.environ.get(ENV_OUT)


def runs(artifact: str) -> list[Run]:
    """The artifact's finished runs, in the order the plan lists them."""
    out = out_dir()
    index_path = out / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    if artifact not in index:
        if not alone():  # under the driver: never stand in fast runs for the real ones
            raise RuntimeError(f"{index_path} lists no runs for {artifact}: the driver "
                               f"(python -m harness.paper) writes it before the notebooks")
        from harness.paper.build import build_runs

        build_runs([f"device={os.environ.get(ENV_DEVICE, 'k50pro')}", "mode=fast",
                    f"only=[{artifact}]", f"out_dir={out}"])
        index = json.loads(index_path.read_text())
    found = []
    for entry in index[artifact]:
        folder = out / entry["folder"]
        if (folder / "manifest.json").exists():
            found.append(Run(entry["label"], RunFolder(folder), entry.get("error", "")))
    return found


def by_label(found: Iterable[Run]) -> dict[str, Run]:
    return {r.label: r for r in found}


def produced_by(found: list[Run]) -> str:
    """``TWIN (simulation) · k50pro, p20 · seeds 0-4 (5 seeds)``: every kind, device and
    seed set among ``found``."""
    if not found:
        return "NO RUNS"
    kinds = sorted({f"{r.kind.upper()} = {r.identity.kind_meaning}" for r in found})
    devices = sorted({r.identity.device for r in found})
    seeds = sorted({r.identity.seed for r in found})
    return f"{' + '.join(kinds)} · device {', '.join(devices)} · seeds {'; '.join(seeds)}"


def heading(title: str, found: list[Run]) -> str:
    """A Markdown heading naming the artifact and what produced it."""
    failed = [f"{r.label}: {r.error}" for r in found if r.error]
    lines = [f"## {title}", "", f"**Produced by: {produced_by(found)}**"]
    return "\n".join(lines + ([""] + [f"- failed: {f}" for f in failed] if failed else []))


@dataclass(frozen=True)
class Row:
    """One number of the paper beside ours."""

    artifact: str
    quantity: str
    paper: float
    ours: Interval
    unit: str = ""
    note: str = ""
    kind: str = ""
    #: why ours is missing: the baseline failed (e.g. "out of memory ... (every seed)")
    failed: str = ""

    @property
    def ratio(self) -> Interval:
        """Ours over the paper's, the interval scaled by the paper's value."""
        if not self.paper or math.isnan(self.paper):
            return Interval(NAN, NAN, NAN, ())
        return Interval(self.ours.mean / self.paper, self.ours.low / self.paper,
                        self.ours.high / self.paper,
                        tuple(v / self.paper for v in self.ours.values))

    def record(self) -> dict[str, object]:
        return {"artifact": self.artifact, "quantity": self.quantity, "kind": self.kind,
                "unit": self.unit, "paper": self.paper, "ours": self.ours.mean,
                "ours_low": self.ours.low, "ours_high": self.ours.high,
                "n_seeds": self.ours.n, "ratio": self.ratio.mean,
                "ratio_low": self.ratio.low, "ratio_high": self.ratio.high,
                "failed": self.failed, "note": self.note}


#: ours / paper inside this band (inclusive) agrees; outside it a row's note says why
AGREE = (0.8, 1.25)


def disagrees(row: Row) -> bool:
    """The paper gives a value and ours is missing, failed, or its ratio is outside
    :data:`AGREE` (a row without a paper value compares nothing; the paper's 0 agrees with
    ours 0 only)."""
    if row.paper is None or math.isnan(row.paper):
        return False
    if row.paper == 0:
        return row.ours.mean != 0
    low, high = AGREE
    r = row.ratio.mean
    return math.isnan(r) or not low <= r <= high


def why(row: Row, reason: str) -> Row:
    """``row`` with ``reason`` appended to its note when it disagrees (else unchanged); an
    empty reason (nothing the data shows) leaves the note alone."""
    if not reason or not disagrees(row):
        return row
    return replace(row, note="; ".join(n for n in (row.note, reason) if n))


def not_explained(checked: str) -> str:
    """The note of a disagreement whose cause the runs do not show: what was checked."""
    return f"not explained (checked: {checked})"


def processors(device: str) -> list[object]:
    """The device config's processors (their op-support rules), as the runs composed them."""
    from harness.analyze import compose_config

    conf, _ = compose_config([f"device={device}"])
    return list(conf.device.processors)


def request_time(run: Run, by: list[str]) -> pd.DataFrame:
    """Per ``by`` (columns of the subgraph rows, e.g. ``["baseline"]``) and processor: the
    ``subgraphs`` a request ran there and their ``ms``, each a mean over requests."""
    sg = run.data.subgraphs
    sg = sg.assign(ms=(sg["end_ns"] - sg["start_ns"]) / 1e6)
    per_req = sg.groupby([*by, "seed", "request_id", "processor"])["ms"].agg(["size", "sum"])
    return per_req.groupby([*by, "processor"]).mean().rename(
        columns={"size": "subgraphs", "sum": "ms"}).reset_index()


def processor_load(run: Run, baseline: str) -> pd.DataFrame:
    """Per processor, for one baseline: ``busy`` (its busy share of each seed's span of
    subgraphs, mean over seeds), ``ms_per_frame`` (subgraph time there per request of every
    model: a frame needs each model once, so FPS <= 1000 / it), and the ``model`` that takes
    most of it with its ``model_ms``."""
    sg = run.data.subgraphs
    sg = sg[sg["baseline"] == baseline]
    if sg.empty:
        return pd.DataFrame(columns=["busy", "ms_per_frame", "model", "model_ms"])
    sg = sg.assign(ms=(sg["end_ns"] - sg["start_ns"]) / 1e6)
    span_ms = (sg.groupby("seed")["end_ns"].max() - sg.groupby("seed")["start_ns"].min()) / 1e6
    busy = (sg.groupby(["seed", "processor"])["ms"].sum() / span_ms).groupby("processor").mean()
    requests = sg.groupby(["seed", "model"])["request_id"].nunique().groupby("model").sum()
    per_model = sg.groupby(["processor", "model"])["ms"].sum()
    per_model = per_model / requests.reindex(per_model.index.get_level_values("model")).values
    by_processor = per_model.groupby("processor")
    return pd.DataFrame({"busy": busy, "ms_per_frame": by_processor.sum(),
                         "model": by_processor.idxmax().map(lambda k: k[1]),
                         "model_ms": by_processor.max()})


def interval(values: Iterable[float]) -> Interval:
    return mean_ci([float(v) for v in values])


def per_seed(scenario: pd.DataFrame, baseline: str, column: str) -> dict[int, float]:
    """Seed -> one baseline's value of a column of ``Metrics.scenario``."""
    rows = scenario[scenario["baseline"] == baseline]
    return dict(zip(rows["seed"].astype(int), rows[column].astype(float), strict=True))


def seed_interval(scenario: pd.DataFrame, baseline: str, column: str) -> Interval:
    """The mean over seeds of one baseline's column, with its interval."""
    return interval(per_seed(scenario, baseline, column).values())


def ratio(scenario: pd.DataFrame, numerator: str, denominator: str, column: str = "fps"
          ) -> Interval:
    """One baseline's column over another's, seeds paired (paired bootstrap)."""
    return ratio_ci(per_seed(scenario, numerator, column),
                    per_seed(scenario, denominator, column))


def members(run: Run, group: str) -> list[str]:
    """The baselines of ``group`` (a ``groups`` entry the run asked for) that the run ran;
    [] when it did not ask for the group."""
    listed = run.folder.groups.get(group, [])
    return [b for b in run.baselines() if b in listed]


def strongest(scenario: pd.DataFrame, candidates: Iterable[str],
              failed: Mapping[str, object], column: str = "fps") -> str | None:
    """The candidate with the highest mean ``column`` among those that completed every seed
    (``failed``: baseline -> its failed seeds, e.g. :attr:`Run.failed_seeds`; one that
    failed on a seed could not run the scenario through); None when none did."""
    ran = set(scenario["baseline"].astype(str))
    means = {b: seed_interval(scenario, b, column).mean for b in candidates
             if b in ran and not failed.get(b)}
    finite = {b: m for b, m in means.items() if not math.isnan(m)}
    return max(finite, key=finite.__getitem__) if finite else None


def table(rows: list[Row]) -> pd.DataFrame:
    """The rows as a table: paper, ours ± CI, ratio [low, high], note."""
    return pd.DataFrame([{
        "quantity": r.quantity, "unit": r.unit, "paper": _num(r.paper),
        "ours (mean ± 95% CI)": f"failed: {r.failed}" if r.failed and math.isnan(
            r.ours.mean) else r.ours.text("{:.3g}"),
        "ratio ours/paper": r.ratio.text("{:.2f}"), "seeds": r.ours.n, "kind": r.kind,
        "note": r.note} for r in rows])


def _num(value: float) -> str:
    return "–" if value is None or math.isnan(value) else f"{round(value, 3):g}"


@dataclass(frozen=True)
class Whole:
    """A table as a notebook shows it in the report: every cell whole (pandas' own notebook
    display cuts text at 50 characters: a note became "twin calib..."), without the row
    index; the report's style left-aligns its text columns (``beside``)."""

    frame: pd.DataFrame

    def _repr_html_(self) -> str:
        return self.frame.to_html(index=False, border=0, classes="beside")

    def __repr__(self) -> str:
        return self.frame.to_string(index=False)


def emit(artifact: str, rows: list[Row]) -> Whole:
    """Write the rows for the report's summary (under the driver) and return their table."""
    folder = out_dir() / "report" / "summary"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{artifact}.json").write_text(json.dumps([r.record() for r in rows], indent=1,
                                                        default=_json_default))
    return Whole(table(rows))


def _json_default(value: object) -> object:
    if isinstance(value, Interval):
        return asdict(value)
    raise TypeError(type(value).__name__)
