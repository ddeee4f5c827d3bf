"""The verdict: one judgement per comparison of ADMS with a baseline, shown before any table.

A run's answer to "does ADMS beat TFLite and Band here, as the paper says, and by as much?" is
a handful of FPS ratios. For each ADMS row (:data:`ADMS_ROWS`: ``adms``, the paper's rule, and
``adms_ef``, as built) against each Band row and each TFLite row of the run (names starting
with ``band`` or ``tflite``), a :class:`Verdict` holds the ratio of mean FPS paired by seed
with its 95% interval (:func:`harness.reporting.stats.ratio_ci`: a paired bootstrap from
:data:`~harness.reporting.stats.BOOTSTRAP_MIN_SEEDS` seeds, Fieller's interval below), the
paper's ratio where the paper ran that row on that setup (:mod:`.paperpair`) and one word
(:class:`Word`), in this order:

* **invalid**: the run is below the validity floor (:class:`Floor`), or one side has no seed
  that completed. Like MLPerf LoadGen's minimum duration and query count, the floor is a
  property of the *run*, checked before any statistics;
* **inconclusive**: the interval reaches across 1 (or is unbounded, or missing);
* without a paper ratio (a row, phone or models the paper never ran): **faster** or
  **slower**, and why the paper has no ratio, never "reproduced";
* **not reproduced**: the interval lies wholly on the other side of 1 from the paper's;
* **reproduced**: the interval reaches the paper's ratio, within the equivalence margin
  (:data:`MARGIN`: a share of the paper's gain either side);
* **same direction, smaller** (or **larger**): on the paper's side of 1, but short of
  (beyond) the paper's ratio by more than the margin; the box says which share of the
  paper's gain the run found (:attr:`Verdict.share`).

``docs/verdict.md`` documents the floor, the margin and the words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import partial

import pandas as pd
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from harness.reporting import paperpair
from harness.reporting.coverage import flagged_baselines
from harness.reporting.metrics import Metrics
from harness.reporting.names import variants
from harness.reporting.stats import Interval, ratio_ci
from harness.reporting.store import RunData
from harness.reporting.summary import failed_seeds_of, failures_of, without_failed

#: the ADMS rows judged: the paper's rule and the project's build
ADMS_ROWS = ("adms", "adms_ef")
#: the rows each ADMS row is judged against: names starting with these (the paper's names)
FAMILIES = ("band", "tflite")


class Word(StrEnum):
    """A verdict's word."""

    REPRODUCED = "reproduced"
    SMALLER = "same direction, smaller"
    LARGER = "same direction, larger"
    NOT_REPRODUCED = "not reproduced"
    #: the interval on one side of 1 where the paper has no ratio for the pair
    FASTER = "faster, no paper ratio"
    SLOWER = "slower, no paper ratio"
    INCONCLUSIVE = "inconclusive"
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class Floor:
    """The least a run must hold for its verdicts to be believed (each seed of both rows)."""

    #: seeds that completed on both sides
    seeds: int = 3
    #: measured span of every seed, s (half the default scenario's 10 s)
    span_s: float = 5.0
    #: complete frames in every seed's span
    frames: int = 50

    @property
    def duration_s(self) -> float:
        """The least ``scenario.duration_s`` a shipped scenario asks: twice the span, as the
        default scenario's 10 s is. A closed loop's span falls short of its duration by up
        to a request's latency at each end (the first measured request waits for the one in
        flight when the warm-up ends; the last completion comes before the end), a third of
        a second for a slow model on the host: the span's slack (:data:`SPAN_SLACK`) covers
        a frame, not that."""
        return 2 * self.span_s

    def span_short(self, span_s: float) -> bool:
        """Whether a seed's measured span is below the floor's, less :data:`SPAN_SLACK`."""
        return span_s < self.span_s * (1 - SPAN_SLACK)


FLOOR = Floor()
#: the equivalence margin: a ratio whose share of the paper's gain (ours − 1 over the paper's
#: − 1) lies within this of 100% counts as the paper's (80% to 120%)
MARGIN = 0.2
#: a span is measured from the first to the last completion, so a run asked for ``span_s``
#: measures up to a frame less: 2% of slack keeps such a run above the floor
SPAN_SLACK = 0.02


