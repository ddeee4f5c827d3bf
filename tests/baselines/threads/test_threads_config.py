"""The ``threads`` baseline's config: composed with its defaults on the host, and a one-line
user error naming the device kind anywhere else."""

from __future__ import annotations

import subprocess
import sys

import pytest

from baselines.threads import ThreadsBaseline, ThreadsConf
from baselines.threads.config import TARGET
from harness.experiment.components import policy_class
from harness.experiment.session import compose_run
from harness.seams.errors import UserError
from harness.seams.policy import Runner
from tests.fixtures.paths import REPO
from tests.harness.experiment.test_cli import assert_user_error


@pytest.mark.parametrize("device", ["host", "host_equal"])
def test_threads_composes_on_host_devices_with_its_defaults(device: str) -> None:
    cfg, _ = compose_run([f"device={device}", "run=[threads,adms]"])
    conf = cfg.baselines["threads"]
    assert isinstance(conf, ThreadsConf)
    assert (conf.kernel, conf.threads, conf.cores) == ("xnnpack", 1, None)


def test_the_baseline_declares_its_runner_which_the_host_runs() -> None:
    cfg, _ = compose_run(["device=host", "run=[threads]"])
    module = ThreadsBaseline.__module__.rsplit(".", 1)[0]
    assert f"{module}.{ThreadsBaseline.__name__}" == TARGET
    assert policy_class("threads", cfg.baselines).runner is Runner.THREADS


@pytest.mark.parametrize(("overrides", "kind"), [
    (["device=p20", "scenario=ros"], "twin"),
    (["device=adb", "device.serial=NOPHONE"], "adb"),
])
def test_threads_elsewhere_is_refused_before_anything_runs(overrides: list[str],
                                                           kind: str) -> None:
    with pytest.raises(UserError, match=f"threads.*host.*not on a {kind} device"):
        compose_run([*overrides, "run=[tflite,threads]"])


def test_threads_on_a_twin_is_one_error_line_and_exit_2() -> None:
    proc = subprocess.run([sys.executable, "-m", "harness", "device=k50pro", "run=[threads]"],
                          cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert_user_error(proc, "'threads'", "twin")
