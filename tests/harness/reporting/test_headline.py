"""The headline: one sentence over a run's boxes, on hand-made runs."""

from __future__ import annotations

import io

from rich.console import Console

from harness.reporting import verdict
from harness.reporting.headline import sentence
from tests.harness.reporting.test_verdict import BAND, BANDS, TFLITE, per_seed, scaled


def boxes(fps: dict[str, list[float]], device: str = "k50pro", scenario: str = "frs",
          **kw: object) -> list[verdict.Verdict]:
    run = per_seed(fps, **kw)  # type: ignore[arg-type]
    return verdict.headline(verdict.verdicts(run, device, scenario), run)


def test_the_papers_claims_then_this_runs_ratios_and_words() -> None:
    found = boxes({"tflite_gpu": TFLITE, "band": BAND, "adms": scaled(0.74),
                   "tflite": TFLITE})
    assert sentence(found, "k50pro", "frs") == (
        "Paper (Redmi K50 Pro, FRS): ADMS 4.04× TFLite, 1.21× Band. This run (adms): "
        "2.50× tflite_gpu, 0.74× band: same direction, smaller against TFLite (49% of the "
        "paper's gain); not reproduced against Band.")


def test_reproduced_against_both() -> None:
    found = boxes({"tflite_gpu": TFLITE, "band": BAND, "adms": scaled(1.21)})
    line = sentence(found, "k50pro", "frs")
    assert line.endswith("reproduced against TFLite; reproduced against Band.")


def test_it_speaks_for_the_papers_rule_and_the_papers_band_among_several() -> None:
    fps = dict(BANDS, tflite_gpu=TFLITE, adms_ef=scaled(1.5))
    found = boxes(fps)  # one box against band_heft, the strongest, standing for three
    assert [v.other for v in found if v.adms == "adms"] == ["band_heft", "tflite", "tflite_gpu"]
    line = sentence(found, "k50pro", "frs", shown=lambda b: b.upper())
    assert "This run (ADMS): " in line and "× BAND:" in line  # the paper ran band, not heft


def test_a_host_run_says_the_paper_has_no_ratio_and_only_faster_or_slower() -> None:
    found = boxes({"tflite_gpu": TFLITE, "band": BAND, "adms": scaled(0.74)}, "host")
    line = sentence(found, "host", "frs")
    assert line.startswith("Paper: no ADMS ratio here (not the paper's setup: host is none "
                           "of the paper's phones")
    assert line.endswith("faster than tflite_gpu; slower than band.")
    assert "reproduced" not in line


def test_an_invalid_run_says_why_once() -> None:
    found = boxes({"tflite_gpu": TFLITE[:2], "band": BAND[:2], "adms": scaled(1.2)[:2]})
    line = sentence(found, "k50pro", "frs")
    assert line.endswith("invalid against TFLite; invalid against Band (below the validity "
                         "floor: 2 seeds < 3).")


def test_no_boxes_no_headline() -> None:
    assert sentence([], "k50pro", "frs") == ""


def test_the_headline_is_the_first_line_above_the_boxes() -> None:
    found = boxes({"tflite_gpu": TFLITE, "band": BAND, "adms": scaled(1.21)})
    out = io.StringIO()
    line = sentence(found, "k50pro", "frs")
    Console(file=out, width=80).print(verdict.rich_boxes(found, width=80, line=line))
    text = out.getvalue()
    assert text.startswith("Paper (Redmi K50 Pro, FRS)")
    above = text[:text.index("verdict: ADMS FPS")]
    assert " ".join(above.split()) == line  # wrapped at 80 columns, nothing cut
    assert verdict.markdown(found, line=line).startswith(f"**{line}**\n\n> **adms / band")
