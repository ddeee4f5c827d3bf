"""Every paper notebook executes in fast mode and shows ours beside the paper's numbers,
titled with the device kind; the report embeds them all.

The default run builds one artifact end to end (``small_report``); the whole paper in fast
mode (``paper_report``, every notebook) is ``slow``: ``pytest -m slow tests/notebooks``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import jupytext
import pytest

from harness.paper import plan
from harness.paper.build import Built
from tests.fixtures.paths import REPO

NOTEBOOKS = REPO / "notebooks"


def test_every_notebook_belongs_to_an_artifact() -> None:
    names = {name for name, _ in plan.ARTIFACTS.values()}
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.py")) == sorted(names)


@pytest.mark.parametrize("artifact", list(plan.ARTIFACTS))
def test_each_notebook_reads_its_own_runs_and_emits_its_rows(artifact: str) -> None:
    notebook = jupytext.read(NOTEBOOKS / f"{plan.ARTIFACTS[artifact][0]}.py")
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    assert f'nb.runs("{artifact}")' in code
    assert f'nb.emit("{artifact}", rows)' in code
    assert "session.run" not in code  # computed only from run folders


def outputs(notebook: dict) -> list[dict]:
    return [o for c in notebook["cells"] for o in c.get("outputs", [])]


def check_artifact(out: Path, artifact: str) -> list[dict]:
    """The executed notebook ran every cell, named the device kind and seeds, and wrote
    rows with the paper's values; returns the rows."""
    name = plan.ARTIFACTS[artifact][0]
    notebook = json.loads((out / "report" / "notebooks" / f"{name}.ipynb").read_text())
    outs = outputs(notebook)
    assert not [o for o in outs if o["output_type"] == "error"], artifact
    shown = " ".join("".join(o.get("data", {}).get("text/markdown", "")) for o in outs)
    assert re.search(r"Produced by: TWIN = SIMULATION .* seeds 0-1 \(2 seeds\)", shown)
    rows = json.loads((out / "report" / "summary" / f"{artifact}.json").read_text())
    assert rows and all(r["kind"] == "twin" for r in rows)
    assert any(not math.isnan(r["paper"]) for r in rows)  # the paper's numbers
    assert any(not math.isnan(r["ours"]) for r in rows)  # and ours
    return rows


def test_one_artifact_end_to_end(small_report: tuple[Built, Path]) -> None:
    built, out = small_report
    assert built.errors == {}
    rows = check_artifact(out, "table3")
    unit = next(r for r in rows if r["quantity"] == "MobileNetV1 unit subgraphs")
    assert unit["paper"] == 4 and unit["ratio"] == pytest.approx(unit["ours"] / 4)
    index = json.loads((out / "index.json").read_text())
    assert [e["status"] for e in index["table3"]] == ["ran"]
    md = built.markdown.read_text()
    assert "| table3 | MobileNetV1 unit subgraphs | twin | 4 |" in md
    assert "<section id='table3'>" in built.html.read_text()


@pytest.mark.slow
def test_the_whole_paper_in_fast_mode(paper_report: tuple[Built, Path]) -> None:
    built, out = paper_report
    assert built.errors == {}
    for artifact in plan.ARTIFACTS:
        check_artifact(out, artifact)
    page = built.html.read_text()
    assert all(f"<section id='{a}'>" in page for a in plan.ARTIFACTS)
    # every figure a notebook displayed is embedded
    figures = sorted((out / "report" / "figures").glob("*.png"))
    assert len(figures) >= len(plan.ARTIFACTS)
    assert page.count("data:image/png;base64,") >= len(figures)


@pytest.mark.slow
def test_a_band_that_runs_out_of_memory_shows_as_failed(ros_report: tuple[Built, Path]) -> None:
    """ROS on the K50 Pro twin: ``band`` runs out of memory on every seed; its row says so,
    and ADMS is compared with the strongest Band that completed (the run's own pick)."""
    built, out = ros_report
    assert built.errors == {}
    rows = {r["quantity"]: r for r in check_artifact(out, "fig8")}
    band = rows["k50pro ros band FPS"]
    assert math.isnan(band["ours"]) and "out of memory" in band["failed"]
    assert "(every seed)" in band["failed"]
    best = next(q for q in rows if q.startswith("k50pro ros ADMS / Band FPS (Band = "))
    member = best.removeprefix("k50pro ros ADMS / Band FPS (Band = ").removesuffix(")")
    assert member != "band" and not math.isnan(rows[best]["ours"])
    assert "failed: out of memory" in built.markdown.read_text()
