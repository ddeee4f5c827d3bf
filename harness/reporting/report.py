"""The comparison report: one row per baseline, beside the paper's numbers.

A report says first *what produced the numbers*: the device kind and what it means
(:class:`~harness.seams.device.DeviceKind`: ``twin`` = a simulation, ``host`` = this machine,
``adb`` = a real phone), device, scenario, seeds and versions, from ``manifest.json``. Then one
row per baseline (:mod:`.summary`): FPS as a mean with its 95% interval over seeds, the paper's
FPS (Figure 8) where the paper has one, the FPS ratios over both TFLite rows (ours with a
paired-bootstrap interval: over ``tflite``, shown as ``tflite (oracle)``, and over
``tflite_gpu``; the paper's over its TFLite), the ratio over Band, p50 and p90 latency, SLO
satisfaction, dropped requests, energy per frame, peak temperature and time to the first
throttle, each a mean over seeds. Every title states the load: frames in flight for the closed
loop over frames. It renders as ``rich`` tables for the terminal (after the run's headline and
verdicts, :mod:`.verdict`, and which reading ``adms`` is; split to fit the console,
:mod:`.tables`; then latency per model), ``summary.csv`` and ``summary.md``
(:mod:`.summaryfiles`) and Markdown for notes.

Manifest keys read (all optional): ``device`` (a mapping with ``name`` and ``kind``, or a name,
with ``device_kind``), ``kind_meaning`` (or ``kind_words``), ``scenario`` (a name or a mapping
with ``name``), ``seeds`` or ``seed`` (an int or a mapping with ``base``), ``groups``,
``versions``, ``git_commit``, ``config``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table as RichTable

from harness.reporting import coverage, headline, paper, tables, verdict
from harness.reporting.measures import BUILT_IN, Metric, Table, columns, without_interval
from harness.reporting.metrics import Metrics, compute
from harness.reporting.names import SHOWN_AS, variants
from harness.reporting.names import shown_name as _shown_name
from harness.reporting.readings import adms_line
from harness.reporting.runrecord import RunRecord
from harness.reporting.store import RunData
from harness.reporting.summary import (
    aggregate,
    failed_seeds_of,
    failures_of,
)
from harness.seams import fitting
from harness.seams.fitting import WIDE

NAN = float("nan")
#: the footnote a table shows under it when a baseline of :data:`SHOWN_AS` is in it
ORACLE_NOTE = ("tflite (oracle): each model whole on the processor the device's own "
               "single-model profiles make best for the frame, which no app knows; "
               "tflite_gpu is vanilla TFLite as apps ship it (GPU delegate; 8-bit models on "
               "NNAPI)")

#: the two tables every rendering shows of the built-in metrics (as their declarations
#: say, :mod:`harness.reporting.measures`): column -> (header, format); a column with
#: ``_low`` and ``_high`` beside it shows as ``mean ± half-width``
THROUGHPUT = columns(BUILT_IN, Table.THROUGHPUT)
SERVICE = columns(BUILT_IN, Table.SERVICE)
#: every column a rendering of the built-in metrics shows
COLUMNS: dict[str, tuple[str, str]] = {**THROUGHPUT, **SERVICE}


@dataclass(frozen=True, slots=True)
class RunIdentity:
    """What produced a run, as its manifest says."""

    kind: str = "unknown"
    #: what the kind means, as the device's class declared it when the run was made
    meaning: str = ""
    device: str = "unknown"
    scenario: str = "unknown"
    seed: str = "?"
    versions: Mapping[str, str] = field(default_factory=dict)
    commit: str = ""
    #: the scenario's models, when the manifest records them
    models: tuple[str, ...] | None = None
    #: how requests arrive, as the manifest's config says: "frames in flight N" for the
    #: closed loop over frames, else the arrival's name and rate; "" when not recorded
    load: str = ""
    #: baseline -> what its settings differ by from its named config (``scheduler=heft``)
    variants: Mapping[str, str] = field(default_factory=dict)

    def shown(self, baseline: str) -> str:
        """``baseline`` as shown (:func:`~harness.reporting.names.shown_name`)."""
        return _shown_name(baseline, self.variants)

    @property
    def paper_scenario(self) -> str:
        """The scenario name to look the paper up by; "" when the models are not the paper's."""
        return paper.paper_scenario(self.scenario, self.models)

    @property
    def kind_meaning(self) -> str:
        return self.meaning or f"UNKNOWN device kind {self.kind!r}"

    def title(self) -> str:
        """One line naming the device kind, device, scenario, seed and versions."""
        parts = [f"{self.kind.upper()} = {self.kind_meaning}", f"device {self.device}",
                 f"scenario {self.scenario}", *([self.load] if self.load else []),
                 f"seed {self.seed}"]
        if self.versions:
            parts.append(", ".join(f"{k} {v}" for k, v in sorted(self.versions.items())))
        if self.commit:
            parts.append(f"commit {self.commit[:10]}")
        return " · ".join(parts)

    def short(self) -> str:
        """For plot footers: kind, device, scenario, load, seeds, and the versions of the
        harness's main packages and its commit."""
        load = f" · {self.load}" if self.load else ""
        main = ", ".join(f"{k} {v}" for k, v in sorted(self.versions.items())
                         if k in FOOTER_PACKAGES)
        commit = f" · commit {self.commit[:10]}" if self.commit else ""
        return (f"{self.kind} = {self.kind_meaning} · {self.device} · {self.scenario}"
                f"{load} · seed {self.seed}" + (f" · {main}" if main else "") + commit)


