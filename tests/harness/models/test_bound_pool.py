"""A :class:`~harness.models.bound.ChainPool` shared by many bounds changes their rounds, not
their optimum: bounds over mixes that share model works (as the mix tuner's do: one model's
plan changed at a time) equal the bounds solved alone, and equal the literal flow program."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.models.bound import ChainPool, frame_rate_bound
from tests.harness.models.bound_cases import flow_program, uneven_ranges

NAMES = ["cpu", "gpu", "npu"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(1, 6), st.integers(0, 999)),
                min_size=2, max_size=8), st.sampled_from([None, {"gpu": 0.5}]))
def test_pooled_bounds_equal_bounds_alone(steps: list[tuple[str, int, int]],
                                          caps: dict[str, float] | None) -> None:
    works = {m: uneven_ranges(m, 3, NAMES, 7) for m in "abc"}
    pool = ChainPool()
    for model, units, seed in steps:
        works[model] = uneven_ranges(model, units, NAMES, seed)
        pooled = frame_rate_bound(NAMES, works, caps, pool=pool).frames_per_s
        alone = frame_rate_bound(NAMES, works, caps).frames_per_s
        assert pooled == pytest.approx(alone, rel=1e-9)
        assert pooled == pytest.approx(flow_program(NAMES, works, caps or {})[0], rel=1e-7)
