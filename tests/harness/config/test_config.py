"""Every config option composes into the typed schema; typos and wrong types are rejected."""

from __future__ import annotations

import itertools

import pytest

from baselines.band.config import SchedulerName
from harness.config.schema import RunConf
from harness.experiment.components import device_class
from harness.seams.errors import UserError
from tests.fixtures.paths import REPO
from tests.fixtures.runs import compose_run

CONF = REPO / "conf"


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


def compose(*overrides: str) -> RunConf:
    return compose_run(*overrides)


@pytest.mark.parametrize(("device", "scenario"),
                         list(itertools.product(options("device"), options("scenario"))))
def test_every_device_and_scenario_compose(device: str, scenario: str) -> None:
    # a phone runs tflite and band (ADMS needs an on-device executor); a dry run reaches no
    # phone (otherwise the generic adb config is named after the phone it probes)
    phone = ["run=[tflite,band]", "dry_run=true"] if device == "adb" else []
    run = compose(f"device={device}", f"scenario={scenario}", *phone)
    assert run.device.name == device and run.scenario.name == scenario
    kind = device_class(run.device).kind
    assert kind in ("twin", "host", "adb")
    assert run.device.processors
    assert run.run == (["tflite", "band"] if phone else ["tflite", "band", "adms"])


@pytest.mark.parametrize("scheduler", [s.name for s in SchedulerName])
def test_every_band_scheduler_composes(scheduler: str) -> None:
    assert compose(f"baselines.band.scheduler={scheduler}").baselines["band"].scheduler.name == (
        scheduler)


def test_baseline_options_compose_where_they_belong() -> None:
    assert compose().baselines["band"].minimum_subgraph_size == 7
    sample = compose("baseline@baselines.band=band_sample").baselines["band"]
    assert sample.minimum_subgraph_size == 1
    with pytest.raises(UserError, match="window_size"):
        compose("baselines.band.window_size=3")  # an ADMS option on Band's config


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("scenario.duraton_s=3", "duraton_s"),
        ("scenario.duration_s=three", "three"),
        ("scenario.arrival=bursty", "bursty"),
        ("device.processors.0.kind=TPU", "TPU"),
        ("device.processors.0.support=coreml", "coreml"),
        ("baselines.adms.loop_call_size=many", "many"),
        ("device=pixel9", "pixel9"),
    ],
)
def test_typos_and_wrong_types_are_rejected(override: str, needle: str) -> None:
    with pytest.raises(UserError, match=needle):
        compose(override)
