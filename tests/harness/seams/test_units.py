"""Units: ``round_int`` is ``round`` on floats (the twin rounds every latency with it)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.seams.units import round_int


@given(st.floats(min_value=-1e18, max_value=1e18, allow_nan=False))
def test_round_int_is_round(x: float) -> None:
    assert round_int(x) == round(x)


def test_round_int_ties_go_to_even() -> None:
    assert [round_int(x) for x in (0.5, 1.5, 2.5, -0.5, -1.5, 4503599627370495.5)] == [
        0, 2, 2, 0, -2, 4503599627370496]
    assert round_int(0.49999999999999994) == 0