@dataclass(frozen=True, slots=True)
class Verdict:
    """ADMS row ``adms`` over row ``other``: the ratio, the paper's, the word and why."""

    adms: str
    other: str
    ratio: Interval
    word: Word
    #: why the word (the floor missed, where the interval lies)
    why: str
    #: the paper's ADMS / ``other`` ratio, and where the paper states it
    paper: float | None = None
    paper_where: str = ""
    #: when ``other`` is the strongest of several Band rows and this box stands for them
    #: all (:func:`headline`): the verdict against each of them (this one among them)
    stands_for: tuple[Verdict, ...] = ()
    #: why the paper has no ratio for this pair ("" when it has one)
    no_paper: str = ""

    @property
    def interval(self) -> str:
        """``0.88 [0.81, 0.95]``; an unbounded one shows its infinities."""
        r = self.ratio
        if math.isnan(r.mean):
            return "–"
        if math.isnan(r.low) or math.isnan(r.high):
            return f"{r.mean:.2f} (no interval)"
        return f"{r.mean:.2f} [{_bound(r.low)}, {_bound(r.high)}]"

    @property
    def method(self) -> str:
        """How the interval was made, over how many seeds."""
        how = f"95% {self.ratio.method}" if self.ratio.method else "no interval"
        return f"{how}, {self.ratio.n} seed{'s' if self.ratio.n != 1 else ''}"

    @property
    def share(self) -> str:
        """The share of the paper's gain our mean ratio is ("13% of the paper's gain"),
        "" without a paper ratio, a mean, or on the other side of 1 from the paper's."""
        if self.paper is None or self.paper == 1 or math.isnan(self.ratio.mean):
            return ""
        share = gain_share(self.ratio.mean, self.paper)
        return f"{share:.0%} of the paper's gain" if share >= 0 else ""

    @property
    def magnitude(self) -> str:
        """The paper's ratio, and our mean's share of its gain ("" where it has none)."""
        if self.paper is None:
            return ""
        share = f": ours {self.share}" if self.share else ""
        return f"paper {self.paper:.2f} ({_short(self.paper_where)}){share}"

    def lines(self) -> list[str]:
        """The box's lines after its title: which Band row (when it stands for several),
        ratio, method, paper, why."""
        paper_line = self.magnitude or f"no paper ratio: {self.no_paper or 'none stated'}"
        picked = ([f"the strongest of {len(self.stands_for)} Band rows (each: the table "
                   "below)"] if self.stands_for else [])
        return [*picked, f"FPS ratio {self.interval}", f"({self.method})", paper_line,
                self.why]


def gain_share(ratio: float, paper_ratio: float) -> float:
    """``ratio``'s gain as a share of the paper's: (ratio − 1) / (paper − 1)."""
    return (ratio - 1) / (paper_ratio - 1)


def _short(where: str) -> str:
    return where.replace("Figure ", "Fig. ")


def _bound(value: float) -> str:
    return "inf" if value == math.inf else "-inf" if value == -math.inf else f"{value:.2f}"


def family(baseline: str) -> str:
    """The paper's name a row is compared as (``band`` for ``band_heft``), or ""."""
    return next((f for f in FAMILIES if baseline.startswith(f)), "")


def pairs(baselines: Collection[str]) -> list[tuple[str, str]]:
    """(ADMS row, other row) for every comparison a run's rows allow, in row order: Band
    rows before TFLite rows."""
    names = list(baselines)
    others = [b for f in FAMILIES for b in names if family(b) == f]
    return [(a, o) for a in names if a in ADMS_ROWS for o in others]


def below_floor(seeds: pd.DataFrame, n: int, floor: Floor = FLOOR) -> list[str]:
    """What the seeds of a pair (their per-seed rows, ``span_s`` and ``frames``) miss of
    ``floor``; ``n``: the seeds both rows completed."""
    missed = []
    if n < floor.seeds:
        missed.append(f"{n} seed{'s' if n != 1 else ''} < {floor.seeds}")
    if "span_s" in seeds.columns and len(seeds) and floor.span_short(seeds["span_s"].min()):
        missed.append(f"span {seeds['span_s'].min():.1f} s < {floor.span_s:g} s")
    if "frames" in seeds.columns and len(seeds) and seeds["frames"].min() < floor.frames:
        missed.append(f"{int(seeds['frames'].min())} frames < {floor.frames}")
    return missed


def judge(ratio: Interval, expected: float | None, missed: list[str],
          margin: float = MARGIN) -> tuple[Word, str]:
    """The word for ``ratio`` given the paper's ratio (``expected``; None: the paper has
    none for the pair) and what the run missed of the floor."""
    if missed:
        return Word.INVALID, "below the validity floor: " + "; ".join(missed)
    if any(math.isnan(v) for v in (ratio.low, ratio.high)):
        return Word.INCONCLUSIVE, "no interval"
    if ratio.low <= 1 <= ratio.high:
        return Word.INCONCLUSIVE, "the interval spans 1"
    faster = ratio.low > 1
    side = "above" if faster else "below"
    if expected is None:
        return (Word.FASTER if faster else Word.SLOWER), f"the interval lies {side} 1"
    if faster != (expected > 1):
        return Word.NOT_REPRODUCED, f"the interval lies {side} 1, the paper's does not"
    return _magnitude(ratio, expected, margin)


