"""The contract every device backend passes (every class a ``conf/device/*.yaml`` names).

Subclass :class:`DeviceContract` in a backend's test module and provide

* a fixture ``device_under_test`` returning ``(device, plan, graph, run_until_done)``: a device
  already ``load``-ed with ``{graph.name: graph}`` and ``{plan.model: plan}``, and a callable
  with no arguments that returns once every subgraph started so far has reported completion;
* the class attribute ``available_sensors``: the :class:`SensorSample` fields this backend
  really measures. The others must be ``None`` (unavailable sensors are never invented).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from functools import cache
from typing import Any

import pytest

from harness.config.compose import compose
from harness.experiment.components import device_class, register
from harness.seams.device import Clock, Device, DeviceKind
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan
from harness.seams.records import Completion, Request, SensorSample
from tests.fixtures.paths import REPO

DeviceUnderTest = tuple[Any, ModelPlan, ModelGraph, Callable[[], None]]

SENSOR_FIELDS = tuple(f.name for f in fields(SensorSample) if f.name not in ("processor", "t_ns"))


@cache
def configured_device_classes() -> dict[str, Any]:
    """Each ``conf/device/*.yaml`` -> the class its ``_target_`` names (composed, not opened)."""
    register()
    return {path.stem: device_class(compose("config", [f"device={path.stem}"]).device)
            for path in sorted((REPO / "conf" / "device").glob("*.yaml"))}


def _first_subgraph(plan: ModelPlan) -> Any:
    return plan.candidates(0)[0]


class DeviceContract:
    """Generic tests of the :class:`harness.seams.device.Device` protocol."""

    available_sensors: frozenset[str] = frozenset()

    @pytest.fixture
    def device_under_test(self) -> DeviceUnderTest:  # pragma: no cover - overridden
        raise NotImplementedError("subclasses provide device_under_test")

    def test_implements_the_protocol(self, device_under_test: DeviceUnderTest) -> None:
        device = device_under_test[0]
        assert isinstance(device, Device)

    def test_describe_names_kind_and_processors(self, device_under_test: DeviceUnderTest) -> None:
        device, plan, _, _ = device_under_test
        info = device.describe()
        kind = type(device).kind
        assert isinstance(kind, DeviceKind) and kind.word and kind.meaning
        assert info.kind == kind.word
        assert kind in {cls.kind for cls in configured_device_classes().values()}
        names = [p.name for p in info.processors]
        assert names and len(names) == len(set(names))
        assert plan.processors() <= set(names)

    def test_op_support_names_every_processor(self, device_under_test: DeviceUnderTest) -> None:
        device, _, graph, _ = device_under_test
        table = device.op_support(graph)
        assert set(table) == {p.name for p in device.describe().processors}
        assert all(ops <= set(range(graph.num_ops)) for ops in table.values())

    def test_start_clock_begins_the_run_at_zero(self, device_under_test: DeviceUnderTest
                                                ) -> None:
        clock = device_under_test[0].start_clock()
        assert isinstance(clock, Clock)
        now = clock.now_ns()
        assert isinstance(now, int) and 0 <= now < 10**9  # time 0 is now (a second's grace)

    def test_profile_is_a_positive_int(self, device_under_test: DeviceUnderTest) -> None:
        device, plan, _, _ = device_under_test
        for sg in plan.subgraphs:
            ns = device.profile(plan, sg)
            assert isinstance(ns, int) and ns > 0

    def test_start_reports_one_completion(self, device_under_test: DeviceUnderTest) -> None:
        device, plan, _, run_until_done = device_under_test
        sg = _first_subgraph(plan)
        request = Request(request_id=7, model=plan.model, frame_id=-1, arrival_ns=0)
        done: list[Completion] = []
        device.start(3, request, sg, 0, done.append)
        run_until_done()
        assert len(done) == 1
        c = done[0]
        assert (c.job_id, c.request, c.subgraph, c.ok) == (3, request, sg, True)
        assert isinstance(c.start_ns, int) and isinstance(c.end_ns, int)
        assert c.end_ns >= c.start_ns

    def test_one_sensor_sample_per_processor(self, device_under_test: DeviceUnderTest) -> None:
        device = device_under_test[0]
        samples = device.read_sensors(0)
        names = [p.name for p in device.describe().processors]
        assert sorted(s.processor for s in samples) == sorted(names)
        for s in samples:
            assert isinstance(s, SensorSample) and isinstance(s.t_ns, int)
            _check_ranges(s)

    def test_unavailable_sensors_are_none(self, device_under_test: DeviceUnderTest) -> None:
        device = device_under_test[0]
        assert self.available_sensors <= set(SENSOR_FIELDS)
        for s in device.read_sensors(0):
            for name in SENSOR_FIELDS:
                value = getattr(s, name)
                if name in self.available_sensors:
                    assert value is not None, f"{s.processor}.{name} declared available"
                else:
                    assert value is None, f"{s.processor}.{name} invented: {value!r}"


def _check_ranges(s: SensorSample) -> None:
    if s.load is not None:
        assert 0.0 <= s.load <= 1.0
    if s.temperature_c is not None:
        assert -40.0 < s.temperature_c < 150.0
    if s.power_w is not None:
        assert s.power_w >= 0.0
    if s.frequency_hz is not None and s.max_frequency_hz is not None:
        assert 0 < s.frequency_hz <= s.max_frequency_hz * (1 + 1e-9)
