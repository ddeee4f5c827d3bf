"""The headline: one sentence above the verdict boxes saying what the run found.

Six boxes say six things; a reader wants one: what the paper claims on this setup, what this
run measured, and whether the two agree. The sentence reads the boxes
(:func:`harness.reporting.verdict.headline`) of one ADMS row (``adms``, the paper's rule,
where the run has it) against the paper's TFLite and Band, e.g.::

    Paper (Redmi K50 Pro, FRS): ADMS 4.04× TFLite, 1.21× Band. This run (adms): 1.40×
    tflite_gpu, 0.74× band: same direction, smaller against TFLite (20% of the paper's
    gain); not reproduced against Band.

It opens the terminal output, ``summary.md`` and the paper report alike (:func:`sentence`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from harness.reporting import paper, paperpair
from harness.reporting.verdict import Verdict, Word, family

#: share of the machine's cores other processes must keep busy for a run to be flagged
BUSY_SHARE = 0.25
#: the paper's name of each family of rows
PAPER_NAMES = {"tflite": "TFLite", "band": "Band"}


def _row(boxes: Sequence[Verdict]) -> str:
    """The ADMS row the sentence speaks for: ``adms`` where the run has it."""
    rows = [v.adms for v in boxes]
    return "adms" if "adms" in rows else rows[0]


def _against(boxes: Sequence[Verdict], adms: str, kind: str) -> Verdict | None:
    """The verdict of ``adms`` over the family ``kind``: the row the paper ran where one
    has a paper ratio (among those a box stands for, too), else the box's row."""
    mine = [v for v in boxes if v.adms == adms and family(v.other) == kind]
    every = [w for v in mine for w in (v.stands_for or (v,))]
    return next((v for v in every if v.paper is not None), mine[0] if mine else None)


def _ratio(v: Verdict, shown: Callable[[str], str]) -> str:
    mean = v.ratio.mean
    return f"{'–' if math.isnan(mean) else f'{mean:.2f}'}× {shown(v.other)}"


def _phrase(v: Verdict, shown: Callable[[str], str]) -> str:
    """``same direction, smaller against TFLite (20% of the paper's gain)``."""
    target = PAPER_NAMES[family(v.other)] if v.paper is not None else shown(v.other)
    if v.word in (Word.FASTER, Word.SLOWER):
        return f"{v.word.value.split(',')[0]} than {target}"
    share = f" ({v.share})" if v.word in (Word.SMALLER, Word.LARGER) and v.share else ""
    return f"{v.word.value} against {target}{share}"


def _claims(device: str, paper_scenario: str, scenario: str) -> str:
    """``Paper (Redmi K50 Pro, FRS): ADMS 4.04× TFLite, 1.21× Band.``, or why it has none."""
    ratios = paper.FIG8_RATIOS.get((paper.device_key(device), paper_scenario.lower()))
    if not ratios:
        gap = paperpair.setup_gap(device, paper_scenario, scenario)
        return f"Paper: no ADMS ratio here ({gap})."
    said = ", ".join(f"{value:.2f}× {PAPER_NAMES.get(k, k)}" for k, value in ratios.items())
    return f"Paper ({paperpair.setup_name(device, paper_scenario)}): ADMS {said}."


def sentence(boxes: Sequence[Verdict], device: str, paper_scenario: str, scenario: str = "",
             shown: Callable[[str], str] = str, busy: str = "") -> str:
    """The headline of a run's boxes ("" without any); ``scenario``: the run's own name,
    for when its models are not the paper's (``paper_scenario`` ""); ``busy``: the
    contention flag (:func:`busy`), said last."""
    if not boxes:
        return ""
    adms = _row(boxes)
    found = [v for kind in PAPER_NAMES if (v := _against(boxes, adms, kind)) is not None]
    ratios = ", ".join(_ratio(v, shown) for v in found)
    phrases = "; ".join(_phrase(v, shown) for v in found)
    floor = next((v.why for v in found if v.word is Word.INVALID), "")
    why = f" ({floor})" if floor else ""
    flag = f" FLAG: {busy}." if busy else ""
    return (f"{_claims(device, paper_scenario, scenario)} This run ({shown(adms)}): "
            f"{ratios}: {phrases}{why}.{flag}")


def busy(contention: Any, kind: str = "host") -> str:
    """``other processes kept 1.3 of 2 cores busy`` when they used :data:`BUSY_SHARE` of
    the machine or more, else "" (``contention``: the manifest's value, any shape); never
    for a twin (``kind``), whose simulated clock no other process slows."""
    if not isinstance(contention, dict) or kind == "twin":
        return ""
    other, cores = contention.get("other_cores"), contention.get("cores")
    if not isinstance(other, int | float) or not isinstance(cores, int) or cores < 1:
        return ""
    if other < BUSY_SHARE * cores:
        return ""
    return f"other processes kept {other:.1f} of {cores} cores busy during the run"
