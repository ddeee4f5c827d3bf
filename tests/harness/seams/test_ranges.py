"""Every numeric field's range matches the arithmetic downstream (issue 25 item 4).

The largest value a field allows runs through the conversions it meets (seconds to int64
nanoseconds, a frame rate to a period, a seed to its generators and to the int64 ``seed``
column) without overflow; the next larger value is refused with one line.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.config.reference import register_all, schemas
from harness.config.schema import FPS, ScenarioConf
from harness.experiment.baseline import seeds
from harness.experiment.loop import DRAIN_NS
from harness.runtime.traffic import span_of
from harness.seams.errors import UserError
from harness.seams.fields import (
    MAX_COUNT,
    MAX_SEED,
    MAX_TIME_S,
    SEED,
    TIME_UNITS_S,
    Range,
    check,
    spec,
    spec_of,
)
from harness.seams.units import NS_PER_S

INT64 = np.iinfo(np.int64).max


def time_fields() -> list[tuple[str, str, Range]]:
    register_all()
    return [(f"{cls.__name__}.{f.name}", s.unit, s.range) for cls in schemas()
            for f in dataclasses.fields(cls)
            if (s := spec_of(f)) is not None and s.unit in TIME_UNITS_S]


def test_every_time_field_is_capped_so_thousands_of_them_fit_int64_ns() -> None:
    found = time_fields()
    assert len(found) > 30
    for name, unit, rng in found:
        assert rng.hi is not None, name
        assert rng.hi * TIME_UNITS_S[unit] * NS_PER_S * 1000 < INT64, name


@given(duration=st.floats(min_value=1e-9, max_value=MAX_TIME_S),
       warmup=st.floats(min_value=0, max_value=MAX_TIME_S))
def test_the_longest_run_converts_to_int64_nanoseconds(duration: float, warmup: float) -> None:
    span = span_of(ScenarioConf(name="t", models=["m"], duration_s=duration, warmup_s=warmup))
    assert 0 <= span.warmup_end_ns <= span.end_ns
    assert np.int64(span.end_ns + DRAIN_NS) == span.end_ns + DRAIN_NS


@given(fps=st.floats(min_value=FPS.lo or 0, max_value=FPS.hi or 0))
def test_every_allowed_frame_rate_has_a_whole_positive_period(fps: float) -> None:
    period = int(NS_PER_S / fps)
    assert 1 <= period <= MAX_TIME_S * NS_PER_S


@given(base=st.integers(min_value=MAX_SEED - 3, max_value=MAX_SEED))
def test_the_largest_seeds_make_generators_and_fit_the_seed_column(base: int) -> None:
    rngs = seeds(base + MAX_COUNT - 1)
    assert all(isinstance(g, np.random.Generator) for g in rngs.values())
    assert np.array([base + MAX_COUNT - 1], dtype=np.int64)[0] == base + MAX_COUNT - 1


@dataclasses.dataclass
class Probe:
    wait_s: float = dataclasses.field(default=0.0, metadata=spec("s", Range(0), "a wait"))
    tick_us: float = dataclasses.field(default=0.0, metadata=spec("µs", Range(0), "a tick"))
    seed: int = dataclasses.field(default=0, metadata=spec("", SEED, "a seed"))


@pytest.mark.parametrize(("name", "top"), [("wait_s", MAX_TIME_S), ("tick_us", MAX_TIME_S * 1e6),
                                           ("seed", MAX_SEED)])
def test_the_top_of_a_range_is_allowed_and_one_step_more_is_one_line(name: str, top: float) -> None:
    check(Probe(**{name: top}))  # type: ignore[arg-type]
    above = top + 1 if isinstance(top, int) else math.nextafter(top, math.inf)
    with pytest.raises(UserError) as exc:
        check(Probe(**{name: above}))  # type: ignore[arg-type]
    message = str(exc.value)
    assert "\n" not in message and name in message and "out of range" in message


def test_a_whole_bound_is_written_in_full() -> None:
    assert "4294967295" in SEED.text()
