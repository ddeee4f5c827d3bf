"""The sweep's arithmetic: crossings by hand, a constant set on a composed run, the config's
refusals (one line, exit 2)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.sensitivity import analysis, cells
from harness.sensitivity.__main__ import main
from harness.sensitivity.config import ConstantConf, Scale, Where
from tests.fixtures.runs import compose_run


def test_a_crossing_is_interpolated_in_log_value_on_a_log_scale() -> None:
    points = [(1.0, 0.5), (10.0, 1.0), (100.0, 2.0)]
    # 1.21 lies 0.21 of the way from 1.0 to 2.0: 10 ** (1 + 0.21)
    [(value, side, i)] = analysis.crossings(points, 1.21, log=True)
    assert value == pytest.approx(10 ** 1.21) and side == "above" and i == 1
    [(value, _, _)] = analysis.crossings(points, 1.21, log=False)
    assert value == pytest.approx(10 + 0.21 * 90)


def test_a_line_met_at_a_point_is_one_crossing_and_none_outside() -> None:
    assert analysis.crossings([(1.0, 0.5), (2.0, 1.0), (3.0, 1.5)], 1.0, False) == [
        (2.0, "above", 0)]
    assert analysis.crossings([(1.0, 2.0), (2.0, 0.5)], 1.0, False) == [
        (pytest.approx(1 + 2 / 3), "below", 0)]
    assert analysis.crossings([(1.0, 1.1), (2.0, 1.5)], 1.0, True) == []
    assert analysis.crossings([(1.0, math.nan), (2.0, 1.5)], 1.0, True) == []


def test_the_paper_ratio_is_a_verdict_line_where_the_paper_states_it() -> None:
    assert analysis.thresholds("k50pro", "frs", "band") == [(1.0, "1"), (1.21, "paper")]
    assert analysis.thresholds("k50pro", "ros", "tflite_gpu") == [(1.0, "1"), (2.84, "paper")]
    assert analysis.thresholds("p20", "frs", "band") == [(1.0, "1")]


def test_crossovers_of_a_ratio_table() -> None:
    c = ConstantConf(name="transfer_fixed_us", low=10.0, high=1000.0, scale=Scale.log)
    table = pd.DataFrame({
        "device": "k50pro", "scenario": "frs", "ratio": "adms/band",
        "constant": c.name, "value": [10.0, 100.0, 1000.0],
        "is_default": [False, True, False], "mean": [0.9, 1.1, 1.3],
        "low": [0.85, 0.95, 1.25], "high": [0.95, 1.25, 1.35]})
    found = analysis.crossovers(table, [c])
    assert list(found["line_is"]) == ["1", "paper"]
    # crossing 1: 0.9 [0.85, 0.95] below, 1.1 [0.95, 1.25] reaches across; 1.21: the default's
    # interval reaches across it too: neither is clear
    assert list(found["clear"]) == [False, False]
    table["low"] = [0.85, 1.05, 1.25]
    table["high"] = [0.95, 1.15, 1.35]
    assert list(analysis.crossovers(table, [c])["clear"]) == [True, True]
    assert found["crosses_at"].tolist() == pytest.approx(
        [10 ** 1.5, 10 ** (2 + 0.11 / 0.2)])
    assert set(found["larger_values"]) == {"above"}


def test_apply_sets_a_device_constant_and_scales_every_processor() -> None:
    run = compose_run("device=k50pro", "scenario=frs")
    fixed = ConstantConf(name="transfer_fixed_us", low=10.0, high=1000.0)
    out = cells.apply(run, fixed, 500.0)
    assert out.device.twin.transfer_fixed_us == 500.0
    assert run.device.twin.transfer_fixed_us == 100.0  # (the composed run is untouched)
    share = ConstantConf(name="bandwidth_share", at=Where.processors, low=0.7, high=1.4)
    scaled = cells.apply(run, share, 1.4)
    got = [p.twin.bandwidth_share for p in scaled.device.processors]
    assert got == pytest.approx([min(1.0, 1.4 * p.twin.bandwidth_share)
                                 for p in run.device.processors])
    relative = ConstantConf(name="memory_budget_mb", low=0.25, high=1.25, relative=True)
    assert cells.apply(run, relative, 0.5).device.twin.memory_budget_mb == 3072.0
    assert cells.default_value(run, fixed) == 100.0 and cells.default_value(run, share) == 1.0


def test_a_price_per_policy_is_swept_as_one_factor_on_every_policy() -> None:
    run = compose_run("device=k50pro", "scenario=frs")
    prices = dict(run.device.twin.scheduler_ns_per_work)
    assert len(prices) > 3
    factor = ConstantConf(name="scheduler_ns_per_work", low=0.25, high=8.0, relative=True)
    out = cells.apply(run, factor, 4.0)
    assert out.device.twin.scheduler_ns_per_work == pytest.approx(
        {k: 4.0 * v for k, v in prices.items()})
    assert run.device.twin.scheduler_ns_per_work == prices
    assert cells.default_value(run, factor) == 1.0


def test_values_span_the_range_on_its_scale() -> None:
    c = ConstantConf(name="x", low=1.0, high=100.0, points=3, scale=Scale.log)
    assert cells.values(c) == pytest.approx([1.0, 10.0, 100.0])
    c.scale = Scale.linear
    assert cells.values(c) == pytest.approx([1.0, 50.5, 100.0])


@pytest.mark.parametrize(("args", "says"), [
    (["only=[no_such_constant]"], "only: no_such_constant is not a swept constant"),
    (["constants=[{name: nope, low: 1, high: 2}]"], "'nope' is not a field of the twin's"),
    (["constants=[{name: copy_fixed_us, low: 2, high: 1}]"], "low 2.0 must be below high"),
    (["anchors=/no/such/file.yaml"], "anchors file '/no/such/file.yaml' does not exist"),
    (["constants=[{name: scheduler_ns_per_work, low: 1, high: 2}]"],
     "holds one value per policy; sweep it as a factor"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main(args)
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1, err


def test_harness_list_names_the_sweep() -> None:
    from harness.cli.listing import listing

    assert "  sensitivity          every estimated twin constant swept" in listing(["tools"])
