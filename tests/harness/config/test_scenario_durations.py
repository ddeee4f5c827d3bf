"""Every shipped scenario and experiment asks for a run long enough for its verdicts.

The verdict's validity floor (:class:`~harness.reporting.verdict.Floor`) wants each seed's
measured span to reach half the default scenario's duration; a scenario (or an experiment)
whose ``duration_s``, composed as a run composes it (the schema's default where the YAML has
none), is below :attr:`Floor.duration_s` would make its runs ``invalid`` on a slow device.
"""

from __future__ import annotations

import pytest

from harness.config import CONF_DIR
from harness.experiment.session import compose_run
from harness.reporting.verdict import FLOOR, Floor

SCENARIOS = sorted(p.stem for p in (CONF_DIR / "scenario").glob("*.yaml"))
EXPERIMENTS = sorted(p.stem for p in (CONF_DIR / "experiment").glob("*.yaml"))


def test_every_scenario_is_checked() -> None:
    assert {"frs", "ros", "single", "overload"} <= set(SCENARIOS)


def clears(duration_s: float, floor: Floor = FLOOR) -> bool:
    """Whether a scenario asking ``duration_s`` s clears ``floor``."""
    return duration_s >= floor.duration_s and not floor.span_short(duration_s)


@pytest.mark.parametrize("override", [*(f"scenario={n}" for n in SCENARIOS),
                                      *(f"+experiment={n}" for n in EXPERIMENTS)])
def test_its_default_duration_clears_the_validity_floor(override: str) -> None:
    scenario = compose_run([override])[0].scenario
    assert clears(scenario.duration_s), (
        f"{override}: duration_s {scenario.duration_s:g} s, the floor wants "
        f"{FLOOR.duration_s:g} s")


def test_the_old_five_seconds_or_a_higher_floor_would_fail() -> None:
    single = compose_run(["scenario=single"])[0].scenario
    assert clears(single.duration_s)
    assert not clears(5.0)  # single's duration before: a slow model's span fell below 5 s
    assert not clears(single.duration_s, Floor(span_s=single.duration_s / 2 + 1))
