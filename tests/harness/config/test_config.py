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
    # a dry run reaches no phone (otherwise the generic adb config is named after the phone
    # it probes)
    phone = ["run=[tflite,band]", "dry_run=true"] if device == "adb" else []
    run = compose(f"device={device}", f"scenario={scenario}", *phone)
    assert run.device.name == device and run.scenario.name == scenario
    kind = device_class(run.device).kind
    assert kind.word in ("twin", "host", "adb")
    assert run.device.processors
    assert run.run == (["tflite", "band"] if phone else
                       ["tflite", "tflite_gpu", "band", "adms", "adms_ef"])


@pytest.mark.parametrize("scheduler", [s.name for s in SchedulerName])
def test_every_band_scheduler_composes(scheduler: str) -> None:
    assert compose(f"baselines.band.scheduler={scheduler}").baselines["band"].scheduler.name == (
        scheduler)


#: every named baseline and what sets it apart (conf/baseline/<name>.yaml)
NAMED: dict[str, dict[str, object]] = {
    "tflite": {"placement": "best"},
    "tflite_gpu": {"placement": "fixed", "default_processor": "gpu",
                   "quantized_processors": ["npu", "apu", "dsp"]},
    "band": {"scheduler": "least_slack_time_first", "minimum_subgraph_size": 1,
             "schedule_window_size": 10, "slo_check": "executed", "drop_on_slo": True},
    "band7": {"scheduler": "least_slack_time_first", "minimum_subgraph_size": 7,
              "schedule_window_size": 0},
    "band_fixed_worker": {"scheduler": "fixed_worker", "minimum_subgraph_size": 1},
    "band_round_robin": {"scheduler": "round_robin", "minimum_subgraph_size": 1},
    "band_sel": {"scheduler": "shortest_expected_latency", "minimum_subgraph_size": 1},
    "band_heft": {"scheduler": "heterogeneous_earliest_finish_time",
                  "minimum_subgraph_size": 1},
    "band_heft_reserved": {"scheduler": "heterogeneous_earliest_finish_time_reserved",
                           "minimum_subgraph_size": 1},
    # adms is the paper's rule at its strongest reading, the project's additions off
    # (docs/adms-as-built.md)
    "adms": {"earliest_finish": False, "queue_aware": False, "work_conserving": False,
             "exclusive_aware": False, "idle_order": "device", "use_monitor": True,
             "window_size": 0, "alpha": 1.0, "gamma": 1.0, "delta": 1.0,
             "slo_reading": "budget", "loop_call_size": 4, "tuner": "mix",
             "pairing": "job_first", "t_latency": "free_device", "score_order": "lowest_first"},
    # adms_ef is ADMS as built: the processor-asks reading with the four additions on
    "adms_ef": {"earliest_finish": True, "queue_aware": True, "exclusive_aware": True,
                "idle_order": "load", "pairing": "processor_asks", "work_conserving": False},
    "adms_asks": {"pairing": "processor_asks", "idle_order": "device",
                  "t_latency": "on_processor", "earliest_finish": False},
    "adms_job_first_free_latency": {"pairing": "job_first", "t_latency": "free_device"},
    # ... the other readings of the paper's rule (docs/adms-as-built.md)
    "adms_asks_reverse": {"pairing": "processor_asks", "idle_order": "reverse"},
    "adms_asks_load": {"pairing": "processor_asks", "idle_order": "load"},
    "adms_asks_free_latency": {"pairing": "processor_asks", "t_latency": "free_device"},
    "adms_asks_since_arrival": {"pairing": "processor_asks", "t_latency": "since_arrival"},
    "adms_asks_time_left": {"pairing": "processor_asks", "slo_reading": "time_left"},
    "adms_asks_wait": {"pairing": "processor_asks", "earliest_finish": True},
    "adms_job_first": {"pairing": "job_first", "t_latency": "on_processor"},
    "adms_job_first_since_arrival": {"pairing": "job_first", "t_latency": "since_arrival"},
    "adms_job_first_time_left": {"pairing": "job_first", "slo_reading": "time_left"},
    "adms_job_first_wait": {"pairing": "job_first", "earliest_finish": True},
    "adms_highest_first": {"pairing": "job_first", "score_order": "highest_first"},
    "adms_per_model": {"tuner": "per_model", "earliest_finish": False},
    # ablations of adms_ef's additions sit on adms_ef ...
    "adms_eqs_only": {"earliest_finish": False, "queue_aware": True, "window_size": 0},
    "adms_strict": {"earliest_finish": True, "queue_aware": False, "work_conserving": False},
    "adms_work_conserving": {"earliest_finish": True, "queue_aware": True,
                             "work_conserving": True},
    "adms_selfish": {"exclusive_aware": False, "queue_aware": True},
    "adms_lp_split": {"lp_split": True, "exclusive_aware": True},
    "adms_shed": {"shed": True, "window_size": 0, "earliest_finish": True},
    # ... ablations of the paper's mechanisms sit on adms
    "adms_window1": {"window_size": 1, "earliest_finish": False},
    "adms_no_partition": {"partition": False, "queue_aware": False},
    "adms_no_monitor": {"use_monitor": False, "window_size": 0},
    "adms_no_priority": {"alpha": 0.0, "gamma": 0.0, "delta": 0.0, "use_monitor": True},
    "threads": {"kernel": "xnnpack", "threads": 1, "cores": None},
    # a phone's stock tools as cross-checks: vanilla TFLite's and Band's own settings
    "tflite_stock": {"placement": "fixed", "default_processor": "gpu"},
    "band_stock": {"scheduler": "least_slack_time_first", "minimum_subgraph_size": 1},
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_each_named_baseline_has_its_configuration(name: str) -> None:
    conf = compose().baselines[name]
    got = {k: getattr(conf, k) for k in NAMED[name]}
    got = {k: v.value if hasattr(v, "value") else v for k, v in got.items()}
    assert got == NAMED[name]


def test_every_named_baseline_is_listed_and_groups_name_known_ones() -> None:
    cfg = compose()
    assert set(cfg.baselines) == set(NAMED)
    assert cfg.run == ["tflite", "tflite_gpu", "band", "adms", "adms_ef"]
    assert set(cfg.groups["band_best"]) >= {"band", "band_fixed_worker", "band_round_robin",
                                            "band_sel", "band_heft", "band_heft_reserved"}
    for members in cfg.groups.values():
        assert set(members) <= set(NAMED)


def test_baseline_options_compose_where_they_belong() -> None:
    assert compose("baseline@baselines.band=band7").baselines["band"].minimum_subgraph_size == 7
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
