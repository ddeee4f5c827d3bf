"""The frame-rate bound's refusals: every malformed input (no complete chain, an unknown
processor, a missing, non-positive or negative cost, no models or plans, bad processors or
capacities) and a solver that fails or does not converge is a one-line
:class:`~harness.seams.errors.UserError` naming what is wrong."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from scipy.optimize import OptimizeResult

from harness.models import bound
from harness.models.bound import ModelWork, frame_rate_bound
from harness.seams.errors import UserError
from tests.fixtures.policies import MS, plan
from tests.harness.models.bound_cases import TWO_UNITS, work

CPU_10 = work("m", ("cpu", 0, 0, 10 * MS))


def message(processors: Sequence[str], models: Mapping[str, ModelWork],
            capacity: Mapping[str, float] | None = None) -> str:
    with pytest.raises(UserError) as caught:
        frame_rate_bound(processors, models, capacity)
    text = str(caught.value)
    assert "\n" not in text
    return text


def test_a_model_without_a_complete_chain() -> None:
    # unit 1 has no subgraph, so nothing runs from unit 0 to unit 2
    text = message(["cpu"], {"m": work("m", ("cpu", 0, 0, MS), ("cpu", 2, 2, MS))})
    assert "'m'" in text and "no chain" in text


def test_a_subgraph_on_an_unknown_processor() -> None:
    text = message(["cpu"], {"m": work("m", ("cpu", 0, 0, MS), ("npu", 0, 0, MS))})
    assert "'m'" in text and "'npu'" in text


def test_a_missing_cost() -> None:
    mp, _ = plan("m", [("cpu", 0, 0, MS), ("gpu", 0, 0, MS)])
    text = message(["cpu", "gpu"], {"m": ModelWork((mp,), {(0, 0): MS})})
    assert "'m'" in text and "subgraph 1" in text and "gpu" in text and "no cost" in text


def test_no_models() -> None:
    assert "at least one model" in message(["cpu"], {})


@pytest.mark.parametrize("ns", [0, -MS])
def test_a_non_positive_cost(ns: int) -> None:
    text = message(["cpu", "gpu"], {"m": work("m", ("cpu", 0, 0, MS), ("gpu", 0, 0, ns))})
    assert "'m'" in text and "gpu" in text and "positive" in text


def test_a_negative_handoff() -> None:
    w = work("m", *TWO_UNITS, handoff={2: -MS})
    assert "handoff" in message(["cpu", "gpu"], {"m": w})


def test_a_plan_of_another_model_or_none() -> None:
    assert "'other'" in message(["cpu"], {"other": CPU_10})
    assert "no plans" in message(["cpu"], {"m": ModelWork((), {})})


@pytest.mark.parametrize(("processors", "capacity", "part"), [
    ([], None, "non-empty"),
    (["cpu", "cpu"], None, "distinct"),
    (["cpu"], {"gpu": 0.5}, "gpu"),
    (["cpu"], {"cpu": 1.5}, "'cpu'"),
    (["cpu"], {"cpu": -0.1}, "'cpu'"),
])
def test_bad_processors_or_capacity(processors: list[str], capacity: dict[str, float] | None,
                                    part: str) -> None:
    assert part in message(processors, {"m": CPU_10}, capacity)


def test_highs_failing_is_reported_with_its_message(monkeypatch: pytest.MonkeyPatch) -> None:
    said = "The problem is unbounded. (HiGHS Status 10: model_status is Unbounded)"
    monkeypatch.setattr("scipy.optimize.linprog",
                        lambda *a, **k: OptimizeResult(status=3, message=said))
    assert said in message(["cpu"], {"m": CPU_10})


def test_rounds_that_do_not_converge_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bound, "MAX_ROUNDS", 0)
    assert "did not converge" in message(["cpu"], {"m": CPU_10})