#: the packages a plot's footer names (the full list is in the manifest and the table title)
FOOTER_PACKAGES = ("ai-edge-litert", "numpy", "pandas", "simpy")


def run_identity(manifest: Mapping[str, Any], folder: Path | None = None) -> RunIdentity:
    """Read :class:`RunIdentity` from a manifest, through its record
    (:class:`~harness.reporting.runrecord.RunRecord`; keys in the module docstring), and the
    variants of the run folder's command line (:func:`~harness.reporting.names.variants`)."""
    record = RunRecord(manifest)
    return RunIdentity(kind=record.kind, meaning=record.kind_meaning, device=record.device,
                       scenario=record.scenario, seed=_seeds(record.seeds),
                       versions=record.versions, commit=record.commit,
                       models=record.models or None, load=_load(manifest),
                       variants=variants(folder))


def _seeds(seeds: list[int]) -> str:
    """``"0"``, or ``"0-4 (5 seeds)"`` for a run of several; ``"?"`` when none is recorded."""
    if len(seeds) > 1:
        return f"{seeds[0]}-{seeds[-1]} ({len(seeds)} seeds)"
    return str(seeds[0]) if seeds else "?"


def _scenario_conf(manifest: Mapping[str, Any]) -> Mapping[str, Any]:
    config = manifest.get("config")
    scenario = config.get("scenario") if isinstance(config, Mapping) else None
    return scenario if isinstance(scenario, Mapping) else {}


def _load(manifest: Mapping[str, Any]) -> str:
    """``frames in flight N`` (the closed loop over frames: the config's arrival is
    ``frames``, or ``Arrival.frames`` as an Enum is recorded), else ``<arrival> arrival at
    <fps> frames/s``; "" when the manifest's config does not say."""
    scenario = _scenario_conf(manifest)
    arrival = str(scenario.get("arrival", "")).rpartition(".")[2]
    if arrival == "frames" and "frames_in_flight" in scenario:
        return f"frames in flight {scenario['frames_in_flight']}"
    if arrival and "fps" in scenario:
        return f"{arrival} arrival at {scenario['fps']:g} frames/s"
    return ""


# -- the table ------------------------------------------------------------------------------


def _paper_ratio(identity: RunIdentity, baseline: str) -> float:
    """The paper's FPS of the system ``baseline`` runs over its TFLite FPS; ADMS's stated
    ratio where the paper gives one (NaN: a row that runs no system of the paper's)."""
    system = paper.paper_system(baseline)
    if system is None:
        return NAN
    if system == "adms":
        stated = paper.fig8_ratio(identity.device, identity.paper_scenario, "tflite")
        if stated is not None:
            return stated
    values = paper.fig8_fps(identity.device, identity.paper_scenario)
    ref, mine = values.get("tflite", NAN), values.get(system, NAN)
    return mine / ref if ref and not math.isnan(ref) else NAN


def comparison(metrics: Metrics, identity: RunIdentity,
               groups: Mapping[str, list[str]] | None = None,
               failures: Mapping[str, str] | None = None,
               failed_seeds: Mapping[str, Collection[int]] | None = None) -> pd.DataFrame:
    """One row per baseline over seeds (:func:`~harness.reporting.summary.aggregate`) plus
    the paper's FPS and its ratio over TFLite, on the rows that run the paper's systems
    (:data:`~harness.reporting.paper.PAPER_ROWS`: its vanilla TFLite is ``tflite_gpu``; the
    oracle ``tflite`` is none of them): a variant
    (``band[scheduler=heft]``) is not the configuration the paper ran, so its paper cells
    are empty (:func:`paper_caption` says why)."""
    table = aggregate(metrics, groups, failures, failed_seeds)
    if table.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    ref = paper.fig8_rows(identity.device, identity.paper_scenario)
    own = [str(b) not in identity.variants for b in table["baseline"]]
    table["paper_fps"] = [ref.get(b, NAN) if mine else NAN
                          for b, mine in zip(table["baseline"], own, strict=True)]
    table["paper_ratio_vs_tflite"] = [_paper_ratio(identity, b) if mine else NAN
                                      for b, mine in zip(table["baseline"], own, strict=True)]
    return table