def _magnitude(ratio: Interval, expected: float, margin: float) -> tuple[Word, str]:
    """The word for an interval on the paper's side of 1: does it reach the paper's gain
    within ``margin``?"""
    low, high = sorted((gain_share(ratio.low, expected), gain_share(ratio.high, expected)))
    span = f"{low:.0%}" if f"{low:.0%}" == f"{high:.0%}" else f"{low:.0%}-{high:.0%}"
    said = f"the interval holds {span} of the paper's gain"
    band = f"the {1 - margin:.0%}-{1 + margin:.0%} margin"
    if high < 1 - margin:
        return Word.SMALLER, f"{said}, short of {band}"
    if low > 1 + margin:
        return Word.LARGER, f"{said}, beyond {band}"
    return Word.REPRODUCED, f"{said}, reaching {band}"


def fps_by_seed(scenario: pd.DataFrame, baseline: str) -> dict[int, float]:
    """Seed -> FPS of ``baseline``'s per-seed rows."""
    rows = scenario[scenario["baseline"] == baseline]
    return {int(s): float(v) for s, v in zip(rows["seed"], rows["fps"], strict=True)}


def verdict(scenario: pd.DataFrame, adms: str, other: str, device: str, paper_scenario: str,
            failures: Mapping[str, str] | None = None, floor: Floor = FLOOR,
            variants: Mapping[str, str] | None = None) -> Verdict:
    """The verdict of ``adms`` over ``other`` from the per-seed rows of seeds that
    completed (``scenario``: ``baseline``, ``seed``, ``fps``, ``span_s``, ``frames``;
    ``variants``: the rows run with other settings than their named config's)."""
    mine, theirs = fps_by_seed(scenario, adms), fps_by_seed(scenario, other)
    ratio = ratio_ci(mine, theirs)
    stated = paperpair.paper_ratio(device, paper_scenario, other, variants)
    made = partial(Verdict, adms, other, ratio, paper=stated.value, paper_where=stated.where,
                   no_paper=stated.why_none)
    gone = [f"{b} completed no seed" for b, fps in ((adms, mine), (other, theirs)) if not fps]
    if gone:
        why = "; ".join(f"{g} ({(failures or {}).get(g.split()[0], 'no rows')})" for g in gone)
        return made(Word.INVALID, why)
    both = scenario[scenario["baseline"].isin([adms, other])
                    & scenario["seed"].isin(set(mine) & set(theirs))]
    return made(*judge(ratio, stated.value, below_floor(both, ratio.n, floor)))


def verdicts(scenario: pd.DataFrame, device: str, paper_scenario: str,
             failures: Mapping[str, str] | None = None, floor: Floor = FLOOR,
             baselines: Collection[str] | None = None,
             variants: Mapping[str, str] | None = None) -> list[Verdict]:
    """Every verdict of a run (``baselines``: its rows in run order, failed ones too;
    default: those of ``scenario``)."""
    names = list(baselines) if baselines is not None else (
        [str(b) for b in pd.unique(scenario["baseline"])] if len(scenario) else [])
    return [verdict(scenario, a, o, device, paper_scenario, failures, floor, variants)
            for a, o in pairs(names)]


def strongest(scenario: pd.DataFrame, names: Collection[str], failed: Collection[str]
              ) -> str:
    """The Band row of ``names`` with the highest mean FPS over its seeds (``scenario``'s
    per-seed rows), among those that failed on no seed (``failed``: the rows that did), as
    ``band_best`` picks it; among every Band row when each failed; "" without one."""
    bands = [str(n) for n in names if family(str(n)) == "band"]
    whole = [b for b in bands if b not in failed] or bands
    means = scenario.groupby("baseline")["fps"].mean() if len(scenario) else pd.Series()
    finite = {b: float(means.get(b, math.nan)) for b in whole}
    return max(whole, key=lambda b: -math.inf if math.isnan(finite[b]) else finite[b],
               default="")


def headline(found: list[Verdict], scenario: pd.DataFrame, failed: Collection[str] = ()
             ) -> list[Verdict]:
    """The verdicts a run opens with: every one against a TFLite row, and against the Band
    rows only the strongest's (:func:`strongest`, from ``scenario`` and ``failed``) when
    the run has several, saying how many it stands for; the others stay in
    :func:`each_band`'s table."""
    bands = {v.other for v in found if family(v.other) == "band"}
    if len(bands) < 2:
        return found
    band = strongest(scenario, bands, failed)
    each = {a: tuple(v for v in found if v.adms == a and family(v.other) == "band")
            for a in {v.adms for v in found}}
    return [replace(v, stands_for=each[v.adms]) if v.other == band else v
            for v in found if family(v.other) != "band" or v.other == band]


