"""The Table V fit: known constants recovered from a synthetic twin whose latencies are
linear in them (as a single model's are while its placement holds), bounds respected, and
a twin whose placement flips past a threshold handled."""

from __future__ import annotations

import numpy as np
import pytest

from harness.table5.fit import Param, fit, residuals

PARAMS = (Param("a", 100.0, 20_000.0), Param("b", 100.0, 20_000.0))
#: targets: (base ms, ms per unit of a, ms per unit of b), like subgraphs x fixed cost
ROWS = np.array([[2.0, 0.004, 0.001], [11.0, 0.001, 0.0], [23.0, 0.010, 0.003],
                 [3.0, 0.006, 0.0005], [117.0, 0.002, 0.004]])


def linear(theta: np.ndarray) -> np.ndarray:
    return ROWS[:, 0] + ROWS[:, 1:] @ theta


def test_known_constants_are_recovered_from_a_linear_twin() -> None:
    truth = np.array([1500.0, 400.0])
    best, tried = fit(PARAMS, [20.0, 100.0], linear, list(linear(truth)))
    assert best.theta == pytest.approx(tuple(truth), rel=0.02)
    assert best.cost < 1e-6
    assert tried[0].theta == (20.0, 100.0)


def test_constants_stay_within_their_bounds() -> None:
    # targets below what zero constants give: the best is at the lower bound
    best, _ = fit(PARAMS, [500.0, 500.0], linear, list(ROWS[:, 0] * 0.5))
    assert all(0.0 <= t <= 20_000.0 for t in best.theta)
    assert best.theta == pytest.approx((0.0, 0.0), abs=1.0)


def test_the_best_point_is_never_worse_than_the_start() -> None:
    def flips(theta: np.ndarray) -> np.ndarray:  # a placement change past a = 800
        return linear(theta) * (3.0 if theta[0] > 800 else 1.0)

    start = [20.0, 100.0]
    best, tried = fit(PARAMS, start, flips, list(linear(np.array([1500.0, 400.0]))))
    assert best.cost <= tried[0].cost
    assert best == min(tried, key=lambda p: p.cost)


def test_residuals_are_log_ratios_and_a_missing_latency_counts_as_tenfold() -> None:
    got = residuals(np.array([2.0, np.nan]), np.array([1.0, 5.0]))
    assert got == pytest.approx([np.log(2.0), np.log(10.0)])


def test_the_table5_twin_is_k50pro_but_for_the_fitted_constants() -> None:
    from omegaconf import OmegaConf

    from harness.experiment.session import compose_run
    from harness.table5.__main__ import PARAMS

    base = OmegaConf.to_container(compose_run(["device=k50pro"])[1].device)
    fitted = OmegaConf.to_container(compose_run(["device=k50pro_table5"])[1].device)
    assert isinstance(base, dict) and isinstance(fitted, dict)
    keys = [p.key.removeprefix("device.twin.") for p in PARAMS]
    assert any(fitted["twin"][k] != base["twin"][k] for k in keys)
    for k in keys:
        base["twin"][k] = fitted["twin"][k]
        base["twin"]["provenance"][k] = fitted["twin"]["provenance"][k]
    base["name"], base["description"] = fitted["name"], fitted["description"]
    assert fitted == base


@pytest.mark.parametrize("args", [["iterations=-1"], ["speed=2"], ["duration_s=fast"]])
def test_bad_arguments_are_one_error(args: list[str]) -> None:
    from harness.seams.errors import UserError
    from harness.table5.__main__ import parse_conf

    with pytest.raises(UserError, match="table5: "):
        parse_conf(args)
