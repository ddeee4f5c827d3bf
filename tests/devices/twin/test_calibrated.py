"""Measured latencies in preference to the roofline (``measured_us``, devices/twin/latency.py).

On the K50 Pro twin with every mechanism on: a measured (model, op set) alone at the top
frequency takes exactly the measured time whatever the roofline says; the rest stays the
roofline's; throttling and contention still act on a measured subgraph; and what a
single-model benchmark does not pay (boundary copies, the scheduler's dispatch) comes on top.
Bad keys are one-line errors.
"""

from __future__ import annotations

import copy

import pytest

from devices.twin.calibrate import load_conf, whole_model_ns
from devices.twin.calibrated import check_measured
from devices.twin.config import TwinDeviceConf
from devices.twin.latency import OpTable
from devices.twin.spec import TwinSpec, measured_key, op_ranges, parse, parse_measured_key
from harness.models import zoo
from harness.seams.errors import UserError
from tests.fixtures.paths import REPO

K50 = REPO / "conf/device/k50pro.yaml"
GRAPH = zoo.load_graph("mobilenet_v1")
HEAD = frozenset(range(0, 10))


@pytest.fixture(scope="module")
def conf() -> TwinDeviceConf:
    return load_conf(K50)


def with_measured(conf: TwinDeviceConf, processor: str, table: dict[str, float]) -> TwinSpec:
    mine = copy.deepcopy(conf)
    block = next(p for p in mine.processors if p.name == processor).twin
    assert block is not None
    block.measured_us = table
    return parse(mine)


def test_op_range_keys_round_trip() -> None:
    assert op_ranges({5, 0, 1, 2, 7, 8}) == "0-2,5,7-8"
    assert parse_measured_key(measured_key("m:x", {3, 1, 2})) == ("m:x", frozenset({1, 2, 3}))
    for bad in ("nomodel", "m:", "m:3-1", "m:a-b"):
        with pytest.raises(ValueError):
            parse_measured_key(bad)


def test_a_measured_model_takes_the_measured_time(conf: TwinDeviceConf) -> None:
    plain = parse(conf)
    gpu = plain.processor("gpu")
    roofline_ns = whole_model_ns(gpu, plain.device, GRAPH)
    whole = measured_key("mobilenet_v1", range(GRAPH.num_ops))
    for measured_us in (roofline_ns / 1e3 * 2.5, roofline_ns / 1e3 / 4, 50.0):
        spec = with_measured(conf, "gpu", {whole: measured_us})
        got = whole_model_ns(spec.processor("gpu"), spec.device, GRAPH)
        assert got == pytest.approx(measured_us * 1e3, rel=1e-9)
    # the other processors and the unmeasured subgraphs keep the roofline
    spec = with_measured(conf, "gpu", {whole: 1234.0})
    assert whole_model_ns(spec.processor("cpu"), spec.device, GRAPH) == pytest.approx(
        whole_model_ns(plain.processor("cpu"), plain.device, GRAPH))
    mine = OpTable.of(spec.processor("gpu"), GRAPH, spec.device).subgraph(HEAD)
    theirs = OpTable.of(gpu, GRAPH, plain.device).subgraph(HEAD)
    assert mine.latency_ns(1.0, 10.0) == theirs.latency_ns(1.0, 10.0)


def test_mechanisms_still_act_on_a_measured_subgraph(conf: TwinDeviceConf) -> None:
    spec = with_measured(conf, "gpu", {measured_key("mobilenet_v1", HEAD): 900.0})
    gpu, dev = spec.processor("gpu"), spec.device
    table = OpTable.of(gpu, GRAPH, dev)
    alone_bw = gpu.bandwidth_share * dev.memory_bandwidth_gbps
    shared = table.subgraph(HEAD, shared=True)
    assert shared.latency_ns(1.0, alone_bw) == pytest.approx(900e3)
    assert shared.latency_ns(0.5, alone_bw) > 900e3 * 1.3  # throttled: slower
    assert shared.latency_ns(1.0, alone_bw / 4) > 900e3  # contended: slower
    own = table.subgraph(HEAD)  # its own interpreter, dispatched by a scheduler
    extra_ns = dev.scheduler_fixed_us * 1e3
    assert own.latency_ns(1.0, alone_bw) > 900e3 + extra_ns


def test_bad_measured_tables_are_one_line_errors(conf: TwinDeviceConf) -> None:
    with pytest.raises(UserError, match="measured_us key 'mobilenet_v1' is not"):
        with_measured(conf, "gpu", {"mobilenet_v1": 10.0})
    out_of_range = (r"measured_us\.mobilenet_v1:0-3=-1 is out of range: "
                    r"it must be > 0 and <= [0-9]+ µs")
    with pytest.raises(UserError, match=out_of_range):
        with_measured(conf, "gpu", {"mobilenet_v1:0-3": -1.0})
    spec = with_measured(conf, "gpu", {f"mobilenet_v1:0-{GRAPH.num_ops}": 10.0})
    with pytest.raises(UserError, match="calibrate the twin again"):
        check_measured(spec.name, spec.processors, GRAPH)
