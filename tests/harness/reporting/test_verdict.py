"""The verdict's words on hand-made runs, and the intervals behind them."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from scipy.special import stdtrit

from harness.reporting import verdict
from harness.reporting.stats import BOOTSTRAP, BOOTSTRAP_MIN_SEEDS, FIELLER, fieller, ratio_ci
from harness.reporting.verdict import Floor, Word


def per_seed(fps: dict[str, list[float]], span_s: float = 30.0, frames: int = 900
             ) -> pd.DataFrame:
    """Per-seed rows (baseline, seed, fps, span_s, frames) of a run made by hand."""
    rows = [{"baseline": b, "seed": s, "fps": v, "span_s": span_s, "frames": frames}
            for b, values in fps.items() for s, v in enumerate(values)]
    return pd.DataFrame(rows)


BAND = [37.0, 38.0, 36.5, 37.5, 38.5]


TFLITE = [11.0, 11.5, 10.8, 11.2, 11.1]


def judged(adms: list[float], other: str = "band", **kw: object) -> verdict.Verdict:
    run = per_seed({"band": BAND, "tflite": TFLITE, "tflite_gpu": TFLITE, "adms": adms},
                   **kw)  # type: ignore[arg-type]
    return verdict.verdict(run, "adms", other, "k50pro", "frs")


def scaled(ratio: float, of: list[float] = BAND) -> list[float]:
    """ADMS's FPS at ``ratio`` times ``of``'s, seed by seed, with a little noise."""
    return [ratio * v + d for v, d in zip(of, [0.1, -0.1, 0.05, -0.05, 0.0], strict=True)]


def test_reproduced_when_the_interval_reaches_the_papers_ratio() -> None:
    found = judged([45.0, 46.0, 44.5, 45.5, 46.5])
    assert found.word is Word.REPRODUCED
    assert found.paper == pytest.approx(1.21) and found.ratio.low > 1
    assert found.magnitude.startswith("paper 1.21 (Fig. 8(a)): ours 10")  # ~101% of its gain


def test_same_direction_smaller_says_which_share_of_the_papers_gain() -> None:
    found = judged(scaled(1.10))  # 10% faster where the paper found 21%
    assert found.word is Word.SMALLER and found.word.value == "same direction, smaller"
    assert found.ratio.low > 1 and found.ratio.high < 1.21
    assert found.share == "48% of the paper's gain"
    assert "short of the 80%-120% margin" in found.why
    box = verdict.markdown([found])
    assert "SAME DIRECTION, SMALLER" in box and "48% of the paper's gain" in box


def test_within_the_margin_is_reproduced_beyond_it_larger() -> None:
    assert judged(scaled(1.19)).word is Word.REPRODUCED  # 90% of the gain: in the margin
    larger = judged(scaled(1.40))
    assert larger.word is Word.LARGER and larger.share == "190% of the paper's gain"


def test_a_small_gain_against_tflite_is_no_reproduction_of_4x() -> None:
    found = judged(scaled(1.40, TFLITE), "tflite_gpu")
    assert found.paper == pytest.approx(4.04) and found.word is Word.SMALLER
    assert found.share == "13% of the paper's gain"


def test_not_reproduced_when_it_lies_on_the_other_side() -> None:
    found = judged([30.0, 31.0, 29.5, 30.5, 31.5])
    assert found.word is Word.NOT_REPRODUCED
    assert found.share == "" and found.magnitude == "paper 1.21 (Fig. 8(a))"  # no share of
    # a gain the run lost


def test_no_paper_ratio_for_the_oracle_the_paper_never_ran() -> None:
    found = judged(scaled(1.4, TFLITE), "tflite")
    assert found.paper is None and found.word is Word.FASTER
    assert "paper 4.04" not in " ".join(found.lines())
    assert "the paper ran no tflite" in found.lines()[2]


def test_a_variant_of_band_gets_no_paper_ratio() -> None:
    run = per_seed({"band": BAND, "adms": scaled(1.21)})
    found = verdict.verdict(run, "adms", "band", "k50pro", "frs",
                            variants={"band": "scheduler=heft"})
    assert found.paper is None and found.word is Word.FASTER
    assert "variant (scheduler=heft)" in found.no_paper


@pytest.mark.parametrize(("device", "scenario", "said"), [
    ("host", "frs", "host is none of the paper's phones"),
    ("k50pro", "", "models are not the paper's"),
    ("p20", "frs", "no ADMS ratio for frs on the Huawei P20")])
def test_a_setup_the_paper_never_ran_says_so_instead_of_reproduced(
        device: str, scenario: str, said: str) -> None:
    run = per_seed({"band": BAND, "adms": scaled(1.21)})
    found = verdict.verdict(run, "adms", "band", device, scenario)
    assert found.word is Word.FASTER and found.paper is None and said in found.no_paper


def test_inconclusive_when_the_interval_spans_1() -> None:
    found = judged([30.0, 46.0, 37.0, 44.0, 31.0])
    assert found.word is Word.INCONCLUSIVE
    assert found.ratio.low < 1 < found.ratio.high


@pytest.mark.parametrize(("kw", "said"), [
    ({"span_s": 0.3}, "span 0.3 s < 5 s"), ({"frames": 12}, "12 frames < 50")])
def test_invalid_below_the_floor_whatever_the_interval(kw: dict[str, float], said: str
                                                       ) -> None:
    found = judged([45.0, 46.0, 44.5, 45.5, 46.5], **kw)  # type: ignore[arg-type]
    assert found.word is Word.INVALID and said in found.why


def test_invalid_with_too_few_seeds() -> None:
    run = per_seed({"band": [37.0, 38.0], "adms": [45.0, 46.0]})
    found = verdict.verdict(run, "adms", "band", "k50pro", "frs")
    assert found.word is Word.INVALID and "2 seeds < 3" in found.why
    assert found.ratio.method == FIELLER and "Fieller, 2 seeds" in found.method


def test_invalid_when_the_other_side_completed_no_seed() -> None:
    run = per_seed({"adms": [45.0, 46.0, 44.5]})
    found = verdict.verdicts(run, "k50pro", "frs", {"band": "out of memory"},
                             baselines=["band", "adms"])
    assert [(v.other, v.word) for v in found] == [("band", Word.INVALID)]
    assert "out of memory" in found[0].why


def test_without_a_paper_ratio_slower_is_said_as_such() -> None:
    found = verdict.verdict(per_seed({"band7": BAND, "adms": [30.0, 31.0, 29.5, 30.5, 31.5]}),
                            "adms", "band7", "k50pro", "frs")
    assert found.paper is None and found.word is Word.SLOWER
    assert found.lines()[2].startswith("no paper ratio: the paper ran no band7")


def test_a_lower_floor_lets_a_short_run_be_judged() -> None:
    run = per_seed({"band": BAND, "adms": [45.0, 46.0, 44.5, 45.5, 46.5]}, span_s=1.0)
    found = verdict.verdict(run, "adms", "band", "k50pro", "frs", floor=Floor(span_s=1.0))
    assert found.word is Word.REPRODUCED


def test_pairs_each_adms_row_with_every_band_and_tflite_row() -> None:
    names = ["tflite", "tflite_gpu", "band", "band_heft", "adms", "adms_ef", "adms_shed"]
    assert verdict.pairs(names) == [
        ("adms", "band"), ("adms", "band_heft"), ("adms", "tflite"), ("adms", "tflite_gpu"),
        ("adms_ef", "band"), ("adms_ef", "band_heft"), ("adms_ef", "tflite"),
        ("adms_ef", "tflite_gpu")]


def test_fieller_bounds_are_where_the_paired_t_statistic_reaches_its_quantile() -> None:
    rng = np.random.default_rng(1)
    den = 40 + rng.normal(0, 2, 5)
    num = 1.2 * den + rng.normal(0, 1.5, 5)
    low, high = fieller(num, den)
    t = float(stdtrit(4, 0.975))
    for rho in (low, high):
        diff = num - rho * den
        assert abs(diff.mean()) / (diff.std(ddof=1) / math.sqrt(5)) == pytest.approx(t)
    assert low < num.mean() / den.mean() < high


def test_fieller_is_unbounded_when_the_denominator_may_be_zero() -> None:
    assert fieller(np.array([1.0, 2.0]), np.array([0.1, -0.05])) == (-math.inf, math.inf)


def test_few_seeds_get_fieller_many_the_bootstrap() -> None:
    few = ratio_ci({0: 2.0, 1: 2.2}, {0: 1.0, 1: 1.0})
    many = ratio_ci({s: 2.0 + 0.01 * s for s in range(BOOTSTRAP_MIN_SEEDS)},
                    {s: 1.0 for s in range(BOOTSTRAP_MIN_SEEDS)})
    assert few.method == FIELLER and many.method == BOOTSTRAP
    assert few.high - few.low > 1  # t(0.975, 1) = 12.7: two seeds say little


def test_boxes_at_80_columns_cut_nothing() -> None:
    run = per_seed({"tflite": [11.0, 11.5], "band": [37.0, 38.0], "adms": [45.0, 46.0]},
                   span_s=0.3)
    out = io.StringIO()
    Console(file=out, width=80).print(verdict.rich_boxes(
        verdict.verdicts(run, "k50pro", "frs"), lambda b: f"{b} (long shown name)"))
    text = out.getvalue()
    assert "…" not in text and "INVALID" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_markdown_opens_each_box_with_the_pair_and_word() -> None:
    found = [judged([45.0, 46.0, 44.5, 45.5, 46.5])]
    text = verdict.markdown(found)
    assert text.startswith("> **adms / band: REPRODUCED**")
    assert "paper 1.21" in text


BANDS = {"band": BAND, "band_heft": [41.0, 42.0, 40.5, 41.5, 42.5],
         "band7": [39.0, 39.5, 38.5, 39.2, 39.1], "tflite": [11.0, 11.5, 10.8, 11.2, 11.1],
         "adms": [45.0, 46.0, 44.5, 45.5, 46.5]}


def test_several_band_rows_make_one_box_against_the_strongest() -> None:
    run = per_seed(BANDS)
    found = verdict.verdicts(run, "k50pro", "frs")
    boxes = verdict.headline(found, run)
    assert [(v.other, len(v.stands_for)) for v in boxes] == [("band_heft", 3), ("tflite", 0)]
    assert "the strongest of 3 Band rows" in boxes[0].lines()[0]
    # each Band row stays in the table under the boxes
    each = verdict.each_band(boxes)
    assert [row[1] for row in each] == ["band", "band_heft", "band7"]
    assert each[1][2] == boxes[0].interval and each[1][3] == boxes[0].word.value
    assert "| adms | band_heft |" in verdict.each_band_markdown(boxes)


def test_a_band_row_that_failed_a_seed_is_not_the_strongest() -> None:
    run = per_seed(BANDS)
    assert verdict.strongest(run, ["band", "band_heft", "band7"], {"band_heft": "oom"}) == "band7"
    assert verdict.strongest(run, ["band"], {"band": "oom"}) == "band"  # none whole: all count


def test_one_band_row_keeps_its_box_and_no_table() -> None:
    run = per_seed({k: v for k, v in BANDS.items() if k in ("band", "tflite", "adms")})
    found = verdict.verdicts(run, "k50pro", "frs")
    assert verdict.headline(found, run) == found and verdict.each_band(found) == []
    assert verdict.each_band_markdown(found) == ""