def of_run(run: RunData, metrics: Metrics, device: str, paper_scenario: str
           ) -> tuple[list[Verdict], list[Verdict]]:
    """Every verdict of a run, from the seeds that completed, and those it opens with
    (:func:`headline`)."""
    failed = failures_of(run.manifest)
    scenario = without_failed(metrics.scenario, failed_seeds_of(run.manifest))
    names = list(dict.fromkeys([*(str(b) for b in pd.unique(metrics.scenario["baseline"])),
                                *failed])) if len(metrics.scenario) else []
    found = flag_short(verdicts(scenario, device, paper_scenario, failed, baselines=names,
                                variants=variants(run.folder)),
                       flagged_baselines(run.manifest))
    return found, headline(found, scenario, failed)


def flag_short(found: list[Verdict], flagged: Mapping[str, str]) -> list[Verdict]:
    """Each verdict with a side whose run is flagged (a seed covered less of its window than
    the run's ``min_coverage``: :mod:`harness.reporting.coverage`) made invalid, saying why."""
    out = []
    for v in found:
        why = [f"{b} {flagged[b]}" for b in (v.adms, v.other) if b in flagged]
        out.append(replace(v, word=Word.INVALID, why="not a whole run: " + "; ".join(why))
                   if why else v)
    return out


# -- renderings -----------------------------------------------------------------------------

#: a word's colour in the terminal and the HTML report
COLOURS: Mapping[Word, str] = {Word.REPRODUCED: "green", Word.SMALLER: "blue",
                               Word.LARGER: "blue", Word.NOT_REPRODUCED: "red",
                               Word.FASTER: "cyan", Word.SLOWER: "red",
                               Word.INCONCLUSIVE: "yellow", Word.INVALID: "magenta"}


def title(v: Verdict, shown: Callable[[str], str] = str) -> str:
    """``ADMS-NAME / OTHER: WORD``."""
    return f"{shown(v.adms)} / {shown(v.other)}: {v.word.value.upper()}"


def markdown(found: list[Verdict], shown: Callable[[str], str] = str, line: str = "") -> str:
    """The verdicts as Markdown, one quoted box each, under the headline ``line`` when
    given ("" without any box)."""
    boxes = [f"> **{title(v, shown)}**  \n> " + "  \n> ".join(v.lines()) for v in found]
    top = [f"**{line}**"] if line and boxes else []
    return "\n\n".join([*top, *boxes]) + ("\n" if boxes else "")


#: a verdict box's width in the terminal (two side by side in 80 columns)
BOX_WIDTH = 39


def rich_boxes(found: list[Verdict], shown: Callable[[str], str] = str,
               width: int = 80, line: str = "") -> RenderableType:
    """The verdicts as ``rich`` boxes side by side (as many as ``width`` holds), the word
    in its colour, under the headline ``line`` when given; every line wraps inside its
    box, none is cut."""
    if not found:
        return Text("verdict: no ADMS row beside a Band or TFLite row in this run")
    boxes = []
    for v in found:
        body = Text(f"{shown(v.adms)} / {shown(v.other)}\n", style="bold", overflow="fold")
        body.append(v.word.value.upper(), style=f"bold {COLOURS[v.word]}")
        body.append("\n" + "\n".join(v.lines()))
        boxes.append(Panel(body, width=min(BOX_WIDTH, width), expand=False))
    top = [Text(line, style="bold")] if line else []
    return Group(*top, Text("verdict: ADMS FPS over each baseline's (docs/verdict.md)"),
                 Columns(boxes, padding=(0, 1)))


#: the per-Band table's title
EACH_BAND = "ADMS FPS over each Band row (95% interval; the boxes above: the strongest)"
EACH_BAND_HEADERS = ("ADMS row", "over", "FPS ratio [95%]", "word")


def each_band(boxes: list[Verdict], shown: Callable[[str], str] = str) -> list[list[str]]:
    """One row (:data:`EACH_BAND_HEADERS`) per verdict against a Band row that a box of
    ``boxes`` (:func:`headline`) stands for; none when each Band row has its own box."""
    return [[shown(v.adms), shown(v.other), v.interval, v.word.value]
            for box in boxes for v in box.stands_for]


def each_band_markdown(boxes: list[Verdict], shown: Callable[[str], str] = str) -> str:
    """:func:`each_band` as a Markdown table under its title ("" without rows)."""
    rows = each_band(boxes, shown)
    if not rows:
        return ""
    lines = [f"_{EACH_BAND}_", "", "| " + " | ".join(EACH_BAND_HEADERS) + " |",
             "|" + "|".join("---" for _ in EACH_BAND_HEADERS) + "|"]
    return "\n".join([*lines, *("| " + " | ".join(r) + " |" for r in rows)]) + "\n"
