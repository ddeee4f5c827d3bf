"""The slice cache stays within 1.5x the models it cuts (``SliceCache.BUDGET``).

Plans hold overlapping op sets (a merged subgraph for every range of units), and each slice
file carries the weights of its own range, so the files of every range of a model add up to
several times the model. Checked on a tiny model (every range of its ops) and on a zoo model
through the host device (``-m zoo``: every range of six cuts, loaded and closed):

* before a trim the ranges' files do exceed the budget (the duplication is real);
* after it they take at most 1.5x the model, and every slice still comes back: rebuilt from
  the source, byte for byte the file first built (and checked to run when first built);
* the op set of every op is the source file itself, with the source's input order.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from devices.host.config import HostDeviceConf, HostProcessorConf
from devices.host.device import HostDevice
from devices.host.slicecache import SliceCache
from devices.host.spec import available_cores
from devices.opsupport import SupportRules
from harness.models.tflite_io import read_tflite
from harness.seams.plan import ModelPlan, ProcessorKind, Subgraph
from tests.devices.host.test_zoo_slicing import zoo_tflite
from tests.fixtures import raw


def every_range(num_ops: int, cuts: int | None = None) -> list[range]:
    """Every contiguous range between cut points (``cuts`` evenly spaced; all ops if None)."""
    points = list(range(num_ops + 1)) if cuts is None else sorted(
        {round(k * num_ops / cuts) for k in range(cuts + 1)})
    return [range(a, b) for a, b in itertools.combinations(points, 2)]


def test_trim_keeps_the_cache_within_budget_and_slices_come_back(
        tiny_models: dict[str, Path], tmp_path: Path) -> None:
    path = tiny_models["chain"]
    cache, size = SliceCache(tmp_path), path.stat().st_size
    num_ops = read_tflite(path).num_ops
    first = {r: cache.get(path, r).read_bytes() for r in every_range(num_ops)
             if len(r) < num_ops}
    assert cache.footprint(path) > SliceCache.BUDGET * size
    assert cache.trim() > 0
    assert 0 < cache.footprint(path) <= SliceCache.BUDGET * size
    for r, data in first.items():
        assert cache.get(path, r).read_bytes() == data


def test_every_op_is_the_source_file_itself(tiny_models: dict[str, Path],
                                            tmp_path: Path) -> None:
    path = tiny_models["branchy"]
    graph = read_tflite(path)
    piece = SliceCache(tmp_path).slice(path, range(graph.num_ops))
    assert piece.path == path
    assert piece.input_tensors == graph.inputs and piece.output_tensors == graph.outputs
    assert not list(tmp_path.rglob("*.tflite"))
    again = SliceCache(tmp_path).slice(path, range(graph.num_ops))
    assert again == piece


def one_core(cache: bool = False) -> HostDeviceConf:
    host = {"kernel": "xnnpack", "threads": 1, "cores": [available_cores()[0]]}
    proc = HostProcessorConf(name="p", kind=ProcessorKind.CPU, support=SupportRules.all,
                             host=raw(host))
    return HostDeviceConf(name="t", processors=[proc],
                          host=raw({"profile_cache": cache, "eager_build_limit": 1000}))


@pytest.mark.zoo
def test_a_zoo_models_overlapping_slices_stay_within_budget_after_a_run(
        tmp_path: Path) -> None:
    path = zoo_tflite("mobilenet_v2")
    graph = read_tflite(path, "mobilenet_v2")
    subgraphs = tuple(Subgraph(k, graph.name, "p", frozenset(r), (k,))
                      for k, r in enumerate(every_range(graph.num_ops, cuts=6)))
    units = tuple(sg.ops for sg in subgraphs)
    plan = ModelPlan(graph.name, units, tuple(frozenset({"p"}) for _ in units), subgraphs)
    cache = SliceCache(tmp_path)  # the device cuts under its cache_dir
    with HostDevice(one_core(), {graph.name: path}, tmp_path) as device:
        device.load({graph.name: graph}, {graph.name: plan})
        assert cache.footprint(path) > SliceCache.BUDGET * path.stat().st_size
    assert 0 < cache.footprint(path) <= SliceCache.BUDGET * path.stat().st_size
