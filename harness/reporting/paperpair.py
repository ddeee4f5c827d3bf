"""Which of the paper's ratios a comparison is judged against, or why there is none.

The paper states ADMS's FPS over its TFLite and over Band for two setups only (Figure 8's
text: FRS and ROS on the Redmi K50 Pro, :data:`~harness.reporting.paper.FIG8_RATIOS`). A
verdict quotes that ratio only for the rows that run the paper's systems
(:data:`~harness.reporting.paper.PAPER_ROWS`: ``tflite_gpu`` for its vanilla TFLite,
``band`` for Band), run as named (a variant such as ``band[scheduler=heft]`` is not the
paper's configuration), on the paper's phone with the paper's models. Anything else gets no
ratio and one sentence saying why: a phone or models the paper never used, a setup the
paper states no ratio for, a row the paper did not run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harness.reporting import paper

#: the paper's phones (Table IV) by device key, as the paper names them
PAPER_PHONES: Mapping[str, str] = {"k50pro": "Redmi K50 Pro", "p20": "Huawei P20",
                                   "mi6": "Xiaomi 6"}


@dataclass(frozen=True, slots=True)
class PaperRatio:
    """The paper's ADMS / row ratio (None: none applies) and where it stands, or why none."""

    value: float | None
    #: the figure it is stated in (``Figure 8(a)``); "" without one
    where: str = ""
    #: why the paper has no ratio for this comparison; "" with one
    why_none: str = ""


def setup_gap(device: str, paper_scenario: str, scenario: str = "") -> str:
    """Why the paper states no ADMS ratio for this device and scenario ("" when it does;
    ``paper_scenario`` "": the models are not the paper's)."""
    key = paper.device_key(device)
    if key not in PAPER_PHONES:
        return (f"not the paper's setup: {device} is none of the paper's phones "
                f"({', '.join(PAPER_PHONES.values())})")
    if not paper_scenario:
        named = f"{scenario}'s" if scenario else "the scenario's"
        return f"not the paper's setup: {named} models are not the paper's"
    if (key, paper_scenario.lower()) not in paper.FIG8_RATIOS:
        return (f"the paper states no ADMS ratio for {paper_scenario} on the "
                f"{PAPER_PHONES[key]}")
    return ""


def row_gap(other: str, variants: Mapping[str, str]) -> str:
    """Why row ``other`` has no paper ratio on a setup that has some ("" when it has)."""
    if other in variants:
        return (f"{other} is a variant ({variants[other]}), not the configuration the "
                "paper ran")
    if paper.paper_system(other) is None:
        ours = " and ".join(row for system, row in paper.PAPER_ROWS.items()
                            if system != "adms")
        return f"the paper ran no {other}; its ratios are over {ours}"
    return ""


def paper_ratio(device: str, paper_scenario: str, other: str,
                variants: Mapping[str, str] | None = None) -> PaperRatio:
    """The paper's ratio of ADMS over row ``other`` on this setup, or why there is none."""
    gap = setup_gap(device, paper_scenario) or row_gap(other, variants or {})
    system = paper.paper_system(other)
    stated = None if gap or system is None else paper.fig8_ratio(device, paper_scenario,
                                                                  system)
    if stated is None:
        return PaperRatio(None, "", gap or f"the paper states no ratio over its {system}")
    values = paper.fig8_values(device, paper_scenario)
    return PaperRatio(stated, values["adms"].source.where if "adms" in values else "")


def setup_name(device: str, paper_scenario: str) -> str:
    """``Redmi K50 Pro, FRS`` (the device key where the paper has no such phone)."""
    phone = PAPER_PHONES.get(paper.device_key(device), device)
    return f"{phone}, {paper_scenario.upper()}" if paper_scenario else phone
