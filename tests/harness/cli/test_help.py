"""``harness --help`` lists the composed run's options with their unit, range and meaning."""

from __future__ import annotations

from harness.cli.help import run_options, template, with_help
from harness.experiment.session import compose_run


def test_the_help_lists_each_option_with_unit_range_and_meaning() -> None:
    cfg, _ = compose_run(["device=host", "run=[threads,adms]"])
    text = template(run_options(cfg))
    assert "scenario.duration_s = 10.0  [s, > 0" in text
    assert "measured duration, after warm-up" in text
    assert "device.host." in text and "baselines.adms." in text
    assert "baselines.band." not in text  # only what `run` names
    assert "$APP_CONFIG_GROUPS" not in text and "$FLAGS_HELP" in text


def test_help_puts_the_overrides_before_hydras_flags() -> None:
    argv = with_help(["--help", "device=p20"])
    assert argv == ["hydra/help=harness", "device=p20", "--help"]
