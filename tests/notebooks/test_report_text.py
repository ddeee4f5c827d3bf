"""The paper report shows tables and words, never a raw pandas repr ("Name: x, dtype:
float64" is what a notebook's bare Series prints), and opens with Figure 8's verdicts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.paper.build import Built

#: the tail of a pandas Series' or Index's plain-text repr
RAW_REPR = re.compile(r"\bdtype: \w+|\bName: \w+, ")


def raw_reprs(page: Path) -> list[str]:
    text = page.read_text()
    return [text[max(0, m.start() - 80):m.end()] for m in RAW_REPR.finditer(text)]


def test_the_scan_finds_a_series_repr(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text("<pre>baseline\nadms 0.0\nName: throttled, dtype: Float64</pre>")
    assert len(raw_reprs(page)) == 2


def test_one_artifact_shows_no_raw_repr(small_report: tuple[Built, Path]) -> None:
    assert raw_reprs(small_report[0].html) == []


@pytest.mark.slow
def test_the_whole_paper_shows_no_raw_repr_and_opens_with_verdicts(
        paper_report: tuple[Built, Path]) -> None:
    built, _ = paper_report
    assert raw_reprs(built.html) == []
    text = built.html.read_text()
    assert text.index("Verdict: ADMS over TFLite and Band") < text.index("Summary: the paper")
    assert "INVALID" in text  # fast mode is below the validity floor, on purpose
    assert "## Verdict" in built.markdown.read_text()


def test_every_note_and_quantity_shows_whole(small_report: tuple[Built, Path]) -> None:
    """The summary's notes and quantities appear whole twice: in the summary table on top
    and in their artifact's own table (pandas' notebook display would cut them at 50
    characters, ending in "...")."""
    built, out = small_report
    text = built.html.read_text()
    rows = [r for p in sorted((out / "report" / "summary").glob("*.json"))
            for r in json.loads(p.read_text())]
    long = [str(r[k]) for r in rows for k in ("note", "quantity") if len(str(r[k])) > 50]
    assert long  # the check has something to check
    assert [s for s in long if text.count(html.escape(s)) < 2] == []
