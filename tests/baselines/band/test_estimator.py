"""Band's latency estimator (:mod:`baselines.band.estimator`): known answers worked by hand,
and against a reference: a dict per key, as Band's code keeps it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.band.estimator import UNKNOWN_NS, LatencyEstimator

KEYS = st.tuples(st.sampled_from(["a", "b"]), st.integers(-2, 6))
NS = st.one_of(st.integers(-5, 5), st.integers(-10**6, 10**12))


class Reference:
    """Band's LatencyEstimator, literally: profiled and expected by key."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha
        self.expected: dict[tuple[str, int], int] = {}

    def seed(self, profile: dict[tuple[str, int], int]) -> None:
        self.expected.update(profile)

    def update(self, key: tuple[str, int], ns: int) -> int | None:
        if key not in self.expected:
            return None
        self.expected[key] = int(self.alpha * ns + (1.0 - self.alpha) * self.expected[key])
        return self.expected[key]


@settings(max_examples=400, deadline=None)
@given(st.floats(0.0, 1.0),
       st.lists(st.tuples(st.sampled_from(["seed", "update"]), KEYS, NS), max_size=30))
def test_the_estimator_is_bands(alpha: float, steps: list) -> None:
    ours, ref = LatencyEstimator(alpha), Reference(alpha)
    for what, key, ns in steps:
        if what == "seed":
            ours.seed({key: ns})
            ref.seed({key: ns})
        else:
            assert ours.update(key, ns) == ref.update(key, ns)
        for k in [(m, i) for m in ("a", "b") for i in range(-2, 7)]:
            assert ours.expected(k) == ref.expected.get(k, UNKNOWN_NS)
        for m in ("a", "b"):
            assert ours.worst(m) == max((v for (mm, _), v in ref.expected.items() if mm == m),
                                        default=0)


# -- known answers ----------------------------------------------------------------------------


def test_estimator_moving_average_known_answers() -> None:
    est = LatencyEstimator(alpha=0.1)
    est.seed({("m", 0): 100, ("m", 1): 50})
    est.update(("m", 0), 200)
    assert est.expected(("m", 0)) == 110  # 0.1*200 + 0.9*100
    est.update(("m", 0), 0)
    assert est.expected(("m", 0)) == 99  # int(0.9*110)
    assert est.profiled(("m", 0)) == 100
    assert est.worst("m") == 99 and est.worst("other") == 0


def test_estimator_ignores_unknown_keys() -> None:
    est = LatencyEstimator(alpha=0.5)
    est.update(("m", 7), 10)
    assert est.expected(("m", 7)) == UNKNOWN_NS
    with pytest.raises(ValueError):
        LatencyEstimator(alpha=1.5)
