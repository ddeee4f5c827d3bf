"""What a run checks and does before its loop starts (:mod:`harness.experiment`): bad input (an
unknown model, ADMS asked of a phone, a phone behind no adb server) is a
:class:`~harness.seams.errors.UserError` before anything runs, and the device loads only the
plans the baseline runs, SLO base or not, once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from devices.twin import TwinDevice
from harness.experiment.baseline import run_baseline
from harness.experiment.session import scenario_models
from harness.reporting.store import RunRecorder
from harness.seams.errors import UserError
from tests.fixtures.runs import SHORT, compose_run


def test_unknown_model_is_a_user_error_before_anything_runs() -> None:
    with pytest.raises(UserError, match=r"no_such_model.*zoo lacks"):
        compose_run("scenario.models=[mobilenet_v1,no_such_model]")


def test_a_phone_refuses_a_host_baseline_before_anything_runs() -> None:
    """Plain threads are the host's: composing such a run fails before reaching a phone."""
    with pytest.raises(UserError, match=r"'threads'.*runs only on a host device"):
        compose_run("scenario=single", "device=adb", "run=[threads]")


def test_a_phone_behind_no_adb_server_is_a_user_error() -> None:
    """The adb backend end to end is in tests/devices/adb; here only: no server, one error."""
    with pytest.raises(UserError, match=r"no adb server answers at 127\.0\.0\.2:1"):
        compose_run("device=adb", "run=[tflite]", "device.adb.host=127.0.0.2",
                    "device.adb.port=1")


def test_the_device_loads_only_the_baselines_own_plans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With SLOs, TFLite plans are profiled for the SLO base; the device must still load only
    the baseline's own plans (the twin tracks where a job's tensors live by plan), once."""
    loaded: list[int] = []
    real_load = TwinDevice.load

    def recording_load(self: TwinDevice, graphs: Any, plans: Any) -> None:
        loaded.append(max(p.num_units for p in plans.values()))
        real_load(self, graphs, plans)

    monkeypatch.setattr(TwinDevice, "load", recording_load)
    cfg = compose_run("scenario=frs", "scenario.slo_multiplier=1.0", *SHORT)
    recorder = RunRecorder(tmp_path / "run")
    try:
        facts = run_baseline(cfg, "adms", scenario_models(cfg), recorder, lambda _ns: None,
                             None).facts
    finally:
        recorder.close()
    assert set(facts["slo_ns"]) == set(cfg.scenario.models)  # the TFLite base was profiled
    assert loaded == [max(c.unit for c in facts["plans"].values())] and loaded[0] > 1
