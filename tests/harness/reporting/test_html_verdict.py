"""The paper report's HTML and Markdown open with the verdict boxes they are given."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from harness.reporting import html
from tests.harness.reporting.test_verdict import judged


def test_the_report_opens_with_one_box_per_verdict(tmp_path: Path) -> None:
    found = [judged([45.0, 46.0, 44.5, 45.5, 46.5]), judged([30.0, 31.0, 29.5, 30.5, 31.5])]
    who = SimpleNamespace(shown=lambda b: f"{b}!", device="k50pro", paper_scenario="frs",
                          scenario="frs")
    page, md = html.write_report(tmp_path, [], {"device": "k50pro", "mode": "fast"},
                                 [("k50pro/frs", found, who)])
    text = page.read_text()
    assert text.count("class='verdict'") == 2
    assert "REPRODUCED" in text and "NOT REPRODUCED" in text and "band!" in text
    assert text.index("Verdict:") < text.index("Summary: the paper")
    assert "> **adms! / band!: REPRODUCED**" in md.read_text()
    line = "Paper (Redmi K50 Pro, FRS): ADMS 4.04× TFLite, 1.21× Band. This run (adms!):"
    # the headline opens the run's verdicts in both renderings
    assert text.index(line) < text.index("class='verdict'")
    assert md.read_text().index(f"**{line}") < md.read_text().index("> **adms! / band!")


def test_without_verdicts_the_report_has_no_verdict_heading(tmp_path: Path) -> None:
    page, md = html.write_report(tmp_path, [], {"device": "k50pro", "mode": "fast"})
    assert "Verdict" not in page.read_text() and "Verdict" not in md.read_text()