def report_table(run: RunData, metrics: Metrics | None = None
                 ) -> tuple[pd.DataFrame, RunIdentity]:
    """The comparison of a loaded run, and who produced it (``metrics``: the run's, when the
    caller has computed them already)."""
    identity = run_identity(run.manifest, run.folder)
    groups = run.manifest.get("groups") or {}
    metrics = metrics if metrics is not None else compute(run)
    return comparison(metrics, identity, groups, failures_of(run.manifest),
                      failed_seeds_of(run.manifest)), identity


def fmt(value: Any, spec: str) -> str:
    """Format a cell; missing values show as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return spec.format(value)


def _cell(row: Mapping[str, Any], col: str, spec: str,
          no_interval: Collection[str] = without_interval(BUILT_IN)) -> str:
    if col == "fps" and not row.get("n_seeds"):
        return "failed"
    low, high = row.get(f"{col}_low"), row.get(f"{col}_high")
    text = fmt(row.get(col), spec)
    if col in no_interval or text == "–" or not isinstance(low, float) or not isinstance(
            high, float) or math.isnan(low) or math.isnan(high):
        return text
    return f"{text} ± {spec.format((high - low) / 2)}"


def shown_name(baseline: str) -> str:
    """A baseline's name in tables and plots (:data:`SHOWN_AS`); results keep the key."""
    return _shown_name(baseline)


def _label(row: Mapping[str, Any], shown: Callable[[str], str] = shown_name) -> str:
    best = row.get("best_of")
    name = shown(str(row["baseline"]))
    return f"{name} (= {shown(best)})" if isinstance(best, str) else name


def _cells(row: Mapping[str, Any], columns: Mapping[str, tuple[str, str]],
           declared: tuple[Metric, ...] = BUILT_IN,
           shown: Callable[[str], str] = shown_name) -> list[str]:
    plain = without_interval(declared)
    return [_label(row, shown) if col == "baseline" else _cell(row, col, spec, plain)
            for col, (_, spec) in columns.items()]


def notes(table: pd.DataFrame) -> list[str]:
    """Lines under the table: the oracle's footnote, the bound, and every baseline that
    failed and why."""
    lines = []
    if "baseline" in table.columns and set(SHOWN_AS) & {str(b) for b in table["baseline"]}:
        lines.append(ORACLE_NOTE)
    if "bound_fps" in table.columns and table["bound_fps"].notna().any():
        bound = table["bound_fps"].dropna()
        text = (f"{bound.iloc[0]:.2f}" if bound.nunique() == 1 else
                f"{bound.mean():.2f} (mean over seeds)")
        lines.append(f"bound: {text} frames/s, the LP over every plan of the run "
                     f"(harness/models/bound.py); % bound = FPS / bound; % of as-run = FPS "
                     f"/ the own-plan LP at the run's measured subgraph latencies "
                     f"(harness/experiment/bounds.py; none where models share a processor "
                     f"concurrently, as tflite_gpu's do: a latency there holds the sharing)")
    if "failed_reason" in table.columns:
        for row in table.to_dict("records"):
            if isinstance(row.get("failed_reason"), str) and not row.get("best_of"):
                rest = (" (its figures: the seeds that completed)"
                        if (row.get("n_seeds") or 0) > 0 else "")
                lines.append(f"{row['baseline']} failed: {row['failed_reason']}{rest}")
    return lines


def paper_caption(identity: RunIdentity) -> str:
    """Where the paper columns come from, which of them are derived, and which variant
    rows leave them empty."""
    values = paper.fig8_values(identity.device, identity.paper_scenario)
    if not values:
        return f"paper: no Figure 8 value for {identity.device} / {identity.scenario}"
    notes = [f"{b} {v.note}" for b, v in values.items() if v.derived]
    where = values[next(iter(values))].source.where
    vanilla = ("; the paper's TFLite (vanilla: an accelerator's delegate, CPU fallback) is "
               f"shown beside {paper.PAPER_ROWS['tflite']}" if "tflite" in values else "")
    return (f"paper: ADMS {where}" + (f"; derived: {'; '.join(notes)}" if notes else "")
            + vanilla + "".join(_variant_note(identity, b, s, values[s].value)
                                for b in identity.variants
                                if (s := paper.paper_system(b)) is not None and s in values))


