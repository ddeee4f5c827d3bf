"""Traffic: closed-loop streams, periodic frames and seeded Poisson arrivals."""

from __future__ import annotations

import numpy as np
import pytest

from harness.config.schema import Arrival, ScenarioConf
from harness.runtime.traffic import Traffic
from harness.seams.units import NS_PER_S


def scenario(arrival: Arrival, **kw: object) -> ScenarioConf:
    base = dict(name="t", models=["a", "b"], arrival=arrival, fps=10.0, duration_s=1.0,
                warmup_s=0.5)
    base.update(kw)
    return ScenarioConf(**base)  # type: ignore[arg-type]


def drain(traffic: Traffic, until_ns: int) -> list:
    out = []
    while (t := traffic.next_arrival_ns()) is not None and t <= until_ns:
        out.extend(traffic.pop_due(t))
    return out


def test_stream_issues_one_request_per_model_then_waits_for_completion() -> None:
    traffic = Traffic(scenario(Arrival.stream), {"a": 5}, np.random.default_rng(0))
    first = traffic.pop_due(0)
    assert [(r.model, r.frame_id, r.stream, r.slo_ns) for r in first] == [
        ("a", 0, 0, 5), ("b", 0, 1, 0)]
    assert traffic.next_arrival_ns() is None
    traffic.on_done(first[0], 1000)
    (nxt,) = traffic.pop_due(1000)
    assert (nxt.model, nxt.frame_id, nxt.arrival_ns, nxt.stream) == ("a", 1, 1000, 0)


def test_stream_stops_issuing_after_the_window() -> None:
    traffic = Traffic(scenario(Arrival.stream), {}, np.random.default_rng(0))
    first = traffic.pop_due(0)
    traffic.on_done(first[0], int(1.5 * NS_PER_S))
    assert traffic.pop_due(int(1.5 * NS_PER_S)) == []


def test_periodic_frames_every_period_for_every_model() -> None:
    traffic = Traffic(scenario(Arrival.periodic), {}, np.random.default_rng(0))
    reqs = drain(traffic, 10 * NS_PER_S)
    assert len(reqs) == 2 * 15  # 1.5 s at 10 fps, two models
    frame3 = [r for r in reqs if r.frame_id == 3]
    assert {r.model for r in frame3} == {"a", "b"}
    assert {r.arrival_ns for r in frame3} == {3 * NS_PER_S // 10}


def test_warmup_requests_are_marked() -> None:
    traffic = Traffic(scenario(Arrival.periodic), {}, np.random.default_rng(0))
    reqs = drain(traffic, 10 * NS_PER_S)
    assert sum(traffic.is_warmup(r) for r in reqs) == 2 * 5


@pytest.mark.parametrize("seed", [1, 2])
def test_poisson_is_reproducible_per_seed(seed: int) -> None:
    def arrivals(s: int) -> list[int]:
        t = Traffic(scenario(Arrival.poisson), {}, np.random.default_rng(s))
        return [r.arrival_ns for r in drain(t, 10 * NS_PER_S)]

    assert arrivals(seed) == arrivals(seed)
    assert arrivals(seed) != arrivals(seed + 10)
    gaps = np.diff(sorted(arrivals(seed)))
    assert (gaps >= 0).all()


def test_poisson_mean_rate_matches_fps() -> None:
    t = Traffic(scenario(Arrival.poisson, duration_s=200.0, warmup_s=0.0), {},
                np.random.default_rng(3))
    reqs = drain(t, 1000 * NS_PER_S)
    per_model = len(reqs) / 2 / 200.0
    assert per_model == pytest.approx(10.0, rel=0.08)


def test_frames_issue_the_next_frame_when_every_request_of_one_ended() -> None:
    traffic = Traffic(scenario(Arrival.frames, frames_in_flight=1), {}, np.random.default_rng(0))
    a, b = traffic.pop_due(0)
    assert (a.frame_id, b.frame_id, a.arrival_ns) == (0, 0, 0)
    traffic.on_done(a, 100)
    assert traffic.next_arrival_ns() is None
    traffic.on_done(b, 250)
    assert [(r.model, r.frame_id, r.arrival_ns) for r in traffic.pop_due(250)] == [
        ("a", 1, 250), ("b", 1, 250)]


def test_a_dropped_frame_waits_one_camera_period() -> None:
    traffic = Traffic(scenario(Arrival.frames, frames_in_flight=1), {}, np.random.default_rng(0))
    a, b = traffic.pop_due(0)
    traffic.on_done(a, 100, dropped=True)
    traffic.on_done(b, 200)
    assert traffic.pop_due(200) == []
    assert traffic.next_arrival_ns() == 200 + NS_PER_S // 10  # fps = 10
