"""How much of its measured window a run's requests cover, and the flags a short one gets.

A run on a wall clock (the host) can lose time the system never saw: the process stopped
(SIGSTOP, a debugger), the machine suspended or a virtual machine frozen. Its clock keeps
going, so a gap that carries it past the window's end simply ends the window: the run
finishes ``completed`` with a few seconds of requests spread over the whole window's length.

Two facts catch it, both written to the manifest when the run closes and read back by every
report (``harness report``, the verdicts, ``summary.csv``, ``harness.compare``):

* the **gaps** (``wall_clock_gaps``): two readings of the wall clock further apart than the
  run could have waited (:class:`~harness.experiment.outcome.ClockGaps`);
* the **coverage** (``coverage``: baseline -> seed -> share): the share of the measured
  window (``warmup_s`` to ``warmup_s + duration_s``) that a seed's requests reach, the last
  arrival or end, less the gaps inside it. Below the run's declared share
  (``min_coverage``, config) the seed is flagged.

:func:`flags` turns both into the lines (``flags`` in the manifest) a report prints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.seams.units import NS_PER_S

#: the manifest keys this module writes
COVERAGE, FLAGS, MIN_COVERAGE = "coverage", "flags", "min_coverage"
#: a run's gaps are a flag when the longest reaches this, s (a shorter one, a busy machine's
#: hiccup, stays in ``wall_clock_gaps``; what it cost shows in the coverage)
GAP_FLAG_S = 1.0


def _lost_ns(gaps: Sequence[Mapping[str, Any]], baseline: str, seed: int, start_ns: int,
             stop_ns: int) -> int:
    """Nanoseconds of ``baseline``'s ``seed``'s gaps that fall in [start_ns, stop_ns]."""
    lost = 0
    for gap in gaps:
        if gap.get("baseline") != baseline or int(gap.get("seed", -1)) != seed:
            continue
        a = int(float(gap["at_s"]) * NS_PER_S)
        b = a + int(float(gap["gap_s"]) * NS_PER_S)
        lost += max(0, min(b, stop_ns) - max(a, start_ns))
    return lost


def shares(requests: pd.DataFrame, warmup_s: float, duration_s: float,
           gaps: Sequence[Mapping[str, Any]] = ()) -> dict[str, dict[int, float]]:
    """Baseline -> seed -> the share of the measured window its requests cover (module
    docstring); empty without requests or a window."""
    if duration_s <= 0 or requests.empty:
        return {}
    start_ns, window_ns = int(warmup_s * NS_PER_S), int(duration_s * NS_PER_S)
    reach = requests[["arrival_ns", "end_ns"]].max(axis=1)
    out: dict[str, dict[int, float]] = {}
    for (baseline, seed), last in reach.groupby([requests["baseline"], requests["seed"]]):
        stop_ns = min(int(last.max()), start_ns + window_ns)
        covered = stop_ns - start_ns - _lost_ns(gaps, str(baseline), int(seed), start_ns,
                                                stop_ns)
        out.setdefault(str(baseline), {})[int(seed)] = max(0.0, covered / window_ns)
    return out


def flags(coverage: Mapping[str, Mapping[int, float]], min_share: float,
          gaps: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """One line per seed covering less than ``min_share`` of its window, and one for the
    gaps: why the run's numbers are not those of a whole run."""
    found = []
    longest = max((float(g.get("gap_s", 0)) for g in gaps), default=0.0)
    if longest >= GAP_FLAG_S:
        found.append(f"the wall clock jumped {len(gaps)} time(s) (longest {longest:.1f} s: "
                     "the process was stopped or the machine frozen): timings there are not "
                     "the system's own")
    for baseline, by_seed in coverage.items():
        for seed, share in sorted(by_seed.items()):
            if share < min_share:
                found.append(f"{baseline} seed {seed} covered {100 * share:.0f}% of its "
                             f"measured window (less than the {100 * min_share:.0f}% "
                             "min_coverage)")
    return found


def manifest_flags(manifest: Mapping[str, Any]) -> list[str]:
    """The ``flags`` a manifest holds (none in folders written before they were kept)."""
    value = manifest.get(FLAGS)
    return [str(v) for v in value] if isinstance(value, list) else []


def flagged_baselines(manifest: Mapping[str, Any]) -> dict[str, str]:
    """Baseline -> why its numbers are not a whole run's: a seed covered less than the
    run's ``min_coverage`` of its window (the time its wall clock jumped not counted)."""
    found: dict[str, str] = {}
    coverage, least = manifest.get(COVERAGE), manifest.get(MIN_COVERAGE)
    if isinstance(coverage, dict) and isinstance(least, int | float):
        for baseline, by_seed in coverage.items():
            low = [float(v) for v in (by_seed or {}).values() if float(v) < least]
            if low:
                found[str(baseline)] = f"covered {100 * min(low):.0f}% of its window"
    return found


def flag_text(manifest: Mapping[str, Any]) -> str:
    """The manifest's flags as ``FLAG:`` lines, each ending in a newline ("" without)."""
    return "".join(f"FLAG: {line}\n" for line in manifest_flags(manifest))


def with_flags(table: pd.DataFrame, manifest: Mapping[str, Any]) -> pd.DataFrame:
    """``table`` (one row per ``baseline``) with a ``flag`` column: why the baseline's
    numbers are not a whole run's (:func:`flagged_baselines`), or ""."""
    flagged = flagged_baselines(manifest)
    return table.assign(flag=[flagged.get(str(b), "") for b in table["baseline"]])