def _variant_note(identity: RunIdentity, baseline: str, system: str, fps: float) -> str:
    return (f"; {identity.shown(baseline)} is a variant of {baseline}: the paper's "
            f"{system} ({fps:.2f} FPS) is not its own, so its paper cells are empty")


def rich_tables(table: pd.DataFrame, identity: RunIdentity,
                columns: Mapping[str, tuple[str, str]] = THROUGHPUT, title: str | None = None,
                caption: str | None = None, declared: tuple[Metric, ...] = BUILT_IN,
                width: int = WIDE) -> list[RichTable]:
    """One table of the comparison as ``rich`` tables that fit ``width`` (split by columns,
    :func:`~harness.seams.fitting.fitted`; default: throughput, titled with the run's
    identity, the bound, failures and the paper's source beneath)."""
    if caption is None:
        caption = "\n".join([*notes(table), paper_caption(identity)])
    headers = [header for header, _ in columns.values()]
    rows = [_cells(row, columns, declared, identity.shown) for row in table.to_dict("records")]
    return fitting.fitted(headers, rows, width, identity.title() if title is None else title,
                         caption or None)


def rich_table(table: pd.DataFrame, identity: RunIdentity,
               columns: Mapping[str, tuple[str, str]] = THROUGHPUT, title: str | None = None,
               caption: str | None = None, declared: tuple[Metric, ...] = BUILT_IN
               ) -> RichTable:
    """:func:`rich_tables` in one table, however wide."""
    return rich_tables(table, identity, columns, title, caption, declared, width=10**6)[0]


def print_comparison(run: RunData, console: Console | None = None,
                     metrics: Metrics | None = None) -> pd.DataFrame:
    """Print the verdicts of a run, then its tables (throughput, service, latency per
    model), each fitted to the console's width; return the comparison table."""
    metrics = metrics if metrics is not None else compute(run)
    table, identity = report_table(run, metrics)
    console = console or fitting.terminal_console()
    _, boxes = verdict.of_run(run, metrics, identity.device, identity.paper_scenario)
    line = headline.sentence(boxes, identity.device, identity.paper_scenario,
                             identity.scenario, identity.shown,
                             headline.busy(run.manifest.get("contention"), identity.kind))
    console.print(coverage.flag_text(run.manifest), end="", style="magenta", highlight=False)
    console.print(verdict.rich_boxes(boxes, identity.shown, console.width, line))
    if reading := adms_line(run.manifest):
        console.print(reading)
    declared, width = metrics.declared, console.width
    for part in rich_tables(table, identity, columns(declared, Table.THROUGHPUT),
                            declared=declared, width=width):
        console.print(part)
    service = (f"{Table.SERVICE.value} (mean ± 95% CI over seeds) · "
               f"{identity.load or 'load not recorded'}")
    for part in rich_tables(table, identity, columns(declared, Table.SERVICE), title=service,
                            caption="", declared=declared, width=width):
        console.print(part)
    each = verdict.each_band(boxes, identity.shown)
    parts = [*(fitting.fitted(list(verdict.EACH_BAND_HEADERS), each, width, verdict.EACH_BAND,
                             left=(0, 1, 3)) if each else []),
             *tables.per_model_tables(run.requests, failed_seeds_of(run.manifest),
                                      identity.shown, width)]
    for part in parts:
        console.print(part)
    return table


def markdown(table: pd.DataFrame, identity: RunIdentity,
             declared: tuple[Metric, ...] = BUILT_IN,
             verdicts: list[verdict.Verdict] | None = None, busy: str = "") -> str:
    """The comparison as Markdown: the headline and verdicts (when given), a bold title
    line, then each table under its name (``declared``: the run's metrics,
    ``Metrics.declared``; ``busy``: the contention flag, :func:`.headline.busy`)."""
    line = headline.sentence(verdicts or [], identity.device, identity.paper_scenario,
                             identity.scenario, identity.shown, busy)
    boxes = verdict.markdown(verdicts or [], identity.shown, line)
    lines = [*([boxes] if boxes else []), f"**{identity.title()}**", ""]
    for shown in Table:
        cols = columns(declared, shown)
        headers = [header for header, _ in cols.values()]
        name = f"{shown.value} · {identity.load}" if identity.load else shown.value
        lines += [f"_{name}_", "", "| " + " | ".join(headers) + " |",
                  "|" + "|".join("---" for _ in headers) + "|"]
        lines += ["| " + " | ".join(_cells(row, cols, declared, identity.shown)) + " |"
                  for row in table.to_dict("records")]
        lines.append("")
    under = [f"_{line}_" for line in (*notes(table), paper_caption(identity))]
    return "\n".join([*lines, *under]) + "\n"
